/*
 * What `nprocguard exec` does around npg_drop_privileges(): closing the
 * descriptors it inherited, the target user's environment, and the PATH
 * search of the command. Internal to the nprocguard binary.
 */
#ifndef NPG_PRIVDROP_EXEC_H
#define NPG_PRIVDROP_EXEC_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Close every descriptor above 2 but those in @keep[0..nkeep): close_range(2)
 * between them, or /proc/self/fd where the kernel lacks it (before 5.9).
 * Returns 0 or -1 with errno.
 */
int npg_close_fds_except(const int *keep, int nkeep);

/* The target user, for its environment (name and dir may be NULL: no passwd entry) */
struct npg_exec_user {
	uid_t uid;
	const char *name, *dir, *shell;
};

/*
 * HOME, USER, LOGNAME (and SHELL when known) for the target user, so that
 * the command does not read root's HOME; with @reset, the environment is
 * cleared first but TERM, and PATH is set as setpriv(1) --reset-env does.
 * Returns 0 or -1 (out of memory).
 */
int npg_exec_environment(const struct npg_exec_user *u, bool reset);

/*
 * execvp() with the error execvp() users expect: a directory of PATH the
 * user cannot search is not a candidate; EACCES is returned only when a
 * file named @file was found and could not be executed, ENOENT when none
 * was found. A file that is not a binary (ENOEXEC) is run by /bin/sh, as
 * execvp() does. Returns only on failure, with errno set.
 */
int npg_exec_search(const char *file, char *const argv[]);

#endif
