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
 * May @path be written? "-", a path where nothing is, or a regular file;
 * anything else that is there -- a device node, a FIFO, a socket, a
 * directory, a symbolic link (not followed) -- would be replaced by the
 * rename(): -1, and why in @why.
 */
int npg_prometheus_check_target(const char *path, char *why, size_t whylen);
/*
 * Write the metrics to @path ("-": standard output) through a temporary
 * file ".NAME.XXXXXX" beside it and rename(), only where
 * npg_prometheus_check_target() allows (checked before the temporary file
 * is made and again before the rename). @root is "" or a --sysroot.
 * 0, or -1 with a reason in @why and errno (0 when @why says it all).
 */
int npg_prometheus_write(const char *path, const struct npg_scan_user *users, size_t n,
			 const char *root, char *why, size_t whylen);

#endif
