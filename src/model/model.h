/*
 * The executable model of process accounting: tasks, their credentials,
 * per-user counts, and the system calls that change them. What stays the
 * same across kernel eras lives here; what changed is asked of a policy
 * (policy.h) through hooks named after the kernel functions.
 */
#ifndef NPG_MODEL_MODEL_H
#define NPG_MODEL_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "model/cred.h"
#include "model/rules.h"
#include "model/userns.h"

#define NPG_RLIM_INFINITY UINT64_MAX	/* RLIM_INFINITY */
#define NPG_HARNESS (-1)		/* parent of the scenario's top-level tasks */

struct npg_policy;

enum npg_task_state {
	NPG_TASK_ABSENT,	/* never created (its fork failed or was not reached) */
	NPG_TASK_RUNNING,
	NPG_TASK_ZOMBIE,	/* exited, not yet reaped: still counted */
	NPG_TASK_REAPED,	/* released: no longer counted */
};

struct npg_task {
	struct npg_cred cred;
	enum npg_task_state state;
	bool nproc_exceeded;	/* PF_NPROC_EXCEEDED */
	int parent;		/* index of the parent's thread-group leader, or NPG_HARNESS */
	int leader;		/* index of the thread-group leader (itself for a process) */
	int exit_code;		/* when exited normally */
	int exit_signal;	/* 0, or the signal that killed it */
	/* signal->rlim[RLIMIT_NPROC]: per process; threads read their leader's */
	uint64_t nproc_cur, nproc_max;
	/*
	 * A vfork() child: 1 + the index of the task that waits for it in
	 * wait_for_vfork_done() until it execs or exits; 0 for any other task
	 * or once it has exec'd.
	 */
	int vforked_by;
	/* PFA_NO_NEW_PRIVS: set by prctl(PR_SET_NO_NEW_PRIVS), kept by fork and
	 * execve, never cleared */
	bool no_new_privs;
	/*
	 * ptrace: 1 + the index of the task that attached (ptrace links
	 * tasks, not processes), 0 for none; see npg_tracer_of(). At attach,
	 * PT_PTRACE_CAP (before 4.10) or the tracer's credentials,
	 * ptracer_cred (4.10+, 64b875f7ac8a), decide what execve() may gain.
	 */
	int tracer;
	bool ptrace_cap;
	struct npg_cred ptracer_cred;
	/*
	 * The mm's: shared by the threads of a process and by a vfork() child
	 * until it execs, kept equal on each (npg_set_dumpable()).
	 * SUID_DUMP_DISABLE 0, SUID_DUMP_USER 1, SUID_DUMP_ROOT 2; mm->user_ns
	 * (4.10+): the caller's namespace at the execve that made the mm.
	 */
	int dumpable;
	int mm_userns;
	/* Yama's PR_SET_PTRACER on a leader: 0 none, -1 any, 1 + index of the
	 * task named (the exception ends when that task is released) */
	int yama_ptracer;
};

struct npg_count {
	npg_id uid;
	long count;		/* user_struct->processes / ucounts RLIMIT_NPROC */
	int ns;			/* the namespace of the ucounts (always 0 up to 5.13) */
};

struct npg_world {
	const struct npg_policy *policy;
	/* the policy's, unless a running kernel's point release has fewer
	 * (model/release.c) */
	struct npg_rules rules;
	uint64_t cap_full_set;	/* CAP_FULL_SET: NPG_CAP_ALL, unless the release knows fewer */
	int yama_scope;		/* kernel.yama.ptrace_scope; -1: no Yama */
	int suid_dumpable;	/* fs.suid_dumpable: 0 unless the machine says otherwise */
	int ntasks;
	struct npg_task *tasks;
	int ncounts;
	struct npg_count *counts;
	/* [NPG_MAX_USERNS + 1], allocated by the first unshare; NULL: only
	 * the initial namespace exists */
	struct npg_userns *userns;
};

/* A system call's outcome. */
enum npg_result_kind {
	NPG_R_OK,		/* returned 0 */
	NPG_R_ERRNO,		/* returned -1 with errno = value */
	NPG_R_ID,		/* returned a uid or gid (setfsuid, setfsgid) */
	NPG_R_KILLED,		/* the task died of signal = value during the call */
	NPG_R_RUNNING,		/* wait: the child has not exited */
	NPG_R_DEAD,		/* the task was not alive, so the step did not run */
	NPG_R_UNREPRODUCIBLE,	/* real backend: this step cannot be made faithfully here */
	NPG_R_SUSPENDED,	/* the task waits in vfork() for its child: the step did not run */
};

struct npg_result {
	enum npg_result_kind kind;
	long value;
};

int npg_world_init(struct npg_world *w, const struct npg_policy *p, int ntasks);
void npg_world_free(struct npg_world *w);

