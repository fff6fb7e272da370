/*
 * libFuzzer harness for what a guest says (src/guest/stream.c): the status
 * port, where /init reports "npg-guest: start|exit|signal|error ...", read
 * in whatever pieces the host's read(2) returns, and the kernel's console,
 * whose tail says why no result came. The guest's kernel and /init may be
 * anything: any bytes must leave the status well formed (a state, strings
 * terminated within their arrays) and the diagnosis a terminated string,
 * never a crash or a hang. `make fuzz FUZZ_TARGETS=stream`.
 *
 * The input: its first byte seeds the sizes of the pieces fed; all of it
 * is the status stream and, as a file, the console log.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "guest/guest.h"
#include "quiet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* what reaches the user's terminal: no escape sequence of the guest's */
static bool has_control(const char *s, bool newlines_allowed)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p < 0x20 && !(newlines_allowed && (*p == '\n' || *p == '\t'))) || *p == 0x7f)
			return true;
	return false;
}

static void check_status(const struct npg_guest_status *s)
{
	if (s->state < NPG_GUEST_BOOTING || s->state > NPG_GUEST_FAILED ||
	    s->linelen >= sizeof(s->line) || !memchr(s->release, '\0', sizeof(s->release)) ||
	    !memchr(s->error, '\0', sizeof(s->error)) || has_control(s->release, false) ||
	    has_control(s->error, false))
		abort();
}

static void diagnose(const uint8_t *data, size_t size)
{
	char path[64], out[4096];
	int fd = memfd_create("console", MFD_CLOEXEC);

	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	for (int state = NPG_GUEST_BOOTING; state <= NPG_GUEST_FAILED; state++)
		for (int timed_out = 0; timed_out < 2; timed_out++) {
			memset(out, 'x', sizeof(out));
			npg_guest_diagnose(path, state, timed_out, 12.0, out, sizeof(out));
			if (!memchr(out, '\0', sizeof(out)) || has_control(out, true))
				abort();
			/* and a caller's small buffer */
			npg_guest_diagnose(path, state, timed_out, 1e9, out, 8);
			if (!memchr(out, '\0', 8))
				abort();
		}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct npg_guest_status s;
	unsigned seed = size ? data[0] : 0;

	memset(&s, 0, sizeof(s));
	/* in pieces of 1 to 64 bytes, as a serial port's reads come */
	for (size_t off = 0; off < size;) {
		size_t n = 1 + (seed % 64);

		if (n > size - off)
			n = size - off;
		npg_guest_status_feed(&s, (const char *)data + off, n);
		check_status(&s);
		off += n;
		seed = seed * 1103515245u + 12345u;
	}
	/* the same bytes at once: the same status */
	{
		struct npg_guest_status whole;

		memset(&whole, 0, sizeof(whole));
		npg_guest_status_feed(&whole, (const char *)data, size);
		check_status(&whole);
		if (whole.state != s.state || strcmp(whole.release, s.release) != 0 ||
		    strcmp(whole.error, s.error) != 0 || whole.exit_status != s.exit_status ||
		    whole.signal != s.signal)
			abort();
	}
	npg_fuzz_quiet_begin();
	diagnose(data, size);
	npg_fuzz_quiet_end();
	return 0;
}
