/* Output that could not be written is an error, for every subcommand. */
#ifndef NPG_CLI_CLOSEOUT_H
#define NPG_CLI_CLOSEOUT_H

/*
 * An atexit() handler in the manner of gnulib's close_stdout: flush and
 * close stdout; if anything written to it was lost (ENOSPC, EBADF, EIO...),
 * say "nprocguard: write error: REASON" and _exit(NPG_EXIT_USAGE). Then
 * the same for stderr, silently.
 */
void npg_close_stdout(void);
/* The errno of a write to stdout that failed earlier, for that message */
void npg_closeout_set_errno(int err);

#endif
