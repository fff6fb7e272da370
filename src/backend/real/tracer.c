/*
 * A puppet as a tracer. The model's tracer is the kernel's relationship
 * plus a harness that passes every signal on at once and takes every exit
 * at once (src/model/ptrace.c): so a tracee here must never wait for its
 * tracer longer than the tracer's next look (NPG_TRACER_TICK_MS).
 *
 * What a tracee can stop on here. PTRACE_SEIZE with no options makes no
 * stop of its own, no exec SIGTRAP and no event stops but
 * PTRACE_EVENT_STOP (PTRACE_INTERRUPT, group stops); PTRACE_ATTACH sends
 * one SIGSTOP (ptrace_attach(): "send_sig_info(SIGSTOP, ...)", 3.0 and
 * 6.1), which the attach step waits for and resumes with signal 0, so
 * the signal is dropped and no group stop follows. An attached tracee
 * that execs stops on a SIGTRAP after it (stop_signal()). What is left are
 * signal-delivery stops: a traced task takes every signal, an ignored one
 * included ("sig_task_ignored(): if (t->ptrace && sig != SIGKILL) return
 * false"). SIGCHLD, ignored by default and sent to every puppet whose
 * child or tracee changes state, would stop a traced puppet each time:
 * every puppet blocks it (a blocked signal is never dequeued, so never
 * stops), and nothing here waits for it (waits are WNOHANG, or polled).
 * The signal mask survives execve() and is inherited by threads and
 * children; npg_puppet_main() blocks it again anyway.
 *
 * Exits. exit_notify() of a traced task notifies its tracer and leaves a
 * zombie: a thread until the tracer reaps it (release_task()), a process
 * leader until the tracer's wait unlinks it (wait_task_zombie(): EXIT_TRACE,
 * __ptrace_unlink(), then a plain zombie for its real parent). The model
 * has both at once, so the tracer takes them -- except a leader whose real
 * parent is the tracer's own process: waiting on it with WEXITED would reap
 * it (not ptrace_reparented(): EXIT_DEAD), and it is the scenario's `wait`
 * step that does.
 *
 * SIGSTOP. A scenario never sends it (`kill` has no stop signal): every
 * SIGSTOP a tracee stops on is the harness's -- the attach's, taken by the
 * attach step, or the one the controller sends before a detach (the
 * tracer may have no right to signal its tracee: kill_ok_by_cred()),
 * which the loop leaves stopped (held) for the detach to take.
 *
 * Waiting. waitid() takes __WALL only since 4.7 (91c4e8ea8f05; EINVAL
 * before, measured on 3.0.8), and without it a thread (exit_signal -1) is
 * no child of any wait of ours (eligible_child()). There, a thread's
 * stops and exit are taken with wait4(__WALL), which reaps the exit --
 * every traced thread's exit is ours to take -- and a process's with
 * waitid() as here.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/real/tracer.h"
#include "system/procfs.h"

extern char **environ;

/* attach, detach: how long the SIGSTOP stop may take to come */
#define STOP_TIMEOUT_MS 10000

int npg_tracer_block_sigchld(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	return pthread_sigmask(SIG_BLOCK, &set, NULL) == 0 ? 0 : -1;
}

static bool listed(const struct npg_tracees *tr, pid_t tid)
{
	for (int i = 0; i < tr->n; i++)
		if (tr->t[i].tid == tid)
			return true;
	return false;
}

static void drop(struct npg_tracees *tr, int i)
{
	tr->t[i] = tr->t[--tr->n];
}

/*
 * mmap(), not malloc(): a vfork() child runs here in its parent's memory
 * with its parent's thread pointer, and a mapping it leaves behind when it
 * execs is only unused memory of the parent's
 */
