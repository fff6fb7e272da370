/*
 * Process lifecycle, the controller's side: fork, vfork and threads (the
 * new task as a puppet of its own), exit and exit_group, execve (a
 * thread's takes over its leader), kill (acknowledged once the group has
 * exited).
 * kernel/fork.c, kernel/exit.c, fs/exec.c, kernel/signal.c.
 */
#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backend/real/lifecycle.h"
#include "backend/real/real_priv.h"
#include "backend/real/teardown.h"
#include "backend/real/wire.h"
#include "system/procfs.h"

/*
 * After a vfork command: true once the child's socket has its hello, false
 * when the parent answered (the vfork failed, or the parent died: a parent
 * that succeeded answers only after its child has exec'd or exited) or
 * neither did in time (the caller's npg_real_recv_timed() then says so). A failed
 * vfork is answered before the puppet closes the child's socket, so an
 * end of that socket comes with the answer.
 */
static bool vfork_hello_first(int parent_sock, int child_sock)
{
	struct pollfd p[2] = { { .fd = child_sock, .events = POLLIN },
			       { .fd = parent_sock, .events = POLLIN } };
	int n;

	do
		n = poll(p, 2, ANSWER_TIMEOUT_MS);
	while (n < 0 && errno == EINTR);
	return n > 0 && (p[0].revents & POLLIN) && !(p[1].revents & (POLLIN | POLLHUP));
}

/*
 * Before 3.4 there is no child subreaper: a process whose parent puppet
 * dies goes to init, which reaps it, and its pid may come back as another
 * process's. Its start time tells them apart at the end (real_stop()),
 * whatever its uid -- a task of a child namespace has uid 0 there, out of
 * the window that the stop otherwise waits to empty.
 */
static void remember_start(const struct real_priv *r, struct real_task *c)
{
	struct npg_proc_task pt;

	if (!r->subreaper && npg_proc_read_task(c->pid, c->pid, &pt) == 0)
		c->starttime = pt.starttime;
}

struct npg_result npg_real_step_new_task(struct npg_backend *b, struct real_priv *r,
				       struct real_task *t, const struct npg_stmt *st)
{
	struct real_task *c = &r->tasks[st->op.target];
	struct npg_wire_msg m, hello;
	int sv[2], got;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return npg_real_broken(b, "socketpair");
	if (npg_real_send_cmd(r, t, st, 0, sv[1]) < 0) {
		close(sv[0]), close(sv[1]);
		return npg_real_broken(b, "send");
	}
	close(sv[1]);
	/* vfork: the child's hello comes first; the parent's reply when it execs or exits */
	if (st->op.code == NPG_OP_VFORK && vfork_hello_first(t->sock, sv[0]))
		goto hello;
	got = npg_real_recv_timed(t->sock, &m, NULL);
	if (got == 0) {
		close(sv[0]);
		return npg_real_died(b, r, t);
	}
	if (got < 0 || m.kind != NPG_WIRE_RESULT) {
		close(sv[0]);
		return npg_real_broken(b, "fork");
	}
	if (m.result != NPG_R_OK) {
		close(sv[0]);
		return (struct npg_result){ .kind = m.result, .value = m.value };
	}
hello:
	if (npg_real_recv_timed(sv[0], &hello, NULL) <= 0 || hello.kind != NPG_WIRE_HELLO) {
		close(sv[0]);
		return npg_real_broken(b, "hello from the new task");
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
	c->ns = t->ns;		/* copy_creds(): the same user namespace (clone: ns_made()) */
	if (st->op.code == NPG_OP_VFORK) {
		c->vfork_waiter = (int)(t - r->tasks) + 1;
		c->shares_mm = true;
	}
	if (st->op.code == NPG_OP_FORK || st->op.code == NPG_OP_VFORK ||
	    st->op.code == NPG_OP_CLONE_USER) {
		npg_teardown_remember(c->pid);
		c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
		remember_start(r, c);
	}
	return (struct npg_result){ .kind = NPG_R_OK };
}

struct npg_result npg_real_step_exit(struct npg_backend *b, struct real_priv *r,
				   struct real_task *t, const struct npg_stmt *st)
{
	if (npg_real_send_cmd(r, t, st, 0, -1) < 0)
		return npg_real_broken(b, "send");
	if (t->tid != t->pid) {
		/* a thread leaves alone and is released at once */
		if (npg_real_wait_task_settled(t, true) < 0)
			return npg_real_broken(b, "the thread did not exit");
		t->alive = false;
		t->gone = true;
		t->exit_known = true;
		t->exit_status = (st->op.value & 0xff) << 8;
		close(t->sock);
		t->sock = -1;
		return (struct npg_result){ .kind = NPG_R_OK };
	}
	if (npg_real_wait_process_exited(t) < 0)
		return npg_real_broken(b, "the process did not exit");
	/*
	 * What exit_group() was asked; /proc says the same from 3.5 on (field
	 * 52 of stat), and before that only a reaper could tell.
	 */
	if (!t->exit_known) {
		struct npg_proc_task pt;

		if (npg_proc_read_task(t->pid, t->pid, &pt) < 0 || !pt.has_exit_code) {
			t->exit_known = true;
			t->exit_status = (st->op.value & 0xff) << 8;
		}
	}
	t->alive = false;
	npg_real_mark_group_gone(r, t->pid, true);
	npg_real_reap_children(r);
	return (struct npg_result){ .kind = NPG_R_OK };
}

/*
 * A thread's execve succeeded: it now has the leader's pid (de_thread()),
 * and the old leader was released without a zombie. Its entry is gone,
 * its socket ended with it; its pidfd (the process's) is the thread's now.
 */
static void take_over_leader(struct real_priv *r, struct real_task *t,
			     const struct npg_wire_msg *hello)
{
	struct real_task *old = npg_real_task_by_pid(r, t->pid);

	if (old && old != t) {
		old->alive = false;
		old->gone = true;
		if (old->sock >= 0)
			close(old->sock);
		old->sock = -1;
		t->pidfd = old->pidfd;
		old->pidfd = -1;
		t->starttime = old->starttime;	/* de_thread(): "tsk->start_time = leader->start_time" */
	}
	t->tid = hello->tid;
}

struct npg_result npg_real_step_execve(struct npg_backend *b, struct real_priv *r,
				     struct real_task *t, const struct npg_stmt *st)
{
	struct npg_wire_msg m;
	int got;