/* Accounting: the count of @uid in the initial namespace */
long npg_count_of(const struct npg_world *w, npg_id uid);
/* one level's count: ucounts (@ns, @uid) since 5.14; the uid's one count before */
long npg_count_in(const struct npg_world *w, int ns, npg_id uid);
/* add to one level only: users' processes outside the scenario */
void npg_count_add(struct npg_world *w, npg_id uid, long delta);
/*
 * Charge or uncharge a task with credentials @c: its user's count up to
 * 5.13; since 5.14 its ucounts and every ancestor level
 * (inc_rlimit_ucounts(): a namespace's tasks count for its creator in
 * the parent namespace too).
 */
void npg_charge(struct npg_world *w, const struct npg_cred *c, long delta);
long npg_task_count(const struct npg_world *w, const struct npg_task *t);
/*
 * is_rlimit_overlimit() (5.14+; 5.15.y form): is the ucounts of @c, with
 * @extra more tasks, over @rlimit, or any ancestor level over the limit
 * its namespace recorded at creation? Up to 5.13 (one count per uid):
 * the count against @rlimit alone.
 */
/* set_cred_ucounts(): the uid a task with credentials @new is charged to */
npg_id npg_set_cred_ucounts(const struct npg_world *w, const struct npg_cred *new);
bool npg_ucounts_over(const struct npg_world *w, const struct npg_cred *c, uint64_t rlimit,
		      long extra);
uint64_t npg_rlimit_nproc(const struct npg_world *w, const struct npg_task *t);
/* capable(): @cap in the initial namespace -- never from a child namespace */
bool npg_capable(const struct npg_task *t, int cap);
/* ns_capable(current_user_ns(), @cap): @cap in the task's own namespace */
bool npg_capable_own_ns(const struct npg_task *t, int cap);
bool npg_alive(const struct npg_task *t);

/* Creating the scenario's initial tasks: charged like any task. */
void npg_task_spawn(struct npg_world *w, int idx, const struct npg_cred *cred,
		    uint64_t nproc_cur, uint64_t nproc_max);

/* A fatal signal to @t's whole thread group (force_sig() of a fatal signal). */
void npg_task_kill(struct npg_world *w, int t, int sig);

/* System calls, by the task at index @t. */
struct npg_result npg_sys_fork(struct npg_world *w, int t, int child, bool thread);
struct npg_result npg_sys_vfork(struct npg_world *w, int t, int child);
/* Is @t waiting in vfork() for a child that has neither exec'd nor exited? */
bool npg_vfork_waiting(const struct npg_world *w, int t);
struct npg_result npg_sys_exit(struct npg_world *w, int t, int code);
struct npg_result npg_sys_wait(struct npg_world *w, int t, int child);
struct npg_result npg_sys_setuid(struct npg_world *w, int t, bool gid, npg_id id);
struct npg_result npg_sys_setreuid(struct npg_world *w, int t, bool gid, npg_id r, npg_id e);
struct npg_result npg_sys_setresuid(struct npg_world *w, int t, bool gid,
				    npg_id r, npg_id e, npg_id s);
struct npg_result npg_sys_setfsuid(struct npg_world *w, int t, bool gid, npg_id id);
struct npg_result npg_sys_setgroups(struct npg_world *w, int t, int n, const npg_id *groups);
struct npg_result npg_sys_prlimit(struct npg_world *w, int t, int target,
				  uint64_t cur, uint64_t max);
struct npg_result npg_sys_keepcaps(struct npg_world *w, int t, bool on);
struct npg_result npg_sys_capset(struct npg_world *w, int t, uint64_t effective,
				 uint64_t permitted, uint64_t inheritable);
/* prctl(PR_SET_NO_NEW_PRIVS, @value) */
struct npg_result npg_sys_no_new_privs(struct npg_world *w, int t, int value);
/* prctl(PR_SET_SECUREBITS, @bits) */
struct npg_result npg_sys_securebits(struct npg_world *w, int t, uint32_t bits);
/* prctl(PR_CAP_AMBIENT, @how, @cap): how is PR_CAP_AMBIENT_RAISE/LOWER/CLEAR_ALL */
struct npg_result npg_sys_ambient(struct npg_world *w, int t, int how, int cap);
struct npg_result npg_sys_execve(struct npg_world *w, int t);
/*
 * glibc's set*id in a threaded process (glibc_setxid.c): @raw, the raw
 * system call, on every thread of @t's process in glibc's order (written
 * to @order, room for every task), @t last. npg_glibc_setxid_order()
 * gives that order alone; both return the number of threads / the result.
 */
int npg_glibc_setxid_order(const struct npg_world *w, int t, int *order);
/* The same order over any bookkeeping: @live_thread(i) says whether task i
 * is a live thread of the caller's process (the real backend's, too) */
int npg_glibc_order(int ntasks, int caller, int leader, bool (*live_thread)(int i, void *arg),
		    void *arg, int *order);
struct npg_result npg_glibc_setxid(struct npg_world *w, int t, int *order,
				   struct npg_result (*raw)(struct npg_world *w, int t,
							    const void *arg),
				   const void *arg);

