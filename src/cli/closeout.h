/* Output that could not be written is an error, for every subcommand. */
#ifndef NPG_CLI_CLOSEOUT_H
#define NPG_CLI_CLOSEOUT_H

/*
 * An atexit() handler in the manner of gnulib's close_stdout: flush and
 * close stdout; if anything written to it was lost (ENOSPC, EPIPE, EBADF,
 * EIO...), say "nprocguard CMD: write error: REASON" and
 * _exit(NPG_EXIT_USAGE). Then the same for stderr, silently.
 */
void npg_close_stdout(void);
/* The subcommand the message names ("conform"); NULL: none */
void npg_closeout_command(const char *cmd);
/* The errno of a write to stdout that failed earlier, for that message */
void npg_closeout_set_errno(int err);
/*
 * Output written to stdout's descriptor past stdio (a guest's output,
 * copied as it comes) was lost with errno @err: an error at exit even
 * though stdio saw none. 0: nothing lost.
 */
void npg_closeout_lost(int err);
/*
 * fflush(stdout) before a fork or a write to the descriptor itself; a
 * failure's errno is kept for the message at exit (glibc drops the
 * buffer then, and the final flush would have nothing left to fail on).
 */
void npg_closeout_flush(void);

#endif
