/*
 * The machine-wide limits a new task must pass besides RLIMIT_NPROC, as
 * copy_process() meets them: kernel.threads-max (nr_threads >= max_threads),
 * the pids of the pid namespace (alloc_pid() up to kernel.pid_max), and the
 * pids cgroup controller (cgroup_can_fork(): pids.max of the task's cgroup
 * and of every ancestor, v1 or v2). Read from /proc and /sys, for whoever
 * must know how many more tasks this machine will take.
 */
#ifndef NPG_SYSTEM_TASKLIMITS_H
#define NPG_SYSTEM_TASKLIMITS_H

#include <stdbool.h>
#include <sys/types.h>

#define NPG_TASKLIMITS_MAX 32

struct npg_tasklimit {
	char what[200];		/* "kernel.threads-max", "cgroup /a/b (pids.max)" */
	long limit;		/* the most tasks allowed */
	long used;		/* tasks counted against it now */
};

/*
 * The limits that bind the calling process's next forks, in the order
 * copy_process() checks them. Returns how many were read (limits that do
 * not exist here, such as an unlimited pids.max, are left out), or -1.
 */
int npg_tasklimits_read(struct npg_tasklimit *out, int max);

/*
 * The same limits one by one, for any task and from any tree: @root is ""
 * for the running system, or a directory holding a recorded proc/ and
 * sys/ (`explain --sysroot`), every path read relative to it.
 */

/* One cgroup of the pids controller, as pids_can_fork() meets it. */
struct npg_pids_cgroup {
	char path[512];		/* as /proc/PID/cgroup names it: "/user.slice/..." */
	char dir[1100];		/* where its files are: ROOT/MOUNTPOINT/PATH */
	int version;		/* 1: the v1 "pids" hierarchy; 2: cgroup2 */
	long current;		/* pids.current */
	long max;		/* pids.max; -1 for "max" (no limit of its own) */
	long refused;		/* pids.events "max"; -1 if unreadable; what it counts: */
	int events_scope;	/* NPG_PIDS_EVENTS_FORKER or NPG_PIDS_EVENTS_SUBTREE */
	long refused_local;	/* pids.events.local "max" (v2, on kernels that have it):
				   refusals by this cgroup's own pids.max; -1 absent */
	bool localevents;	/* set by the caller: cgroup2 mounted with pids_localevents */
};

/*
 * What pids.events "max" counts (kernel/cgroup/pids.c, pids_can_fork() ->
 * pids_event()). FORKER: forks by tasks in this cgroup, refused by its own
 * pids.max or an ancestor's -- the forking task's cgroup is charged (v1 on
 * every kernel with pids.events, 4.8+; v2 before pids.events.local came,
 * and v2 mounted with pids_localevents). SUBTREE: refusals by the pids.max
 * of this cgroup or of a descendant (v2 with pids.events.local:
 * pids_event() counts pids_over_limit and its ancestors; .local counts
 * only pids_over_limit itself).
 */
#define NPG_PIDS_EVENTS_FORKER 0
#define NPG_PIDS_EVENTS_SUBTREE 1

/* cgroup2 below @root is mounted with pids_localevents (its mountinfo super options). */
bool npg_pids_localevents(const char *root);

/*
 * The pids cgroup of task @pid and each ancestor below the root,
 * innermost first: cgroup_can_fork() -> pids_can_fork() charges every one
 * (pids_try_charge() walks parent_pids()). Returns how many, 0 if the pids
 * controller is mounted nowhere, -1 with errno if the task's files cannot
 * be read.
 */
int npg_pids_cgroup_chain(const char *root, pid_t pid, struct npg_pids_cgroup *out, int max);

/* The same from a cgroup directory (ROOT/MOUNTPOINT/PATH, or PATH in the
 * pids hierarchy) instead of a task's. -1 with errno ENOENT if none. */
int npg_pids_cgroup_chain_dir(const char *root, const char *cgroup, struct npg_pids_cgroup *out,
			      int max);

/* Where the pids controller is mounted: v1 "pids" hierarchies and cgroup2
 * with pids enabled, from ROOT/proc/self/mountinfo. Returns how many. */
int npg_pids_hierarchies(const char *root, char (*mounts)[512], int *versions, int max);

/* Read one cgroup directory's pids files into @out (dir, version, path set by the caller). */
int npg_pids_cgroup_read(struct npg_pids_cgroup *out);

/* kernel.threads-max and nr_threads (the 4th field of /proc/loadavg). 0 or -1. */
int npg_threads_read(const char *root, long *threads_max, long *nr_threads);

/* kernel.pid_max as the reader's pid namespace sees it (per namespace since 6.14). 0 or -1. */
int npg_pid_max_read(const char *root, long *pid_max);

#endif
