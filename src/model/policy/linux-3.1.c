/* Linux 3.1 - 5.13: commit 72fa59970f86 (Kulikov, flag + Peslyak's re-check). */
#include <errno.h>

#include "model/policy.h"

/*
 * kernel/fork.c, copy_process() since 3.1: 2.6's test, then
 *	current->flags &= ~PF_NPROC_EXCEEDED;
 * on success. The child got the flag from dup_task_struct() before that.
 */
static int copy_process(struct npg_world *w, struct npg_task *parent,
			const struct npg_cred *charged)
{
	int err = npg_copy_process_2_6(w, parent, charged);

	if (!err)
		parent->nproc_exceeded = false;
	return err;
}

/*
 * kernel/sys.c, set_user() since 3.1: never fails on NPROC,
 *	if (atomic_read(&new_user->processes) >= rlimit(RLIMIT_NPROC) &&
 *	    new_user != INIT_USER)
 *		current->flags |= PF_NPROC_EXCEEDED;
 *	else
 *		current->flags &= ~PF_NPROC_EXCEEDED;
 */
static int set_user(struct npg_world *w, struct npg_task *cur, const struct npg_cred *new)
{
	cur->nproc_exceeded = npg_over_limit_at_set_user(w, cur, new);
	return 0;
}

/*
 * fs/exec.c, do_execve_common() since 3.1:
 *	if ((current->flags & PF_NPROC_EXCEEDED) &&
 *	    atomic_read(&current_user()->processes) > rlimit(RLIMIT_NPROC)) {
 *		retval = -EAGAIN; goto out_ret; }
 *	current->flags &= ~PF_NPROC_EXCEEDED;
 */
static int execve(struct npg_world *w, struct npg_task *cur)
{
	if (cur->nproc_exceeded &&
	    npg_count_over(npg_task_count(w, cur), npg_rlimit_nproc(w, cur)))
		return -EAGAIN;
	cur->nproc_exceeded = false;
	return 0;
}

const struct npg_policy npg_policy_linux_3_1 = {
	.name = "linux-3.1",
	.kernels = "3.1 - 5.13",
	.source = "commit 72fa59970f86 (Kulikov, 2011), the article's flag and re-check",
	.summary = "set*uid flags (N >= L); execve fails if flagged and still over (> L); fork clears",
	.has_flag = true,
	.copy_process = copy_process,
	.set_user = set_user,
	.execve = execve,
	/* the rules of its newest release; a 3.x or 4.x kernel has fewer (model/release.c) */
	.release = { 5, 13, 0 },
};
