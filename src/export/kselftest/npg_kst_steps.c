/*
 * The steps: each one sent to its task's puppet, the answer taken, and
 * what the controller knows of the tasks brought up to date (new tasks,
 * exits, execs, kills, glibc's set*id on every thread, vfork()).
 */
#include "npg_kst.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void build_cmd(const struct kst_stmt *st, pid_t target_pid, struct msg *m)
{
	memset(m, 0, sizeof(*m));
	m->kind = MSG_CMD;
	m->op = st->op;
	m->value = st->value;
	m->lim_cur = st->lim_cur;
	m->lim_max = st->lim_max;
	m->caps = st->caps;
	m->target_pid = target_pid;
	for (int k = 0; k < 3; k++)
		m->id[k] = kst_map_id(st->id[k]);
	m->ngroups = st->ngroups;
	for (int g = 0; g < st->ngroups && g < KST_NGROUPS; g++)
		m->groups[g] = kst_map_id(st->groups[g]);
	if (st->op == KST_EXECVE && st->file > 0)
		kst_file_path(st->file, m->path, sizeof(m->path));
}

/*
 * Send @st to @t and take the answer into @m: false, with *@res what the
 * step yields, when there is none -- the socket closed (@dies died: the
 * process's leader for a call that can kill the whole process) or the
 * exchange broke.
 */
static bool ask(struct ktask *t, const struct kst_stmt *st, pid_t target, struct ktask *dies,
		struct msg *m, struct res *res)
{
	struct msg cmd;
	int got;

	build_cmd(st, target, &cmd);
	if (kst_send_msg(t->sock, &cmd, -1) < 0) {
		*res = kst_broken("send");
		return false;
	}
	got = kst_recv_timed(t->sock, m, NULL);
	if (got == 0) {
		*res = kst_died(dies);
		return false;
	}
	if (got < 0 || m->kind != MSG_RESULT) {
		*res = kst_broken("answer");
		return false;
	}
	return true;
}

/*
 * After a vfork command: true once the child's socket has its hello, false
 * when the parent answered (the vfork failed, or the parent died: one that
 * succeeded answers only once its child has exec'd or exited) or neither
 * did in time (the next wait says so)
 */
static bool vfork_hello_first(int parent_sock, int child_sock)
{
	struct pollfd p[2] = { { .fd = child_sock, .events = POLLIN },
			       { .fd = parent_sock, .events = POLLIN } };

	return kst_poll_slices(p, 2, ANSWER_TIMEOUT_MS) > 0 && (p[0].revents & POLLIN) &&
	       !(p[1].revents & (POLLIN | POLLHUP));
}

/* Is @t asleep in vfork() for a child that has neither exec'd nor exited? */
bool kst_vfork_waiting(const struct ktask *t)
{
	for (int i = 0; i < kst_sc->ntasks; i++)
		if (kst_tasks[i].vfork_waiter == (int)(t - kst_tasks) + 1)
			return true;
	return false;
}

/*
 * A vfork() child that has exec'd or exited released its parent
 * (complete_vfork_done()): the parent's answer to the vfork command is
 * on its socket, collected now -- the acknowledgement that it runs again.
 * A parent that died meanwhile sends none.
 */
static int collect_vfork_answers(void)
{
	for (int i = 0; i < kst_sc->ntasks; i++) {
		struct ktask *c = &kst_tasks[i], *p;
		struct msg m;

		if (!c->vfork_waiter || (c->alive && c->shares_mm))
			continue;
		p = &kst_tasks[c->vfork_waiter - 1];
		c->vfork_waiter = 0;
		if (!p->alive || p->sock < 0)
			continue;
		if (kst_recv_timed(p->sock, &m, NULL) < 0 || m.kind != MSG_RESULT)
			return -1;
	}
	return 0;
}

