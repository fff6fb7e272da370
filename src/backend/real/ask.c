/*
 * The wire to the puppets, the controller's side: the command a step
 * sends (its ids moved into the window, the paths it names), sending it
 * and taking the answer within ANSWER_TIMEOUT_MS, and what a step yields
 * when no answer comes -- the task died, the exchange broke, or the run
 * is no longer compared. Part of the controller's core: it calls no step
 * family.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>

#include "backend/real/real_priv.h"
#include "backend/real/wire.h"
#include "system/procfs.h"

/* --- talking to puppets --- */

int npg_real_recv_timed(int sock, struct npg_wire_msg *m, int *fd)
{
	struct pollfd p = { .fd = sock, .events = POLLIN };
	int n;

	do
		n = poll(&p, 1, ANSWER_TIMEOUT_MS);
	while (n < 0 && errno == EINTR);
	if (n == 0) {
		errno = ETIMEDOUT;
		return -1;
	}
	return npg_wire_recv(sock, m, fd);
}

/* Where declared file @file (1-based) is on this machine: a nosuid one on the nosuid mount */
void npg_real_file_path(const struct real_priv *r, int file, char *buf, size_t len)
{
	bool nosuid = r->sc->files[file - 1].exec.nosuid;

	snprintf(buf, len, "%.200s/%s%d", r->execdir, nosuid ? NPG_EXECDIR_NOSUID "/file-" : "file-",
		 file);
}

/* The ids a seize needs besides the target's tid (wire.h) */
static void ptrace_target(const struct real_priv *r, const struct npg_stmt *st,
			  struct npg_wire_msg *m)
{
	const struct real_task *tt;
	struct npg_proc_task pt;

	if (st->op.target < 0)
		return;
	tt = &r->tasks[st->op.target];
	if (!tt->created || tt->gone)
		return;
	m->target_tgid = tt->pid;
	/* whose exit the tracer must leave to the scenario's wait (tracer.c) */
	if (npg_proc_read_task(tt->pid, tt->tid, &pt) == 0)
		m->target_ppid = pt.ppid;
}

void npg_real_build_cmd(struct real_priv *r, const struct real_task *t, const struct npg_stmt *st,
			pid_t target_pid, struct npg_wire_msg *m)
{
	*m = (struct npg_wire_msg){ .kind = NPG_WIRE_CMD, .op = st->op, .target_pid = target_pid };

	/*
	 * make_kuid(current_user_ns(), id) in every set*id call: the ids of a
	 * task in a child namespace are that namespace's own, and the maps
	 * written there send them into the window.
	 */
	if (npg_real_ids_in_window(r, t))
		npg_real_map_op(r, &m->op);
	if (st->op.code == NPG_OP_EXECVE && st->op.file)
		npg_real_file_path(r, st->op.file, m->path, sizeof(m->path));
	if (st->op.code == NPG_OP_PTRACE)
		ptrace_target(r, st, m);
}

int npg_real_send_cmd(struct real_priv *r, struct real_task *t, const struct npg_stmt *st,
		      pid_t target_pid, int fd)
{
	struct npg_wire_msg m;

	npg_real_build_cmd(r, t, st, target_pid, &m);
	return npg_wire_send(t->sock, &m, fd);
}

/*
 * Send @st to puppet @t and take its answer into @m: false, with *@res
 * what the step yields, when there is none -- the socket closed (the task
 * died: @dies is the one to report, its group's leader for a call that can
 * kill the whole group) or the exchange broke.
 */
bool npg_real_ask(struct npg_backend *b, struct real_priv *r, struct real_task *t,
		const struct npg_stmt *st, pid_t target, struct real_task *dies,
		struct npg_wire_msg *m, struct npg_result *res)
{
	struct npg_wire_msg cmd;

	npg_real_build_cmd(r, t, st, target, &cmd);
	return npg_real_exchange(b, r, t, &cmd, -1, dies, m, res);
}

bool npg_real_exchange(struct npg_backend *b, struct real_priv *r, struct real_task *t,
		       const struct npg_wire_msg *cmd, int fd, struct real_task *dies,
		       struct npg_wire_msg *m, struct npg_result *res)
{
	int got;

	if (npg_wire_send(t->sock, cmd, fd) < 0) {
		*res = npg_real_broken(b, "send");
		return false;
	}
	got = npg_real_recv_timed(t->sock, m, NULL);
	if (got == 0) {
		*res = npg_real_died(b, r, dies);
		return false;
	}
	if (got < 0 || m->kind != NPG_WIRE_RESULT) {
		*res = npg_real_broken(b, "answer");
		return false;
	}
	return true;
}

