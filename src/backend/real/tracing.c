/*
 * ptrace and dumpability, the controller's side: what a seize tells the
 * tracer, which steps would need a tracer that cannot act, waiting until
 * the tracers have taken every exit (the model has a traced task's exit
 * acknowledged at once), and reading a task's tracer and dumpability.
 * The tracer's loop itself is the puppets' (tracer.c).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "backend/real/procfs.h"
#include "backend/real/real_priv.h"
#include "backend/real/wire.h"

/* A task of the scenario that exists now (a zombie included) */
static bool present(const struct real_task *t)
{
	return t->created && !t->gone;
}

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

	if (!present(t) || npg_proc_read_task(t->pid, t->tid, &pt) < 0 || pt.tracer_pid == 0 ||
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

		if (x == except || !present(x) || x->pid != pid)
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

	if (sig == 0 || !present(p) || !p->alive)
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

			if (x == t || !present(x) || x->pid != t->pid || x->tid == x->pid)
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
		if (!present(tt) || !tt->alive || !npg_real_vfork_waiting(r, tt))
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
			if (!present(t) || npg_proc_read_task(t->pid, t->tid, &pt) < 0 ||
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

/* --- observing --- */

/* PR_GET_DUMPABLE asked of puppet @x: 0, 1, 2, or -1 if it did not answer */
static int ask_dumpable(struct real_task *x)
{
	struct npg_wire_msg m = { .kind = NPG_WIRE_DUMPABLE };

	if (npg_wire_send(x->sock, &m, -1) < 0 || npg_real_recv_timed(x->sock, &m, NULL) <= 0 ||
	    m.kind != NPG_WIRE_RESULT || m.result != NPG_R_OK)
		return -1;
	return (int)m.value;
}

/* A puppet that can answer now: alive, with its socket, not asleep in vfork() */
static bool can_answer(const struct real_priv *r, const struct real_task *x)
{
	return present(x) && x->alive && x->sock >= 0 && !x->tainted &&
	       !npg_real_vfork_waiting(r, x);
}

/*
 * Who can say what @t's mm's dumpability is: @t, another thread of its
 * process (one mm), or a vfork() child still in that mm (not in a
 * sanitizer build, whose child has a copy). -1: none.
 */
static int answerer(const struct real_priv *r, int task)
{
	const struct real_task *t = &r->tasks[task];

	if (can_answer(r, t))
		return task;
	for (int i = 0; i < r->sc->ntasks; i++)
		if (r->tasks[i].pid == t->pid && can_answer(r, &r->tasks[i]))
			return i;
#if !defined(__SANITIZE_ADDRESS__)
	for (int i = 0; i < r->sc->ntasks; i++) {
		const struct real_task *c = &r->tasks[i];

		if (c->shares_mm && c->vfork_waiter && r->tasks[c->vfork_waiter - 1].pid == t->pid &&
		    can_answer(r, c))
			return i;
	}
#endif
	return -1;
}

/*
 * From /proc alone: task_dump_owner() makes a task's /proc files owned by
 * its euid when its mm is SUID_DUMP_USER, else by uid 0 of mm->user_ns.
 * A task of the initial namespace never exec'd in another, so that is
 * root: an owner that is its euid and not root says 1; root, with a
 * non-root euid, says "not 1" -- 0, unless fs.suid_dumpable 2 can have
 * made it 2. -1: cannot tell.
 */
static int dumpable_from_owner(const struct real_priv *r, const struct real_task *t)
{
	struct npg_proc_task pt;
	uint32_t owner;

	if (t->ns != 0 || npg_proc_read_task(t->pid, t->tid, &pt) < 0 ||
	    npg_proc_dump_owner(t->pid, t->tid, &owner) < 0 || pt.uid[1] == 0 ||
	    pt.state == 'Z' || pt.state == 'X')
		return -1;
	if (owner == pt.uid[1])
		return 1;
	return owner == 0 && r->host->suid_dumpable != 2 ? 0 : -1;
}

/* The process's dumpability now, or -1 (and why) */
static int dumpable_of(struct real_priv *r, int task, const char **why)
{
	const struct real_task *t = &r->tasks[task];
	int a, v;

	*why = NULL;
	for (int i = 0; i < r->sc->ntasks; i++)
		if (r->tasks[i].pid == t->pid && present(&r->tasks[i]) &&
		    r->tasks[i].mm_copy_changed) {
			*why = "in this sanitizer build a vfork() child changed its credentials in "
			       "a copy of its parent's memory, not in the parent's as the kernel "
			       "would: the parent's dumpability is not the kernel's";
			return -1;
		}
	if (!present(t) || !t->alive) {
		*why = "a task that has exited has no memory map, and no dumpability";
		return -1;
	}
	if ((a = answerer(r, task)) >= 0 && (v = ask_dumpable(&r->tasks[a])) >= 0)
		return v;
	if ((v = dumpable_from_owner(r, t)) >= 0)
		return v;
	*why = "no thread of the process can be asked (asleep in vfork()), and the owner of "
	       "its /proc files does not tell (task_dump_owner(): root either way)";
	return -1;
}

void npg_real_view_tracing(struct real_priv *r, int task, pid_t tracer_pid, struct npg_task *out)
{
	int x;

	out->tracer = 0;
	if (tracer_pid && (x = npg_real_task_of_tid(r, tracer_pid)) >= 0)
		out->tracer = x + 1;
	/*
	 * Asking a puppet costs a round trip: only `check TASK dumpable`
	 * reads it, after npg_real_tracing_observable() asked (and refused an
	 * unknown one); any other view leaves 0
	 */
	out->dumpable = task == r->dumpable_read_task && out->state == NPG_TASK_RUNNING ?
			r->dumpable_read : 0;
}

bool npg_real_tracing_observable(struct real_priv *r, const struct npg_stmt *st, char *why,
				 size_t len)
{
	const struct real_task *t = &r->tasks[st->task];
	struct npg_proc_task pt;
	const char *because;

	if (st->check == NPG_CHECK_TRACER) {
		if (present(t) && npg_proc_read_task(t->pid, t->tid, &pt) == 0 && pt.tracer_pid &&
		    npg_real_task_of_tid(r, pt.tracer_pid) < 0) {
			snprintf(why, len, "the task is traced by pid %d, which is no task of the "
				 "scenario", (int)pt.tracer_pid);
			return false;
		}
		return true;
	}
	/* an exited task's is "none", from its state alone */
	if (!present(t) || !t->alive)
		return true;
	r->dumpable_read_task = st->task;
	if ((r->dumpable_read = dumpable_of(r, st->task, &because)) < 0) {
		snprintf(why, len, "%s", because);
		return false;
	}
	return true;
}
