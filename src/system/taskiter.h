/*
 * The BPF source of `nprocguard status`: every task read by a BPF task
 * iterator in one pass, either pinned in bpffs beforehand (`status --pin`)
 * or loaded for the occasion.
 */
#ifndef NPG_SYSTEM_TASKITER_H
#define NPG_SYSTEM_TASKITER_H

#include <stdbool.h>

#include "system/procscan.h"

#define NPG_TASKITER_PIN_DEFAULT "/sys/fs/bpf/nprocguard/tasks"

/* $NPROCGUARD_BPF_PIN, or the default above */
const char *npg_taskiter_pin_path(void);

/* Is an iterator pinned at @path (whether or not we may open it)? */
bool npg_taskiter_pinned(const char *path);

/*
 * Fill @s from the iterator pinned at @pin or, if none is pinned and
 * @may_load, from one loaded now. Processes the iterator did not show
 * (listed in /proc but absent, or with fewer tasks than their thread
 * count) are read from /proc and counted in ->from_proc, so the result
 * is complete even where a kernel hides tasks from BPF iterators.
 * 0, or -1 with errno and a reason in @why; -2 (with @why) if what is
 * pinned must not be read: in a directory another user controls, or not
 * our iterator.
 */
int npg_taskiter_scan(struct npg_scan *s, const char *pin, bool may_load, const char **why);

/*
 * The running system's tasks for a tool that reads what is pinned but never
 * loads an iterator itself (explain: --format prometheus, --since-boot's
 * flagged tasks, the user's most limited process): unless @source is
 * "proc", the iterator pinned at npg_taskiter_pin_path() if one is pinned;
 * else, or if reading it fails for any reason -- a pin we may not open, a
 * kernel that refuses, a pin in a directory another user controls or not
 * our iterator (npg_taskiter_scan()'s -2) -- /proc, without a word. (The
 * status tool and explain's own count of a task's user, count_live() in
 * src/tools/explain/facts.c, do not use this: they may load an iterator
 * and they refuse a pin that must not be read, loudly.) @want_limits as
 * for npg_scan_tasks_opt(); the iterator always reads the limits. @s
 * starts zeroed, as for npg_scan_tasks_opt(). 0, or -1 with errno (and @s
 * empty) if /proc cannot be read.
 */
int npg_scan_running(struct npg_scan *s, const char *source, bool want_limits);

/*
 * The same from an iterator session already open on @fd (or anything that
 * writes the same records: the unit tests use a pipe).
 */
int npg_taskiter_read(struct npg_scan *s, int fd, const char **why);

/*
 * Load the iterator and pin it at @path, replacing an older pin; under
 * /sys/fs/bpf, mount bpffs there first if none is (@mounted says so).
 * Directories are checked as src/system/bpfpin.h says. 0 or -1 with errno
 * and @why.
 */
int npg_taskiter_pin(const char *path, bool *mounted, const char **why);
/* Remove our iterator's pin at @path (and its directory if empty). 0 or -1 with errno and @why. */
int npg_taskiter_unpin(const char *path, const char **why);

#endif
