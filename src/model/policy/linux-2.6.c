/* Linux 2.6.0 - 3.0: Neil Brown's 2003 patch (seed 002). */
#include <errno.h>

#include "model/policy.h"

/*
 * kernel/sys.c, set_user() (seed 002, bug 2):
 *	if (atomic_read(&new_user->processes) >= current->rlim[RLIMIT_NPROC].rlim_cur
 *	    && new_user != &root_user) { free_uid(new_user); return -EAGAIN; }
 * No capability exempts the caller: a root daemon's setuid() fails.
 */
static int set_user(struct npg_world *w, struct npg_task *cur, const struct npg_cred *new)
{
	return npg_over_limit_at_set_user(w, cur, new) ? -EAGAIN : 0;
}

static int execve(struct npg_world *w, struct npg_task *cur)
{
	(void)w, (void)cur;
	return 0;	/* fs/exec.c, 2.6.x: no RLIMIT_NPROC test */
}

const struct npg_policy npg_policy_linux_2_6 = {
	.name = "linux-2.6",
	.kernels = "2.6.0 - 3.0",
	.source = "seed 002 (Neil Brown, 2003): kernel/fork.c, kernel/sys.c set_user()",
	.summary = "fork exempts the root user; set*uid fails EAGAIN when the new user is at the limit",
	.release = { 3, 0, 0 },
	.copy_process = npg_copy_process_2_6,
	.set_user = set_user,
	.execve = execve,
};
