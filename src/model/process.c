/*
 * Task life cycle: a declared task's start, copy_process() (fork, threads,
 * clone(CLONE_NEWUSER)), do_exit(), release_task(), wait.
 */
#include <errno.h>
#include <signal.h>

#include "model/model.h"
#include "model/policy.h"

static struct npg_result result(enum npg_result_kind kind, long value)
{
	return (struct npg_result){ .kind = kind, .value = value };
}

/* A task the scenario declares: as after the execve() that made it, charged like any task */
void npg_task_spawn(struct npg_world *w, int idx, const struct npg_cred *cred,
		    uint64_t nproc_cur, uint64_t nproc_max)
{
	struct npg_task *t = &w->tasks[idx];

	t->cred = *cred;
	t->cred.charged_to = cred->uid.real;
	t->state = NPG_TASK_RUNNING;
	t->leader = idx;
	t->parent = NPG_HARNESS;
	t->nproc_cur = nproc_cur;
	t->nproc_max = nproc_max;
	t->mm_userns = cred->userns;
	t->dumpable = npg_exec_dumpable(w, cred);
	npg_charge(w, &t->cred, 1);
}

/*
 * kernel/fork.c, copy_process(): dup_task_struct() copies the parent's
 * flags (PF_NPROC_EXCEEDED included), copy_creds() shares or copies the
 * credentials and charges the child to its user -- threads included
 * (CLONE_THREAD goes through the same path). The RLIMIT_NPROC decision is
 * the policy's.
 */
struct npg_result npg_sys_fork(struct npg_world *w, int t, int child, bool thread)
{
	return npg_copy_process(w, t, child, thread, 0);
}

/*
 * copy_process() with clone(CLONE_NEWUSER) when @newuser_ns: up to 5.16
 * the RLIMIT_NPROC test comes first and a new namespace's failure (ENOSPC,
 * EPERM) fails the fork with the flag already cleared; since 5.17 the
 * policy tests after copy_creds() (rule fork_counts_child, 8f2f9c4d82f2)
 */
struct npg_result npg_copy_process(struct npg_world *w, int t, int child, bool thread,
				   int newuser_ns)
{
	struct npg_task *parent = &w->tasks[t];
	struct npg_task *c = &w->tasks[child];
	int err;

	*c = *parent;
	c->state = NPG_TASK_ABSENT;
	if (newuser_ns && w->rules.fork_counts_child) {
		/* 5.17+: copy_creds() makes the namespace, then the test reads
		 * the child's ucounts; a failed fork frees the namespace */
		if ((err = npg_copy_creds_newuser(w, t, newuser_ns, &c->cred)) < 0)
			return result(NPG_R_ERRNO, -err);
		if ((err = w->policy->copy_process(w, parent, &c->cred)) < 0) {
			w->userns[newuser_ns].exists = false;
			return result(NPG_R_ERRNO, -err);
		}
	} else {
		if ((err = w->policy->copy_process(w, parent, &parent->cred)) < 0)
			return result(NPG_R_ERRNO, -err);
		if (newuser_ns && (err = npg_copy_creds_newuser(w, t, newuser_ns, &c->cred)) < 0)
			return result(NPG_R_ERRNO, -err);
	}
	c->state = NPG_TASK_RUNNING;
	c->exit_code = c->exit_signal = 0;
	c->vforked_by = 0;
	/* a child is not traced (no PTRACE_O_TRACE* option is set) and names
	 * no tracer; it shares (thread, vfork) or copies (fork: dup_mm())
	 * its parent's dumpability */
	c->tracer = 0;
	c->ptrace_cap = false;
	c->yama_ptracer = 0;
	if (thread) {
		c->leader = parent->leader;
		c->parent = parent->parent;
	} else {
		c->leader = child;
		c->parent = parent->leader;	/* any thread of the group may wait */
		c->nproc_cur = w->tasks[parent->leader].nproc_cur;
		c->nproc_max = w->tasks[parent->leader].nproc_max;
	}
	npg_charge(w, &c->cred, 1);
	return result(NPG_R_OK, 0);
}

