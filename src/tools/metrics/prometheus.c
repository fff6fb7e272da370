/* The node_exporter textfile-collector writer (see prometheus.h). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "system/procscan.h"
#include "system/tasklimits.h"
#include "system/usernames.h"
#include "tools/metrics/prometheus.h"

/* A label value: backslash, double quote and newline escaped, as the format requires */
static void label(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(out, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

static void head(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void user_sample(FILE *out, const char *name, const struct npg_scan_user *u,
			const char *user, double v, bool inf)
{
	fprintf(out, "%s{uid=\"%u\",user=\"", name, u->uid);
	label(out, user);
	if (inf)
		fputs("\"} +Inf\n", out);
	else
		fprintf(out, "\"} %.0f\n", v);
}

/* The cgroups with a pids.max of their own, found by walking each pids hierarchy */
static struct {
	struct npg_pids_cgroup *list;
	size_t n, cap;
	size_t top;		/* length of the hierarchy's mount point (with the root) */
	int version;
} walk;

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	struct npg_pids_cgroup c;

	(void)st;
	if (type != FTW_D || ftw->level == 0)
		return 0;
	memset(&c, 0, sizeof(c));
	snprintf(c.dir, sizeof(c.dir), "%s", path);
	snprintf(c.path, sizeof(c.path), "%s", path + walk.top);
	c.version = walk.version;
	if (npg_pids_cgroup_read(&c) < 0 || c.max < 0)
		return 0;
	if (walk.n == walk.cap) {
		size_t cap = walk.cap ? walk.cap * 2 : 32;
		struct npg_pids_cgroup *grown = realloc(walk.list, cap * sizeof(*grown));

		if (!grown)
			return -1;
		walk.list = grown;
		walk.cap = cap;
	}
	walk.list[walk.n++] = c;
	return 0;
}

static int pids_cgroups(const char *root)
{
	char mounts[8][512], dir[1100];
	int versions[8], n = npg_pids_hierarchies(root, mounts, versions, 8);

	memset(&walk, 0, sizeof(walk));
	for (int i = 0; i < n; i++) {
		snprintf(dir, sizeof(dir), "%.400s%.511s", root, mounts[i]);
		walk.top = strlen(dir);
		walk.version = versions[i];
		if (nftw(dir, visit, 16, FTW_PHYS) < 0)
			return -1;
	}
	return 0;
}

static int write_all(FILE *out, const struct npg_scan_user *users, size_t n, const char *root)
{
	static const struct {
		const char *name, *help;
	} per_user[] = {
		{ "nprocguard_user_tasks", "Tasks charged to the user's RLIMIT_NPROC count: processes, "
		  "threads and zombies, by real uid." },
		{ "nprocguard_user_processes", "Processes (thread groups) of the user." },
		{ "nprocguard_user_zombies", "Exited, not yet reaped tasks of the user: still counted." },
		{ "nprocguard_user_nproc_limit", "Lowest soft RLIMIT_NPROC among the user's live "
		  "processes (+Inf: unlimited)." },
		{ "nprocguard_user_headroom", "nproc_limit minus tasks: forks left to the most limited "
		  "process (+Inf: unlimited or exempt)." },
		{ "nprocguard_user_flagged_tasks", "Tasks with PF_NPROC_EXCEEDED: their next execve() "
		  "fails while the user is over the limit." },
		{ "nprocguard_user_exempt", "1 if copy_process() lets every live task of the user past "
		  "RLIMIT_NPROC (root, CAP_SYS_RESOURCE or CAP_SYS_ADMIN)." },
	};
	long threads_max, nr_threads, pid_max;
	char name[64];

	for (size_t m = 0; m < sizeof(per_user) / sizeof(per_user[0]); m++) {
		head(out, per_user[m].name, "gauge", per_user[m].help);
		for (size_t i = 0; i < n; i++) {
			const struct npg_scan_user *u = &users[i];
			bool exempt = npg_scan_user_exempt(u), unlimited = u->nproc_min == UINT64_MAX;
			double v = 0;
			bool inf = false;

			npg_user_name(u->uid, name, sizeof(name));
			switch (m) {
			case 0: v = (double)u->tasks; break;
			case 1: v = (double)u->procs; break;
			case 2: v = (double)u->zombies; break;
			case 3: inf = unlimited; v = (double)u->nproc_min; break;
			case 4: inf = unlimited || exempt;
				v = (double)u->nproc_min - (double)u->tasks; break;
			case 5: v = (double)u->flagged; break;
			case 6: v = exempt; break;
			}
			user_sample(out, per_user[m].name, u, name, v, inf);
		}
	}
	if (pids_cgroups(root) < 0)
		return -1;
	head(out, "nprocguard_pids_cgroup_current", "gauge", "pids.current of a cgroup with a pids.max.");
	for (size_t i = 0; i < walk.n; i++) {
		fprintf(out, "nprocguard_pids_cgroup_current{cgroup=\"");
		label(out, walk.list[i].path);
		fprintf(out, "\",hierarchy=\"v%d\"} %ld\n", walk.list[i].version, walk.list[i].current);
	}
	head(out, "nprocguard_pids_cgroup_max", "gauge", "pids.max of the cgroup.");
	for (size_t i = 0; i < walk.n; i++) {
		fprintf(out, "nprocguard_pids_cgroup_max{cgroup=\"");
		label(out, walk.list[i].path);
		fprintf(out, "\",hierarchy=\"v%d\"} %ld\n", walk.list[i].version, walk.list[i].max);
	}
	head(out, "nprocguard_pids_cgroup_refusals_total", "counter",
	     "pids.events max of the cgroup: on v1 (and v2 without pids.events.local) forks "
	     "by tasks in this cgroup refused by its or an ancestor's pids.max; on v2 with "
	     "pids.events.local, refusals by the pids.max of this cgroup or a descendant.");
	for (size_t i = 0; i < walk.n; i++) {
		if (walk.list[i].refused < 0)
			continue;
		fprintf(out, "nprocguard_pids_cgroup_refusals_total{cgroup=\"");
		label(out, walk.list[i].path);
		fprintf(out, "\",hierarchy=\"v%d\"} %ld\n", walk.list[i].version, walk.list[i].refused);
	}
	free(walk.list);
	memset(&walk, 0, sizeof(walk));
	if (npg_threads_read(root, &threads_max, &nr_threads) == 0) {
		head(out, "nprocguard_threads_max", "gauge", "kernel.threads-max.");
		fprintf(out, "nprocguard_threads_max %ld\n", threads_max);
		head(out, "nprocguard_tasks", "gauge", "Tasks in the system (nr_threads).");
		fprintf(out, "nprocguard_tasks %ld\n", nr_threads);
	}
	if (npg_pid_max_read(root, &pid_max) == 0) {
		head(out, "nprocguard_pid_max", "gauge", "kernel.pid_max of the initial pid namespace.");
		fprintf(out, "nprocguard_pid_max %ld\n", pid_max);
	}
	return 0;
}

/* What a directory entry is, for a refusal: "a FIFO" */
static const char *file_kind(mode_t mode)
{
	return S_ISLNK(mode) ? "a symbolic link" : S_ISCHR(mode) ? "a character device" :
	       S_ISBLK(mode) ? "a block device" : S_ISFIFO(mode) ? "a FIFO" :
	       S_ISSOCK(mode) ? "a socket" : S_ISDIR(mode) ? "a directory" : "not a regular file";
}

int npg_prometheus_check_target(const char *path, char *why, size_t whylen)
{
	struct stat st;

	if (!*path) {
		snprintf(why, whylen, "'': an empty path (a file, or - for standard output)");
		return -1;
	}
	if (strcmp(path, "-") == 0)
		return 0;
	/* lstat: a symbolic link is refused, not followed to what it names */
	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "%s is %s, not a regular file: refused (the textfile "
			 "collector reads regular *.prom files; rename() would replace it)", path,
			 file_kind(st.st_mode));
		return -1;
	}
	return 0;
}

