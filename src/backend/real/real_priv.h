/*
 * The real backend's state, shared by its controller files
 * (real_backend.c, tracing.c). Not for the puppets.
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
	int ns;			/* its user namespace (0 initial, 1 + index): last seen */
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
	const struct npg_policy *policy;	/* this kernel's era */
	bool ucounts;		/* its counts are per (namespace, uid), in a chain (5.14+) */
	bool ever_traced;	/* a seize succeeded: exits may wait for a tracer */
	/* the scenario's 'yama ptrace_scope' (or none) is not this machine's,
	 * and the run stands by the scenario's (run --real, not conform) */
	bool yama_mismatch;
};

/* --- shared by the controller's files (real_backend.c) --- */

/* One answer from a puppet within ANSWER_TIMEOUT_MS: 1, 0 on EOF, -1 (ETIMEDOUT) */
int npg_real_recv_timed(int sock, struct npg_wire_msg *m, int *fd);
/* More than ANSWER_TIMEOUT_MS since @start? Then errno is ETIMEDOUT. */
bool npg_real_answer_overdue(const struct timespec *start);
/* Is @t waiting in vfork() for a child that has neither exec'd nor exited? */
bool npg_real_vfork_waiting(const struct real_priv *r, const struct real_task *t);
/* As init would: reap whatever became the controller's child */
void npg_real_reap_children(struct real_priv *r);
/* The scenario task whose task id is @tid now, or -1 */
int npg_real_task_of_tid(const struct real_priv *r, pid_t tid);

/* --- tracing.c: ptrace and dumpability on the controller's side --- */

/* The ids a seize needs besides the target's tid (wire.h) */
void npg_real_ptrace_target(const struct real_priv *r, const struct npg_stmt *st,
			    struct npg_wire_msg *m);
/* Why @st cannot run here because of a tracer that cannot act, or NULL */
const char *npg_real_tracing_hazard(struct real_priv *r, const struct npg_stmt *st);
/* Why the kernel answers @st otherwise than the model can say (not run), or NULL */
/* After a step: every traced exit acknowledged as the model has it. 0 or -1. */
int npg_real_tracing_settle(struct real_priv *r, char *why, size_t len);
/* The view's tracer and dumpable fields */
void npg_real_view_tracing(struct real_priv *r, int task, struct npg_task *out);
/* check TASK tracer / dumpable: can it be observed? If not, why in @why. */
bool npg_real_tracing_observable(struct real_priv *r, const struct npg_stmt *st, char *why,
				 size_t len);

#endif