/*
 * ptrace, the controller's side: which steps would need a tracer that
 * cannot act, waiting until the tracers have taken every exit (the model
 * has a traced task's exit acknowledged at once), and the stop a detach
 * needs. What a seize tells the tracer is part of its command (ask.c); a
 * task's tracer and dumpability are read back with the rest of its view
 * (observe.c). The tracer's loop itself is the puppets' (tracer.c).
 */
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "backend/real/real_priv.h"
#include "backend/real/tracing.h"
#include "system/procfs.h"

/*
 * Can tracer @x act now? Its puppet thread sleeps in vfork() until its
 * child execs or exits (wait_for_vfork_done()): it neither passes a
 * signal on nor takes an exit meanwhile. A tracer that is no task of the
 * scenario (a debugger attached from outside) is nobody's to drive.
 */
static const char *tracer_stuck(const struct real_priv *r, pid_t tracer_pid)
{
	int x = npg_real_task_of_tid(r, tracer_pid);

	if (x < 0)
		return "a task of the scenario is traced by a process outside it";
	if (npg_real_vfork_waiting(r, &r->tasks[x]))
		return "a traced task would stop or exit while its tracer sleeps in vfork() "
		       "(wait_for_vfork_done()), unable to pass the signal on or take the exit";
	return NULL;
}

/*
 * Does @t's exit wait for its tracer? Every traced exit does (a zombie
 * until the tracer's wait), except a process leader whose real parent is
 * its tracer's process: that one waits for the scenario's `wait`.
 */
static bool parents_tracer(const struct real_priv *r, const struct real_task *t,
			   const struct npg_proc_task *pt)
{
	int x = npg_real_task_of_tid(r, pt->tracer_pid);

	return t->tid == t->pid && x >= 0 && r->tasks[x].pid == pt->ppid;
}

static const char *exit_hazard(const struct real_priv *r, const struct real_task *t)
{
	struct npg_proc_task pt;

	if (!npg_real_task_present(t) || npg_proc_read_task(t->pid, t->tid, &pt) < 0 || pt.tracer_pid == 0 ||
	    parents_tracer(r, t, &pt))
		return NULL;
	return tracer_stuck(r, pt.tracer_pid);
}

/* Every present thread of process @pid but @except (NULL: none): would its exit wait? */
static const char *group_exit_hazard(const struct real_priv *r, pid_t pid,
				     const struct real_task *except)
{
	for (int i = 0; i < r->sc->ntasks; i++) {
		const struct real_task *x = &r->tasks[i];
		const char *why;

		if (x == except || !npg_real_task_present(x) || x->pid != pid)
			continue;
		if ((why = exit_hazard(r, x)))
			return why;
	}
	return NULL;
}

/*
 * A fatal signal to process @p: complete_signal() takes the whole group
 * down at once unless the task it was sent to (the leader, for kill())
 * is traced -- "(sig == SIGKILL || !p->ptrace)" -- and then the thread
 * that dequeues it stops first (ptrace_signal()) for its tracer to pass
 * it on. A traced leader asleep in vfork() (TASK_KILLABLE) takes no such
 * signal until its child execs or exits.
 */
static const char *kill_hazard(const struct real_priv *r, const struct real_task *p, int sig)
{
	struct npg_proc_task pt;
	const char *why;

	if (sig == 0 || !npg_real_task_present(p) || !p->alive)
		return NULL;
	if (sig != SIGKILL && npg_proc_read_task(p->pid, p->pid, &pt) == 0 && pt.tracer_pid) {
		if (npg_real_vfork_waiting(r, p))
			return "a fatal signal to a traced process whose leader sleeps in vfork() "
			       "waits for its child's exec or exit (the tracee takes only SIGKILL "
			       "there)";
		if ((why = tracer_stuck(r, pt.tracer_pid)))
			return why;
	}
	return group_exit_hazard(r, p->pid, NULL);
}