/*
 * clone(CLONE_NEWUSER) (kernel/fork.c copy_process() -> copy_creds()):
 * copy_creds() creates the namespace for the child's credentials and
 * charges the child to its new ucounts; the RLIMIT_NPROC test comes
 * before it up to 5.16 (the parent's count) and after it since 5.17 (the
 * child's chain): npg_copy_process(). A process with threads may: the
 * child is alone. Before 3.8, do_fork() first:
 *	if (clone_flags & CLONE_NEWUSER) {
 *		if (!capable(CAP_SYS_ADMIN) || !capable(CAP_SETUID) ||
 *				!capable(CAP_SETGID))
 *			return -EPERM;
 * capable(): in the initial namespace.
 */
struct npg_result npg_sys_clone_user(struct npg_world *w, int t, int child, int ns,
				     const struct npg_idmap *uid_map,
				     const struct npg_idmap *gid_map)
{
	const struct npg_task *task = &w->tasks[t];
	struct npg_result r;

	if (!w->rules.userns_idmaps && (!npg_capable(task, NPG_CAP_SYS_ADMIN) ||
				  !npg_capable(task, NPG_CAP_SETUID) ||
				  !npg_capable(task, NPG_CAP_SETGID)))
		return result(NPG_R_ERRNO, EPERM);
	/* create_user_ns() checks @ns and makes the table */
	r = npg_copy_process(w, t, child, false, ns);

	if (r.kind != NPG_R_OK)
		return r;
	return npg_userns_harness_maps(w, ns, uid_map, gid_map);
}

/*
 * kernel/fork.c: vfork() is kernel_clone() with CLONE_VFORK | CLONE_VM --
 * the same copy_process(), so the same RLIMIT_NPROC accounting as fork()
 * in every era -- after which the parent sleeps in wait_for_vfork_done()
 * until complete_vfork_done() runs from mm_release(): the child's
 * exec_mmap() (a successful execve(), past the RLIMIT_NPROC test and the
 * file lookup) or its exit_mm() (exit, or death by a signal). posix_spawn()
 * is clone(CLONE_VM | CLONE_VFORK) in glibc 2.24+: the same.
 */
struct npg_result npg_sys_vfork(struct npg_world *w, int t, int child)
{
	struct npg_result r = npg_sys_fork(w, t, child, false);

	if (r.kind == NPG_R_OK)
		w->tasks[child].vforked_by = t + 1;
	return r;
}

bool npg_vfork_waiting(const struct npg_world *w, int t)
{
	for (int i = 0; i < w->ntasks; i++)
		if (w->tasks[i].vforked_by == t + 1 && w->tasks[i].state == NPG_TASK_RUNNING)
			return true;
	return false;
}

/* kernel/exit.c, release_task(): the only place a task stops being counted */
static void release_task(struct npg_world *w, struct npg_task *t)
{
	npg_charge(w, &t->cred, -1);
	t->state = NPG_TASK_REAPED;
}

static bool reaped_by_harness(const struct npg_world *w, const struct npg_task *t)
{
	return t->parent == NPG_HARNESS || !npg_alive(&w->tasks[t->parent]);
}

/*
 * A whole thread group dies: exit_group() or a fatal signal. Other threads
 * are released at once (exit_notify(): a non-leader autoreaps); the leader
 * stays a zombie until its parent reaps it. Children are handed to the
 * child reaper (forget_original_parent()), which reaps zombies at once --
 * in the model and in the real backend the harness plays init.
 */
static void group_exit(struct npg_world *w, int leader, int code, int sig)
{
	for (int i = 0; i < w->ntasks; i++) {
		struct npg_task *t = &w->tasks[i];

		if (i != leader && t->leader == leader && npg_alive(t)) {
			t->state = NPG_TASK_ZOMBIE;
			release_task(w, t);
		}
	}
	w->tasks[leader].state = NPG_TASK_ZOMBIE;
	w->tasks[leader].exit_code = code;
	w->tasks[leader].exit_signal = sig;
	for (int i = 0; i < w->ntasks; i++) {
		struct npg_task *t = &w->tasks[i];

		if (t->parent != leader || t->leader != i)
			continue;
		t->parent = NPG_HARNESS;
		if (t->state == NPG_TASK_ZOMBIE)
			release_task(w, t);
	}
	if (reaped_by_harness(w, &w->tasks[leader]))
		release_task(w, &w->tasks[leader]);
}

/* Is a thread of process @leader asleep in vfork()? */
static bool process_vfork_waiting(const struct npg_world *w, int leader)
{
	for (int i = 0; i < w->ntasks; i++)
		if (w->tasks[i].leader == leader && npg_vfork_waiting(w, i))
			return true;
	return false;
}

