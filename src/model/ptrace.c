/*
 * ptrace and dumpability: who may attach to whom (kernel/ptrace.c
 * ptrace_attach() and __ptrace_may_access(), security/commoncap.c
 * cap_ptrace_access_check(), security/yama/yama_lsm.c), how a process
 * becomes non-dumpable (kernel/cred.c commit_creds(), fs/exec.c
 * begin_new_exec(), kernel/sys.c PR_SET_DUMPABLE), and whether a tracer
 * makes an execve() "unsafe" (fs/exec.c check_unsafe_exec()). 6.1 unless
 * said otherwise.
 *
 * A scenario's tracer is the kernel's relationship and nothing more: the
 * harness passes every signal a tracee stops on straight on, as strace
 * does, resumes the stop PTRACE_ATTACH brings with no signal, and
 * acknowledges a tracee's exit at once, so a tracee lives and dies as it
 * would untraced.
 */
#include <errno.h>

#include "model/model.h"

static struct npg_result result(enum npg_result_kind kind, long value)
{
	return (struct npg_result){ .kind = kind, .value = value };
}

/* The leader of the process whose mm @t uses: a vfork() child shares its
 * parent's until it execs or exits (CLONE_VM) */
int npg_mm_owner(const struct npg_world *w, int t)
{
	int x = w->tasks[t].leader;

	for (int hops = 0; hops < w->ntasks && w->tasks[x].vforked_by &&
			   npg_alive(&w->tasks[x]); hops++)
		x = w->tasks[w->tasks[x].vforked_by - 1].leader;
	return x;
}

void npg_set_dumpable(struct npg_world *w, int t, int value)
{
	int mm = npg_mm_owner(w, t);

	for (int i = 0; i < w->ntasks; i++)
		if (i == t || (npg_alive(&w->tasks[i]) && npg_mm_owner(w, i) == mm))
			w->tasks[i].dumpable = value;
}

/*
 * kernel/cred.c, cred_cap_issubset(): within one namespace, permitted
 * capabilities that did not grow; across namespaces, only moving into a
 * namespace the old euid owns, directly below the old one (unshare)
 */
static bool cred_cap_issubset(const struct npg_world *w, const struct npg_cred *set,
			      const struct npg_cred *subset)
{
	if (set->userns == subset->userns)
		return (subset->cap_permitted & ~set->cap_permitted) == 0;
	for (int ns = subset->userns; ns != NPG_USERNS_INITIAL; ns = w->userns[ns].parent)
		if (w->userns[ns].parent == set->userns && w->userns[ns].owner == set->uid.eff)
			return true;
	return false;
}

/*
 * commit_creds(), the same since 2.6.29:
 *	if (!uid_eq(old->euid, new->euid) || !gid_eq(old->egid, new->egid) ||
 *	    !uid_eq(old->fsuid, new->fsuid) || !gid_eq(old->fsgid, new->fsgid) ||
 *	    !cred_cap_issubset(old, new))
 *		if (task->mm) set_dumpable(task->mm, suid_dumpable);
 * A real or saved id alone changes nothing.
 */
void npg_commit_creds_dumpable(struct npg_world *w, int t, const struct npg_cred *old,
			       const struct npg_cred *new)
{
	if (old->uid.eff != new->uid.eff || old->gid.eff != new->gid.eff ||
	    old->uid.fs != new->uid.fs || old->gid.fs != new->gid.fs ||
	    !cred_cap_issubset(w, old, new))
		npg_set_dumpable(w, t, w->suid_dumpable);
}

/*
 * begin_new_exec() (setup_new_exec() before 5.8): "Figure out
 * dumpability. Note that this checking only of current is wrong" --
 * SUID_DUMP_USER when the caller's euid and egid equal its real ids, else
 * suid_dumpable; commit_creds() of the new credentials then applies its
 * own rule. A task declared with credentials is one after such an exec.
 */
int npg_exec_dumpable(const struct npg_world *w, const struct npg_cred *c)
{
	return c->uid.eff == c->uid.real && c->gid.eff == c->gid.real ? 1 : w->suid_dumpable;
}

