/*
 * What a guest writes reaches the user's terminal: its release, its /init's
 * error and the end of its console. A hostile or broken guest kernel can write
 * any byte there; escape sequences must not pass through to the terminal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest/guest.h"
#include "tap.h"

static bool has_control(const char *s, bool newlines_allowed)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p < 0x20 && !(newlines_allowed && (*p == '\n' || *p == '\t'))) || *p == 0x7f)
			return true;
	return false;
}

static void feed(struct npg_guest_status *s, const char *text)
{
	npg_guest_status_feed(s, text, strlen(text));
}

int main(void)
{
	struct npg_guest_status s = { 0 };
	char path[] = "/tmp/npg-test-console.XXXXXX", why[4096];
	const char console[] = "booting\r\n\x1b]0;owned\x07\x1b[2J\x1b[Hfake prompt# \x7f\tend\r\n";
	int fd;

	feed(&s, "npg-guest: start 6.1.0\x1b[31mred\x1b[0m\n");
	tap_ok(s.state == NPG_GUEST_RUNNING, "a start line is taken");
	tap_ok(!has_control(s.release, false), "the release a guest gives has no control byte: %s",
	       s.release);
	tap_ok(strstr(s.release, "6.1.0?[31mred") != NULL, "the rest of it is kept: %s", s.release);

	feed(&s, "npg-guest: error cannot \x1b]2;title\x07mount /proc\n");
	tap_ok(s.state == NPG_GUEST_FAILED, "an error line is taken");
	tap_ok(!has_control(s.error, false), "the error a guest gives has no control byte: %s",
	       s.error);

	fd = mkstemp(path);
	if (fd < 0 || write(fd, console, sizeof(console) - 1) != (ssize_t)sizeof(console) - 1) {
		perror(path);
		return 1;
	}
	close(fd);
	npg_guest_diagnose(path, NPG_GUEST_BOOTING, true, 5, why, sizeof(why));
	unlink(path);
	tap_ok(!has_control(why, true), "the end of the console is shown without escapes: %s", why);
	tap_ok(strstr(why, "fake prompt#") && strstr(why, "\tend"),
	       "its text, newlines and tabs are kept");
	return tap_done();
}
