/*
 * A puppet as a tracer. The model's tracer is the kernel's relationship
 * plus a harness that passes every signal on at once and takes every exit
 * at once (src/model/ptrace.c): so a tracee here must never wait for its
 * tracer longer than the tracer's next look (NPG_TRACER_TICK_MS).
 *
 * What a tracee can stop on here. PTRACE_SEIZE with no options makes no
 * stop of its own, no exec SIGTRAP and no event stops but
 * PTRACE_EVENT_STOP (PTRACE_INTERRUPT, group stops). What is left are
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

#include "backend/real/procfs.h"
#include "backend/real/tracer.h"

extern char **environ;

/* detach: how long the stop PTRACE_INTERRUPT asks for may take */
#define DETACH_TIMEOUT_MS 10000

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
	tr->t[tr->n++] = (struct npg_tracee){ tid, tgid, ppid };
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

/* ptrace() continue/detach with the signal a stop carried (0 for an event stop) */
static int stop_signal(int status)
{
	return (status >> 8) ? 0 : status & 0x7f;
}

void npg_tracer_service(struct npg_tracees *tr)
{
	for (int i = 0; i < tr->n; ) {
		struct npg_tracee *e = &tr->t[i];
		siginfo_t si;
		int flags = WSTOPPED | WNOHANG | __WALL | (exit_is_ours(e) ? WEXITED : 0);

		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)e->tid, &si, flags) < 0) {
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
		if (si.si_code == CLD_TRAPPED) {
			/*
			 * A signal-delivery stop goes on with its signal, as strace
			 * passes it; an event stop (the tracee is never asked for one
			 * outside a detach) goes on with none. Should the tracee
			 * have died meanwhile (SIGKILL), its exit comes next time.
			 */
			ptrace(PTRACE_CONT, e->tid, 0L, (long)stop_signal(si.si_status));
			continue;	/* the same tracee again: another stop or its exit */
		}
		if (si.si_code == CLD_EXITED || si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED) {
			drop(tr, i);	/* released, or a plain zombie for its parent now */
			continue;
		}
		i++;
	}
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

static long ms_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
}

/*
 * What strace does to let go of a running tracee: PTRACE_INTERRUPT, wait
 * for the PTRACE_EVENT_STOP it brings -- passing on, as the loop would,
 * any signal-delivery stop met first -- and PTRACE_DETACH from it. An
 * exit met first (a zombie traced by its parent, which never stops) is
 * left where it is; PTRACE_DETACH then fails, as ptrace_check_attach()
 * wants the tracee stopped. The errno of the first call that fails.
 */
int npg_tracer_detach(struct npg_tracees *tr, pid_t tid)
{
	struct timespec start, pause = { 0, 100000 };
	int err = 0;

	if (ptrace(PTRACE_INTERRUPT, tid, 0L, 0L) < 0)
		return errno;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		siginfo_t si;

		memset(&si, 0, sizeof(si));
		/* WNOWAIT: an exit is only looked at, never reaped here */
		if (waitid(P_PID, (id_t)tid, &si, WSTOPPED | WEXITED | WNOWAIT | WNOHANG | __WALL) < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (si.si_pid != 0 && si.si_code != CLD_TRAPPED) {
			if (ptrace(PTRACE_DETACH, tid, 0L, 0L) < 0)
				err = errno;
			break;
		}
		if (si.si_pid != 0) {
			int sig;

			/* now take the stop itself (WNOWAIT left it there) */
			memset(&si, 0, sizeof(si));
			if (waitid(P_PID, (id_t)tid, &si, WSTOPPED | WNOHANG | __WALL) < 0)
				return errno;
			if (si.si_pid == 0)
				continue;
			sig = stop_signal(si.si_status);
			if ((si.si_status >> 8) != 0) {
				if (ptrace(PTRACE_DETACH, tid, 0L, 0L) < 0)
					err = errno;
				break;
			}
			if (ptrace(PTRACE_CONT, tid, 0L, (long)sig) < 0)
				return errno;
			continue;
		}
		if (ms_since(&start) > DETACH_TIMEOUT_MS)
			return ETIMEDOUT;	/* the controller says the step broke */
		nanosleep(&pause, NULL);
	}
	for (int i = 0; i < tr->n; i++)
		if (tr->t[i].tid == tid && !err) {
			drop(tr, i);
			break;
		}
	return err;
}

bool npg_tracer_pass_stop(pid_t pid, int status)
{
	if (!WIFSTOPPED(status))
		return false;
	ptrace(PTRACE_CONT, pid, 0L, (long)((status >> 16) ? 0 : WSTOPSIG(status)));
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