/* kill(@target's process, @sig): 0 or a signal whose default action is to terminate */
struct npg_result npg_sys_kill(struct npg_world *w, int t, int target, int sig);
bool npg_kill_ok_by_cred(const struct npg_world *w, const struct npg_task *cur,
			 const struct npg_task *target);


/*
 * unshare(CLONE_NEWUSER) by task @t creating the namespace numbered @ns
 * (1 .. NPG_MAX_USERNS), then its maps written by a process with every
 * capability in the parent namespace (the harness): 0, or an errno of the
 * unshare (EINVAL, ENOSPC, EPERM) or, after it, of a map write (EINVAL,
 * EPERM). A map with nr 0 is not written.
 */
struct npg_result npg_sys_unshare_user(struct npg_world *w, int t, int ns,
				       const struct npg_idmap *uid_map,
				       const struct npg_idmap *gid_map);

/* ptrace (ptrace.c) */
/* prctl(PR_SET_PTRACER)'s argument: 0, PR_SET_PTRACER_ANY, or a task's pid */
enum npg_ptracer { NPG_PTRACER_NONE = 0, NPG_PTRACER_ANY = 1, NPG_PTRACER_TASK = 2 };
/* ptrace(PTRACE_SEIZE, @target) by @t: 0, EPERM or ESRCH */
struct npg_result npg_sys_ptrace_seize(struct npg_world *w, int t, int target);
/* ptrace(PTRACE_ATTACH, @target) by @t, its SIGSTOP taken at once: 0, EPERM or ESRCH */
struct npg_result npg_sys_ptrace_attach(struct npg_world *w, int t, int target);
/* Let go of a running tracee (a stop, wait, PTRACE_DETACH): 0 or ESRCH */
struct npg_result npg_sys_ptrace_detach(struct npg_world *w, int t, int target);
/* prctl(PR_SET_DUMPABLE, @value) */
struct npg_result npg_sys_dumpable(struct npg_world *w, int t, int value);
/* prctl(PR_SET_PTRACER, ...): @how an npg_ptracer, @target for NPG_PTRACER_TASK */
struct npg_result npg_sys_ptracer(struct npg_world *w, int t, int how, int target);
/* The task tracing @t as /proc shows it (TracerPid), or -1 */
int npg_tracer_of(const struct npg_world *w, int t);
/* LSM_UNSAFE_PTRACE for an execve() by @t whose new credentials are in
 * namespace @ns: traced by a tracer without CAP_SYS_PTRACE over it */
bool npg_ptrace_unsafe(const struct npg_world *w, int t, int ns);
/* set_dumpable() on @t's mm: every task sharing it */
void npg_set_dumpable(struct npg_world *w, int t, int value);
/* The leader of the process whose mm @t uses (a vfork() child: its parent's) */
int npg_mm_owner(const struct npg_world *w, int t);
/* commit_creds(): "dumpability changes" when @new differs from @old */
void npg_commit_creds_dumpable(struct npg_world *w, int t, const struct npg_cred *old,
			       const struct npg_cred *new);
/* The dumpability of a task declared with credentials @c: after its execve() */
int npg_exec_dumpable(const struct npg_world *w, const struct npg_cred *c);

/* User namespaces made and administered (userns_setup.c; clone(CLONE_NEWUSER), like
 * kernel/fork.c's, in process.c) */
/* clone(CLONE_NEWUSER | SIGCHLD): @child in the new namespace @ns, maps by the harness */
struct npg_result npg_sys_clone_user(struct npg_world *w, int t, int child, int ns,
				     const struct npg_idmap *uid_map,
				     const struct npg_idmap *gid_map);
/* setns(fd of user namespace @ns, CLONE_NEWUSER) */
struct npg_result npg_sys_setns_user(struct npg_world *w, int t, int ns);
/* @t writes /proc/@target/uid_map (gid_map) */
struct npg_result npg_sys_write_idmap(struct npg_world *w, int t, int target, bool gid,
				      const struct npg_idmap *map);
/* @t writes "allow" or "deny" to /proc/@target/setgroups */
struct npg_result npg_sys_write_setgroups(struct npg_world *w, int t, int target, bool allow);
/* @t writes /proc/sys/user/max_user_namespaces (its own namespace's) */
struct npg_result npg_sys_max_user_namespaces(struct npg_world *w, int t, long value);
/* Model-internal: copy_process() for fork, thread and clone(CLONE_NEWUSER)
 * (@newuser_ns 0: none), and copy_creds()'s create_user_ns() */
struct npg_result npg_copy_process(struct npg_world *w, int t, int child, bool thread,
				   int newuser_ns);
int npg_copy_creds_newuser(struct npg_world *w, int t, int ns, struct npg_cred *new);
/* The maps a step has the harness write into namespace @ns, uid_map first */
struct npg_result npg_userns_harness_maps(struct npg_world *w, int ns,
					  const struct npg_idmap *uid_map,
					  const struct npg_idmap *gid_map);

/* execve() of @f; NULL is a plain program (no set-id bit, no file capabilities) */
struct npg_result npg_sys_execve_file(struct npg_world *w, int t, const struct npg_exec_file *f);

#endif
