/*
 * Linux 5.14 - 5.16: RLIMIT_NPROC moved into ucounts (commit 21d1c5e386bc,
 * 5.14) with the regressions fixed in 5.17 by 8f2f9c4d82f2, a55d07294f1e,
 * c923a8e7edb0 and c16bdeb5a39f. The capable() exemption in set_user() is
 * 2863643fb8b9 (5.15); stable backports of the fixes may differ.
 *
 * User namespaces: each ucounts level is checked by npg_ucounts_over(),
 * in the form 59ec71575ab4 gave it (5.16, and 5.15.y such as 5.15.24:
 * 5.14.0 compared each level with its own namespace's record instead),
 * and a namespace records its creator's soft limit even for root (no
 * enforced_nproc_rlimit() before 0ac983f51203: 5.17, 5.16.13, 5.15.27).
 */
#include <errno.h>

#include "model/policy.h"

/*
 * kernel/fork.c, copy_process() in 5.14: the test runs before
 * copy_creds() charges the child and compares with ">" (is_ucounts_overlimit),
 * so a user reaches L+1 tasks. Fixed by 8f2f9c4d82f2 ("ucounts: Enforce
 * RLIMIT_NPROC not RLIMIT_NPROC+1").
 */
static int copy_process(struct npg_world *w, struct npg_task *parent,
			const struct npg_cred *charged)
{
	(void)charged;	/* the parent's: the test comes before copy_creds() */
	if (npg_ucounts_over(w, &parent->cred, npg_rlimit_nproc(w, parent), 0) &&
	    !npg_init_user(w, &parent->cred) &&
	    !npg_capable(parent, NPG_CAP_SYS_RESOURCE) && !npg_capable(parent, NPG_CAP_SYS_ADMIN))
		return -EAGAIN;
	parent->nproc_exceeded = false;
	return 0;
}

/*
 * kernel/sys.c, set_user() in 5.15/5.16:
 *	if (is_ucounts_overlimit(new->ucounts, UCOUNT_RLIMIT_NPROC, rlimit(RLIMIT_NPROC)) &&
 *	    new_user != INIT_USER &&
 *	    !capable(CAP_SYS_RESOURCE) && !capable(CAP_SYS_ADMIN))
 *		current->flags |= PF_NPROC_EXCEEDED;
 * new->ucounts is still the caller's own here (set_cred_ucounts() runs
 * later; fixed by c923a8e7edb0), and capable() reads the caller's current,
 * pre-setuid credentials (2863643fb8b9), so a root caller is never flagged.
 */
static int set_user(struct npg_world *w, struct npg_task *cur, const struct npg_cred *new)
{
	cur->nproc_exceeded =
		npg_ucounts_over(w, new, npg_rlimit_nproc(w, cur), 0) &&
		!npg_init_user(w, new) &&
		!npg_capable(cur, NPG_CAP_SYS_RESOURCE) && !npg_capable(cur, NPG_CAP_SYS_ADMIN);
	return 0;
}

/*
 * kernel/cred.c, set_cred_ucounts() in 5.14-5.16:
 *	new_ucounts = alloc_ucounts(new->user_ns, new->euid);
 * keyed on the effective uid (fixed by a55d07294f1e, "ucounts: Base
 * set_cred_ucounts changes on the real user"). Only reached when the real
 * user changed.
 */
static npg_id set_cred_ucounts(const struct npg_cred *old, const struct npg_cred *new)
{
	(void)old;
	return new->uid.eff;
}

/* fs/exec.c in 5.14: 3.1's test on the task's ucounts, ">" */
static int execve(struct npg_world *w, struct npg_task *cur)
{
	if (cur->nproc_exceeded && npg_ucounts_over(w, &cur->cred, npg_rlimit_nproc(w, cur), 0))
		return -EAGAIN;
	cur->nproc_exceeded = false;
	return 0;
}

const struct npg_policy npg_policy_linux_5_14 = {
	.name = "linux-5.14",
	.kernels = "5.14 - 5.16",
	.source = "commits 21d1c5e386bc, 2863643fb8b9; fixes 8f2f9c4d82f2, a55d07294f1e, c923a8e7edb0",
	.summary = "ucounts regressions: fork allows L+1, counts keyed on euid, root callers never flagged",
	.has_flag = true,
	.copy_process = copy_process,
	.set_user = set_user,
	.set_cred_ucounts = set_cred_ucounts,
	.execve = execve,
	NPG_RULES_SINCE_LINUX_3_1,
	/* 5.16 (0258b5fd7c71) kills only the dumping thread group; 5.14 and
	 * 5.15 every process of its mm (model/release.c) */
	.rules.coredump_one_group = true,
	.ucounts = true,
};
