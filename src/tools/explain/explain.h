/*
 * nprocguard explain: which limit refuses a task's next fork, thread or
 * execve, walked in the running kernel's order with the numbers. The
 * facts are read once (facts.c), the checks decided in copy_process()'s
 * order (checks.c: RLIMIT_NPROC asked of the model's policy for this
 * kernel), and the answer printed as text or JSON (print.c). status
 * --check and exec use the same checks. --since-boot prints the evidence
 * of refusals past (since_boot.c).
 */
#ifndef NPG_TOOLS_EXPLAIN_H
#define NPG_TOOLS_EXPLAIN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "system/tasklimits.h"

#define NPG_EXPLAIN_MAX_CGROUPS 16
#define NPG_EXPLAIN_MAX_PIDNS 8		/* pid namespace levels shown (the kernel allows 32) */
#define NPG_EXPLAIN_MAX_USERNS 8	/* user namespace levels shown (the kernel allows 32) */

enum npg_explain_op { NPG_EXPLAIN_FORK, NPG_EXPLAIN_THREAD, NPG_EXPLAIN_EXECVE };

/*
 * One level of the task's user namespace chain, as the kernel's ucounts
 * hold it (5.14+): inc_rlimit_ucounts() charges a new task to (its user
 * namespace, its uid), then to (the parent namespace, the owner of the
 * namespace below), up to the initial namespace; is_rlimit_overlimit()
 * compares each with the task's RLIMIT_NPROC at its own level and, above,
 * with the RLIMIT_NPROC its creator had when create_user_ns() made the
 * namespace below (set_userns_rlimit_max(); ns->ucount_max before 6.5).
 */
struct npg_userns_level {
	int level;		/* 0: the initial user namespace (our own) */
	unsigned long long inode;	/* of the namespace (/proc/PID/ns/user) */
	uint32_t uid;		/* the uid charged here, as the initial namespace names it */
	int64_t uid_inside;	/* the same uid as the namespace itself names it; -1 unmapped */
	uint32_t owner;		/* its creator's euid (NS_GET_OWNER_UID); level > 0 */
	long count;		/* tasks charged to (namespace, uid); -1 unknown */
	int64_t limit;		/* own level: soft RLIMIT_NPROC, -1 unlimited; above: -2
				   (captured at creation, not visible in /proc) */
};

/* One level of the task's pid namespace chain: alloc_pid() takes a pid at each. */
struct npg_pidns_level {
	int level;		/* 0: the initial pid namespace */
	unsigned long long inode;	/* of the namespace; 0 unknown */
	long pid_max;		/* kernel.pid_max there; -1 unknown; -2 unknown, but a
				   probe fork into it just failed with EAGAIN */
	long used;		/* pids in use there (tasks of it and its descendants); -1 unknown */
};

/* Everything the checks need, read once. */
struct npg_explain_facts {
	char root[512];			/* --sysroot, "" for the running system */
	char release[128];		/* uname -r (or ROOT/proc/sys/kernel/osrelease) */
	char version[256];		/* uname -v, for the point release */
	bool have_task;			/* false for --cgroup: only the cgroup is known */

	/* the task */
	pid_t pid;
	char comm[64];
	uint32_t ruid, euid;
	char user[64];
	uint64_t cap_eff;
	bool init_userns;		/* its credentials are in the initial user namespace */
	int userns_level;		/* -1: unknown */
	int nuserns;			/* levels in userns[]: 0 unread (--sysroot, or initial) */
	struct npg_userns_level userns[NPG_EXPLAIN_MAX_USERNS];	/* the task's own level first */
	long userns_unread;		/* tasks whose user namespace could not be read */
	bool flagged;			/* PF_NPROC_EXCEEDED */
	uint64_t nproc_soft, nproc_hard;	/* UINT64_MAX: unlimited */

	/* its user: what RLIMIT_NPROC is charged to (real uid) */
	long tasks, procs, threads, zombies;	/* threads: tasks that are not leaders */
	int64_t kernel_count;		/* ucounts counter from the BPF iterator; -1 unknown */
	long flagged_tasks;		/* the user's tasks carrying PF_NPROC_EXCEEDED */
	const char *count_source;	/* "bpf", "proc", or "sysroot" */

