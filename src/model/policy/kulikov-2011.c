/* Vasiliy Kulikov's patch as first posted, July 2011 (seed 001). */
#include <errno.h>

#include "model/policy.h"

/* Seed 001 removes the test from set_user(): set*uid never fails on NPROC. */
static int set_user(struct npg_world *w, struct npg_task *cur, const struct npg_cred *new)
{
	(void)w, (void)cur, (void)new;
	return 0;
}

/*
 * Seed 001, fs/exec.c do_execve_common():
 *	if (atomic_read(&cred->user->processes) > rlimit(RLIMIT_NPROC) &&
 *	    cred->user != INIT_USER) { retval = -EAGAIN; goto out_ret; }
 * Every execve() of every task of the user, whether or not it changed uid:
 * Neil Brown's race in the article.
 */
static int execve(struct npg_world *w, struct npg_task *cur)
{
	if (npg_count_over(npg_task_count(w, cur), npg_rlimit_nproc(w, cur)) &&
	    !npg_init_user(w, &cur->cred))
		return -EAGAIN;
	return 0;
}

const struct npg_policy npg_policy_kulikov_2011 = {
	.name = "kulikov-2011",
	.kernels = "proposal (not released)",
	.source = "seed 001 (Vasiliy Kulikov, 2011-07-12), as posted",
	.summary = "set*uid never fails; every execve fails while the user is over the limit",
	.release = { 3, 0, 0 },
	.copy_process = npg_copy_process_2_6,
	.set_user = set_user,
	.execve = execve,
};