struct npg_result npg_real_unreproducible(struct npg_backend *b, const char *why)
{
	snprintf(b->reason, sizeof(b->reason), "%s", why);
	return (struct npg_result){ .kind = NPG_R_UNREPRODUCIBLE };
}

/*
 * Nothing is compared from step @st on, for @why: the steps still run, so
 * that the tasks stay as the scenario drives them. The first reason stays.
 */
struct npg_result npg_real_diverge(struct npg_backend *b, struct real_priv *r,
				   const struct npg_stmt *st, const char *why)
{
	if (!r->diverged[0])
		snprintf(r->diverged, sizeof(r->diverged), "%.190s (line %d); the run is not "
			 "compared after it", why, st->line);
	return npg_real_unreproducible(b, r->diverged);
}

struct npg_result npg_real_broken(struct npg_backend *b, const char *what)
{
	snprintf(b->reason, sizeof(b->reason), "the backend lost its task: %s: %s", what,
		 strerror(errno));
	return (struct npg_result){ .kind = NPG_R_UNREPRODUCIBLE };
}

/*
 * In a guest, how init's zombie ended, from the line its /init wrote when
 * it reaped it (src/guest/init: PID STARTTIME STATUS; the start time tells
 * a reused pid apart). init reaps at once, but not before we look, and
 * writes the line just after: wait for it a while (2 s).
 */
static bool init_saw_exit(const struct real_priv *r, struct real_task *t)
{
	struct timespec start, now, pause = { 0, 1000000 };

	if (!r->host->init_reaped || t->starttime == 0)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		FILE *f = fopen(r->host->init_reaped, "re");
		unsigned long long when;
		int pid, status;

		if (!f)
			return false;
		while (fscanf(f, "%d %llu %d", &pid, &when, &status) == 3)
			if (pid == t->pid && when == t->starttime) {
				fclose(f);
				t->exit_known = true;
				t->exit_status = status;
				return true;
			}
		fclose(f);
		nanosleep(&pause, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - start.tv_sec < 2);
	return false;
}

/*
 * A zombie whose parent is dying with it (-ow's SIGSEGV on a vfork()
 * child: the core dump's zap_threads() kills the parent sharing its mm)
 * goes to init once the parent has exited (forget_original_parent()):
 * wait for that a while (2 s), then read what init saw.
 */
/* include/linux/sched.h: getting shut down */
#define PF_EXITING 0x00000004u

static void orphan_exit(const struct real_priv *r, struct real_task *t, pid_t parent)
{
	struct timespec start, now, pause = { 0, 1000000 };
	struct npg_proc_task pt;

	if (!r->host->init_reaped || parent == 1)
		return;
	clock_gettime(CLOCK_MONOTONIC, &start);
	/*
	 * A vfork() parent (TASK_KILLABLE, 'D') is woken by the child's death,
	 * or killed with it; then it is exiting (PF_EXITING) until a zombie
	 */
	while (npg_proc_read_task(parent, parent, &pt) == 0 && pt.state != 'Z' && pt.state != 'X' &&
	       (pt.state == 'D' || (pt.flags & PF_EXITING))) {
		nanosleep(&pause, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec >= 2)
			return;
	}
	if (npg_proc_read_task(parent, parent, &pt) == 0 && pt.state != 'Z' && pt.state != 'X')
		return;		/* alive: it is the one to ask, and cannot answer */
	for (;;) {
		if (npg_proc_read_task(t->pid, t->pid, &pt) < 0 || pt.ppid == 1) {
			init_saw_exit(r, t);
			return;
		}
		nanosleep(&pause, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec >= 2)
			return;
	}
}

/*
 * Before 3.5, ask the parent: a puppet reads its zombie child's status
 * with waitid(WNOWAIT), which leaves the zombie to the scenario's wait.
 * An orphan's parent is init (no child subreaper before 3.4): in a guest
 * its /init says. Sets t->exit_known when one of them could answer.
 */
