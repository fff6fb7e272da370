/*
 * RLIMIT_NPROC in ucounts (21d1c5e386bc, 5.14): the hooks of linux-5.14
 * and linux-6. The two eras run the same kernel functions; what Eric
 * Biederman's February 2022 series changed in them (5.17, and stable
 * 5.15.25 and 5.16.11) are rules of struct npg_rules, which a release
 * decides (model/release.c), so that 5.15.y before and after its
 * backports is the same code under other rules.
 */
#include <errno.h>

#include "model/policy.h"

/*
 * kernel/fork.c, copy_process(). Since 8f2f9c4d82f2 (fork_counts_child)
 * copy_creds() has already charged the child, then
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
 *
 * Before it (5.14; 5.15.0-5.15.24, 5.16.0-5.16.10) the same test ran
 * before copy_creds(), on the parent's own ucounts and "> L", so a user
 * reached L + 1 tasks.
 */
int npg_ucounts_copy_process(struct npg_world *w, struct npg_task *parent,
			     const struct npg_cred *charged)
{
	bool over = w->rules.fork_counts_child ?
		    npg_ucounts_over(w, charged, npg_rlimit_nproc(w, parent), 1) :
		    npg_ucounts_over(w, &parent->cred, npg_rlimit_nproc(w, parent), 0);

	if (over && !npg_init_user(w, &parent->cred) &&
	    !npg_capable(parent, NPG_CAP_SYS_RESOURCE) && !npg_capable(parent, NPG_CAP_SYS_ADMIN))
		return -EAGAIN;
	parent->nproc_exceeded = false;
	return 0;
}

/*
 * kernel/sys.c, set_user(). Before c923a8e7edb0 (flag_nproc_exceeded):
 *	if (is_ucounts_overlimit(new->ucounts, UCOUNT_RLIMIT_NPROC, rlimit(RLIMIT_NPROC)) &&
 *	    new_user != INIT_USER &&
 *	    !capable(CAP_SYS_RESOURCE) && !capable(CAP_SYS_ADMIN))
 *		current->flags |= PF_NPROC_EXCEEDED;
 *	else
 *		current->flags &= ~PF_NPROC_EXCEEDED;
 * new->ucounts is still the caller's own here (set_cred_ucounts() runs
 * later), and capable() -- 2863643fb8b9, 5.15 and 5.16 until c16bdeb5a39f
 * (set_user_capable); 5.14.y never had it -- reads the caller's current,
 * pre-setuid credentials, so a root caller is never flagged. Since
 * c923a8e7edb0 set_user() only switches user_struct.
 */
int npg_ucounts_set_user(struct npg_world *w, struct npg_task *cur, const struct npg_cred *new)
{
	if (w->rules.flag_nproc_exceeded)
		return 0;
	cur->nproc_exceeded =
		npg_ucounts_over(w, new, npg_rlimit_nproc(w, cur), 0) && !npg_init_user(w, new) &&
		!(w->rules.set_user_capable && (npg_capable(cur, NPG_CAP_SYS_RESOURCE) ||
						npg_capable(cur, NPG_CAP_SYS_ADMIN)));
	return 0;
}

/*
 * kernel/sys.c, flag_nproc_exceeded() (c923a8e7edb0), called by set*uid
 * after set_cred_ucounts() and before commit_creds() -- so the caller is
 * not yet in the new user's count:
 *	if (new->ucounts == current_ucounts()) return;
 *	if (is_rlimit_overlimit(new->ucounts, UCOUNT_RLIMIT_NPROC, rlimit(RLIMIT_NPROC)) &&
 *	    new->user != INIT_USER)
 *		current->flags |= PF_NPROC_EXCEEDED;
 *	else
 *		current->flags &= ~PF_NPROC_EXCEEDED;
 * ">" where 3.1 had ">=": a user can reach L+1 through setuid()+execve().
 */
void npg_ucounts_flag_nproc_exceeded(struct npg_world *w, struct npg_task *cur,
				     const struct npg_cred *new)
{
	if (!w->rules.flag_nproc_exceeded)
		return;
	if (new->charged_to == cur->cred.charged_to && new->userns == cur->cred.userns)
		return;
	cur->nproc_exceeded = npg_ucounts_over(w, new, npg_rlimit_nproc(w, cur), 0) &&
			      !npg_init_user(w, new);
}

/*
 * fs/exec.c, do_execveat_common() (5.14+; is_ucounts_overlimit() until 5.17):
 *	if ((current->flags & PF_NPROC_EXCEEDED) &&
 *	    is_rlimit_overlimit(current_ucounts(), UCOUNT_RLIMIT_NPROC, rlimit(RLIMIT_NPROC))) {
 *		retval = -EAGAIN; goto out_ret; }
 *	current->flags &= ~PF_NPROC_EXCEEDED;
 */
int npg_ucounts_execve(struct npg_world *w, struct npg_task *cur)
{
	if (cur->nproc_exceeded && npg_ucounts_over(w, &cur->cred, npg_rlimit_nproc(w, cur), 0))
		return -EAGAIN;
	cur->nproc_exceeded = false;
	return 0;
}
