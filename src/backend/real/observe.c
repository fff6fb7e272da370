/*
 * Observation: what the scenario's checks compare, read back from the
 * running kernel -- a task's state, credentials, limit, namespace, exit,
 * tracer and dumpability (/proc, or its puppet's PR_GET_DUMPABLE), each
 * user's count as the kernel keeps it (per uid; from 5.14 at every level
 * of a namespace's ucounts chain), and whether a check can be compared
 * here at all. fs/proc/array.c, kernel/ucount.c.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "backend/real/guestroot.h"
#include "backend/real/observe.h"
#include "backend/real/real_priv.h"
#include "backend/real/wire.h"
#include "system/procfs.h"

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
	return npg_real_task_present(x) && x->alive && x->sock >= 0 && !x->tainted &&
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
		if (r->tasks[i].pid == t->pid && npg_real_task_present(&r->tasks[i]) &&
		    r->tasks[i].mm_copy_changed) {
			*why = "in this sanitizer build a vfork() child changed its credentials in "
			       "a copy of its parent's memory, not in the parent's as the kernel "
			       "would: the parent's dumpability is not the kernel's";
			return -1;
		}
	if (!npg_real_task_present(t) || !t->alive) {
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

/* The view's tracer and dumpable fields; @tracer_pid: the TracerPid read from /proc (0: none) */
static void view_tracing(struct real_priv *r, int task, pid_t tracer_pid, struct npg_task *out)
{
	int x;

	out->tracer = 0;
	if (tracer_pid && (x = npg_real_task_of_tid(r, tracer_pid)) >= 0)
		out->tracer = x + 1;
	/*
	 * Asking a puppet costs a round trip: only `check TASK dumpable`
	 * reads it, after tracing_observable() asked (and refused an
	 * unknown one); any other view leaves 0
	 */
	out->dumpable = task == r->dumpable_read_task && out->state == NPG_TASK_RUNNING ?
			r->dumpable_read : 0;
}

/* check TASK tracer / dumpable: can it be observed? If not, why in @why. */
static bool tracing_observable(struct real_priv *r, const struct npg_stmt *st, char *why,
			       size_t len)
{
	const struct real_task *t = &r->tasks[st->task];
	struct npg_proc_task pt;
	const char *because;

	if (st->check == NPG_CHECK_TRACER) {
		if (npg_real_task_present(t) && npg_proc_read_task(t->pid, t->tid, &pt) == 0 && pt.tracer_pid &&
		    npg_real_task_of_tid(r, pt.tracer_pid) < 0) {
			snprintf(why, len, "the task is traced by pid %d, which is no task of the "
				 "scenario", (int)pt.tracer_pid);
			return false;
		}
		return true;
	}
	/* an exited task's is "none", from its state alone */
	if (!npg_real_task_present(t) || !t->alive)
		return true;
	r->dumpable_read_task = st->task;
	if ((r->dumpable_read = dumpable_of(r, st->task, &because)) < 0) {
		snprintf(why, len, "%s", because);
		return false;
	}
	return true;
}

