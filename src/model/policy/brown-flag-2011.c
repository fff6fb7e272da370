/* Neil Brown's PF_NPROC_EXCEEDED proposal, July 2011 (the article), without a re-check. */
#include <errno.h>

#include "model/policy.h"

/*
 * The article: "adding a process flag (PF_NPROC_EXCEEDED) that would be
 * set if a setuid() caused the process to exceed RLIMIT_NPROC". The test
 * is 2.6's set_user() test, turned into the flag.
 */
static int set_user(struct npg_world *w, struct npg_task *cur, const struct npg_cred *new)
{
	cur->nproc_exceeded = npg_over_limit_at_set_user(w, cur, new);
	return 0;
}

/*
 * "...and would then be checked in do_execve_common()": the flag alone
 * decides, however long ago it was set -- Peslyak's objection. Nothing
 * clears it but another set_user().
 */
static int execve(struct npg_world *w, struct npg_task *cur)
{
	(void)w;
	return cur->nproc_exceeded ? -EAGAIN : 0;
}

const struct npg_policy npg_policy_brown_flag_2011 = {
	.name = "brown-flag-2011",
	.kernels = "proposal (not released)",
	.source = "the article (Neil Brown's PF_NPROC_EXCEEDED proposal, 2011)",
	.summary = "set*uid sets a flag at the limit; execve fails on the flag alone, however stale",
	.has_flag = true,
	.release = { 3, 0, 0 },
	.copy_process = npg_copy_process_2_6,
	.set_user = set_user,
	.execve = execve,
};
