/*
 * What run --real, conform and compare do before the real backend starts:
 * check this host can run it, then hold the uid window for the run.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/real/teardown.h"
#include "backend/real/uidlock.h"
#include "cli/cli.h"

int npg_real_preflight(struct npg_host *host)
{
	if (npg_host_probe(host) < 0) {
		fprintf(stderr, "nprocguard: cannot read this process's state from /proc: %s\n",
			strerror(errno));
		return -1;
	}
	if (!host->root) {
		fprintf(stderr, "nprocguard: the real backend needs root: it creates processes "
			"of other users and sets their credentials\n");
		return -1;
	}
	return 0;
}

int npg_real_claim_window(const char *cmd, uint32_t base, bool wait)
{
	char err[512];

	/*
	 * From the moment the window is ours, an interruption must clean up
	 * (the lock alone would pass to the next run while our processes are
	 * still there, orphaned to init): the handlers come first.
	 */
	npg_teardown_install();
	if (npg_uid_window_lock(base, wait, err, sizeof(err)) < 0) {
		fprintf(stderr, "nprocguard %s: %s\n", cmd, err);
		return -1;
	}
	return 0;
}
