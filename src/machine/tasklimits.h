/*
 * The machine-wide limits a new task must pass besides RLIMIT_NPROC, as
 * copy_process() meets them: kernel.threads-max (nr_threads >= max_threads),
 * the pids of the pid namespace (alloc_pid() up to kernel.pid_max), and the
 * pids cgroup controller (cgroup_can_fork(): pids.max of the task's cgroup
 * and of every ancestor, v1 or v2). Read from /proc and /sys, for whoever
 * must know how many more tasks this machine will take.
 */
#ifndef NPG_MACHINE_TASKLIMITS_H
#define NPG_MACHINE_TASKLIMITS_H

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

#endif