void npg_real_view(struct npg_backend *b, int task, struct npg_task *out)
{
	struct real_priv *r = b->priv;
	struct real_task *t = &r->tasks[task];
	struct npg_proc_task pt = { 0 };

	memset(out, 0, sizeof(*out));
	out->leader = task;
	out->state = NPG_TASK_ABSENT;
	if (!t->created)
		return;
	if (t->gone || npg_proc_read_task(t->pid, t->tid, &pt) < 0) {
		out->state = NPG_TASK_REAPED;
	} else {
		out->state = pt.state == 'Z' || pt.state == 'X' ? NPG_TASK_ZOMBIE : NPG_TASK_RUNNING;
		if (out->state == NPG_TASK_ZOMBIE && !t->exit_known && t->tid == t->pid &&
		    pt.has_exit_code) {
			t->exit_known = true;
			t->exit_status = pt.exit_code;
		}
		out->cred.uid = (struct npg_ids){ npg_real_unmap_id(r, pt.uid[0]), npg_real_unmap_id(r, pt.uid[1]),
						 npg_real_unmap_id(r, pt.uid[2]), npg_real_unmap_id(r, pt.uid[3]) };
		out->cred.gid = (struct npg_ids){ npg_real_unmap_id(r, pt.gid[0]), npg_real_unmap_id(r, pt.gid[1]),
						 npg_real_unmap_id(r, pt.gid[2]), npg_real_unmap_id(r, pt.gid[3]) };
		/* 3.0 prints a full set as all 64 bits (CAP_FULL_SET was ~0) */
		out->cred.cap_effective = pt.cap_eff & NPG_CAP_ALL;
		out->cred.cap_permitted = pt.cap_prm & NPG_CAP_ALL;
		out->cred.cap_bset = pt.cap_bnd & NPG_CAP_ALL;
		out->cred.cap_inheritable = pt.cap_inh & NPG_CAP_ALL;
		out->cred.cap_ambient = pt.cap_amb & NPG_CAP_ALL;
		out->no_new_privs = pt.no_new_privs;
		out->nproc_exceeded = (pt.flags & NPG_PF_NPROC_EXCEEDED) != 0;
		if (r->ucounts_by_euid && !r->charged_unknown[0] && pt.uid[0] != pt.uid[1] &&
		    (!t->ruid_seen || t->last_ruid != pt.uid[0]))
			snprintf(r->charged_unknown, sizeof(r->charged_unknown),
				 "5.14-5.16 charge a task to its effective uid at its last real "
				 "uid change (set_cred_ucounts()), which /proc does not show: "
				 "'%s' has real uid %u, effective %u", r->sc->tasks[task].name,
				 npg_real_unmap_id(r, pt.uid[0]), npg_real_unmap_id(r, pt.uid[1]));
		if (t->ruid_seen && t->last_ruid != pt.uid[0]) {
			/* set_cred_ucounts(): alloc_ucounts(new->user_ns, new->euid) */
			t->key = pt.uid[1];
			t->key_known = true;
		}
		t->ruid_seen = true;
		t->last_ruid = pt.uid[0];
		npg_proc_read_nproc(t->pid, &out->nproc_cur, &out->nproc_max);
		/* check TASK userns: npg_real_check_reproducible() refuses a namespace not made here */
		if ((t->ns = npg_real_task_ns(r, t)) > 0)
			out->cred.userns = t->ns;
	}
	view_tracing(r, task, out->state == NPG_TASK_REAPED ? 0 : pt.tracer_pid, out);
	if (t->exit_known) {
		if (WIFSIGNALED(t->exit_status))
			out->exit_signal = WTERMSIG(t->exit_status);
		else
			out->exit_code = WEXITSTATUS(t->exit_status);
	}
}

struct count_scan {
	struct real_priv *r;
	bool chain;		/* per level of the ucounts chain (5.14+, namespaces made) */
};

static bool in_window(const struct real_priv *r, uint32_t id)
{
	return id >= r->base && id - r->base < NPG_UID_WINDOW;
}

/* Count one task of the machine for (@ns, @ruid) */
static void count_at(struct real_priv *r, int ns, uint32_t ruid)
{
	const struct npg_scenario *sc = r->sc;

	for (int u = 0; u < sc->nnames; u++)
		if (!sc->names[u].group && r->count_uids[u] == ruid)
			r->counts[ns * sc->nnames + u]++;
}

/*
 * 2.6.39-3.4: a task counts once, for its real uid in its own namespace
 * ("alloc_uid(current_user_ns(), uid)" in 3.0's kernel/user.c: every
 * namespace has its own uidhash_table, and no user_struct is charged in
 * the parent). /proc names no namespace: a task of the scenario is in
 * the one the backend recorded, every other task of the machine in the
 * initial one (only the run's clone() makes namespaces, and only its
 * tasks are in them).
 */
