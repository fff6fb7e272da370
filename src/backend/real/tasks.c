/*
 * The controller's task table: which scenario task is which process or
 * thread now, which user namespace it is in, waiting until a task has
 * exited and reaping what became the controller's, and the tasks that
 * can no longer be driven faithfully (tainted) with the users they may
 * touch. Part of the controller's core: it calls no step family.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/real/real_priv.h"
#include "system/procfs.h"

/* More than ANSWER_TIMEOUT_MS since @start? Then errno is ETIMEDOUT. */
bool npg_real_answer_overdue(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if ((now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000 <=
	    ANSWER_TIMEOUT_MS)
		return false;
	errno = ETIMEDOUT;
	return true;
}

/*
 * Wait until @t's /proc entry says it is gone (a thread released by
 * release_task(), which also uncharges it) or, unless @want_gone, a
 * zombie. There is no descriptor to wait on for a thread before 6.9
 * (PIDFD_THREAD), so /proc is asked until it answers. 0, or -1 if it
 * never did within ANSWER_TIMEOUT_MS.
 */
int npg_real_wait_task_settled(const struct real_task *t, bool want_gone)
{
	struct timespec pause = { 0, 200000 };
	struct timespec start;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		struct npg_proc_task pt;

		if (npg_proc_read_task(t->pid, t->tid, &pt) < 0)
			return 0;
		if (!want_gone && (pt.state == 'Z' || pt.state == 'X'))
			return 0;
		if (npg_real_answer_overdue(&start))
			return -1;
		nanosleep(&pause, NULL);
	}
}

struct real_task *npg_real_task_by_pid(struct real_priv *r, pid_t pid)
{
	/* not gone: after an execve from a thread, the old leader's entry had this pid */
	for (int i = 0; i < r->sc->ntasks; i++)
		if (r->tasks[i].created && !r->tasks[i].gone && r->tasks[i].pid == pid &&
		    r->tasks[i].tid == pid)
			return &r->tasks[i];
	return NULL;
}

int npg_real_task_of_tid(const struct real_priv *r, pid_t tid)
{
	for (int i = 0; i < r->sc->ntasks && tid > 0; i++)
		if (r->tasks[i].created && !r->tasks[i].gone && r->tasks[i].tid == tid)
			return i;
	return -1;
}

void npg_real_mark_group_gone(struct real_priv *r, pid_t tgid, bool keep_leader)
{
	for (int i = 0; i < r->sc->ntasks; i++) {
		struct real_task *t = &r->tasks[i];

		if (!t->created || t->pid != tgid || t->gone)
			continue;
		if (keep_leader && t->tid == tgid)
			continue;
		t->alive = false;
		if (t->tid != tgid) {
			t->gone = true;		/* threads are released at once */
			if (t->sock >= 0)
				close(t->sock);
			t->sock = -1;
		}
	}
}

/*
 * Before 3.4 there is no child subreaper: the zombie children of a process
 * that exited go to init (forget_original_parent()), which reaps them when
 * it next runs -- under load, after our next observation, which counted
 * them still (every-async-effect.npg:43 on 3.0.8). Wait until init has
 * reaped every zombie of the run that is its child.
 */
static void await_init_reaped(const struct real_priv *r)
{
	struct timespec pause = { 0, 200000 }, start;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!r->subreaper) {
		bool left = false;

		for (int i = 0; i < r->sc->ntasks && !left; i++) {
			const struct real_task *t = &r->tasks[i];
			struct npg_proc_task pt;

			left = t->created && !t->gone && t->tid == t->pid &&
			       npg_proc_read_task(t->pid, t->pid, &pt) == 0 && pt.state == 'Z' &&
			       pt.ppid == 1 && (t->starttime == 0 || pt.starttime == t->starttime);
		}
		if (!left || npg_real_answer_overdue(&start))
			return;
		nanosleep(&pause, NULL);
	}
}

