/*
 * The guest's side channel (fourth serial port, written by /init), and what
 * the first one -- the kernel's console -- says when no result came.
 */
#include <stdlib.h>
#include <string.h>

#include "guest/guest.h"

#define CONSOLE_TAIL 1536	/* bytes of the console shown after a failure */

static void status_line(struct npg_guest_status *s, const char *line)
{
	if (strncmp(line, "npg-guest: start ", 17) == 0) {
		snprintf(s->release, sizeof(s->release), "%s", line + 17);
		s->state = NPG_GUEST_RUNNING;
	} else if (sscanf(line, "npg-guest: exit %d", &s->exit_status) == 1) {
		s->state = NPG_GUEST_DONE;
	} else if (sscanf(line, "npg-guest: signal %d", &s->signal) == 1) {
		s->state = NPG_GUEST_DONE;
	} else if (strncmp(line, "npg-guest: error ", 17) == 0) {
		snprintf(s->error, sizeof(s->error), "%s", line + 17);
		s->state = NPG_GUEST_FAILED;
	}
}

void npg_guest_status_feed(struct npg_guest_status *s, const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '\n' || buf[i] == '\r') {
			s->line[s->linelen] = '\0';
			if (s->linelen)
				status_line(s, s->line);
			s->linelen = 0;
		} else if (s->linelen < sizeof(s->line) - 1) {
			s->line[s->linelen++] = buf[i];
		}
	}
}

/* The last CONSOLE_TAIL bytes of @path, from a line start, NUL-terminated; "" if none. */
static void console_tail(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "rb");
	long size;
	size_t n = 0;

	out[0] = '\0';
	if (!f)
		return;
	if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0) {
		long from = size > (long)len - 1 ? size - (long)len + 1 : 0;

		fseek(f, from, SEEK_SET);
		n = fread(out, 1, len - 1, f);
		out[n] = '\0';
		if (from > 0 && strchr(out, '\n'))
			memmove(out, strchr(out, '\n') + 1, strlen(strchr(out, '\n') + 1) + 1);
	}
	fclose(f);
	for (char *p = out; *p; p++)	/* the console writes "\r\n" */
		if (*p == '\r')
			*p = ' ';
}

void npg_guest_diagnose(const char *console, bool timed_out, double seconds, char *out, size_t len)
{
	char tail[CONSOLE_TAIL + 1];

	console_tail(console, tail, sizeof(tail));
	if (!tail[0])
		snprintf(out, len, "the guest wrote nothing on its console (ttyS0) in %.0f s: the image "
			 "is not a bootable x86_64 kernel, or it lacks a serial console "
			 "(CONFIG_SERIAL_8250_CONSOLE)%s", seconds,
			 timed_out ? "" : ", and QEMU stopped");
	else if (strstr(tail, "Kernel panic"))
		snprintf(out, len, "the guest kernel panicked after %.0f s; the end of its console:\n%s",
			 seconds, tail);
	else if (timed_out)
		snprintf(out, len, "the guest hung: no result after %.0f s; the end of its console:\n%s",
			 seconds, tail);
	else
		snprintf(out, len, "the guest stopped after %.0f s without a result; the end of its "
			 "console:\n%s", seconds, tail);
}