/* sig_kernel_coredump(): the signals whose default action dumps core */
static bool coredump_signal(int sig)
{
	switch (sig) {
	case SIGQUIT: case SIGILL: case SIGTRAP: case SIGABRT: case SIGBUS:
	case SIGFPE: case SIGSEGV: case SIGXCPU: case SIGXFSZ: case SIGSYS:
		return true;
	default:
		return false;
	}
}

/*
 * A fatal signal at its default action. One that dumps core, in a dumpable
 * mm (do_coredump(): "if (!__get_dumpable(cprm.mm_flags)) goto fail;"
 * comes first), kills before 5.16 every process using that mm, in
 * coredump_wait() -> zap_threads() (3.0.8, fs/exec.c):
 *	for_each_process(g) { ... if (p->mm == mm) nr += zap_process(p, exit_code); }
 * zap_process() gives each the dumping signal as group_exit_code, so it
 * dies of that signal too: a vfork() child's parent, asleep in vfork()
 * (coredump_wait() completes its vfork_done first), and any vfork()
 * ancestor sharing the mm. Whatever RLIMIT_CORE is: the dump itself fails
 * later. Measured on 3.0.8-ow-2006 (vfork-posix-spawn.npg: the parent of
 * a vfork() child killed at its setuid() died of SIGSEGV). 0258b5fd7c71
 * (5.16) kills the dumping thread group alone.
 */
void npg_task_kill(struct npg_world *w, int t, int sig)
{
	int mm = npg_mm_owner(w, t);
	bool zap = coredump_signal(sig) && w->tasks[t].dumpable && !w->rules.coredump_one_group;

	group_exit(w, w->tasks[t].leader, 0, sig);
	/* the other users of the mm, from the bottom of the vfork() chain up:
	 * a process sharing it is found through its live vfork() ancestors */
	for (int victim = 0; zap && victim >= 0;) {
		victim = -1;
		for (int i = 0; i < w->ntasks && victim < 0; i++)
			if (w->tasks[i].leader == i && npg_alive(&w->tasks[i]) &&
			    npg_mm_owner(w, i) == mm && !process_vfork_waiting(w, i))
				victim = i;
		if (victim >= 0)
			group_exit(w, victim, 0, sig);
	}
}

/* exit: a thread leaves alone (SYS_exit); a group leader takes the group (exit_group) */
struct npg_result npg_sys_exit(struct npg_world *w, int t, int code)
{
	struct npg_task *task = &w->tasks[t];

	if (task->leader != t) {
		task->exit_code = code;
		release_task(w, task);
		return result(NPG_R_OK, 0);
	}
	group_exit(w, t, code, 0);
	return result(NPG_R_OK, 0);
}

/*
 * waitpid(child, WNOHANG) from any thread of the parent's group; a task
 * traced by a thread of the caller's process is waitable too, its child
 * or not, thread or not (ptrace_do_wait(), eligible_child(): "if it is
 * traced by us"): running while it lives -- its exit the harness's
 * tracer takes at once
 */
struct npg_result npg_sys_wait(struct npg_world *w, int t, int child)
{
	struct npg_task *c = &w->tasks[child];
	int tr = npg_tracer_of(w, child);

	if (tr >= 0 && npg_alive(c) && w->tasks[tr].leader == w->tasks[t].leader)
		return result(NPG_R_RUNNING, 0);

	if (c->leader != child || c->parent != w->tasks[t].leader ||
	    (c->state != NPG_TASK_RUNNING && c->state != NPG_TASK_ZOMBIE))
		return result(NPG_R_ERRNO, ECHILD);
	if (c->state == NPG_TASK_RUNNING)
		return result(NPG_R_RUNNING, 0);
	release_task(w, c);
	return result(NPG_R_OK, 0);
}

/*
 * fs/exec.c, de_thread(): every other thread of the group is killed and
 * released -- the old leader too when a non-leader execs: "At this point
 * all other threads have exited, all we have to do is to wait for the
 * thread group leader to become inactive, and to assume its role"; the
 * exec'ing thread takes the leader's pid, its parent and children (they
 * are the process's), and the old leader is release_task()d: uncharged,
 * never a zombie anyone waits for. The limits are the process's already
 * (signal_struct is shared).
 */
