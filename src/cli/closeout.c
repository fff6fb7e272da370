/*
 * Write errors on the way out. A report that ends up on a full disk or a
 * closed descriptor must not look like success: `run >/dev/full` used to
 * exit 0. As coreutils and util-linux do, stdout is closed at exit and any
 * failure seen on it, then or earlier, changes the exit status.
 */
#include <errno.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/closeout.h"

static int earlier_errno;
static int lost_errno;		/* output written past stdio that was lost */
static const char *command;

void npg_closeout_command(const char *cmd)
{
	command = cmd;
}

void npg_closeout_set_errno(int err)
{
	earlier_errno = err;
}

void npg_closeout_lost(int err)
{
	if (err && !lost_errno)
		lost_errno = err;
}

void npg_closeout_flush(void)
{
	if (fflush(stdout) != 0 && !earlier_errno)
		earlier_errno = errno;
}

/*
 * gnulib's close_stream(): 0, or EOF with errno set (0 when the error was
 * an earlier one whose errno is gone). A stdout closed before we started
 * with nothing written to it is no error.
 */
static int close_stream(FILE *f)
{
	bool pending = __fpending(f) != 0;
	bool failed_before = ferror(f) != 0;
	int close_failed = fclose(f) != 0;

	if (failed_before || (close_failed && (pending || errno != EBADF))) {
		if (!close_failed)
			errno = 0;
		return EOF;
	}
	return 0;
}

void npg_close_stdout(void)
{
	int err;

	/* flush first, while the reason is still in errno */
	if (fflush(stdout) != 0) {
		err = errno;
		fclose(stdout);
		errno = err;
	} else if (close_stream(stdout) == 0 && !lost_errno) {
		if (close_stream(stderr) != 0)
			_exit(NPG_EXIT_USAGE);
		return;
	} else {
		err = lost_errno ? lost_errno : errno ? errno : earlier_errno;
	}
	fprintf(stderr, "nprocguard%s%s: write error%s%s\n", command ? " " : "",
		command ? command : "", err ? ": " : "", err ? strerror(err) : "");
	fflush(stderr);
	_exit(NPG_EXIT_USAGE);
}