static int count_task_legacy(struct real_priv *r, pid_t tid, uint32_t ruid)
{
	int i = npg_real_task_of_tid(r, tid);

	count_at(r, i >= 0 ? r->tasks[i].ns : 0, ruid);
	return 0;
}

/*
 * One task of the machine. Since 5.14 it counts at every level of its
 * chain (inc_rlimit_ucounts(): "for (iter = ucounts; iter; iter =
 * iter->ns->ucounts)"): its own namespace and its key (the real uid,
 * set_cred_ucounts()), then each namespace's parent and owner up to the
 * initial one. Before, once, for its real uid.
 */
static int count_task(pid_t pid, pid_t tid, uint32_t ruid, uint64_t ino, void *arg)
{
	struct count_scan *c = arg;
	struct real_priv *r = c->r;
	uint32_t key = ruid;
	int ns = 0;

	/* root's tasks outside the scenario: in a guest, the fillers and the kernel's */
	if (ruid == 0 && npg_real_task_of_tid(r, tid) < 0)
		r->root_outside_seen++;
	if (r->uns.legacy && r->ns_made > 0)
		return count_task_legacy(r, tid, ruid);
	if (c->chain) {
		if (ino == 0)
			return 0;	/* gone since its status was read */
		ns = npg_real_ns_of_ino(r, ino);
		if (ns < 0) {
			/* no namespace of another is owned by a uid of the window */
			if (in_window(r, ruid) && !r->ns_unknown[0])
				snprintf(r->ns_unknown, sizeof(r->ns_unknown), "task %d/%d of uid %u "
					 "is in a user namespace this run did not make", (int)pid,
					 (int)tid, ruid);
			return 0;
		}
	}
	for (;;) {
		count_at(r, ns, key);
		if (ns == 0)
			return 0;
		key = r->userns[ns].owner;
		ns = r->userns[ns].parent;
	}
}

/*
 * Root's fillers in a guest: this controller's children, blocked on the
 * filler pipe, root in the initial namespace until they are ended -- and
 * the most of its tasks (a file's `procs` of root, a hundred), whose status
 * a count needs not read (bench/README.md, conform-kernel)
 */
static bool root_filler(pid_t pid, uint32_t *ruid, uint64_t *ino, void *arg)
{
	const struct count_scan *c = arg;
	const struct real_priv *r = c->r;

	for (long i = 0; i < r->nroot_pids; i++)
		if (r->root_pids[i] == pid) {
			*ruid = 0;
			*ino = r->userns[0].ino;
			return true;
		}
	return false;
}

/* a namespace not made (yet, or its unshare() failed) has no counts, as in the model */
long npg_real_count(struct npg_backend *b, int ns, npg_id uid)
{
	struct real_priv *r = b->priv;
	const struct npg_scenario *sc = r->sc;
	int level = r->ucounts || r->uns.legacy ? ns : 0;

	if (ns < 0 || ns > sc->nuserns || !r->userns[ns].created)
		return 0;
	if (!r->counts_valid) {
		struct count_scan c = { r, r->ucounts && r->ns_made > 0 };

		/* once more after root's fillers were made or ended (guestroot.c) */
		for (int round = 0; round < 2; round++) {
			int moved;

			memset(r->counts, 0, (size_t)sc->nnames * (1 + (size_t)sc->nuserns) *
			       sizeof(*r->counts));
			r->root_outside_seen = 0;
			if (npg_proc_for_each_ruid_known(c.chain, root_filler, count_task, &c) < 0)
				return -1;
			moved = round == 0 ? npg_real_root_rebalance(b, r) : 0;
			if (moved < 0)
				return -1;
			if (!moved)
				break;
		}
		r->counts_valid = true;
		npg_real_root_seen(r);
	}
	for (int u = 0; u < sc->nnames; u++)
		if (!sc->names[u].group && sc->names[u].id == uid)
			/* in a guest, root's as the kernel keeps it (guestroot.c) */
			return r->counts[level * sc->nnames + u] +
			       (uid == 0 && level == 0 && r->root_ours ? r->root_delta : 0);
	return 0;
}