static void de_thread(struct npg_world *w, int t)
{
	struct npg_task *task = &w->tasks[t];
	int old_leader = task->leader;

	for (int i = 0; i < w->ntasks; i++) {
		struct npg_task *other = &w->tasks[i];

		if (i != t && other->leader == old_leader && npg_alive(other)) {
			other->state = NPG_TASK_ZOMBIE;
			release_task(w, other);
		}
	}
	if (old_leader == t)
		return;
	task->leader = t;
	task->parent = w->tasks[old_leader].parent;
	task->nproc_cur = w->tasks[old_leader].nproc_cur;
	task->nproc_max = w->tasks[old_leader].nproc_max;
	for (int i = 0; i < w->ntasks; i++)
		if (w->tasks[i].parent == old_leader && w->tasks[i].leader == i)
			w->tasks[i].parent = t;
}

struct npg_result npg_sys_execve(struct npg_world *w, int t)
{
	return npg_sys_execve_file(w, t, NULL);
}

/*
 * fs/exec.c: the policy's RLIMIT_NPROC test comes first in
 * do_execveat_common(), before alloc_bprm() opens the file (6.x; before
 * do_open_execat() in 3.1 - 5.x): a missing file fails with ENOENT after
 * the test has passed and cleared PF_NPROC_EXCEEDED (measured on 6.18 and
 * 5.10). Then de_thread() kills the other threads and the credentials are
 * transformed (commoncap.c).
 */
struct npg_result npg_sys_execve_file(struct npg_world *w, int t, const struct npg_exec_file *f)
{
	struct npg_task *task = &w->tasks[t];
	int err = w->policy->execve(w, task);
	struct npg_cred new;

	if (err)
		return result(NPG_R_ERRNO, -err);
	if (f && f->missing)
		return result(NPG_R_ERRNO, ENOENT);
	/*
	 * get_vfs_caps_from_disk() before 4.14 (3.0.8, security/commoncap.c)
	 * reads the xattr into a buffer of XATTR_CAPS_SZ, v2's 20 bytes:
	 *	size = inode->i_op->getxattr(dentry, XATTR_NAME_CAPS, &caps,
	 *				     XATTR_CAPS_SZ);
	 *	...
	 *	if (size < 0)
	 *		return size;
	 * and v3's 24 bytes do not fit: -ERANGE, before its revision is
	 * looked at; get_file_caps() fails the exec with it (measured on
	 * 3.0.8, once its guest's tmpfs could hold the xattr)
	 */
	if (f && f->has_fcaps && f->fcap_v3 && !f->nosuid && !w->rules.fcaps_v3)
		return result(NPG_R_ERRNO, ERANGE);
	/* begin_new_exec(): bprm_creds_from_file() comes before de_thread();
	 * bprm->unsafe was set by check_unsafe_exec() before either */
	new = task->cred;
	err = npg_cap_bprm_creds(&new, f, &(struct npg_bprm){
		.root_uid = npg_ns_root_uid(w, new.userns),
		.setid_mapped = !f || (npg_from_kid(w, new.userns, f->uid, false) != NPG_ID_NONE &&
				       npg_from_kid(w, new.userns, f->gid, true) != NPG_ID_NONE),
		.no_new_privs = task->no_new_privs,
		.ptrace = npg_ptrace_unsafe(w, t, new.userns),
		.fcap_ignored = f && f->fcap_v3 && !npg_rootid_owns(w, new.userns, f->fcap_rootid),
		/* "if (!capable(CAP_SETUID))" before 3.8's ns_capable(new->user_ns) */
		.cap_setuid = w->rules.userns_idmaps ? npg_capable_own_ns(task, NPG_CAP_SETUID)
					       : npg_capable(task, NPG_CAP_SETUID),
		.id_changed_rule = w->rules.exec_id_changed,
		.fcaps_suppress_root = w->rules.fcaps_suppress_root });
	if (err)
		return result(NPG_R_ERRNO, -err);
	de_thread(w, t);
	task->vforked_by = 0;	/* exec_mmap() -> mm_release() -> complete_vfork_done() */
	/* a new mm: mm_alloc() -> mm_init(mm, current, current_user_ns()) */
	task->mm_userns = task->cred.userns;
	task->dumpable = npg_exec_dumpable(w, &task->cred);
	npg_commit_creds_dumpable(w, t, &task->cred, &new);
	task->cred = new;
	return result(NPG_R_OK, 0);
}