int npg_tracer_of(const struct npg_world *w, int t)
{
	const struct npg_task *task = &w->tasks[t];
	int tr = task->tracer - 1;

	/* a tracer that exits or is killed lets go: exit_ptrace() */
	if (tr < 0 || !npg_alive(&w->tasks[tr]))
		return -1;
	if (npg_alive(task))
		return tr;
	/*
	 * An exited tracee: the harness's tracer took its exit at once
	 * (wait_task_zombie() -> __ptrace_unlink()), except a process whose
	 * tracer is its real parent's: that zombie stays linked until the
	 * scenario's wait reaps it.
	 */
	if (task->state == NPG_TASK_ZOMBIE && task->leader == t &&
	    task->parent == w->tasks[tr].leader)
		return tr;
	return -1;
}

/*
 * check_unsafe_exec(): "if (p->ptrace) bprm->unsafe |= LSM_UNSAFE_PTRACE",
 * and cap_bprm_creds_from_file() lets it pass when ptracer_capable(current,
 * new->user_ns): the tracer's credentials at attach hold CAP_SYS_PTRACE
 * over the new namespace (64b875f7ac8a, 20523132ec5d: 4.10, rule
 * ptracer_cred; 4.9.y and older never took the exec side). Before,
 * LSM_UNSAFE_PTRACE_CAP: the tracer had CAP_SYS_PTRACE over the tracee's
 * namespace when it attached (PT_PTRACE_CAP).
 */
bool npg_ptrace_unsafe(const struct npg_world *w, int t, int ns)
{
	const struct npg_task *task = &w->tasks[t];

	if (npg_tracer_of(w, t) < 0)
		return false;
	if (w->rules.ptracer_cred)
		return !npg_cred_ns_capable(w, &task->ptracer_cred, ns, NPG_CAP_SYS_PTRACE);
	return !task->ptrace_cap;
}

/* ptrace_has_cap(): CAP_SYS_PTRACE in the caller's effective set, over @ns */
static bool ptrace_has_cap(const struct npg_world *w, int t, int ns)
{
	return npg_ns_capable(w, &w->tasks[t], ns, NPG_CAP_SYS_PTRACE);
}

/*
 * __ptrace_may_access(task, PTRACE_MODE_ATTACH_REALCREDS):
 *	caller_uid = cred->uid; caller_gid = cred->gid;
 *	if (uid_eq(caller_uid, tcred->euid) && uid_eq(caller_uid, tcred->suid) &&
 *	    uid_eq(caller_uid, tcred->uid) && gid_eq(caller_gid, tcred->egid) &&
 *	    gid_eq(caller_gid, tcred->sgid) && gid_eq(caller_gid, tcred->gid))
 *		goto ok;
 *	if (ptrace_has_cap(tcred->user_ns, mode)) goto ok;
 *	return -EPERM;
 * ok:	mm = task->mm;
 *	if (mm && ((get_dumpable(mm) != SUID_DUMP_USER) &&
 *	    !ptrace_has_cap(mm->user_ns, mode))) return -EPERM;
 *	return security_ptrace_access_check(task, mode);
 * mm->user_ns since bfedb589252c (4.10; 4.9.1, 4.8.16, 4.4.40, 3.16.52:
 * rule ptrace_mm_user_ns); the tracee's cred->user_ns before.
 * The real uid and gid of the caller, in every era (4.5's FSCREDS/REALCREDS
 * split kept attach on them). Before 3.12 (d049f74f2dbe) SUID_DUMP_ROOT
 * counted as dumpable: only fs.suid_dumpable 2 makes one, and the model
 * applies the later rule. 2.6.39-3.4 compare the ids only within one
 * namespace ("cred->user->user_ns == tcred->user->user_ns &&").
 */
static bool may_access(const struct npg_world *w, int t, int target)
{
	const struct npg_cred *c = &w->tasks[t].cred, *tc = &w->tasks[target].cred;
	const struct npg_task *tsk = &w->tasks[target];

	if (!(npg_ids_comparable(w, c, tc) &&
	      c->uid.real == tc->uid.eff && c->uid.real == tc->uid.saved &&
	      c->uid.real == tc->uid.real && c->gid.real == tc->gid.eff &&
	      c->gid.real == tc->gid.saved && c->gid.real == tc->gid.real) &&
	    !ptrace_has_cap(w, t, tc->userns))
		return false;
	if (tsk->dumpable != 1 &&
	    !ptrace_has_cap(w, t, w->rules.ptrace_mm_user_ns ? tsk->mm_userns : tc->userns))
		return false;
	/*
	 * cap_ptrace_access_check(), for attach (caller_caps = pP):
	 *	if (cred->user_ns == child_cred->user_ns &&
	 *	    cap_issubset(child_cred->cap_permitted, *caller_caps)) goto out;
	 *	if (ns_capable(child_cred->user_ns, CAP_SYS_PTRACE)) goto out;
	 *	ret = -EPERM;
	 */
	if (!(c->userns == tc->userns && (tc->cap_permitted & ~c->cap_permitted) == 0) &&
	    !ptrace_has_cap(w, t, tc->userns))
		return false;
	return true;
}