const char *npg_real_tracing_hazard(struct real_priv *r, const struct npg_stmt *st)
{
	const struct real_task *t = &r->tasks[st->task], *tt;

	if (npg_real_vfork_waiting(r, t))
		return NULL;	/* the step does not run: suspended */
	switch (st->op.code) {
	case NPG_OP_KILL:
		tt = &r->tasks[st->op.target];
		return kill_hazard(r, tt, st->op.value);
	case NPG_OP_EXIT:
		return t->tid == t->pid ? group_exit_hazard(r, t->pid, NULL) : exit_hazard(r, t);
	case NPG_OP_EXECVE:
		/*
		 * de_thread() kills the other threads and waits until they are
		 * released -- a traced one by its tracer's wait; a leader only
		 * until it is a zombie (it is then released with no tracer)
		 */
		for (int i = 0; i < r->sc->ntasks; i++) {
			const struct real_task *x = &r->tasks[i];
			const char *why;

			if (x == t || !npg_real_task_present(x) || x->pid != t->pid || x->tid == x->pid)
				continue;
			if ((why = exit_hazard(r, x)))
				return why;
		}
		return NULL;
	case NPG_OP_PTRACE:
		/*
		 * A task asleep in vfork() (wait_for_vfork_done(): uninterruptible
		 * in 3.0, killable since) takes no SIGSTOP until its child execs
		 * or exits: no stop to detach from, and the attach's stop, which
		 * the model's harness takes at once, would come only then
		 */
		tt = &r->tasks[st->op.target];
		if (!npg_real_task_present(tt) || !tt->alive || !npg_real_vfork_waiting(r, tt))
			return NULL;
		if (st->op.value == NPG_PTRACE_ATTACH)
			return "PTRACE_ATTACH of a task asleep in vfork(): the SIGSTOP it sends stops "
			       "the task only when its child execs or exits, not at once as the "
			       "model's harness takes it";
		if (st->op.value == NPG_PTRACE_DETACH) {
			struct npg_proc_task pt;

			if (npg_proc_read_task(tt->pid, tt->tid, &pt) == 0 && pt.tracer_pid == t->tid)
				return "a tracee asleep in vfork() never stops for the SIGSTOP of a "
				       "detach until its child execs or exits: detaching would wait "
				       "for that";
		}
		return NULL;
	default:
		return NULL;
	}
}

/*
 * After a step: a traced task that exited is a zombie until its tracer's
 * loop takes it (tracer.c); the model has it released (a thread) or a
 * plain zombie of its real parent (a leader) at once. Wait for that,
 * then reap what became the controller's: a top-level task's zombie is
 * its to reap only once no longer traced (wait_consider_task()).
 */
int npg_real_tracing_settle(struct real_priv *r, char *why, size_t len)
{
	struct timespec start, pause = { 0, 200000 };

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (int i = 0; i < r->sc->ntasks; i++) {
		const struct real_task *t = &r->tasks[i];
		struct npg_proc_task pt;
		const char *stuck;

		for (;;) {
			if (!npg_real_task_present(t) || npg_proc_read_task(t->pid, t->tid, &pt) < 0 ||
			    pt.tracer_pid == 0 || (pt.state != 'Z' && pt.state != 'X'))
				break;
			if (parents_tracer(r, t, &pt))
				break;	/* its parent's tracer: for the scenario's wait */
			if ((stuck = tracer_stuck(r, pt.tracer_pid))) {
				snprintf(why, len, "%s", stuck);
				return -1;
			}
			if (npg_real_answer_overdue(&start)) {
				snprintf(why, len, "a tracer did not take its tracee's exit within "
					 "%d s", ANSWER_TIMEOUT_MS / 1000);
				return -1;
			}
			nanosleep(&pause, NULL);
		}
	}
	npg_real_reap_children(r);
	return 0;
}

/*
 * ptrace detach: the stop to detach from. A debugger brings a running
 * tracee to one with PTRACE_INTERRUPT (3.4+, a seized tracee only) or a
 * SIGSTOP; the harness sends the SIGSTOP itself, as root, for a tracee of
 * either kind and on every kernel -- the tracer may have lost the right
 * to signal it (kill_ok_by_cred(): its ids or the tracee's changed since
 * the attach) while PTRACE_DETACH needs none. Only to a live task that
 * the caller itself traces (TracerPid), which its tracer's loop holds
 * stopped for the detach (tracer.c); to any other the kernel's answer is
 * ESRCH and no signal is sent.
 */
void npg_real_detach_stop(const struct real_task *t, const struct real_task *tt)
{
	struct npg_proc_task pt;

	if (tt->created && !tt->gone && npg_proc_read_task(tt->pid, tt->tid, &pt) == 0 &&
	    pt.tracer_pid == t->tid && pt.state != 'Z' && pt.state != 'X')
		syscall(SYS_tgkill, tt->pid, tt->tid, SIGSTOP);
}
