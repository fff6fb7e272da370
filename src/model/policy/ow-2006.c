/* Openwall's -ow patches (Solar Designer, 2006; seed 003) on top of 2.6. */
#include "model/policy.h"

/*
 * Seed 003: "set*uid() must not fail-and-return": where set_user() would
 * return -EAGAIN, force_sig(SIGSEGV, current) first. The mail applies it
 * to alloc_uid() failure in 2.4.33-ow1 and asks for the same on 2.6's
 * RLIMIT_NPROC failure; the model applies it there.
 */
static int set_user(struct npg_world *w, struct npg_task *cur, const struct npg_cred *new)
{
	return npg_over_limit_at_set_user(w, cur, new) ? NPG_SET_USER_KILL_SIGSEGV : 0;
}

static int execve(struct npg_world *w, struct npg_task *cur)
{
	(void)w, (void)cur;
	return 0;
}

const struct npg_policy npg_policy_ow_2006 = {
	.name = "ow-2006",
	.kernels = "2.4/2.6 with -ow patches",
	.source = "seed 003 (Solar Designer, 2006) on top of seed 002",
	.summary = "where linux-2.6 fails set*uid, the caller is killed by SIGSEGV instead",
	.release = { 3, 0, 0 },
	.copy_process = npg_copy_process_2_6,
	.set_user = set_user,
	.execve = execve,
};
