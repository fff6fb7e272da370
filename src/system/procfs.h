/* What the running kernel says about tasks, read from /proc. */
#ifndef NPG_SYSTEM_PROCFS_H
#define NPG_SYSTEM_PROCFS_H

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
	pid_t ppid;			/* PPid: the real parent's thread-group id */
	pid_t tracer_pid;		/* TracerPid: the tracing task's id, 0 for none */
};

/* A small /proc or /sys file whole, NUL-terminated: its length, or -1 if it cannot be read. */
ssize_t npg_read_small(const char *path, char *buf, size_t len);
/* A sysctl or other one-number file: its value, or -1 when it is missing or holds no number. */
long npg_read_long(const char *path);

/* Read one task (a thread of @pid, or the leader when tid == pid). 0, or -1 if gone. */
int npg_proc_read_task(pid_t pid, pid_t tid, struct npg_proc_task *out);

/*
 * The owner of /proc/PID/task/TID/status: task_dump_owner() gives the
 * task's euid when its mm is SUID_DUMP_USER, else uid 0 of mm->user_ns
 * (the global root when unmapped), and root for a task without an mm.
 * 0, or -1 if the task is gone.
 */
int npg_proc_dump_owner(pid_t pid, pid_t tid, uint32_t *uid);

/* RLIMIT_NPROC of a process from /proc/PID/limits. 0 or -1. */
int npg_proc_read_nproc(pid_t pid, uint64_t *soft, uint64_t *hard);

/*
 * Count every task on the system (threads and zombies included) by real
 * uid, for the uids in @uids[0..n): what the kernel charges to each in the
 * initial user namespace. Tasks that vanish mid-scan are skipped.
 */
int npg_proc_count_by_ruid(const uint32_t *uids, int n, long *counts);

/*
 * Every task on the system (threads and zombies included) with its real
 * uid and, if @with_ns, the inode number of its user namespace (0 if it
 * could not be read). @fn returns 0 to go on. 0, or -1 if /proc cannot be
 * scanned.
 */
int npg_proc_for_each_ruid(bool with_ns,
			   int (*fn)(pid_t pid, pid_t tid, uint32_t ruid, uint64_t ns_ino, void *arg),
			   void *arg);
/*
 * The same, but a process @known says (a single-threaded child of the
 * caller's that cannot change its credentials: it gives @ruid and @ns_ino)
 * is passed on as @known says, its status not read.
 */
int npg_proc_for_each_ruid_known(bool with_ns,
				 bool (*known)(pid_t pid, uint32_t *ruid, uint64_t *ns_ino, void *arg),
				 int (*fn)(pid_t pid, pid_t tid, uint32_t ruid, uint64_t ns_ino,
					   void *arg),
				 void *arg);

/* The inode number of a task's user namespace (/proc/PID/task/TID/ns/user, 3.8+). 0 or -1. */
int npg_proc_task_userns(pid_t pid, pid_t tid, uint64_t *ino);

/*
 * The lines of a task's uid_map (or gid_map), at most @max of them, each
 * { first, lower, count } with lower as this process's namespace sees it:
 * how many were read, or -1 (no such file: before 3.8, or the task is gone).
 */
int npg_proc_read_idmap(pid_t pid, pid_t tid, bool gid, uint32_t (*lines)[3], int max);

/*
 * Any task with a real, effective, saved or fs uid in [lo, hi)? Returns
 * the pid of the first found, 0 if none, -1 on error.
 */
pid_t npg_proc_find_uid_in_range(uint32_t lo, uint32_t hi);

/* Kill (SIGKILL) every process with any uid in [lo, hi); returns how many. */
int npg_proc_kill_uid_range(uint32_t lo, uint32_t hi);

#endif
