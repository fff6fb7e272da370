/*
 * Root's count, which on this machine includes its own processes: the
 * steps whose outcome the kernel decides by it -- 5.14+: the ucounts
 * chain of a namespace whose creator's euid was root; 5.14-5.16: a task
 * charged to root by its effective uid -- so that the run stops
 * comparing there instead of guessing.
 * kernel/ucount.c, kernel/cred.c set_cred_ucounts(), kernel/fork.c.
 */
#include "backend/real/real_priv.h"
#include "backend/real/rootcount.h"
#include "system/procfs.h"

/*
 * is_rlimit_overlimit() walks a task's ucounts up to the initial
 * namespace. The level there of a namespace made by a task whose euid
 * was root is root's count -- every root process of this machine --
 * compared with the limit the namespace recorded at unshare(): when that
 * limit is finite, what copy_process(), set_user() / flag_nproc_exceeded()
 * and execve() decide cannot be known here (copy_process() exempts only a
 * real uid of INIT_USER: capable() is never true in a child namespace).
 */
#define ROOT_CHAIN "the ucounts of this task's user namespace meet root's count in the " \
	"initial namespace, which includes the machine's own processes, against the " \
	"finite limit the namespace recorded at unshare()"

/*
 * clone(CLONE_NEWUSER) from the initial namespace by a task whose euid is
 * root makes a namespace root owns, recording the task's RLIMIT_NPROC
 * (always in 5.14-5.16; from 5.17 when its real uid is not 0), and the
 * child is charged along that chain at once: copy_process() compares
 * root's count with that limit, exempting only INIT_USER and capable().
 */
#define ROOT_CLONE "clone(CLONE_NEWUSER) with an effective uid of root: the child meets " \
	"root's count (the machine's processes too) against the limit its namespace records"

static const char *clone_meets_root(const struct real_task *t)
{
	struct npg_proc_task pt;
	uint64_t soft, hard;

	if (!t->created || npg_proc_read_task(t->pid, t->tid, &pt) < 0 ||
	    npg_proc_read_nproc(t->pid, &soft, &hard) < 0)
		return NULL;
	if (pt.uid[1] != 0 || pt.uid[0] == 0 || soft == NPG_RLIM_INFINITY ||
	    npg_cap_has(pt.cap_eff, NPG_CAP_SYS_RESOURCE) || npg_cap_has(pt.cap_eff, NPG_CAP_SYS_ADMIN))
		return NULL;
	return ROOT_CLONE;
}

/*
 * In a guest whose root count could not be made the file's (guestroot.c),
 * that is the reason to give: what the file would need to be compared
 */
static const char *why(const struct real_priv *r, const char *reason)
{
	return reason && r->root_why[0] ? r->root_why : reason;
}

static const char *root_chain(const struct real_priv *r, const struct real_task *t,
			      const struct npg_stmt *st)
{
	struct npg_proc_task pt;
	int f = t->ns;

	/* in a guest root's count is the scenario's (guestroot.c): the step is compared */
	if (!r->ucounts || t->tainted || !t->alive || r->root_ours)
		return NULL;
	if (f == 0 && st->op.code == NPG_OP_CLONE_USER)
		return clone_meets_root(t);
	if (f <= 0)
		return NULL;
	while (r->userns[f].parent != 0)
		f = r->userns[f].parent;
	if (r->userns[f].owner != 0 || r->userns[f].nproc_max == NPG_RLIM_INFINITY ||
	    npg_proc_read_task(t->pid, t->tid, &pt) < 0)
		return NULL;
	switch (st->op.code) {
	case NPG_OP_FORK:
	case NPG_OP_THREAD:
	case NPG_OP_VFORK:
	case NPG_OP_CLONE_USER:	/* copy_process()'s test is the parent's */
		return pt.uid[0] != 0 ? ROOT_CHAIN : NULL;
	case NPG_OP_SETUID:
	case NPG_OP_SETREUID:
	case NPG_OP_SETRESUID:
		return ROOT_CHAIN;
	case NPG_OP_EXECVE:
		return (pt.flags & NPG_PF_NPROC_EXCEEDED) && pt.uid[0] != 0 ? ROOT_CHAIN : NULL;
	default:
		return NULL;
	}
}

const char *npg_real_decision_on_root_chain(const struct real_priv *r, const struct real_task *t,
					    const struct npg_stmt *st)
{
	return why(r, root_chain(r, t, st));
}

