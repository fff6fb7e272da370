/* Linux 5.17 - 6.x: ucounts with Eric Biederman's February 2022 fixes. */
#include <errno.h>

#include "model/policy.h"

/*
 * kernel/fork.c, copy_process() since 5.17 (8f2f9c4d82f2): copy_creds()
 * has already charged the child, then
 *	if (is_rlimit_overlimit(task_ucounts(p), UCOUNT_RLIMIT_NPROC, rlimit(RLIMIT_NPROC))) {
 *		if (p->real_cred->user != INIT_USER &&
 *		    !capable(CAP_SYS_RESOURCE) && !capable(CAP_SYS_ADMIN))
 *			goto bad_fork_cleanup_count;
 *	}
 *	current->flags &= ~PF_NPROC_EXCEEDED;
 * N + 1 > L is N >= L: the same net limit as 2.6. In a user namespace
 * every level of the chain counts the child too: the owner's count in the
 * parent namespace against the limit recorded at unshare() (measured on
 * 6.18: fork inside fails once the creator's count reaches it, even after
 * the soft limit inside was raised). task_ucounts(p) is the child's: for
 * clone(CLONE_NEWUSER) the ucounts of its new namespace, whose level above
 * is (the parent namespace, the creator's euid); the limit, the exemptions
 * and capable() stay the parent's (found by conform --random on 6.18).
 */
static int copy_process(struct npg_world *w, struct npg_task *parent,
			const struct npg_cred *charged)
{
	if (npg_ucounts_over(w, charged, npg_rlimit_nproc(w, parent), 1) &&
	    !npg_init_user(w, &parent->cred) &&
	    !npg_capable(parent, NPG_CAP_SYS_RESOURCE) && !npg_capable(parent, NPG_CAP_SYS_ADMIN))
		return -EAGAIN;
	parent->nproc_exceeded = false;
	return 0;
}

/* kernel/sys.c, set_user() since 5.17 (c923a8e7edb0): only switches user_struct */
static int set_user(struct npg_world *w, struct npg_task *cur, const struct npg_cred *new)
{
	(void)w, (void)cur, (void)new;
	return 0;
}

/* kernel/cred.c, set_cred_ucounts() since 5.17 (a55d07294f1e): the real uid */
static npg_id set_cred_ucounts(const struct npg_cred *old, const struct npg_cred *new)
{
	(void)old;
	return new->uid.real;
}

/*
 * kernel/sys.c, flag_nproc_exceeded(), called by set*uid after
 * set_cred_ucounts() and before commit_creds() -- so the caller is not yet
 * in the new user's count:
 *	if (new->ucounts == current_ucounts()) return;
 *	if (is_rlimit_overlimit(new->ucounts, UCOUNT_RLIMIT_NPROC, rlimit(RLIMIT_NPROC)) &&
 *	    new->user != INIT_USER)
 *		current->flags |= PF_NPROC_EXCEEDED;
 *	else
 *		current->flags &= ~PF_NPROC_EXCEEDED;
 * ">" where 3.1 had ">=": a user can reach L+1 through setuid()+execve().
 */
static void flag_nproc_exceeded(struct npg_world *w, struct npg_task *cur,
				const struct npg_cred *new)
{
	if (new->charged_to == cur->cred.charged_to && new->userns == cur->cred.userns)
		return;
	cur->nproc_exceeded = npg_ucounts_over(w, new, npg_rlimit_nproc(w, cur), 0) &&
			      !npg_init_user(w, new);
}

/*
 * fs/exec.c, do_execveat_common():
 *	if ((current->flags & PF_NPROC_EXCEEDED) &&
 *	    is_rlimit_overlimit(current_ucounts(), UCOUNT_RLIMIT_NPROC, rlimit(RLIMIT_NPROC))) {
 *		retval = -EAGAIN; goto out_ret; }
 *	current->flags &= ~PF_NPROC_EXCEEDED;
 */
static int execve(struct npg_world *w, struct npg_task *cur)
{
	if (cur->nproc_exceeded && npg_ucounts_over(w, &cur->cred, npg_rlimit_nproc(w, cur), 0))
		return -EAGAIN;
	cur->nproc_exceeded = false;
	return 0;
}

const struct npg_policy npg_policy_linux_6 = {
	.name = "linux-6",
	.kernels = "5.17 - 6.x",
	.source = "kernel/fork.c, kernel/sys.c, fs/exec.c of 6.1; commits 8f2f9c4d82f2, c923a8e7edb0",
	.summary = "ucounts: set*uid flags only over the limit (> L); execve re-checks; fork clears",
	.has_flag = true,
	/* present on the 6.18 kernel nprocguard conform was run on; found by
	 * conform --random (scenarios/regression/setresuid-noop-keeps-fsuid.npg).
	 * Upstream 659c0ce1cb9e (6.3, and stable backports): for a running
	 * kernel the point release decides (model/release.c) */
	.rules.setresuid_noop_fastpath = true,
	.copy_process = copy_process,
	.nproc_test_after_copy_creds = true,
	.set_user = set_user,
	.set_cred_ucounts = set_cred_ucounts,
	.flag_nproc_exceeded = flag_nproc_exceeded,
	.execve = execve,
	NPG_RULES_SINCE_LINUX_3_1,
	/* on the 6.18 kernel conform runs on (scenarios/regression/no-new-privs.npg);
	 * before 6.17 the release decides (model/release.c) */
	.rules.exec_id_changed = true,
	/* fs/coredump.c zap_threads() kills the dumping thread group alone
	 * (0258b5fd7c71, 5.16) */
	.rules.coredump_one_group = true,
	.ucounts = true,
	.userns_root_unlimited = true,
};