/* task_is_descendant(): is @child's process @parent's, or below it? */
static bool task_is_descendant(const struct npg_world *w, int parent, int child)
{
	int p = w->tasks[parent].leader;

	for (int x = w->tasks[child].leader, hops = 0; x != NPG_HARNESS && hops <= w->ntasks;
	     x = w->tasks[x].parent, hops++)
		if (x == p)
			return true;
	return false;
}

/*
 * ptracer_exception_found(): the tracee's process named a tracer with
 * PR_SET_PTRACER -- any, or one whose process is @tracer's or an ancestor
 * of it; yama_task_free() drops the exception with the task named
 */
static bool ptracer_exception_found(const struct npg_world *w, int tracer, int tracee)
{
	int e = w->tasks[w->tasks[tracee].leader].yama_ptracer;
	const struct npg_task *named;

	if (e == 0)
		return false;
	if (e < 0)
		return true;
	named = &w->tasks[e - 1];
	if (named->state != NPG_TASK_RUNNING && named->state != NPG_TASK_ZOMBIE)
		return false;
	return task_is_descendant(w, e - 1, tracer);
}

/*
 * yama_ptrace_access_check() (3.4+), attach only:
 *	YAMA_SCOPE_RELATIONAL (1): task_is_descendant(current, child) ||
 *		ptracer_exception_found(current, child) ||
 *		ns_capable(__task_cred(child)->user_ns, CAP_SYS_PTRACE)
 *	YAMA_SCOPE_CAPABILITY (2): the capability alone
 *	YAMA_SCOPE_NO_ATTACH (3): -EPERM
 */
static bool yama_allows(const struct npg_world *w, int t, int target)
{
	switch (w->yama_scope) {
	case -1:
	case 0:
		return true;
	case 1:
		return task_is_descendant(w, t, target) || ptracer_exception_found(w, t, target) ||
		       ptrace_has_cap(w, t, w->tasks[target].cred.userns);
	case 2:
		return ptrace_has_cap(w, t, w->tasks[target].cred.userns);
	default:
		return false;
	}
}

/*
 * ptrace_attach(), for PTRACE_ATTACH and PTRACE_SEIZE alike (6.1):
 *	if (same_thread_group(task, current)) -EPERM
 *	__ptrace_may_access(task, PTRACE_MODE_ATTACH_REALCREDS) (commoncap, Yama)
 *	if (unlikely(task->exit_state)) -EPERM
 *	if (task->ptrace) -EPERM
 *	task->ptrace = flags; ptrace_link(task, current) (ptracer_cred =
 *	current_cred())
 * 3.0 the same, with "if (task_ns_capable(task, CAP_SYS_PTRACE))
 * task->ptrace |= PT_PTRACE_CAP;" before __ptrace_link(). A pid that no
 * longer names a task (never forked, reaped) is ESRCH (ptrace() finds no
 * task).
 */
static struct npg_result attach(struct npg_world *w, int t, int target)
{
	struct npg_task *cur = &w->tasks[t], *tsk = &w->tasks[target];

	if (tsk->leader == cur->leader || !may_access(w, t, target) ||
	    !yama_allows(w, t, target) || tsk->state != NPG_TASK_RUNNING ||
	    npg_tracer_of(w, target) >= 0)
		return result(NPG_R_ERRNO, EPERM);
	tsk->tracer = t + 1;
	tsk->ptracer_cred = cur->cred;
	tsk->ptrace_cap = ptrace_has_cap(w, t, tsk->cred.userns);
	return result(NPG_R_OK, 0);
}

static bool exists(const struct npg_task *tsk)
{
	return tsk->state == NPG_TASK_RUNNING || tsk->state == NPG_TASK_ZOMBIE;
}