/* As init would: reap whatever became our child (top-level tasks, orphans) */
void npg_real_reap_children(struct real_priv *r)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG | __WALL)) > 0) {
		struct real_task *t = npg_real_task_by_pid(r, pid);

		if (!t)
			continue;	/* a filler */
		t->exit_known = true;
		t->exit_status = status;
		t->alive = false;
		t->gone = true;
		npg_real_mark_group_gone(r, pid, false);
	}
	await_init_reaped(r);
}

/*
 * Without a pidfd: until the leader is a zombie and no other thread of the
 * group is left in /proc/PID/task -- a leader turns zombie before the
 * group's other threads are released, and until then waitpid() reports
 * the child as running (delay_group_leader()).
 */
static int wait_group_exited(const struct real_task *t)
{
	struct timespec pause = { 0, 200000 };
	struct timespec start;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task", (int)t->pid);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		DIR *d;
		struct dirent *e;
		int others = 0;

		if (npg_real_wait_task_settled(t, false) < 0)
			return -1;
		if (!(d = opendir(path)))
			return 0;	/* reaped */
		while ((e = readdir(d)))
			if (e->d_name[0] != '.' && atoi(e->d_name) != t->pid)
				others++;
		closedir(d);
		if (others == 0)
			return 0;
		if (npg_real_answer_overdue(&start))
			return -1;
		nanosleep(&pause, NULL);
	}
}

/*
 * Wait until a process has exited: a zombie (exit_notify() has run, its
 * children are reparented) or already reaped. A pidfd polls readable
 * then (5.3+): pidfd_poll() waits for the whole thread group. Older
 * kernels are asked through /proc. 0, or -1 on timeout.
 */
int npg_real_wait_process_exited(struct real_task *t)
{
	struct pollfd p = { .fd = t->pidfd, .events = POLLIN };
	int n;

	if (t->pidfd < 0)
		return wait_group_exited(t);
	do
		n = poll(&p, 1, ANSWER_TIMEOUT_MS);
	while (n < 0 && errno == EINTR);
	if (n == 0)
		errno = ETIMEDOUT;
	return n > 0 ? 0 : -1;
}

/* Is @t waiting in vfork() for a child that has neither exec'd nor exited? */
bool npg_real_vfork_waiting(const struct real_priv *r, const struct real_task *t)
{
	for (int i = 0; i < r->sc->ntasks; i++)
		if (r->tasks[i].vfork_waiter == (int)(t - r->tasks) + 1)
			return true;
	return false;
}

void npg_real_taint(struct real_task *t, const char *why)
{
	char copy[sizeof(t->why)];

	snprintf(copy, sizeof(copy), "%s", why);	/* @why may be another task's */
	t->tainted = true;
	memcpy(t->why, copy, sizeof(copy));
}

/* A small set of ids; out of memory it keeps what it has (the caller then taints more) */
struct id_set {
	npg_id *id;
	int n, cap;
	bool full;
};

static void id_set_add(struct id_set *s, npg_id id)
{
	for (int i = 0; i < s->n; i++)
		if (s->id[i] == id)
			return;
	if (s->n == s->cap) {
		int cap = s->cap ? s->cap * 2 : 16;
		npg_id *grown = cap <= NPG_UID_WINDOW ? realloc(s->id, (size_t)cap * sizeof(*grown)) : NULL;

		if (!grown) {
			s->full = true;
			return;
		}
		s->id = grown;
		s->cap = cap;
	}
	s->id[s->n++] = id;
}

/*
 * The ids a tainted task names may be ids of a namespace it is in: add
 * every kernel id a uid_map of the scenario makes of them, to a fixed
 * point (nested maps). Unless the set could not hold them all: then
 * every user is touched.
 */