void npg_real_learn_exit(struct real_priv *r, struct real_task *t)
{
	struct npg_proc_task pt;

	if (t->exit_known || t->tid != t->pid)
		return;
	if (npg_proc_read_task(t->pid, t->pid, &pt) < 0) {
		/* reaped: by init, unless a wait of the scenario's told already */
		init_saw_exit(r, t);
		return;
	}
	if (pt.state != 'Z' || pt.has_exit_code)
		return;
	if (pt.ppid == 1) {
		init_saw_exit(r, t);
		return;
	}
	for (int i = 0; i < r->sc->ntasks; i++) {
		struct real_task *p = &r->tasks[i];
		struct npg_wire_msg m = { .kind = NPG_WIRE_PEEK_EXIT, .target_pid = t->pid };

		if (!p->created || p->gone || !p->alive || p->sock < 0 || p->pid != pt.ppid ||
		    p->tainted || npg_real_vfork_waiting(r, p))
			continue;
		/* no answer: the parent may be dying with it (below) */
		if (npg_wire_send(p->sock, &m, -1) < 0 || npg_real_recv_timed(p->sock, &m, NULL) <= 0 ||
		    m.kind != NPG_WIRE_RESULT || m.result != NPG_R_OK)
			break;
		t->exit_known = true;
		t->exit_status = m.wait_status;
		return;
	}
	orphan_exit(r, t, pt.ppid);
}

/*
 * A vfork() child that has exec'd or exited released its parent
 * (complete_vfork_done()): the parent's clone() returned and its reply
 * to the vfork command is on its socket -- collected now, which is also
 * the acknowledgement that the parent runs again. A parent that died
 * meanwhile sends none: before 5.16 a core-dumping signal in the child
 * kills every process of its mm, the parent too (zap_threads(); it wakes
 * from vfork() into its SIGKILL) -- its socket closes, and it is waited
 * for as a death.
 */
int npg_real_collect_vfork_replies(struct real_priv *r)
{
	for (int i = 0; i < r->sc->ntasks; i++) {
		struct real_task *c = &r->tasks[i], *p;
		struct npg_wire_msg m;
		int got;

		if (!c->vfork_waiter || (c->alive && c->shares_mm))
			continue;
		p = &r->tasks[c->vfork_waiter - 1];
		c->vfork_waiter = 0;
		if (!p->alive || p->sock < 0)
			continue;
		got = npg_real_recv_timed(p->sock, &m, NULL);
		if (got == 0) {
			struct real_task *leader = npg_real_task_by_pid(r, p->pid);

			if (!leader || npg_real_wait_process_exited(leader) < 0)
				return -1;
			npg_real_learn_exit(r, leader);
			leader->alive = false;
			npg_real_mark_group_gone(r, leader->pid, true);
			npg_real_reap_children(r);
			continue;
		}
		if (got < 0 || m.kind != NPG_WIRE_RESULT)
			return -1;
	}
	return 0;
}

/* A process died under a step: by which signal? */
struct npg_result npg_real_died(struct npg_backend *b, struct real_priv *r, struct real_task *t)
{
	struct npg_proc_task pt;
	struct real_task *leader = npg_real_task_by_pid(r, t->pid);
	int status = 0;

	/*
	 * A fatal signal takes the whole thread group (ow-2006's set_user()
	 * force_sig(SIGSEGV) on a thread, say): the leader is the one that
	 * ends the process, whose status its parent can read, and whose later
	 * steps are a dead task's
	 */
	if (leader)
		t = leader;
	if (npg_real_wait_process_exited(t) < 0)
		return npg_real_broken(b, "a task that died did not exit");
	/*
	 * A vfork() parent sends the answer to its vfork only now that the
	 * child is gone: take it, so that the parent can be asked how the
	 * child ended (3.0's /proc cannot say)
	 */
	t->alive = false;
	if (npg_real_collect_vfork_replies(r) < 0)
		return npg_real_broken(b, "the answer of a vfork() parent");
	npg_real_learn_exit(r, t);
	bool readable = false;

	if (npg_proc_read_task(t->pid, t->pid, &pt) == 0 && pt.state == 'Z' && pt.has_exit_code) {
		status = pt.exit_code;
		readable = true;
	}
	npg_real_reap_children(r);
	if (t->exit_known)
		status = t->exit_status;
	npg_real_mark_group_gone(r, t->pid, true);
	t->alive = false;
	if (!readable && !t->exit_known)
		return npg_real_unreproducible(b, NPG_REAL_EXIT_UNKNOWABLE);
	if (WIFSIGNALED(status))
		return (struct npg_result){ .kind = NPG_R_KILLED, .value = WTERMSIG(status) };
	return (struct npg_result){ .kind = NPG_R_DEAD };
}