/*
 * PTRACE_SEIZE: no stop. Before 3.4 there is no such request: 3.1-3.3
 * refuse it without PTRACE_SEIZE_DEVEL ("if (!(flags &
 * PTRACE_SEIZE_DEVEL)) goto out", -EIO), and before 3.1 an unknown
 * request meets ptrace_check_attach() first, which no running task passes
 * (measured on 3.0.8: ESRCH).
 */
struct npg_result npg_sys_ptrace_seize(struct npg_world *w, int t, int target)
{
	if (!exists(&w->tasks[target]))
		return result(NPG_R_ERRNO, ESRCH);
	if (w->rules.ptrace_seize < 2)
		return result(NPG_R_ERRNO, w->rules.ptrace_seize ? EIO : ESRCH);
	return attach(w, t, target);
}

/*
 * PTRACE_ATTACH, in every era: the same rules, and then the tracee is
 * sent a SIGSTOP -- 6.1's "if (!seize) send_sig_info(SIGSTOP,
 * SEND_SIG_PRIV, task);", 3.0's "send_sig_info(SIGSTOP, SEND_SIG_FORCED,
 * task);" -- which it dequeues into a signal-delivery stop
 * (ptrace_signal()) for its tracer to take. The harness takes it at once
 * and resumes the tracee with signal 0 (PTRACE_CONT, as a debugger that
 * lets its tracee run: ptrace_signal() then drops the SIGSTOP, "signr =
 * current->exit_code; if (signr == 0) return signr;"), so no group stop
 * follows and, as after a seize, the tracee runs on.
 */
struct npg_result npg_sys_ptrace_attach(struct npg_world *w, int t, int target)
{
	if (!exists(&w->tasks[target]))
		return result(NPG_R_ERRNO, ESRCH);
	return attach(w, t, target);
}

/*
 * A stop (PTRACE_INTERRUPT of a seized tracee; a SIGSTOP for an attached
 * one, or before 3.4), then PTRACE_DETACH with signal 0: each needs
 * ptrace_check_attach() -- "child->ptrace && child->parent == current",
 * the tracing task itself -- else ESRCH; an exited tracee is ESRCH too
 * (it never stops). The same for a tracee of PTRACE_ATTACH and of
 * PTRACE_SEIZE.
 */
struct npg_result npg_sys_ptrace_detach(struct npg_world *w, int t, int target)
{
	struct npg_task *tsk = &w->tasks[target];

	if (!npg_alive(tsk) || npg_tracer_of(w, target) != t)
		return result(NPG_R_ERRNO, ESRCH);
	tsk->tracer = 0;
	return result(NPG_R_OK, 0);
}

/*
 * prctl(PR_SET_DUMPABLE): "if (arg2 != SUID_DUMP_DISABLE && arg2 !=
 * SUID_DUMP_USER) { error = -EINVAL; break; } set_dumpable(me->mm, arg2);"
 * -- no privilege needed, 2 never accepted (2.6.18 on)
 */
struct npg_result npg_sys_dumpable(struct npg_world *w, int t, int value)
{
	if (value != 0 && value != 1)
		return result(NPG_R_ERRNO, EINVAL);
	npg_set_dumpable(w, t, value);
	return result(NPG_R_OK, 0);
}

/*
 * yama_task_prctl(PR_SET_PTRACER), on the caller's thread-group leader:
 * 0 drops the exception, PR_SET_PTRACER_ANY allows any tracer, a pid
 * names one (find_get_task_by_vpid(): EINVAL when none). Without Yama no
 * LSM takes the option and prctl() says EINVAL.
 */
struct npg_result npg_sys_ptracer(struct npg_world *w, int t, int how, int target)
{
	struct npg_task *leader = &w->tasks[w->tasks[t].leader];

	if (w->yama_scope < 0)
		return result(NPG_R_ERRNO, EINVAL);
	switch (how) {
	case NPG_PTRACER_NONE:
		leader->yama_ptracer = 0;
		break;
	case NPG_PTRACER_ANY:
		leader->yama_ptracer = -1;
		break;
	default:
		if (w->tasks[target].state != NPG_TASK_RUNNING &&
		    w->tasks[target].state != NPG_TASK_ZOMBIE)
			return result(NPG_R_ERRNO, EINVAL);
		leader->yama_ptracer = target + 1;
		break;
	}
	return result(NPG_R_OK, 0);
}
