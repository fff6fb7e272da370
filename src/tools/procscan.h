/* One pass over /proc: every task's real uid, state, flag and limit. */
#ifndef NPG_TOOLS_PROCSCAN_H
#define NPG_TOOLS_PROCSCAN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct npg_scan_task {
	pid_t pid, tid;
	uint32_t ruid;
	bool zombie;
	bool flagged;		/* PF_NPROC_EXCEEDED */
	uint64_t nproc_soft;	/* of its process; UINT64_MAX for unlimited */
	char comm[16];
};

struct npg_scan {
	struct npg_scan_task *tasks;
	size_t ntasks, cap;
	size_t vanished;	/* tasks that exited while being read: skipped */
};

/*
 * Read every task of the system (threads and zombies included) once.
 * Processes and threads that vanish mid-scan are skipped and counted in
 * ->vanished. Without @want_limits, /proc/PID/limits is not read and
 * nproc_soft is left unlimited. 0, or -1 with errno if /proc itself
 * cannot be read.
 */
int npg_scan_tasks_opt(struct npg_scan *s, bool want_limits);
void npg_scan_free(struct npg_scan *s);

#endif