bool npg_real_check_reproducible(struct npg_backend *b, const struct npg_stmt *st)
{
	struct real_priv *r = b->priv;
	const struct npg_scenario *sc = r->sc;

	if (r->diverged[0]) {
		snprintf(b->reason, sizeof(b->reason), "%s", r->diverged);
		return false;
	}
	if (st->check == NPG_CHECK_COUNT) {
		if (r->charged_unknown[0]) {
			snprintf(b->reason, sizeof(b->reason), "%s", r->charged_unknown);
			return false;
		}
		if (r->ns_unknown[0]) {
			snprintf(b->reason, sizeof(b->reason), "%s", r->ns_unknown);
			return false;
		}
		/* up to 5.13 a namespace's count is its uid's, if the model made it */
		if (st->ns > 0 && r->userns[st->ns].unknown) {
			snprintf(b->reason, sizeof(b->reason), "the step that makes namespace '%s' "
				 "could not be run here", sc->userns[st->ns - 1].name);
			return false;
		}
		/* a child namespace's level has the scenario's tasks alone (5.14+; and
		 * 2.6.39-3.4, whose namespaces have their own user_structs) */
		if (st->user == 0 && (st->ns == 0 || (!r->ucounts && !r->uns.legacy)) &&
		    !r->root_ours) {
			snprintf(b->reason, sizeof(b->reason), "%s", r->root_why[0] ? r->root_why :
				 "root's count here includes the machine's own processes");
			return false;
		}
		for (int u = 0; u < sc->nnames; u++)
			if (sc->names[u].id == st->user && r->touched[u]) {
				snprintf(b->reason, sizeof(b->reason),
					 "a task that could not be reproduced acts on this user");
				return false;
			}
		return true;
	}
	if (r->tasks[st->task].tainted) {
		snprintf(b->reason, sizeof(b->reason), "%s", r->tasks[st->task].why);
		return false;
	}
	if (st->check == NPG_CHECK_EXIT && !r->tasks[st->task].exit_known &&
	    r->tasks[st->task].created) {
		struct real_task *t = &r->tasks[st->task];
		struct npg_proc_task pt;

		npg_real_learn_exit(r, t);
		if (!t->exit_known && npg_proc_read_task(t->pid, t->tid, &pt) == 0 &&
		    (pt.state == 'Z' || pt.state == 'X') && !pt.has_exit_code) {
			snprintf(b->reason, sizeof(b->reason), "%s", NPG_REAL_EXIT_UNKNOWABLE);
			return false;
		}
		/* reaped by init, before 3.4 (no subreaper): nobody of the run saw how */
		if (!t->exit_known && npg_proc_read_task(t->pid, t->tid, &pt) < 0) {
			snprintf(b->reason, sizeof(b->reason), "how the process ended: init reaped it "
				 "(no child subreaper before 3.4), and nothing of the run saw its status");
			return false;
		}
	}
	if ((st->check == NPG_CHECK_TRACER || st->check == NPG_CHECK_DUMPABLE) &&
	    !tracing_observable(r, st, b->reason, sizeof(b->reason)))
		return false;
	if (st->check == NPG_CHECK_USERNS && npg_real_task_ns(r, &r->tasks[st->task]) < 0) {
		snprintf(b->reason, sizeof(b->reason), NPG_REAL_NS_UNKNOWN);
		return false;
	}
	if (st->check == NPG_CHECK_NPROC && r->tasks[st->task].hard_capped) {
		snprintf(b->reason, sizeof(b->reason), "hard RLIMIT_NPROC is capped here");
		return false;
	}
	return true;
}
