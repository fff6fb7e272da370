/*
 * The real backend's private directory for what a scenario executes by
 * path: a path declared missing (execve() must fail with ENOENT after the
 * RLIMIT_NPROC test), and set-id or file-capability copies of nprocguard.
 * Root-owned, mode 0755, on a file system that honours set-id bits and
 * allows exec, reachable (searchable) by every uid; removed with all it
 * holds at the end of the run, on error, and on SIGINT/SIGTERM (teardown.c).
 */
#ifndef NPG_REAL_EXECDIR_H
#define NPG_REAL_EXECDIR_H

#include <stddef.h>

#define NPG_EXECDIR_PATH 256	/* longest path kept, the file names included */

/*
 * Make the directory; its path goes to @dir. 0, or -1 with a reason in @err.
 * Candidates, in order: $TMPDIR, /tmp, /var/tmp, /dev/shm.
 */
int npg_execdir_create(char *dir, size_t len, char *err, size_t errlen);

/* Remove @dir and every file in it (no subdirectories are made). */
void npg_execdir_remove(const char *dir);

#endif
