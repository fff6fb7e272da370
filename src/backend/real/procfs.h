/* What the running kernel says about tasks, read from /proc. */
#ifndef NPG_REAL_PROCFS_H
#define NPG_REAL_PROCFS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* PF_NPROC_EXCEEDED (include/linux/sched.h), bit of field 9 of /proc/PID/stat */
#define NPG_PF_NPROC_EXCEEDED 0x00001000u

struct npg_proc_task {
	char state;			/* R, S, D, Z, ... from /proc/PID/task/TID/stat */
	uint32_t uid[4], gid[4];	/* real, effective, saved, fs */
	uint64_t cap_eff, cap_prm, cap_bnd, cap_inh, cap_amb;
	unsigned long flags;		/* field 9 */
	unsigned long long starttime;	/* field 22: tells a reused pid apart */
	int exit_code;			/* field 52: wait status of a zombie (3.5+) */
	bool has_exit_code;		/* field 52 is there: before 3.5 stat has 44 */
	bool no_new_privs;		/* NoNewPrivs: in status (4.10+) */
};

/* A small /proc or /sys file whole, NUL-terminated: its length, or -1 if it cannot be read. */
ssize_t npg_read_small(const char *path, char *buf, size_t len);

/* Read one task (a thread of @pid, or the leader when tid == pid). 0, or -1 if gone. */
int npg_proc_read_task(pid_t pid, pid_t tid, struct npg_proc_task *out);

/* RLIMIT_NPROC of a process from /proc/PID/limits. 0 or -1. */
int npg_proc_read_nproc(pid_t pid, uint64_t *soft, uint64_t *hard);

/*
 * Count every task on the system (threads and zombies included) by real
 * uid, for the uids in @uids[0..n): what the kernel charges to each in the
 * initial user namespace. Tasks that vanish mid-scan are skipped.
 */
int npg_proc_count_by_ruid(const uint32_t *uids, int n, long *counts);

/*
 * Any task with a real, effective, saved or fs uid in [lo, hi)? Returns
 * the pid of the first found, 0 if none, -1 on error.
 */
pid_t npg_proc_find_uid_in_range(uint32_t lo, uint32_t hi);

/* Kill (SIGKILL) every process with any uid in [lo, hi); returns how many. */
int npg_proc_kill_uid_range(uint32_t lo, uint32_t hi);

#endif
