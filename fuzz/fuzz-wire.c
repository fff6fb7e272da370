/*
 * libFuzzer harness for the real backend's wire (src/backend/real/wire.c):
 * what the controller and its puppets -- processes of other users, some
 * running set-id programs -- send each other. See wire.h for the input
 * and what must hold. `make fuzz FUZZ_TARGETS=wire`.
 */
#include <stdbool.h>

#include "backend/real/wire.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int send_msg(int sock, const void *m, int fd)
{
	return npg_wire_send(sock, m, fd);
}

static int recv_msg(int sock, void *m, int *fd)
{
	return npg_wire_recv(sock, m, fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct wire_ops ops = { sizeof(struct npg_wire_msg), send_msg, recv_msg };

	return wire_fuzz(&ops, data, size);
}
