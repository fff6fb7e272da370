/*
 * The real backend's private directory for what a scenario executes by
 * path: a path declared missing (execve() must fail with ENOENT after the
 * RLIMIT_NPROC test), and set-id or file-capability copies of nprocguard.
 * Root-owned, mode 0755, on a file system that honours set-id bits and
 * allows exec, reachable (searchable) by every uid; removed with all it
 * holds at the end of the run, on error, and on SIGINT/SIGTERM (teardown.c).
 * Files declared `nosuid` go to its subdirectory NPG_EXECDIR_NOSUID, a
 * tmpfs mounted nosuid there for the run (in the host's mount namespace,
 * where the puppets are) and detached with the directory.
 */
#ifndef NPG_REAL_EXECDIR_H
#define NPG_REAL_EXECDIR_H

#include <stddef.h>

#define NPG_EXECDIR_PATH 256	/* longest path kept, the file names included */
#define NPG_EXECDIR_NOSUID "nosuid"	/* the nosuid mount's directory in it */

/*
 * Make the directory; its path goes to @dir. 0, or -1 with a reason in @err.
 * Candidates, in order: $TMPDIR, /tmp, /var/tmp, /dev/shm.
 */
int npg_execdir_create(char *dir, size_t len, char *err, size_t errlen);

/*
 * Mount a tmpfs of @size bytes, nosuid and nodev, mode 0755, on @dir's
 * NPG_EXECDIR_NOSUID; its path goes to @sub. 0, or -1 with errno and a
 * reason in @err (no CAP_SYS_ADMIN, no tmpfs, ...): nothing is left mounted.
 */
int npg_execdir_mount_nosuid(const char *dir, unsigned long long size, char *sub, size_t len,
			     char *err, size_t errlen);

/* Detach the nosuid mount if there is one, and remove @dir and every file in it. */
void npg_execdir_remove(const char *dir);

#endif