int npg_prometheus_write(const char *path, const struct npg_scan_user *users, size_t n,
			 const char *root, char *why, size_t whylen)
{
	char tmp[4200];
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	int dirlen = slash ? (int)(slash - path) : 1;
	FILE *out;
	int fd, saved;

	if (strcmp(path, "-") == 0) {
		if (write_all(stdout, users, n, root) < 0) {
			snprintf(why, whylen, "cannot read the pids cgroups");
			return -1;
		}
		return 0;
	}
	if (!*base) {
		snprintf(why, whylen, "%s: a file name is needed, not a directory", path);
		errno = EISDIR;
		return -1;
	}
	if (npg_prometheus_check_target(path, why, whylen) < 0) {
		errno = 0;	/* said in @why */
		return -1;
	}
	/* a dot name: the collector reads only *.prom, never the half-written file */
	snprintf(tmp, sizeof(tmp), "%.*s/.%s.XXXXXX", dirlen, slash ? (slash == path ? "/" : path) : ".",
		 base);
	fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(why, whylen, "cannot create a temporary file beside %s", path);
		return -1;
	}
	if (fchmod(fd, 0644) < 0 || !(out = fdopen(fd, "w"))) {
		saved = errno;
		close(fd);
		unlink(tmp);
		errno = saved;
		snprintf(why, whylen, "%s", tmp);
		return -1;
	}
	if (write_all(out, users, n, root) < 0 || fflush(out) != 0 || ferror(out) ||
	    fsync(fileno(out)) < 0) {
		saved = errno;
		fclose(out);
		unlink(tmp);
		errno = saved;
		snprintf(why, whylen, "write error on %s", tmp);
		return -1;
	}
	/* again, at the last moment: what appeared there meanwhile is not replaced either */
	if (npg_prometheus_check_target(path, why, whylen) < 0) {
		fclose(out);
		unlink(tmp);
		errno = 0;
		return -1;
	}
	if (fclose(out) != 0 || rename(tmp, path) < 0) {
		saved = errno;
		unlink(tmp);
		errno = saved;
		snprintf(why, whylen, "cannot rename %s to %s", tmp, path);
		return -1;
	}
	return 0;
}