/* fork, vfork, thread: the new task is a puppet, its socket passed along */
static struct res step_new_task(struct ktask *t, const struct kst_stmt *st)
{
	struct ktask *c = &kst_tasks[st->target];
	struct msg cmd, m, hello;
	int sv[2], got;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return kst_broken("socketpair");
	build_cmd(st, 0, &cmd);
	if (kst_send_msg(t->sock, &cmd, sv[1]) < 0) {
		close(sv[0]), close(sv[1]);
		return kst_broken("send");
	}
	close(sv[1]);
	/* vfork: the child's hello comes first; the parent's answer when it execs or exits */
	if (st->op == KST_VFORK && vfork_hello_first(t->sock, sv[0]))
		goto hello;
	got = kst_recv_timed(t->sock, &m, NULL);
	if (got == 0) {
		close(sv[0]);
		return kst_died(t);
	}
	if (got < 0 || m.kind != MSG_RESULT) {
		close(sv[0]);
		return kst_broken(st->op == KST_THREAD ? "thread" : "fork");
	}
	if (m.result != RES_OK) {
		close(sv[0]);
		return (struct res){ (enum res_kind)m.result, (long)m.rvalue };
	}
hello:
	if (kst_recv_timed(sv[0], &hello, NULL) <= 0 || hello.kind != MSG_HELLO) {
		close(sv[0]);
		return kst_broken("hello from the new task");
	}
	c->sock = sv[0];
	c->pid = hello.pid;
	c->tid = hello.tid;
	c->created = c->alive = true;
	/* a new task shares or copies its creator's credentials, ucounts included */
	c->key_known = t->key_known;
	c->key = t->key;
	c->ruid_seen = t->ruid_seen;
	c->last_ruid = t->last_ruid;
	if (st->op == KST_VFORK) {
		c->vfork_waiter = (int)(t - kst_tasks) + 1;
		c->shares_mm = true;
	}
	if (st->op == KST_FORK || st->op == KST_VFORK) {
		c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
		c->starttime = kst_start_time_of(c->pid);
	}
	return (struct res){ RES_OK, 0 };
}

static struct res step_exit(struct ktask *t, const struct kst_stmt *st)
{
	struct msg cmd;

	build_cmd(st, 0, &cmd);
	if (kst_send_msg(t->sock, &cmd, -1) < 0)
		return kst_broken("send");
	if (t->tid != t->pid) {
		/* a thread leaves alone and is released at once */
		if (kst_wait_task_settled(t, true) < 0)
			return kst_broken("the thread did not exit");
		t->alive = false;
		t->gone = true;
		t->exit_known = true;
		t->exit_status = (st->value & 0xff) << 8;
		close(t->sock);
		t->sock = -1;
		return (struct res){ RES_OK, 0 };
	}
	if (kst_wait_process_exited(t) < 0)
		return kst_broken("the process did not exit");
	/* what exit_group() was asked; /proc says the same from 3.5 on */
	if (!t->exit_known) {
		struct proc_task pt;

		if (kst_read_task(t->pid, t->pid, &pt) < 0 || !pt.has_exit_code) {
			t->exit_known = true;
			t->exit_status = (st->value & 0xff) << 8;
		}
	}
	t->alive = false;
	kst_mark_group_gone(t->pid, true);
	kst_reap_children();
	return (struct res){ RES_OK, 0 };
}

/*
 * A thread's execve succeeded: it now has the leader's pid (de_thread()),
 * and the old leader was released without a zombie; its pidfd (the
 * process's) is the thread's now.
 */
static void take_over_leader(struct ktask *t, const struct msg *hello)
{
	struct ktask *old = kst_task_by_pid(t->pid);

	if (old && old != t) {
		old->alive = false;
		old->gone = true;
		if (old->sock >= 0)
			close(old->sock);
		old->sock = -1;
		t->pidfd = old->pidfd;
		old->pidfd = -1;
		t->starttime = old->starttime;	/* de_thread() keeps the leader's start time */
	}
	t->tid = hello->tid;
}

static struct res step_execve(struct ktask *t, const struct kst_stmt *st)
{
	struct msg cmd, m;
	int got;

	build_cmd(st, 0, &cmd);
	if (kst_send_msg(t->sock, &cmd, -1) < 0)
		return kst_broken("send");
	got = kst_recv_timed(t->sock, &m, NULL);
	/*
	 * A set-id or file-capability copy is a secure exec (AT_SECURE): a
	 * runtime that refuses one ends the new image before its hello.
	 * Nothing else kills the task meanwhile, so that death is not the
	 * kernel's answer.
	 */
	if (got == 0 && st->file > 0 && !kst_sc->files[st->file - 1].missing) {
		kst_died(t);
		return kst_skip("the set-id or file-capability copy of this test did not start (its "
				"runtime may refuse a secure exec)");
	}
	if (got == 0)
		return kst_died(t);
	if (got < 0)
		return kst_broken("execve");
	if (m.kind == MSG_RESULT)
		return (struct res){ (enum res_kind)m.result, (long)m.rvalue };
	/* the new image said hello: de_thread() took the other threads */
	t->shares_mm = false;
	if (t->tid != t->pid)
		take_over_leader(t, &m);
	kst_mark_group_gone(t->pid, true);
	return (struct res){ RES_OK, 0 };
}

