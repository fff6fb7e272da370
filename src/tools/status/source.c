/*
 * Where status reads the system's tasks from: the BPF task iterator
 * (pinned, or loaded for the run) or /proc.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "system/taskiter.h"
#include "tools/status/status.h"

/*
 * auto: the pinned iterator if there is one we may read; as root, one
 * loaded for the occasion; else /proc. (A pin spares the load: --help and
 * the man page say so, not every run.) Something pinned that is not
 * ours, or in a directory another user controls, is an error in every
 * mode: falling back to /proc would hide the tampering.
 */
int npg_status_scan(struct npg_scan *scan, const char *source, bool want_limits, bool *partial)
{
	const char *pin = npg_taskiter_pin_path(), *why = NULL;
	bool debug = getenv("NPROCGUARD_DEBUG") != NULL;
	int rc;

	/* as root with no pin, loading the iterator (~80 ms) still beats /proc on a busy machine */
	bool may_load = strcmp(source, "bpf") == 0 || (strcmp(source, "auto") == 0 && geteuid() == 0);

	if (strcmp(source, "proc") != 0 && (may_load || npg_taskiter_pinned(pin))) {
		rc = npg_taskiter_scan(scan, pin, may_load, &why);
		if (rc == 0) {
			if (debug)
				fprintf(stderr, "nprocguard status: %zu tasks from the BPF iterator%s, "
					"%zu processes it did not show read from /proc\n",
					scan->ntasks, npg_taskiter_pinned(pin) ? " (pinned)" : "",
					scan->from_proc);
			return 0;
		}
		if (rc == -2 || strcmp(source, "bpf") == 0) {
			fprintf(stderr, "nprocguard status: %s: %s\n", pin, why);
			return -1;
		}
		/* a pin root keeps to itself is no news to other users, nor is a
		   kernel where root cannot load the iterator */
		if (debug || (npg_taskiter_pinned(pin) && errno != EACCES && errno != EPERM))
			fprintf(stderr, "nprocguard status: %s: %s; reading /proc instead\n", why,
				strerror(errno));
	}
	if (npg_scan_tasks_opt(scan, want_limits) < 0) {
		fprintf(stderr, "nprocguard status: cannot read /proc: %s\n", strerror(errno));
		return -1;
	}
	/* a silent partial answer would read as "all is well" */
	if (npg_proc_hides_tasks()) {
		*partial = true;
		fprintf(stderr, "nprocguard status: /proc is mounted with hidepid and hides other "
			"users' processes: this view has %zu of the system's %ld tasks "
			"(/proc/loadavg); the figures are partial\n", scan->ntasks, npg_system_tasks());
	}
	if (debug)
		fprintf(stderr, "nprocguard status: %zu tasks from /proc\n", scan->ntasks);
	return 0;
}