static void touch_images(struct real_priv *r, struct id_set *ids)
{
	const struct npg_scenario *sc = r->sc;

	for (int done = 0; done < ids->n; done++) {
		npg_id id = ids->id[done];

		for (int s = 0; s < sc->nstmts && id != NPG_ID_NONE; s++) {
			const struct npg_idmap *m = &sc->stmts[s].op.uid_map;
			npg_id lower;

			if (sc->stmts[s].kind != NPG_STMT_STEP ||
			    !npg_real_writes_uid_map(&sc->stmts[s].op))
				continue;
			if ((lower = npg_idmap_down(m->extent, m->nr, id)) != NPG_ID_NONE)
				id_set_add(ids, lower);
		}
	}
	if (ids->full)
		for (int u = 0; u < sc->nnames; u++)
			r->touched[u] = true;
}

/* Users whose count a tainted task could change: any id its steps name */
void npg_real_mark_touched(struct real_priv *r)
{
	const struct npg_scenario *sc = r->sc;

	bool grew = true;

	/*
	 * Whatever a tainted task's steps would have done to another task -- made
	 * it (fork, thread, vfork), killed, reaped or limited it -- does not
	 * happen here: that task is not faithful either. To a fixed point, since
	 * a task tainted by a later statement may have acted earlier.
	 */
	while (grew) {
		grew = false;
		for (int s = 0; s < sc->nstmts; s++) {
			const struct npg_stmt *st = &sc->stmts[s];
			int actor = st->kind == NPG_STMT_STEP ? st->task : -1;
			/* unshare's and setns's target is a namespace: its tasks are the actor's forks */
			int target = actor >= 0 && st->op.code != NPG_OP_UNSHARE_USER &&
				     st->op.code != NPG_OP_SETNS_USER ? st->op.target : -1;

			if (actor < 0 || target < 0 || !r->tasks[actor].tainted ||
			    r->tasks[target].tainted)
				continue;
			npg_real_taint(&r->tasks[target], r->tasks[actor].why);
			grew = true;
		}
	}
	for (int i = 0; i < sc->ntasks; i++) {
		const struct npg_cred *c = &sc->tasks[i].cred;
		struct id_set ids = { 0 };

		if (!r->tasks[i].tainted)
			continue;
		id_set_add(&ids, c->uid.real), id_set_add(&ids, c->uid.eff);
		id_set_add(&ids, c->uid.saved);
		for (int s = 0; s < sc->nstmts; s++) {
			const struct npg_op *op = &sc->stmts[s].op;

			if (sc->stmts[s].kind != NPG_STMT_STEP || sc->stmts[s].task != i)
				continue;
			for (int k = 0; k < 3; k++)
				id_set_add(&ids, op->id[k]);
			/* a set-uid program's owner becomes its euid, and a namespace's owner */
			if (op->code == NPG_OP_EXECVE && op->file && op->exec.setuid)
				id_set_add(&ids, op->exec.uid);
		}
		touch_images(r, &ids);
		for (int u = 0; u < sc->nnames; u++)
			for (int k = 0; k < ids.n; k++)
				if (sc->names[u].id == ids.id[k])
					r->touched[u] = true;
		free(ids.id);
	}
}

int npg_real_ns_of_ino(const struct real_priv *r, uint64_t ino)
{
	for (int i = 0; i <= r->sc->nuserns; i++)
		if (r->userns[i].created && r->userns[i].ino == ino)
			return i;
	return -1;
}

int npg_real_task_ns(const struct real_priv *r, const struct real_task *t)
{
	uint64_t ino;

	/* 2.6.39-3.4: no /proc/PID/ns/user; the backend's own record (real_priv.h) */
	if (r->uns.legacy)
		return t->created ? t->ns : 0;
	if (!r->uns.supported || !r->ns_made || !t->created)
		return 0;
	if (t->gone || npg_proc_task_userns(t->pid, t->tid, &ino) < 0)
		return t->ns;
	return npg_real_ns_of_ino(r, ino);
}

/* A task of the scenario that exists now (a zombie included) */
bool npg_real_task_present(const struct real_task *t)
{
	return t->created && !t->gone;
}