/*
 * 5.14-5.16 set_user() tests the caller's old ucounts -- a root caller's is
 * root's, which here counts the machine's own processes -- unless the
 * caller is capable(CAP_SYS_RESOURCE or CAP_SYS_ADMIN):
 *	if (is_ucounts_overlimit(new->ucounts, UCOUNT_RLIMIT_NPROC, rlimit(RLIMIT_NPROC)) &&
 *	    new_user != INIT_USER && !capable(CAP_SYS_RESOURCE) && !capable(CAP_SYS_ADMIN))
 *		current->flags |= PF_NPROC_EXCEEDED;
 * So the flag such a call leaves cannot be reproduced: the step runs, and
 * the task is not trusted after it.
 */
#define ROOT_COUNT_SET_USER "5.14-5.16 set_user() compares the caller's old count, root's " \
	"here, which includes the machine's own processes (the caller lacks CAP_SYS_RESOURCE " \
	"and CAP_SYS_ADMIN)"
/*
 * And copy_process() compares the count of the ucounts the task is charged
 * to; a task that changed its real uid while its effective uid was 0 is
 * charged to root's, and only a real user of root (INIT_USER) or a capable
 * task is exempt:
 *	if (is_ucounts_overlimit(task_ucounts(p), UCOUNT_RLIMIT_NPROC, rlimit(RLIMIT_NPROC))) {
 *		if (p->real_cred->user != INIT_USER && !capable(CAP_SYS_RESOURCE) && ...)
 *			goto bad_fork_free;
 */
#define ROOT_COUNT_FORK "5.14-5.16 copy_process() compares the count of root's ucounts, " \
	"which this task is charged to (its real uid changed while its effective uid was 0) " \
	"and which includes the machine's own processes"

/*
 * And execve() of a flagged task compares the count of its ucounts,
 * root's for a task charged to it, with no exemption (fs/exec.c, 5.14):
 *	if ((current->flags & PF_NPROC_EXCEEDED) &&
 *	    is_ucounts_overlimit(current_ucounts(), UCOUNT_RLIMIT_NPROC, rlimit(RLIMIT_NPROC)))
 *		retval = -EAGAIN;
 */
#define ROOT_COUNT_EXECVE "5.14-5.16 execve() of a task whose flag is set compares the " \
	"count of root's ucounts, which this task is charged to (its real uid changed while " \
	"its effective uid was 0) and which includes the machine's own processes"

static const char *roots_count(const struct real_priv *r, const struct real_task *t,
			       const struct npg_stmt *st)
{
	struct npg_proc_task pt;
	npg_id ruid = st->op.id[0];
	bool capable;

	/* a task of a child namespace is charged to that namespace's ucounts:
	 * above it, npg_real_decision_on_root_chain() */
	if (!r->ucounts_by_euid || r->root_ours || t->tainted || !t->alive || !t->created || t->ns != 0 ||
	    npg_proc_read_task(t->pid, t->tid, &pt) < 0)
		return NULL;
	capable = npg_cap_has(pt.cap_eff, NPG_CAP_SYS_RESOURCE) ||
		  npg_cap_has(pt.cap_eff, NPG_CAP_SYS_ADMIN);
	if (st->op.code == NPG_OP_FORK || st->op.code == NPG_OP_THREAD ||
	    st->op.code == NPG_OP_VFORK || st->op.code == NPG_OP_CLONE_USER)
		return t->key_known && t->key == 0 && pt.uid[0] != 0 && !capable ?
		       ROOT_COUNT_FORK : NULL;
	if (st->op.code == NPG_OP_EXECVE)
		return t->key_known && t->key == 0 && (pt.flags & NPG_PF_NPROC_EXCEEDED) ?
		       ROOT_COUNT_EXECVE : NULL;
	if (st->op.code != NPG_OP_SETUID && st->op.code != NPG_OP_SETREUID &&
	    st->op.code != NPG_OP_SETRESUID)
		return NULL;
	/* flag_nproc_exceeded() reads the new user's ucounts, not the caller's */
	if (ruid == NPG_ID_NONE || ruid == 0 || r->rules.flag_nproc_exceeded)
		return NULL;
	/* only root's count is out of reach: whoever else t is charged to, counts agree */
	if (npg_real_map_id(r, ruid) == pt.uid[0] || (t->key_known && t->key != 0))
		return NULL;
	/* 5.14.y's set_user() has no capable() test (2863643fb8b9 is 5.15's) */
	return capable && r->rules.set_user_capable ? NULL : ROOT_COUNT_SET_USER;
}

const char *npg_real_decision_on_roots_count(struct real_priv *r, const struct real_task *t,
					     const struct npg_stmt *st)
{
	return why(r, roots_count(r, t, st));
}
