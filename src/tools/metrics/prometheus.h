/*
 * Metrics for a fleet: the node_exporter textfile-collector format
 * (HELP/TYPE lines, one sample a line), written atomically -- a temporary
 * file in the same directory, then rename() -- so the collector never
 * reads half a file. Per user: tasks, processes, zombies, the lowest soft
 * RLIMIT_NPROC, headroom, flagged tasks; per pids cgroup with a limit:
 * current, max, refusals; the machine's threads-max and pid_max.
 */
#ifndef NPG_TOOLS_METRICS_PROMETHEUS_H
#define NPG_TOOLS_METRICS_PROMETHEUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "system/procscan.h"

/*
 * Write the metrics to @path ("-": standard output) through a temporary
 * file ".NAME.XXXXXX" beside it and rename(). @root is "" or a --sysroot.
 * 0, or -1 with errno and a reason in @why.
 */
int npg_prometheus_write(const char *path, const struct npg_scan_user *users, size_t n,
			 const char *root, char *why, size_t whylen);

#endif