static int add(struct npg_tracees *tr, pid_t tid, pid_t tgid, pid_t ppid)
{
	if (!tr->t) {
		void *p = mmap(NULL, NPG_MAX_TASKS * sizeof(*tr->t), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return -1;
		tr->t = p;
	}
	/* full: a scenario has at most NPG_MAX_TASKS tasks, each traced once */
	if (listed(tr, tid) || tr->n == NPG_MAX_TASKS)
		return 0;
	tr->t[tr->n++] = (struct npg_tracee){ tid, tgid, ppid, false };
	return 0;
}

/* A zombie we may reap: a thread, or a process whose real parent is not ours */
static bool exit_is_ours(const struct npg_tracee *e)
{
	return e->tid != e->tgid || e->ppid != getpid();
}

/*
 * waitid() says @e's tid is no tracee of ours. Either it is gone (reaped,
 * detached, released), or it was a thread that exec'd: de_thread() gave it
 * its process's id (transfer_pid()), and the link went with the task. Then
 * the process's leader id is traced by us.
 */
static bool follow_exec(struct npg_tracees *tr, struct npg_tracee *e)
{
	struct npg_proc_task pt;

	if (e->tid == e->tgid || listed(tr, e->tgid) ||
	    npg_proc_read_task(e->tgid, e->tgid, &pt) < 0 || pt.tracer_pid != gettid())
		return false;
	e->tid = e->tgid;
	return true;
}

/*
 * PTRACE_CONT with the signal a stop carried: none for an event stop, nor
 * for a SIGTRAP -- which a scenario never sends: it is the legacy exec
 * report of an attached tracee (ptrace_event(PTRACE_EVENT_EXEC): "legacy
 * EXEC report via SIGTRAP", send_sig(SIGTRAP, current, 0), for a tracee
 * not seized; 3.0 for any), which a debugger takes and drops, and which,
 * passed on, would kill the tracee
 */
static int stop_signal(int status)
{
	return (status >> 8) || (status & 0x7f) == SIGTRAP ? 0 : status & 0x7f;
}

/* A signal-delivery stop on SIGSTOP: the harness's (see above) */
static bool sigstop_stop(const siginfo_t *si)
{
	return si->si_code == CLD_TRAPPED && si->si_status == SIGSTOP;
}

/* waitid() with __WALL said EINVAL once: a kernel before 4.7 */
static bool no_waitid_wall;

/*
 * One look at @e: its next stop, taken (si_code CLD_TRAPPED, si_status
 * the signal | event << 8), its exit -- taken when ours (exit_is_ours()),
 * else only looked at, left for the scenario's wait -- or nothing
 * (si_pid 0). 0, or -1 with errno (ECHILD: no tracee of ours).
 */
static int look(const struct npg_tracee *e, siginfo_t *si)
{
	int ours = exit_is_ours(e), status;
	pid_t p;

	memset(si, 0, sizeof(*si));
	if (!ours) {
		/* a process: waitid() needs no __WALL for it */
		if (waitid(P_PID, (id_t)e->tid, si, WSTOPPED | WEXITED | WNOWAIT | WNOHANG |
			   (no_waitid_wall ? 0 : __WALL)) < 0) {
			if (errno != EINVAL || no_waitid_wall)
				return -1;
			no_waitid_wall = true;
			return look(e, si);
		}
		if (si->si_pid == 0 || si->si_code != CLD_TRAPPED)
			return 0;
		/* a stop: now take it (WNOWAIT left it there) */
		memset(si, 0, sizeof(*si));
		return waitid(P_PID, (id_t)e->tid, si, WSTOPPED | WNOHANG |
			      (no_waitid_wall ? 0 : __WALL));
	}
	if (!no_waitid_wall) {
		if (waitid(P_PID, (id_t)e->tid, si, WSTOPPED | WEXITED | WNOHANG | __WALL) == 0)
			return 0;
		if (errno != EINVAL)
			return -1;
		no_waitid_wall = true;
	}
	if (e->tid == e->tgid)
		return waitid(P_PID, (id_t)e->tid, si, WSTOPPED | WEXITED | WNOHANG);
	if ((p = wait4(e->tid, &status, WNOHANG | __WALL, NULL)) <= 0)
		return p < 0 ? -1 : 0;
	si->si_pid = p;
	if (WIFSTOPPED(status)) {
		si->si_code = CLD_TRAPPED;
		si->si_status = status >> 8;
	} else if (WIFEXITED(status)) {
		si->si_code = CLD_EXITED;
		si->si_status = WEXITSTATUS(status);
	} else {
		si->si_code = CLD_KILLED;
		si->si_status = WTERMSIG(status);
	}
	return 0;
}

void npg_tracer_service(struct npg_tracees *tr)
{
	for (int i = 0; i < tr->n; ) {
		struct npg_tracee *e = &tr->t[i];
		siginfo_t si;

		if (e->held) {
			i++;	/* stopped for the detach that comes next */
			continue;
		}
		if (look(e, &si) < 0) {
			if (errno == ECHILD && !follow_exec(tr, e)) {
				drop(tr, i);
				continue;
			}
			if (errno != ECHILD && errno != EINTR)
				i++;	/* nothing else is documented; looked at next time */
			continue;
		}
		if (si.si_pid == 0) {
			i++;
			continue;
		}
		if (sigstop_stop(&si)) {
			e->held = true;	/* the controller's, before a detach */
			i++;
			continue;
		}
		if (si.si_code == CLD_TRAPPED) {
			/*
			 * A signal-delivery stop goes on with its signal, as strace
			 * passes it; an event stop (the tracee is never asked for
			 * one) goes on with none. Should the tracee have died
			 * meanwhile (SIGKILL), its exit comes next time.
			 */
			ptrace(PTRACE_CONT, e->tid, 0L, (long)stop_signal(si.si_status));
			continue;	/* the same tracee again: another stop or its exit */
		}
		if (exit_is_ours(e) && (si.si_code == CLD_EXITED || si.si_code == CLD_KILLED ||
					si.si_code == CLD_DUMPED)) {
			drop(tr, i);	/* released, or a plain zombie for its parent now */
			continue;
		}
		i++;
	}
}

static long ms_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
}

