/*
 * The real backend's controller: its state, and its core -- the uid
 * window (window.c), the task table (tasks.c) and the wire to the
 * puppets (ask.c) -- which calls no step family. Each file above it
 * calls only what lies below:
 *
 *   real_backend.c    the backend's operations: start, the step dispatcher, stop
 *   userns_ops.c      user namespaces (clone(CLONE_NEWUSER) through lifecycle.c)
 *   lifecycle.c creds.c tracing.c rootcount.c spawn.c programs.c observe.c
 *                     the step families, the run's processes and files, observation
 *   window.c tasks.c ask.c   this header: the core
 *
 * Not for the puppets (puppet.c, tracer.c), which share only wire.h.
 */
#ifndef NPG_REAL_PRIV_H
#define NPG_REAL_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "backend/backend.h"
#include "backend/real/execdir.h"
#include "backend/real/idmap.h"
#include "backend/real/wire.h"

#define ANSWER_TIMEOUT_MS 10000
#define STOP_TIMEOUT_MS 30000

struct real_task {
	pid_t pid, tid;		/* thread-group id and task id */
	int sock;		/* the controller's end, or -1 */
	bool created, alive, gone;
	bool tainted;		/* could not be made faithfully: its steps are not run */
	char why[200];
	bool hard_capped;	/* hard RLIMIT_NPROC lower here than the scenario says */
	bool ruid_seen;		/* last_ruid holds the real uid last observed */
	uint32_t last_ruid;
	/* 5.14-5.16: the (real) uid whose ucounts this task is charged to */
	bool key_known;
	uint32_t key;
	bool exit_known;
	int exit_status;	/* a wait status */
	unsigned long long starttime;
	int pidfd;
	/* a vfork() child: 1 + the task whose reply waits for its exec or exit; 0: none */
	int vfork_waiter;
	bool shares_mm;		/* a vfork() child that has not exec'd: its parent's memory */
	/* its user namespace (0 initial, 1 + index): last seen; before 3.8,
	 * which has no /proc/PID/ns/user, as the backend recorded it (the
	 * creator's, a clone(CLONE_NEWUSER) child's new one) */
	int ns;
	/*
	 * A sanitizer build's vfork() child runs in a copy of its parent's
	 * memory (puppet.c): one that changed its credentials there changed
	 * its own copy's dumpability, not its parent's as the kernel's
	 * shared mm would. Set on the parent: its dumpability is unknown.
	 */
	bool mm_copy_changed;
};

/* A user namespace a step of the scenario made (or the initial one, [0]) */
struct real_userns {
	bool created;
	bool unknown;		/* its unshare was not run faithfully: what the model made is unknown */
	int nsfd;		/* held open: its inode number cannot go to another */
	uint64_t ino;
	int parent, level;
	uint32_t owner;		/* ns->owner: the creator's euid at unshare(), a kernel id */
	uint64_t nproc_max;	/* ns->rlimit_max[UCOUNT_RLIMIT_NPROC], as this era records it */
	/* the maps as the model has them (nr 0: none), and as written here (kernel lines) */
	struct npg_idmap model_map[2];
	int nr_written[2];
	struct npg_idmap_extent written[2][NPG_REAL_IDMAP_LINES];
	/* a step of the run wrote its user.max_user_namespaces: an ENOSPC below
	 * it may be the scenario's, not the machine's */
	bool max_set;
};

struct id_seg;

