/* Linux 2.4 (after Rik van Riel's 2001 accounting, before Neil Brown's 2003 fix). */
#include <errno.h>

#include "model/policy.h"

/*
 * kernel/fork.c, do_fork() in 2.4.x:
 *	if (atomic_read(&p->user->processes) >= p->rlim[RLIMIT_NPROC].rlim_cur
 *	    && !capable(CAP_SYS_ADMIN) && !capable(CAP_SYS_RESOURCE))
 *		goto bad_fork_free;
 * The root user is not exempt: the lprng failure of seed 002, bug 1.
 */
static int copy_process(struct npg_world *w, struct npg_task *parent,
			const struct npg_cred *charged)
{
	(void)charged;
	if (npg_count_at_least(npg_task_count(w, parent), npg_rlimit_nproc(w, parent)) &&
	    !npg_capable(parent, NPG_CAP_SYS_ADMIN) && !npg_capable(parent, NPG_CAP_SYS_RESOURCE))
		return -EAGAIN;
	return 0;
}

/* kernel/sys.c, set_user() in 2.4.x: fails only when alloc_uid() does; no limit test (seed 002, bug 2) */
static int set_user(struct npg_world *w, struct npg_task *cur, const struct npg_cred *new)
{
	(void)w, (void)cur, (void)new;
	return 0;
}

/* fs/exec.c in 2.4.x: no RLIMIT_NPROC test */
static int execve(struct npg_world *w, struct npg_task *cur)
{
	(void)w, (void)cur;
	return 0;
}

const struct npg_policy npg_policy_linux_2_4 = {
	.name = "linux-2.4",
	.kernels = "2.4.x",
	.source = "2.4 kernel/fork.c do_fork(); seed 002 (the bugs it fixes)",
	.summary = "fork fails at the limit unless CAP_SYS_ADMIN/CAP_SYS_RESOURCE; set*uid never fails",
	.release = { 2, 4, 37 },
	.copy_process = copy_process,
	.set_user = set_user,
	.execve = execve,
};
