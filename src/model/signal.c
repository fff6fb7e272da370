/*
 * kill(): who may signal whom (kernel/signal.c), and what a fatal signal
 * does to the thread group it reaches. The same from 2.6 to 6.x: the
 * permission rule has not changed since credentials became struct cred
 * (2.6.29), and 2.4 compared the same four ids.
 */
#include <errno.h>
#include <signal.h>

#include "model/model.h"

static struct npg_result result(enum npg_result_kind kind, long value)
{
	return (struct npg_result){ .kind = kind, .value = value };
}

/*
 * kernel/signal.c, kill_ok_by_cred():
 *	return uid_eq(cred->euid, tcred->suid) || uid_eq(cred->euid, tcred->uid) ||
 *	       uid_eq(cred->uid, tcred->suid) || uid_eq(cred->uid, tcred->uid) ||
 *	       ns_capable(tcred->user_ns, CAP_KILL);
 * 2.6.39-3.4 compare the ids only within one namespace
 * ("cred->user->user_ns == tcred->user->user_ns &&").
 */
bool npg_kill_ok_by_cred(const struct npg_world *w, const struct npg_task *cur,
			 const struct npg_task *target)
{
	const struct npg_ids *c = &cur->cred.uid, *tc = &target->cred.uid;

	return (npg_ids_comparable(w, &cur->cred, &target->cred) &&
		(c->eff == tc->saved || c->eff == tc->real || c->real == tc->saved ||
		 c->real == tc->real)) ||
	       npg_ns_capable(w, cur, target->cred.userns, NPG_CAP_KILL);
}

/*
 * kill(pid of @target's process, @sig) by @t: check_kill_permission()
 * lets a task signal its own thread group, or one kill_ok_by_cred()
 * allows; signal 0 only checks. A released (reaped) or never created
 * process is ESRCH; a zombie takes the signal and nothing happens. Every
 * signal the language allows is fatal by default (SIGKILL, SIGTERM,
 * SIGHUP, SIGINT, SIGUSR1, SIGUSR2, SIGALRM: no core dump), and the
 * puppets keep the default actions, so the whole group dies
 * (complete_signal() -> SIGNAL_GROUP_EXIT). A task that signals its own
 * group dies with it: the call "returns" into the death.
 */
struct npg_result npg_sys_kill(struct npg_world *w, int t, int target, int sig)
{
	struct npg_task *cur = &w->tasks[t];
	struct npg_task *tgt = &w->tasks[target];
	bool same_group;

	/* first: a task whose fork failed has no pid (nor a leader of its own) */
	if (tgt->state != NPG_TASK_RUNNING && tgt->state != NPG_TASK_ZOMBIE)
		return result(NPG_R_ERRNO, ESRCH);
	tgt = &w->tasks[tgt->leader];
	same_group = cur->leader == tgt->leader;
	if (!same_group && !npg_kill_ok_by_cred(w, cur, tgt))
		return result(NPG_R_ERRNO, EPERM);
	if (sig == 0 || tgt->state == NPG_TASK_ZOMBIE)
		return result(NPG_R_OK, 0);
	npg_task_kill(w, tgt->leader, sig);
	if (same_group)
		return result(NPG_R_KILLED, sig);
	return result(NPG_R_OK, 0);
}