struct real_priv {
	const struct npg_scenario *sc;
	const struct npg_host *host;
	uint32_t base;
	struct id_seg *segs;	/* sorted; the window's ids from base + 1 */
	int nsegs;
	uint32_t window_used;
	struct real_task *tasks;
	int exe_fd;
	int filler_pipe[2];
	bool *touched;		/* per name: a user whose count a tainted task may change */
	bool subreaper;		/* PR_SET_CHILD_SUBREAPER held (3.4+) */
	/* the uid window was found empty at start: what runs in it from then
	 * on is the run's, which the stop may kill; before, it is someone else's */
	bool window_ours;
	/*
	 * 5.14-5.16 charge a task to the effective uid it has when its real
	 * user changes (set_cred_ucounts() on new->euid). /proc shows no such
	 * key, only real uids: once a task's real uid changed to one that
	 * differs from its effective uid, counts here are no longer the ones
	 * the kernel compares.
	 */
	bool ucounts_by_euid;
	char charged_unknown[200];
	char diverged[256];	/* why nothing is compared from some step on */
	bool counts_valid;
	/* what the last `check TASK dumpable` read (-1 unknown), until the next step */
	int dumpable_read_task, dumpable_read;
	long *counts;		/* per name, cached between steps */
	uint32_t *count_uids;
	uint64_t bset;		/* the bounding set tasks start with: the scenario's, within the host's */
	char execdir[NPG_EXECDIR_PATH];	/* "" until a declared file needs it */
	char (*file_why)[200];	/* per declared file: why it could not be made here, or "" */
	struct npg_idmap_host uns;
	struct real_userns *userns;	/* [1 + sc->nuserns]: [0] the initial namespace */
	/* a task of the window in a namespace the run did not make: counts cannot be told */
	char ns_unknown[200];
	int ns_made;		/* namespaces made so far */
	/* a guest's user.max_user_namespaces of the initial namespace as it was
	 * before a step wrote it, written back at stop; -1 untouched */
	long init_max_userns;
	const struct npg_policy *policy;	/* the run's: the model compared with */
	/* the rules it runs by (npg_rules_for_policy()): which uid the kernel
	 * charges a task to, which counts a step is decided by */
	struct npg_rules rules;
	bool ucounts;		/* its counts are per (namespace, uid), in a chain (5.14+) */
	bool ever_traced;	/* a seize succeeded: exits may wait for a tracer */
	/* the scenario's 'yama ptrace_scope' (or none) is not this machine's,
	 * and the run stands by the scenario's (run --real, not conform) */
	bool yama_mismatch;
	/*
	 * guestroot.c: in a kernel booted for this run alone, root's count is
	 * the scenario's -- its declared `procs`, filled up -- and compared
	 */
	bool root_ours;
	long root_delta;	/* root's tasks the kernel counts and /proc does not show */
	long root_outside;	/* root's tasks in /proc outside the scenario, as set up */
	long root_outside_seen;	/* the same, as the last count found them */
	char root_why[256];	/* why root's count is not the scenario's here, or "" */
	pid_t *root_pids;	/* root's fillers (a guest's), as made and not yet ended */
	long nroot_pids, root_pids_cap;
	const struct npg_name *root_name;	/* the scenario's root, whose fillers they are */
};

/* --- window.c: the run's uid window --- */

/* Room for the layout of @sc's ids (r->segs), or NULL */
struct id_seg *npg_real_window_new(const struct npg_scenario *sc);
/* The window's layout: 0, or -1 when the scenario names more ids than it holds */
int npg_real_window_layout(struct real_priv *r);
/* A scenario id as a kernel id of the window (0 and -1 stay), and back */
uint32_t npg_real_map_id(const struct real_priv *r, npg_id id);
npg_id npg_real_unmap_id(const struct real_priv *r, uint32_t real);
/* Are scenario ids @lo..@hi consecutive in the window, so one map line can cover them? */
bool npg_real_window_holds(const struct real_priv *r, uint64_t lo, uint64_t hi);
/* Does @t name the window's ids (the initial namespace; any before 3.5)? Then they are mapped. */
bool npg_real_ids_in_window(const struct real_priv *r, const struct real_task *t);
/* The ids of a set*id call moved into the window */
void npg_real_map_op(const struct real_priv *r, struct npg_op *op);
/* Does @op write a uid map (the harness's after unshare or clone, or a task's)? */
bool npg_real_writes_uid_map(const struct npg_op *op);

/* --- tasks.c: the task table --- */

/* More than ANSWER_TIMEOUT_MS since @start? Then errno is ETIMEDOUT. */
bool npg_real_answer_overdue(const struct timespec *start);
/* The scenario task whose process (a leader, not gone) is @pid now, or NULL */
struct real_task *npg_real_task_by_pid(struct real_priv *r, pid_t pid);
/* The scenario task whose task id is @tid now, or -1 */
int npg_real_task_of_tid(const struct real_priv *r, pid_t tid);
/* Is @t waiting in vfork() for a child that has neither exec'd nor exited? */
bool npg_real_vfork_waiting(const struct real_priv *r, const struct real_task *t);
/* Process @tgid's tasks are no longer alive, its threads gone (its leader too unless @keep_leader) */
void npg_real_mark_group_gone(struct real_priv *r, pid_t tgid, bool keep_leader);
/* As init would: reap whatever became the controller's child */
void npg_real_reap_children(struct real_priv *r);
/* Until /proc says @t is gone or (unless @want_gone) a zombie: 0, or -1 on timeout */
int npg_real_wait_task_settled(const struct real_task *t, bool want_gone);
/* Until @t's process has exited (a zombie, or reaped): 0, or -1 on timeout */
int npg_real_wait_process_exited(struct real_task *t);
/* @t cannot be driven faithfully any more: its steps are not run */
void npg_real_taint(struct real_task *t, const char *why);
/* Users whose count a tainted task could change, to a fixed point */
void npg_real_mark_touched(struct real_priv *r);
/* A task of the scenario that exists now (a zombie included) */
bool npg_real_task_present(const struct real_task *t);

