/* Rules that several eras share, written once. */
#include <errno.h>

#include "model/policy.h"

/*
 * kernel/fork.c, copy_process(), 2.6.0 .. 5.13 (seed 002 added the root
 * user to 2.4's capability exemptions):
 *	if (atomic_read(&p->real_cred->user->processes) >= task_rlimit(p, RLIMIT_NPROC)) {
 *		if (!capable(CAP_SYS_ADMIN) && !capable(CAP_SYS_RESOURCE) &&
 *		    p->real_cred->user != INIT_USER)
 *			goto bad_fork_free;
 * The child is not yet charged: N >= L fails.
 */
int npg_copy_process_2_6(struct npg_world *w, struct npg_task *parent,
			 const struct npg_cred *charged)
{
	(void)charged;	/* the parent's: the test comes before copy_creds() */
	if (npg_count_at_least(npg_task_count(w, parent), npg_rlimit_nproc(w, parent)) &&
	    !npg_capable(parent, NPG_CAP_SYS_ADMIN) &&
	    !npg_capable(parent, NPG_CAP_SYS_RESOURCE) &&
	    !npg_init_user(w, &parent->cred))
		return -EAGAIN;
	return 0;
}

/*
 * kernel/sys.c, set_user(), 2.6.0 .. 5.13 (seed 002; kept as the flag
 * condition by 3.1): the new user, not yet counting the caller, is already
 * at the caller's limit:
 *	atomic_read(&new_user->processes) >= rlimit(RLIMIT_NPROC) &&
 *	new_user != INIT_USER
 */
bool npg_over_limit_at_set_user(const struct npg_world *w, const struct npg_task *cur,
				const struct npg_cred *new)
{
	/* alloc_uid(current_user_ns(), new->uid): the namespace's own
	 * user_struct in 2.6.39-3.4, the kernel uid's since */
	return npg_count_at_least(npg_count_in(w, new->userns, new->uid.real),
				  npg_rlimit_nproc(w, cur)) &&
	       !npg_init_user(w, new);
}
