/*
 * libFuzzer harness for the exported tests' wire
 * (src/export/kselftest/npg_kst_wire.c), built from the runtime's own
 * sources as an export builds them: what the test and its puppets send
 * each other. See wire.h for the input and what must hold.
 * `make fuzz FUZZ_TARGETS=kst-wire`.
 */
#include "npg_kst.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int send_msg(int sock, const void *m, int fd)
{
	return kst_send_msg(sock, m, fd);
}

static int recv_msg(int sock, void *m, int *fd)
{
	return kst_recv_msg(sock, m, fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct wire_ops ops = { sizeof(struct msg), send_msg, recv_msg };

	return wire_fuzz(&ops, data, size);
}
