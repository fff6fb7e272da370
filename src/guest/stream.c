/*
 * The guest's side channel (fourth serial port, written by /init), and what
 * the first one -- the kernel's console -- says when no result came.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest/guest.h"

#define CONSOLE_TAIL 1536	/* bytes of the console shown after a failure */

/* A name the guest may give a file: one plain, visible name in the directory */
static bool file_name_ok(const char *name)
{
	if (!name[0] || name[0] == '.' || strlen(name) >= sizeof(((struct npg_guest_files *)0)->name))
		return false;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p == '/' || *p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

static void file_failed(struct npg_guest_files *f, const char *name, const char *why)
{
	if (!f->error[0])
		snprintf(f->error, sizeof(f->error), "%s/%s: %s", f->dir, name, why);
	if (f->fd >= 0) {
		close(f->fd);
		unlinkat(f->dirfd, f->part, 0);
		f->fd = -1;
	}
}

/* "npg-guest: file SIZE NAME": its bytes follow */
static void file_begin(struct npg_guest_status *s, const char *arg)
{
	struct npg_guest_files *f = s->files;
	unsigned long long size;
	int n = -1;

	if (sscanf(arg, "%llu %n", &size, &n) != 1 || n < 0) {
		snprintf(s->error, sizeof(s->error), "a file announced without its size: %.200s", arg);
		s->state = NPG_GUEST_FAILED;
		return;
	}
	arg += n;
	if (!f) {
		s->skip = size;	/* no file was asked for: its bytes are dropped */
		return;
	}
	f->fd = -1;
	f->left = size;
	/* said as it came, but never a control character to the terminal */
	snprintf(f->name, sizeof(f->name), "%s", arg);
	for (char *p = f->name; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	if (!file_name_ok(arg)) {
		file_failed(f, f->name, "not one plain file name: not written");
	} else if (size > NPG_GUEST_FILE_MAX) {
		file_failed(f, arg, "larger than 16 MiB: not written");
	} else {
		snprintf(f->part, sizeof(f->part), ".%s.part", arg);
		f->fd = openat(f->dirfd, f->part, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
			       0666);
		if (f->fd < 0)
			file_failed(f, arg, strerror(errno));
	}
	if (f->left == 0)
		npg_guest_files_end(f);
}

static void file_data(struct npg_guest_files *f, const char *buf, size_t len)
{
	f->left -= len;
	while (f->fd >= 0 && len > 0) {
		ssize_t n = write(f->fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			file_failed(f, f->name, n < 0 ? strerror(errno) : "nothing written");
			break;
		}
		buf += n, len -= (size_t)n;
	}
	if (f->left == 0)
		npg_guest_files_end(f);
}

void npg_guest_files_end(struct npg_guest_files *f)
{
	if (!f || f->fd < 0)
		return;
	if (f->left > 0) {
		char why[96];

		snprintf(why, sizeof(why), "cut short: %" PRIu64 " bytes of it never came", f->left);
		file_failed(f, f->name, why);
		return;
	}
	if (close(f->fd) < 0) {
		f->fd = -1;
		unlinkat(f->dirfd, f->part, 0);
		file_failed(f, f->name, strerror(errno));
		return;
	}
	f->fd = -1;
	if (renameat(f->dirfd, f->part, f->dirfd, f->name) < 0) {
		file_failed(f, f->name, strerror(errno));
		unlinkat(f->dirfd, f->part, 0);
		return;
	}
	f->received++;
}

/*
 * What the guest wrote is shown on the user's terminal: a control byte (an
 * escape sequence from a hostile or broken guest) is shown as '?', so it cannot
 * move the cursor, retitle the window or hide the lines around it.
 */
static void make_printable(char *s, bool keep_newlines)
{
	for (unsigned char *p = (unsigned char *)s; *p; p++)
		if ((*p < 0x20 && !(keep_newlines && (*p == '\n' || *p == '\t'))) || *p == 0x7f)
			*p = '?';
}

static void status_line(struct npg_guest_status *s, const char *line)
{
	if (strncmp(line, "npg-guest: start ", 17) == 0) {
		snprintf(s->release, sizeof(s->release), "%s", line + 17);
		make_printable(s->release, false);
		s->state = NPG_GUEST_RUNNING;
	} else if (sscanf(line, "npg-guest: exit %d", &s->exit_status) == 1) {
		s->state = NPG_GUEST_DONE;
	} else if (sscanf(line, "npg-guest: signal %d", &s->signal) == 1) {
		s->state = NPG_GUEST_DONE;
	} else if (strncmp(line, "npg-guest: error ", 17) == 0) {
		snprintf(s->error, sizeof(s->error), "%s", line + 17);
		make_printable(s->error, false);
		s->state = NPG_GUEST_FAILED;
	} else if (strncmp(line, "npg-guest: file ", 16) == 0) {
		file_begin(s, line + 16);
	}
}

void npg_guest_status_feed(struct npg_guest_status *s, const char *buf, size_t len)
{
	for (size_t i = 0; i < len;) {
		if (s->skip > 0) {
			size_t n = len - i < s->skip ? len - i : (size_t)s->skip;

			s->skip -= n;
			i += n;
			continue;
		}
		if (s->files && s->files->left > 0) {	/* a file's bytes, not lines */
			size_t n = len - i < s->files->left ? len - i : (size_t)s->files->left;

			file_data(s->files, buf + i, n);
			i += n;
			continue;
		}
		if (buf[i] == '\n' || buf[i] == '\r') {
			s->line[s->linelen] = '\0';
			if (s->linelen)
				status_line(s, s->line);
			s->linelen = 0;
		} else if (s->linelen < sizeof(s->line) - 1) {
			s->line[s->linelen++] = buf[i];
		}
		i++;
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
	make_printable(out, true);
}

void npg_guest_diagnose(const char *console, enum npg_guest_state state, bool timed_out,
			double seconds, char *out, size_t len)
{
	char tail[CONSOLE_TAIL + 1];

	console_tail(console, tail, sizeof(tail));
	if (state == NPG_GUEST_RUNNING && timed_out)
		/* /init said it started the program: the kernel booted, whatever its console says */
		snprintf(out, len, "it hung: still running after %.0f s, the --guest-timeout, and the "
			 "guest was stopped; %s%s", seconds,
			 tail[0] ? "the end of its console:\n" : "the guest's console is empty",
			 tail);
	else if (state == NPG_GUEST_RUNNING && !tail[0])
		snprintf(out, len, "the guest stopped after %.0f s, and wrote nothing on its console "
			 "(ttyS0)", seconds);
	else if (!tail[0])
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
