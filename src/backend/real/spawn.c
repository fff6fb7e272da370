/*
 * The run's own processes: at its start, the scenario's declared tasks
 * (each a puppet set up as declared) and its fillers (a user's `procs
 * N`), refused when the machine has no room for them; at its stop,
 * waiting until every one of them is gone -- reaped by us as a child
 * subreaper (3.4+), or by init before.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/real/creds.h"
#include "backend/real/real_priv.h"
#include "backend/real/spawn.h"
#include "backend/real/teardown.h"
#include "backend/real/wire.h"
#include "system/procfs.h"
#include "system/tasklimits.h"

/* Put @from at @to, kept across execve (dup2 of an fd onto itself keeps FD_CLOEXEC) */
static int move_fd(int from, int to)
{
	if (from == to)
		return fcntl(to, F_SETFD, 0);
	return dup2(from, to) < 0 ? -1 : 0;
}

int npg_real_spawn_initial(struct npg_backend *b, struct real_priv *r, int idx)
{
	const struct npg_task_decl *d = &r->sc->tasks[idx];
	struct real_task *t = &r->tasks[idx];
	struct rlimit lim = { d->nproc_cur, d->nproc_max };
	struct npg_wire_msg m;
	int sv[2];
	pid_t pid;

	if (r->sc->has_bounding && (r->sc->bounding & ~r->host->cap_bnd)) {
		char why[200];

		snprintf(why, sizeof(why), "the scenario's bounding set has capabilities %#llx "
			 "that this machine's bounding set %#llx lacks",
			 (unsigned long long)(r->sc->bounding & ~r->host->cap_bnd),
			 (unsigned long long)r->host->cap_bnd);
		npg_real_taint(t, why);
	} else if (d->caps_explicit && (d->cred.cap_permitted & ~r->host->cap_bnd)) {
		char why[200];

		snprintf(why, sizeof(why), "task '%s' needs capabilities %#llx outside this "
			 "machine's bounding set %#llx", d->name,
			 (unsigned long long)(d->cred.cap_permitted & ~r->host->cap_bnd),
			 (unsigned long long)r->host->cap_bnd);
		npg_real_taint(t, why);
	}
	/* RLIM_INFINITY needs CAP_SYS_RESOURCE to raise to; keep what we have */
	if (lim.rlim_max > r->host->nproc_hard &&
	    !npg_cap_has(r->host->cap_eff, NPG_CAP_SYS_RESOURCE)) {
		lim.rlim_max = r->host->nproc_hard;
		if (lim.rlim_cur > lim.rlim_max)
			lim.rlim_cur = lim.rlim_max;
		t->hard_capped = true;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		snprintf(b->error, sizeof(b->error), "socketpair: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(b->error, sizeof(b->error), "fork: %s", strerror(errno));
		close(sv[0]), close(sv[1]);
		return -1;
	}
	if (pid == 0) {
		struct npg_wire_msg fail = { .kind = NPG_WIRE_RESULT, .result = NPG_R_ERRNO };

		if (move_fd(r->exe_fd, NPG_PUPPET_EXE_FD) < 0 ||
		    move_fd(sv[1], NPG_PUPPET_SOCK_FD) < 0)
			_exit(111);
		npg_close_from(NPG_PUPPET_SOCK_FD + 1);
		signal(SIGINT, SIG_DFL), signal(SIGTERM, SIG_DFL), signal(SIGHUP, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		if (npg_real_apply_initial(r, d, &lim) < 0) {
			fail.value = errno;
			npg_wire_send(NPG_PUPPET_SOCK_FD, &fail, -1);
			_exit(111);
		}
		npg_puppet_main(NPG_PUPPET_SOCK_FD);
	}
	npg_teardown_remember(pid);
	close(sv[1]);
	t->sock = sv[0];
	t->pid = t->tid = pid;
	t->ruid_seen = true;
	t->last_ruid = npg_real_map_id(r, d->cred.uid.real);
	t->key_known = true;	/* the set-up changes the real uid alone first */
	t->key = t->last_ruid;
	t->created = t->alive = true;
	t->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (npg_real_recv_timed(t->sock, &m, NULL) <= 0 || m.kind != NPG_WIRE_HELLO) {
		snprintf(b->error, sizeof(b->error), "task '%s' could not be set up: %s", d->name,
			 m.kind == NPG_WIRE_RESULT ? strerror((int)m.value) : "no answer");
		return -1;
	}
	return 0;
}

/*
 * A filler is a process of a user's that the scenario does not drive (the
 * user's `procs N`). It counts for the user only once its setresuid() has
 * happened -- commit_creds() moves it to the new user's count -- so each
 * one acknowledges the switch on a pipe, and the run starts only when all
 * have: observing earlier would miss some. It then waits for the
 * controller's end of the filler pipe to close.
 */
static void filler_main(const struct real_priv *r, uint32_t uid, int ack)
{
	char c = 'k';

	/* the controller's teardown handler is for the controller: a SIGTERM to
	 * the process group would have each filler report the run interrupted */
	signal(SIGINT, SIG_DFL), signal(SIGTERM, SIG_DFL), signal(SIGHUP, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	close(r->filler_pipe[1]);
	npg_puppet_test_delay();
	if (syscall(SYS_setresgid, uid, uid, uid) < 0 ||
	    syscall(SYS_setresuid, uid, uid, uid) < 0)
		c = 'e';
	if (write(ack, &c, 1) != 1 || c != 'k')
		_exit(111);
	close(ack);
	while (read(r->filler_pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

/* Read @n acknowledgements; -1 with b->error if one failed or none came in time */
static int await_fillers(struct npg_backend *b, int ack, long n)
{
	char buf[4096];

	while (n > 0) {
		struct pollfd p = { .fd = ack, .events = POLLIN };
		int ready = poll(&p, 1, ANSWER_TIMEOUT_MS);
		ssize_t got;

		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0) {
			snprintf(b->error, sizeof(b->error), "%ld processes of the scenario's users "
				 "did not switch their uid within %d s", n, ANSWER_TIMEOUT_MS / 1000);
			return -1;
		}
		got = read(ack, buf, sizeof(buf) < (size_t)n ? sizeof(buf) : (size_t)n);
		if (got <= 0) {
			snprintf(b->error, sizeof(b->error), "a process of a scenario user died "
				 "before switching its uid");
			return -1;
		}
		if (memchr(buf, 'e', (size_t)got)) {
			snprintf(b->error, sizeof(b->error), "a process of a scenario user could "
				 "not switch its uid (setresuid failed)");
			return -1;
		}
		n -= got;
	}
	return 0;
}

/* @n fillers of scenario user @user, acknowledged on @ack: 0, or -1 with b->error */
static int fork_fillers(struct npg_backend *b, struct real_priv *r, const struct npg_name *user,
			long n, int ack[2], long *started)
{
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			snprintf(b->error, sizeof(b->error), "fork of process %ld of %ld of "
				 "user '%s': %s", i + 1, n, user->name, strerror(errno));
			return -1;
		}
		if (pid == 0) {
			close(ack[0]);
			filler_main(r, npg_real_map_id(r, user->id), ack[1]);
		}
		npg_teardown_remember(pid);
		++*started;
		/* root's are ended one by one when its count moves (guestroot.c) */
		if (user->id == 0 && r->nroot_pids < r->root_pids_cap)
			r->root_pids[r->nroot_pids++] = pid;
	}
	return 0;
}

/* Make the fillers of @user (the first @n of them), then await all: 0 or -1 */
static int spawn_fillers_of(struct npg_backend *b, struct real_priv *r, const struct npg_name *user,
			    long n)
{
	const struct npg_scenario *sc = r->sc;
	int ack[2];
	long started = 0;
	int rc = 0;

	if (pipe2(ack, O_CLOEXEC) < 0) {
		snprintf(b->error, sizeof(b->error), "pipe: %s", strerror(errno));
		return -1;
	}
	if (user)
		rc = fork_fillers(b, r, user, n, ack, &started);
	for (int u = 0; !user && u < sc->nnames && rc == 0; u++) {
		const struct npg_name *x = &sc->names[u];

		if (!x->group && x->procs && x->id != 0)
			rc = fork_fillers(b, r, x, x->procs, ack, &started);
	}
	close(ack[1]);
	/* after a failed fork too: the ones started must be settled before stop */
	if (await_fillers(b, ack[0], started) < 0 && rc == 0)
		rc = -1;
	close(ack[0]);
	return rc;
}

int npg_real_spawn_fillers(struct npg_backend *b, struct real_priv *r)
{
	return spawn_fillers_of(b, r, NULL, 0);
}

int npg_real_spawn_root_fillers(struct npg_backend *b, struct real_priv *r,
				const struct npg_name *root, long n)
{
	return spawn_fillers_of(b, r, root, n);
}

/*
 * Refuse a scenario the machine cannot hold before making any process:
 * a large `procs` could otherwise exhaust the machine's pids or its pids
 * cgroup halfway, for us and for everybody else. A tenth of each limit
 * (at least 64 tasks) stays for the rest of the machine.
 */
int npg_real_check_capacity(struct npg_backend *b, const struct real_priv *r)
{
	const struct npg_scenario *sc = r->sc;
	struct npg_tasklimit lim[NPG_TASKLIMITS_MAX];
	long need = sc->ntasks;
	int n = npg_tasklimits_read(lim, NPG_TASKLIMITS_MAX);

	/* root's `procs` are made only in a guest, where root's count is the file's */
	for (int u = 0; u < sc->nnames; u++)
		if (!sc->names[u].group && (sc->names[u].id != 0 || r->host->own_kernel))
			need += sc->names[u].procs;
	for (int i = 0; i < n; i++) {
		long reserve = lim[i].limit / 10 > 64 ? lim[i].limit / 10 : 64;

		if (lim[i].used + need + reserve <= lim[i].limit)
			continue;
		snprintf(b->error, sizeof(b->error),
			 "the scenario needs up to %ld tasks at once, but %s is %ld with %ld in "
			 "use (and %ld kept for the rest of the machine): not started", need,
			 lim[i].what, lim[i].limit, lim[i].used, reserve);
		return -1;
	}
	return 0;
}

/* Is @t's process (a leader) still there, and the one the run made? */
bool npg_real_still_there(const struct real_task *t)
{
	struct npg_proc_task pt;

	return npg_proc_read_task(t->pid, t->pid, &pt) == 0 &&
	       (t->starttime == 0 || pt.starttime == t->starttime);
}

/*
 * Reap until no child is left: every puppet, filler and (as a subreaper)
 * orphan of the run ends up our child once its parent is gone. Killed
 * again now and then, in case one was forked after the last sweep.
 * Returns 0, or -1 if some were still there after STOP_TIMEOUT_MS.
 */
static int reap_everything(const struct real_priv *r)
{
	struct timespec pause = { 0, 1000000 };

	for (int ms = 0; ms < STOP_TIMEOUT_MS; ) {
		pid_t pid = waitpid(-1, NULL, WNOHANG | __WALL);

		if (pid < 0 && errno == ECHILD)
			return 0;
		if (pid > 0)
			continue;
		nanosleep(&pause, NULL);
		if (++ms % 100 == 0)
			npg_proc_kill_uid_range(r->base, r->base + NPG_UID_WINDOW);
	}
	return -1;
}

/* Without a subreaper, init reaps the orphans: wait until it has */
static int await_empty_window(const struct real_priv *r)
{
	struct timespec pause = { 0, 2000000 };

	for (int i = 0; i < STOP_TIMEOUT_MS / 2; i++) {
		pid_t busy = npg_proc_find_uid_in_range(r->base, r->base + NPG_UID_WINDOW);

		if (busy == 0)
			return 0;
		if (i % 50 == 0)
			npg_proc_kill_uid_range(r->base, r->base + NPG_UID_WINDOW);
		nanosleep(&pause, NULL);
	}
	return -1;
}

/* A leader the stop kills and, without a subreaper, waits for: its start time was taken */
static bool orphan_candidate(const struct real_task *t)
{
	return t->created && !t->gone && t->tid == t->pid && t->starttime != 0;
}

/*
 * Without a subreaper (before 3.4), init reaps the run's orphans, whose
 * uid may be outside the window (0 in a child namespace, or root's):
 * wait until each process whose start time was taken is gone, or its pid
 * is another process's. 0, or -1 if some were still there after
 * STOP_TIMEOUT_MS.
 */
static int await_orphans(const struct real_priv *r)
{
	struct timespec pause = { 0, 2000000 };

	for (int i = 0; i < STOP_TIMEOUT_MS / 2; i++) {
		bool left = false;

		for (int k = 0; k < r->sc->ntasks; k++) {
			const struct real_task *t = &r->tasks[k];

			if (orphan_candidate(t) && npg_real_still_there(t)) {
				left = true;
				if (i % 50 == 0)
					kill(t->pid, SIGKILL);
			}
		}
		if (!left)
			return 0;
		nanosleep(&pause, NULL);
	}
	return -1;
}

int npg_real_await_all_gone(const struct real_priv *r)
{
	if (reap_everything(r) < 0 ||
	    (!r->subreaper && (await_empty_window(r) < 0 || (r->tasks && await_orphans(r) < 0))))
		return -1;
	return 0;
}