/* await_sigstop()'s answers besides an errno */
enum { IN_SIGSTOP = 0, EXITED = -1 };

/*
 * Wait until @e is in a signal-delivery stop on SIGSTOP (taken, left
 * stopped: IN_SIGSTOP), passing on, as the loop would, any other signal
 * it stops on first; or until it has exited (EXITED; taken when ours,
 * else left for its parent's wait). Else an errno: ETIMEDOUT after
 * STOP_TIMEOUT_MS, which the controller reports as a broken step.
 */
static int await_sigstop(struct npg_tracee *e)
{
	struct timespec start, pause = { 0, 100000 };

	if (e->held) {
		e->held = false;
		return IN_SIGSTOP;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		siginfo_t si;

		if (look(e, &si) < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (sigstop_stop(&si))
			return IN_SIGSTOP;
		if (si.si_pid != 0 && si.si_code == CLD_TRAPPED) {
			if (ptrace(PTRACE_CONT, e->tid, 0L, (long)stop_signal(si.si_status)) < 0)
				return errno;
			continue;
		}
		if (si.si_pid != 0)
			return EXITED;
		if (ms_since(&start) > STOP_TIMEOUT_MS)
			return ETIMEDOUT;
		nanosleep(&pause, NULL);
	}
}

static struct npg_tracee *entry(struct npg_tracees *tr, pid_t tid)
{
	for (int i = 0; i < tr->n; i++)
		if (tr->t[i].tid == tid)
			return &tr->t[i];
	return NULL;
}

int npg_tracer_seize(struct npg_tracees *tr, pid_t tid, pid_t tgid, pid_t ppid)
{
	int err;

	if (ptrace(PTRACE_SEIZE, tid, 0L, 0L) < 0)
		return errno;
	if (add(tr, tid, tgid, ppid) == 0)
		return 0;
	/* no room to remember it: not traced, and the step says why */
	err = errno;
	ptrace(PTRACE_DETACH, tid, 0L, 0L);
	return err;
}

/*
 * PTRACE_ATTACH, then the stop its SIGSTOP brings, resumed with signal 0:
 * ptrace_signal() drops the signal ("signr = current->exit_code; if
 * (signr == 0) return signr;"), and the tracee runs on as after a seize.
 * The attach's SIGSTOP is the only one pending: none is pending before
 * (the scenario sends none) and a second would merge with it
 * (legacy_queue()). A task asleep in vfork() stops only when its child
 * execs or exits: the controller never asks this of it (tracing.c).
 */
int npg_tracer_attach(struct npg_tracees *tr, pid_t tid, pid_t tgid, pid_t ppid)
{
	struct npg_tracee tmp = { tid, tgid, ppid, false }, *e;
	int err, got;

	if (ptrace(PTRACE_ATTACH, tid, 0L, 0L) < 0)
		return errno;
	err = add(tr, tid, tgid, ppid) < 0 ? errno : 0;
	e = err ? &tmp : entry(tr, tid);
	if (!e) {	/* the list is full: cannot happen (one entry per scenario task) */
		err = ENOSPC;
		e = &tmp;
	}
	got = await_sigstop(e);
	if (got == IN_SIGSTOP) {
		/* resumed with signal 0, the SIGSTOP dropped; or, with no room
		 * to remember it, let go again, and the step says why */
		if (ptrace(err ? PTRACE_DETACH : PTRACE_CONT, tid, 0L, 0L) < 0 && !err)
			return errno;
		return err;
	}
	if (got == EXITED && exit_is_ours(e) && !err)
		for (int i = 0; i < tr->n; i++)
			if (tr->t[i].tid == tid)
				drop(tr, i);
	/* attached, and the kernel said so: a tracer that cannot see the stop is broken */
	return got == EXITED ? err : got;
}

/*
 * What a debugger does to let go of a running tracee: bring it to a stop
 * and PTRACE_DETACH from there (ptrace_check_attach() wants it stopped)
 * with signal 0. The stop is the SIGSTOP the controller sent it just
 * before this (tracing.c) -- the same for a seized tracee as for an
 * attached one: PTRACE_INTERRUPT is 3.4's, for seized tracees only --
 * dropped by the detach, so the tracee runs on, not stopped. An exit met
 * first (a zombie traced by its parent, which never stops) is left where
 * it is; PTRACE_DETACH then fails with ESRCH. A task that is no tracee of
 * this one is ESRCH, as the kernel's ptrace_check_attach() says.
 */
int npg_tracer_detach(struct npg_tracees *tr, pid_t tid)
{
	struct npg_tracee *e = entry(tr, tid);
	int got;

	if (!e)
		return ptrace(PTRACE_DETACH, tid, 0L, 0L) < 0 ? errno : 0;
	got = await_sigstop(e);
	if (got > 0)
		return got;
	if (ptrace(PTRACE_DETACH, tid, 0L, 0L) < 0)
		return errno;
	for (int i = 0; i < tr->n; i++)
		if (tr->t[i].tid == tid) {
			drop(tr, i);
			break;
		}
	return 0;
}

bool npg_tracer_pass_stop(pid_t pid, int status)
{
	if (!WIFSTOPPED(status))
		return false;
	/* a SIGSTOP is the harness's (see above): passed on, it would stop the group */
	ptrace(PTRACE_CONT, pid, 0L,
	       (long)(WSTOPSIG(status) == SIGSTOP ? 0 : stop_signal(status >> 8)));
	return true;
}

/* --- across execve --- */

void npg_tracer_inherit(struct npg_tracees *tr)
{
	const char *v = getenv(NPG_TRACEES_ENV);

	tr->n = 0;
	tr->t = NULL;
	while (v && *v) {
		unsigned tid, tgid, ppid;
		int used = 0;

		if (sscanf(v, "%x:%x:%x%n", &tid, &tgid, &ppid, &used) != 3 || used == 0)
			break;
		if (add(tr, (pid_t)tid, (pid_t)tgid, (pid_t)ppid) < 0)
			break;	/* out of memory: those tracees are then never serviced */
		v += used;
		if (*v == ',')
			v++;
	}
	unsetenv(NPG_TRACEES_ENV);
}

char **npg_tracer_env(const struct npg_tracees *tr)
{
	size_t n = 0, k = 0, len = sizeof(NPG_TRACEES_ENV "=") + (size_t)tr->n * 27;
	char **env;
	char *list;
	size_t at;

	while (environ && environ[n])
		n++;
	env = calloc(n + 2, sizeof(*env));
	list = malloc(len);
	if (!env || !list) {
		free(env);
		free(list);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], NPG_TRACEES_ENV "=", sizeof(NPG_TRACEES_ENV)) != 0)
			env[k++] = environ[i];
	at = (size_t)snprintf(list, len, "%s=", NPG_TRACEES_ENV);
	for (int i = 0; i < tr->n && at < len; i++)
		at += (size_t)snprintf(list + at, len - at, "%s%x:%x:%x", i ? "," : "",
				       (unsigned)tr->t[i].tid, (unsigned)tr->t[i].tgid,
				       (unsigned)tr->t[i].ppid);
	env[k++] = list;
	env[k] = NULL;
	return env;
}

void npg_tracer_env_free(char **env)
{
	if (!env)
		return;
	for (size_t i = 0; env[i]; i++)
		if (strncmp(env[i], NPG_TRACEES_ENV "=", sizeof(NPG_TRACEES_ENV)) == 0)
			free(env[i]);
	free(env);
}