#define NPG_REAL_NS_UNKNOWN "the task is in a user namespace this run did not make"

/* The namespace (0, 1 + index) whose inode is @ino, or -1: not one of the run's */
int npg_real_ns_of_ino(const struct real_priv *r, uint64_t ino);
/* The namespace @t is in, from /proc (its last known one once gone); -1: one not made here */
int npg_real_task_ns(const struct real_priv *r, const struct real_task *t);

/* --- ask.c: the wire to the puppets --- */

/*
 * A zombie's wait status is field 52 of its stat from 3.5 on; before, only
 * its parent can read it, and the parent of a forked task is a puppet,
 * which keeps its zombies as the scenario has it: it is asked with
 * waitid(WNOWAIT) (npg_real_learn_exit()). Unknowable when no puppet of
 * the run is its parent any more (init's orphan, which init reaps).
 */
#define NPG_REAL_EXIT_UNKNOWABLE "how the process ended: this kernel's /proc/PID/stat has no exit " \
			"code (3.5+), and its parent is no task of the run that can say"

/* One answer from a puppet within ANSWER_TIMEOUT_MS: 1, 0 on EOF, -1 (ETIMEDOUT) */
int npg_real_recv_timed(int sock, struct npg_wire_msg *m, int *fd);
/* Where declared file @file (1-based) is on this machine: a nosuid one on the nosuid mount */
void npg_real_file_path(const struct real_priv *r, int file, char *buf, size_t len);
/* The command a step sends to @t's puppet: its ids moved into the window, paths */
void npg_real_build_cmd(struct real_priv *r, const struct real_task *t, const struct npg_stmt *st,
			pid_t target_pid, struct npg_wire_msg *m);
/* npg_real_build_cmd() of @st sent to @t, with @fd attached when >= 0: 0 or -1 */
int npg_real_send_cmd(struct real_priv *r, struct real_task *t, const struct npg_stmt *st,
		      pid_t target_pid, int fd);
/*
 * Send @cmd (with @fd attached when >= 0) to @t and take its answer into
 * @m: false, with *@res what the step yields, when there is none -- the
 * socket closed (@dies died) or the exchange broke.
 */
bool npg_real_exchange(struct npg_backend *b, struct real_priv *r, struct real_task *t,
		       const struct npg_wire_msg *cmd, int fd, struct real_task *dies,
		       struct npg_wire_msg *m, struct npg_result *res);
/* npg_real_build_cmd() and npg_real_exchange() of @st, nothing attached */
bool npg_real_ask(struct npg_backend *b, struct real_priv *r, struct real_task *t,
		  const struct npg_stmt *st, pid_t target, struct real_task *dies,
		  struct npg_wire_msg *m, struct npg_result *res);
/* A step not run: b->reason is @why */
struct npg_result npg_real_unreproducible(struct npg_backend *b, const char *why);
/* nothing compared from @st on, for @why (the first reason stays) */
struct npg_result npg_real_diverge(struct npg_backend *b, struct real_priv *r,
				   const struct npg_stmt *st, const char *why);
/* The exchange with a puppet failed (errno says how): unreproducible */
struct npg_result npg_real_broken(struct npg_backend *b, const char *what);
/* A process died under a step: its signal, or dead */
struct npg_result npg_real_died(struct npg_backend *b, struct real_priv *r, struct real_task *t);
/* Before 3.5: a zombie's wait status from its parent puppet (waitid(WNOWAIT)), if it can say */
void npg_real_learn_exit(struct real_priv *r, struct real_task *t);
/* Collect the replies of parents that their vfork() child released: 0, or -1 */
int npg_real_collect_vfork_replies(struct real_priv *r);

#endif