/*
 * kill: a fatal signal is acted on after the sender's kill() has
 * returned; the answer counts only once the target's process has exited,
 * so that what is read next is its death, not a race with it. A signal to
 * the caller's own process kills the caller.
 */
static struct res step_kill(struct ktask *t, const struct kst_stmt *st, pid_t target)
{
	struct ktask *tt = &kst_tasks[st->target], *leader = kst_task_by_pid(t->pid);
	struct msg m;
	struct res res;

	if (!ask(t, st, target, leader ? leader : t, &m, &res))
		return res;
	if (m.result == RES_OK && st->value != 0 && tt->alive && tt->pid == t->pid)
		return kst_died(leader ? leader : t);
	if (m.result != RES_OK || st->value == 0 || !tt->alive)
		return (struct res){ (enum res_kind)m.result, (long)m.rvalue };
	if (kst_wait_process_exited(tt) < 0)
		return kst_broken("the process killed did not exit");
	tt->alive = false;
	kst_mark_group_gone(tt->pid, true);
	kst_reap_children();
	return (struct res){ RES_OK, 0 };
}

static bool live_thread_of(int i, pid_t pid)
{
	const struct ktask *t = &kst_tasks[i];

	return t->created && t->alive && !t->gone && t->pid == pid;
}

/*
 * glibc's set*id in a threaded process (__nptl_setxid()): the raw call on
 * every thread -- the newest first, the main thread, the caller last --
 * one at a time, so that the counts each one meets are repeatable. A
 * thread whose result differs from an earlier one's makes glibc abort().
 */
static struct res step_glibc(struct ktask *t, const struct kst_stmt *st)
{
	struct ktask *leader = kst_task_by_pid(t->pid);
	int caller = st->task, lead = leader ? (int)(leader - kst_tasks) : caller;
	int n = 0, first_error = -1;
	int *order = calloc((size_t)kst_sc->ntasks + 1, sizeof(*order));
	struct res res = { RES_OK, 0 };

	if (!order)
		return kst_broken("out of memory");
	for (int i = kst_sc->ntasks - 1; i >= 0; i--)	/* tasks are numbered in creation order */
		if (i != caller && i != lead && live_thread_of(i, t->pid))
			order[n++] = i;
	if (caller != lead && live_thread_of(lead, t->pid))
		order[n++] = lead;
	order[n++] = caller;
	for (int k = 0; k < n; k++) {
		struct msg m;
		int error;

		if (!ask(&kst_tasks[order[k]], st, 0, leader ? leader : t, &m, &res)) {
			free(order);
			return res;
		}
		res = (struct res){ (enum res_kind)m.result, (long)m.rvalue };
		error = m.result == RES_ERRNO ? (int)m.rvalue : 0;
		if (first_error >= 0 && error != first_error) {
			struct msg abort_msg = { .kind = MSG_ABORT };

			free(order);
			if (kst_send_msg(t->sock, &abort_msg, -1) < 0)
				return kst_broken("send");
			kst_recv_timed(t->sock, &m, NULL);	/* its death, not an answer */
			return kst_died(leader ? leader : t);
		}
		first_error = error;
	}
	free(order);
	return res;
}

#define ROOT_COUNT_SET_USER "5.14-5.16 set_user() compares the caller's old count, root's " \
	"here, which includes the machine's own processes (the caller lacks CAP_SYS_RESOURCE " \
	"and CAP_SYS_ADMIN)"
#define ROOT_COUNT_FORK "5.14-5.16 copy_process() compares the count of root's ucounts, " \
	"which this task is charged to (its real uid changed while its effective uid was 0) " \
	"and which includes the machine's own processes"
#define ROOT_COUNT_EXECVE "5.14-5.16 execve() of a task whose flag is set compares the " \
	"count of root's ucounts, which this task is charged to (its real uid changed while " \
	"its effective uid was 0) and which includes the machine's own processes"

/*
 * 5.14-5.16 compare root's count -- every root process of this machine --
 * where a task is charged to root's ucounts or set_user() reads the
 * caller's old ones: what the kernel then decides cannot be known here,
 * and nothing is checked after it.
 */