	/* the machine */
	long threads_max, nr_threads;	/* -1: unknown */
	int npidns;
	struct npg_pidns_level pidns[NPG_EXPLAIN_MAX_PIDNS];	/* the initial namespace first */
	int pidns_hidden;		/* levels between, deeper than pidns[] holds: not read */
	int ncgroups;
	struct npg_pids_cgroup cgroups[NPG_EXPLAIN_MAX_CGROUPS];	/* innermost first */
};

/* Where the facts come from. */
struct npg_explain_source {
	const char *root;		/* NULL or "": the running system */
	const char *bpf_source;		/* "auto", "bpf" or "proc" (as status --source) */
};

/* The facts about task @pid. 0, or -1 with a reason in @why (errno set). */
int npg_explain_gather(struct npg_explain_facts *f, const struct npg_explain_source *src,
		       pid_t pid, char *why, size_t whylen);
/* Only the cgroup at @cgroup (a directory or a path in the pids hierarchy) and the machine. */
int npg_explain_gather_cgroup(struct npg_explain_facts *f, const struct npg_explain_source *src,
			      const char *cgroup, char *why, size_t whylen);
/* The user's live process with the lowest soft RLIMIT_NPROC (its forks fail
 * first), its tasks read from @source as status reads them; 0 if none, -1 if
 * the tasks cannot be read. */
pid_t npg_explain_most_limited(uint32_t uid, const char *source);

/* One check, as copy_process() or do_execveat_common() meets it. */
struct npg_explain_check {
	const char *id;			/* "rlimit_nproc", "threads_max", "pid_max", "pids_cgroup",
					   "nproc_exceeded" */
	const char *kernel;		/* "copy_process(): is_rlimit_overlimit() (5.14+)" */
	char subject[600];		/* "user www (uid 1000): 512 tasks (...), RLIMIT_NPROC 512 ..." */
	char verdict[400];		/* "512 + 1 > 512: fork fails with EAGAIN", or "ok" */
	bool refuses;
	bool applies;			/* false: not checked for this op or era (stated, not counted) */
	/* rlimit_nproc: why copy_process() lets this task past the limit whatever
	 * the count (INIT_USER, CAP_SYS_RESOURCE, CAP_SYS_ADMIN), or NULL */
	const char *exempt;
	long used, limit;		/* the numbers compared; limit -1 for none */
};

#define NPG_EXPLAIN_MAX_CHECKS (8 + NPG_EXPLAIN_MAX_CGROUPS + NPG_EXPLAIN_MAX_PIDNS + \
				NPG_EXPLAIN_MAX_USERNS)

struct npg_explain {
	enum npg_explain_op op;
	const char *policy;		/* the model's policy for this kernel */
	char model[512];		/* its policy and rules (npg_config_format()) */
	/* "identify found ... where its version says ...", or "" (set by the caller) */
	char identified[1200];
	int nchecks;
	struct npg_explain_check checks[NPG_EXPLAIN_MAX_CHECKS];
	int first_refusal;		/* index into checks, -1: the operation would pass */
};

struct npg_release;
/*
 * Walk the checks in the running kernel's order for @op, by the rules of
 * @model (explain --model), or when NULL of the kernel's release as its
 * version says.
 */
void npg_explain_decide(const struct npg_explain_facts *f, const struct npg_release *model,
			enum npg_explain_op op, struct npg_explain *e);

/* "fork", "thread", "execve" <-> op; -1 if unknown */
int npg_explain_op_parse(const char *s);
const char *npg_explain_op_name(enum npg_explain_op op);

/* Text: one paragraph per check, the refusing one marked. JSON: one object. */
void npg_explain_print_text(FILE *out, const struct npg_explain_facts *f, const struct npg_explain *e);
void npg_explain_print_json(FILE *out, const struct npg_explain_facts *f, const struct npg_explain *e);

/*
 * One sentence naming the cause of a refusal of @op by task @pid now, for
 * exec's and status --check's messages: "copy_process(): ..." Returns 1
 * if a check refuses (sentence in @buf), 0 if none does, -1 if the facts
 * could not be read.
 */
int npg_explain_cause(pid_t pid, enum npg_explain_op op, char *buf, size_t len);

/*
 * --since-boot, printed on stdout: every cgroup of every pids hierarchy below
 * @root ("" the running system) whose pids.max refused forks, then (on the
 * running system) every task flagged PF_NPROC_EXCEEDED now. How many it
 * found, or -1 (reported on stderr) if they cannot be read.
 */
int npg_explain_since_boot(const char *root, const char *source);

#endif
