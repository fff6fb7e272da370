/* One pass over /proc: every task's real uid, state, flag and limit. */
#ifndef NPG_SYSTEM_PROCSCAN_H
#define NPG_SYSTEM_PROCSCAN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* CAP_SYS_ADMIN (21) and CAP_SYS_RESOURCE (24): either lets copy_process() pass RLIMIT_NPROC */
#define NPG_CAPS_EXEMPT_NPROC ((1ull << 21) | (1ull << 24))

struct npg_scan_task {
	pid_t pid, tid;
	uint32_t ruid;
	bool zombie;
	bool flagged;		/* PF_NPROC_EXCEEDED */
	uint64_t nproc_soft;	/* of its process; UINT64_MAX for unlimited */
	char comm[16];
	int64_t kernel_count;	/* the kernel's counter for its user; -1: unknown */
	long nr_threads;	/* its thread group's size as the source saw it; 0: unknown */
	pid_t parent;		/* its parent's tgid; 0: unknown */
	bool exempt;		/* copy_process() ignores RLIMIT_NPROC for its forks: root,
				   or CAP_SYS_RESOURCE/CAP_SYS_ADMIN effective in the initial
				   user namespace (/proc: status's own) */
};

struct npg_usernames;

/* One user (real uid) of a scan: what the kernel charges it and its limits */
struct npg_scan_user {
	uint32_t uid;
	long tasks, procs, zombies, flagged;
	long live, live_exempt;	/* running tasks, and those copy_process() lets past the limit */
	int64_t kernel_count;	/* the kernel's own counter (BPF source), -1: unknown */
	uint64_t nproc_min, nproc_max;	/* lowest and highest soft RLIMIT_NPROC of its live
					 * processes; UINT64_MAX: unlimited */
	pid_t nproc_pid;	/* the process with nproc_min: its forks fail first */
};

struct npg_scan {
	struct npg_scan_task *tasks;
	size_t ntasks, cap;
	size_t vanished;	/* tasks that exited while being read: skipped */
	size_t from_proc;	/* processes read from /proc by the BPF source */
	struct npg_usernames *names;	/* if set, each task's uid is queued for a name */
};

/*
 * @s starts zeroed, with ->names set or not, for every filling function.
 *
 * Read every task of the system (threads and zombies included) once.
 * Processes and threads that vanish mid-scan are skipped and counted in
 * ->vanished. Without @want_limits, /proc/PID/limits is not read and
 * nproc_soft is left unlimited. 0, or -1 with errno if /proc itself
 * cannot be read.
 */
int npg_scan_tasks_opt(struct npg_scan *s, bool want_limits);
void npg_scan_free(struct npg_scan *s);

/* The pids listed in /proc now; NULL with errno on failure. */
pid_t *npg_proc_pids(size_t *n);
/* Append the tasks of these processes, read from /proc, to @s (unsorted). */
int npg_scan_pids(struct npg_scan *s, const pid_t *pids, size_t npids, bool want_limits);
/* Room for @n tasks in all; -1 on ENOMEM. */
int npg_scan_reserve(struct npg_scan *s, size_t n);
/* A zeroed task at the end of @s; NULL on ENOMEM. */
struct npg_scan_task *npg_scan_push(struct npg_scan *s);
/* By pid, then tid. */
void npg_scan_sort(struct npg_scan *s);

/*
 * The number of tasks in the system, in every pid namespace: the second
 * half of /proc/loadavg's fourth field (the kernel's nr_threads). -1 if
 * unreadable.
 */
long npg_system_tasks(void);
/* /proc is mounted with hidepid and hides other users' processes from us. */
bool npg_proc_hides_tasks(void);

/*
 * One row per real uid of @s, sorted by uid, in *@out (free() it; NULL when
 * there is none). 0, or -1 with errno ENOMEM.
 */
int npg_scan_users(const struct npg_scan *s, struct npg_scan_user **out, size_t *n);

/* copy_process() lets every live task of @u past the limit: root's ucounts,
 * or every live task holds CAP_SYS_RESOURCE or CAP_SYS_ADMIN */
bool npg_scan_user_exempt(const struct npg_scan_user *u);

#endif
