/*
 * explain --since-boot: the evidence of refusals past -- the pids cgroups
 * whose pids.events counts refused forks, and the tasks flagged
 * PF_NPROC_EXCEEDED now -- printed as found.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "report/report.h"
#include "system/procscan.h"
#include "system/taskiter.h"
#include "system/tasklimits.h"
#include "tools/explain/explain.h"

/*
 * --since-boot: every cgroup of every pids hierarchy with pids.events max
 * > 0, said as the counter means it on this kernel (pids_event(),
 * kernel/cgroup/pids.c): on v1 (and v2 without pids.events.local) the
 * forking task's cgroup is charged, whichever limit refused, so the
 * cgroup whose pids.max was reached is looked for up its chain.
 */
static const char *since_root;
static size_t since_top;
static int since_version, since_found;
static bool since_localevents;

static void since_culprit(const char *path)
{
	struct npg_pids_cgroup chain[NPG_EXPLAIN_MAX_CGROUPS];
	int n = npg_pids_cgroup_chain_dir(since_root, path + strlen(since_root), chain,
					  NPG_EXPLAIN_MAX_CGROUPS), limited = 0, at = -1;

	for (int i = 0; i < n; i++) {
		limited += chain[i].max >= 0;
		if (chain[i].max >= 0 && chain[i].current >= chain[i].max && at < 0)
			at = i;
	}
	if (at >= 0) {
		printf("; the pids.max at its limit now: ");
		npg_safe_fputs(chain[at].path, stdout);
		printf(" (pids.current %ld, pids.max %ld)%s\n", chain[at].current, chain[at].max,
		       at == 0 ? "" : ", an ancestor");
		return;
	}
	if (!limited) {
		printf("; no pids.max is set up its chain now (the limit that refused was raised "
		       "or removed since)\n");
		return;
	}
	printf("; none of the limits up its chain is reached now:");
	for (int i = 0; i < n; i++)
		if (chain[i].max >= 0) {
			putchar(' ');
			npg_safe_fputs(chain[i].path, stdout);
			printf(" (%ld of %ld)", chain[i].current, chain[i].max);
		}
	putchar('\n');
}

static int since_visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	struct npg_pids_cgroup c;
	char max[32];

	(void)st;
	if (type != FTW_D || ftw->level == 0)
		return 0;
	memset(&c, 0, sizeof(c));
	snprintf(c.dir, sizeof(c.dir), "%s", path);
	c.version = since_version;
	c.localevents = since_localevents;
	if (npg_pids_cgroup_read(&c) < 0 || c.refused <= 0)
		return 0;
	if (c.max < 0)
		snprintf(max, sizeof(max), "max");
	else
		snprintf(max, sizeof(max), "%ld", c.max);
	printf("cgroup ");
	npg_safe_fputs(path + since_top, stdout);
	if (c.events_scope == NPG_PIDS_EVENTS_SUBTREE) {
		/* pids_event(): pids_over_limit and its ancestors; .local: pids_over_limit */
		printf(" (pids, v%d): refused %ld fork%s by pids.max here or below (pids.events max, "
		       "hierarchical), %ld by its own (pids.events.local); pids.current %ld, pids.max "
		       "%s\n", since_version, c.refused, c.refused == 1 ? "" : "s", c.refused_local,
		       c.current, max);
	} else {
		/* pids_event(): the forking task's cgroup, whichever limit refused */
		printf(" (pids, v%d): refused %ld fork%s of tasks in this cgroup (pids.events max "
		       "counts the forking task's cgroup, whichever pids.max refused); pids.current "
		       "%ld, pids.max %s", since_version, c.refused, c.refused == 1 ? "" : "s",
		       c.current, max);
		since_culprit(path);
	}
	since_found++;
	return 0;
}

int npg_explain_since_boot(const char *root, const char *source)
{
	char mounts[8][512], dir[1100];
	int versions[8], n = npg_pids_hierarchies(root, mounts, versions, 8);
	struct npg_scan scan;

	since_root = root;
	since_found = 0;
	if (n < 0) {
		fprintf(stderr, "nprocguard explain: %s/proc/self/mountinfo: %s\n", root, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		snprintf(dir, sizeof(dir), "%.400s%.511s", root, mounts[i]);
		since_top = strlen(dir);
		since_version = versions[i];
		since_localevents = versions[i] == 2 && npg_pids_localevents(root);
		if (nftw(dir, since_visit, 16, FTW_PHYS) < 0) {
			fprintf(stderr, "nprocguard explain: %s: %s\n", dir, strerror(errno));
			return -1;
		}
	}
	if (n == 0)
		printf("no pids controller is mounted: no cgroup limit can have refused a fork\n");
	else if (!since_found)
		printf("no pids cgroup has refused a fork (pids.events max is 0 everywhere)\n");
	if (root[0])
		return since_found;
	/* the other evidence: tasks flagged now */
	memset(&scan, 0, sizeof(scan));
	if (npg_scan_running(&scan, source, false) < 0) {
		fprintf(stderr, "nprocguard explain: cannot read /proc: %s\n", strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < scan.ntasks; i++)
		if (scan.tasks[i].flagged) {
			printf("task %d (", (int)scan.tasks[i].tid);
			npg_safe_fputs(scan.tasks[i].comm, stdout);
			printf(", uid %u) has PF_NPROC_EXCEEDED: a set*uid() found its user over "
			       "RLIMIT_NPROC\n", scan.tasks[i].ruid);
			since_found++;
		}
	npg_scan_free(&scan);
	return since_found;
}