	if (npg_real_send_cmd(r, t, st, 0, -1) < 0)
		return npg_real_broken(b, "send");
	got = npg_real_recv_timed(t->sock, &m, NULL);
	/*
	 * A set-id or file-capability copy is a secure exec (AT_SECURE): a
	 * runtime that refuses one (a sanitizer's may) ends the new image
	 * before its hello. Nothing else in a sequential scenario kills the
	 * task meanwhile, so that death is this build's, not the kernel's.
	 */
	if (got == 0 && st->op.file && !st->op.exec.missing) {
		npg_real_died(b, r, t);
		return npg_real_unreproducible(b, "the set-id or file-capability copy of this nprocguard "
				      "build did not start (its runtime may refuse a secure exec)");
	}
	if (got == 0)
		return npg_real_died(b, r, t);
	if (got < 0)
		return npg_real_broken(b, "execve");
	if (m.kind == NPG_WIRE_RESULT)
		return (struct npg_result){ .kind = m.result, .value = m.value };
	/* the new image said hello: de_thread() took the other threads */
	t->shares_mm = false;
	if (t->tid != t->pid)
		take_over_leader(r, t, &m);
	npg_real_mark_group_gone(r, t->pid, true);
	return (struct npg_result){ .kind = NPG_R_OK };
}

/*
 * kill: the signal is delivered, and a fatal one acted on, after the
 * sender's kill() has returned. The answer is acknowledged only once the
 * target's group has exited (its pidfd polls readable after exit_notify(),
 * which has reparented its children), so that what is observed next is
 * the group's death, not a race with it. A signal to the caller's own
 * group kills the caller: no answer comes, the socket closes.
 */
struct npg_result npg_real_step_kill(struct npg_backend *b, struct real_priv *r,
				   struct real_task *t, const struct npg_stmt *st, pid_t target)
{
	struct real_task *tt = &r->tasks[st->op.target];
	struct real_task *leader = npg_real_task_by_pid(r, t->pid);
	struct npg_wire_msg m;
	struct npg_result res;

	if (!npg_real_ask(b, r, t, st, target, leader ? leader : t, &m, &res))
		return res;
	/* a fatal signal to its own group: the caller dies, answered or not */
	if (m.result == NPG_R_OK && st->op.value != 0 && tt->alive && tt->pid == t->pid)
		return npg_real_died(b, r, leader ? leader : t);
	if (m.result != NPG_R_OK || st->op.value == 0 || !tt->alive)
		return (struct npg_result){ .kind = m.result, .value = m.value };
	if (npg_real_wait_process_exited(tt) < 0)
		return npg_real_broken(b, "the process killed did not exit");
	tt->alive = false;
	npg_real_mark_group_gone(r, tt->pid, true);
	npg_real_reap_children(r);
	return (struct npg_result){ .kind = NPG_R_OK };
}