static const char *decision_on_roots_count(const struct ktask *t, const struct kst_stmt *st)
{
	struct proc_task pt;
	uint32_t ruid = st->id[0];
	bool capable;

	if (!kst_kernel_era || !kst_kernel_era->ucounts_by_euid || t->tainted || !t->alive ||
	    !t->created || kst_read_task(t->pid, t->tid, &pt) < 0)
		return NULL;
	capable = kst_cap_has(pt.cap_eff, CAP_SYS_RESOURCE_BIT) ||
		  kst_cap_has(pt.cap_eff, CAP_SYS_ADMIN_BIT);
	if (st->op == KST_FORK || st->op == KST_THREAD || st->op == KST_VFORK)
		return t->key_known && t->key == 0 && pt.uid[0] != 0 && !capable ?
		       ROOT_COUNT_FORK : NULL;
	if (st->op == KST_EXECVE)
		return t->key_known && t->key == 0 && (pt.flags & PF_NPROC_EXCEEDED) ?
		       ROOT_COUNT_EXECVE : NULL;
	if (st->op != KST_SETUID && st->op != KST_SETREUID && st->op != KST_SETRESUID)
		return NULL;
	if (ruid == KST_ID_NONE || ruid == 0)
		return NULL;
	/* only root's count is out of reach: whoever else t is charged to, counts agree */
	if (kst_map_id(ruid) == pt.uid[0] || (t->key_known && t->key != 0))
		return NULL;
	return capable ? NULL : ROOT_COUNT_SET_USER;
}

static struct res step_run(const struct kst_stmt *st)
{
	struct ktask *t = &kst_tasks[st->task];
	pid_t target = 0;
	struct msg m;
	struct res res;

	kst_counts_valid = false;
	if (t->tainted)
		return kst_skip(t->why);
	if (!t->alive)
		return (struct res){ RES_DEAD, 0 };
	/* wait_for_vfork_done(): no call until the child execs or exits (glibc's set*id waits) */
	if (kst_vfork_waiting(t))
		return (struct res){ RES_SUSPENDED, 0 };
	for (int i = 0; st->glibc && i < kst_sc->ntasks; i++)
		if (live_thread_of(i, t->pid) && kst_vfork_waiting(&kst_tasks[i]))
			return (struct res){ RES_SUSPENDED, 0 };
	if (t->shares_mm && (st->glibc || st->op == KST_FORK || st->op == KST_VFORK ||
			     st->op == KST_THREAD))
		return kst_skip("a vfork() child whose execve failed still shares its parent's memory: "
				"a puppet cannot create tasks there");
	if (st->target >= 0 && st->op != KST_FORK && st->op != KST_THREAD && st->op != KST_VFORK) {
		struct ktask *tt = &kst_tasks[st->target];

		if (tt->tainted)
			return kst_skip(tt->why);
		/* a pid that cannot exist: the kernel answers ECHILD / ESRCH */
		target = tt->created && !tt->gone ? tt->tid : INT_MAX;
		if (st->op == KST_SETRLIMIT)
			target = 0;
		if (st->op != KST_WAIT && tt->hard_capped &&
		    (st->lim_max > kst_host_nproc_hard || st->lim_cur > kst_host_nproc_hard))
			return kst_skip("the scenario's hard RLIMIT_NPROC is above this process's, and "
					"CAP_SYS_RESOURCE is not held here");
	}
	if (st->glibc)
		return step_glibc(t, st);
	switch (st->op) {
	case KST_FORK:
	case KST_VFORK:
	case KST_THREAD:
		return step_new_task(t, st);
	case KST_EXIT:
		return step_exit(t, st);
	case KST_EXECVE:
		/* the program is not there, and what follows may depend on it in any
		 * task: nothing after it is checked */
		if (st->file > 0 && kst_file_why[st->file - 1][0])
			return kst_diverge(st, kst_file_why[st->file - 1]);
		return step_execve(t, st);
	case KST_KILL:
		return step_kill(t, st, target);
	default:
		break;
	}
	if (!ask(t, st, target, t, &m, &res))
		return res;
	if (st->op == KST_WAIT && m.result == RES_OK) {
		struct ktask *child = &kst_tasks[st->target];

		child->gone = true;
		child->exit_known = true;
		child->exit_status = m.wait_status;
	}
	if (m.result == RES_ID)
		m.rvalue = kst_unmap_id((uint32_t)m.rvalue);
	return (struct res){ (enum res_kind)m.result, (long)m.rvalue };
}

struct res kst_step(const struct kst_stmt *st)
{
	const char *unknowable = kst_diverged[0] ? NULL :
				 decision_on_roots_count(&kst_tasks[st->task], st);
	struct res res = step_run(st);

	if (collect_vfork_answers() < 0)
		res = kst_broken("the answer of a parent its vfork() child released");
	if (kst_diverged[0] && res.kind != RES_SKIP)
		return kst_skip(kst_diverged);
	if (!unknowable || res.kind == RES_SKIP)
		return res;
	return kst_diverge(st, unknowable);
}
