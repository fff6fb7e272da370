#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "system/procfs.h"
#include "system/tasklimits.h"

static int read_text(const char *path, char *buf, size_t len)
{
	return npg_read_small(path, buf, len) < 0 ? -1 : 0;
}

static int read_long(const char *path, long *v)
{
	char buf[64], *end;

	if (read_text(path, buf, sizeof(buf)) < 0)
		return -1;
	errno = 0;
	*v = strtol(buf, &end, 10);
	return errno || end == buf ? -1 : 0;
}

/* @root + @rel (rel absolute, "/proc/..."): the recorded tree's file, or the live one */
static void rooted(char *buf, size_t len, const char *root, const char *rel)
{
	snprintf(buf, len, "%s%s", root ? root : "", rel);
}

int npg_threads_read(const char *root, long *threads_max, long *nr_threads)
{
	char path[1200], buf[128];
	const char *slash;

	/* nr_threads, the kernel's count of tasks: the 4th field of /proc/loadavg ("1/104") */
	rooted(path, sizeof(path), root, "/proc/loadavg");
	if (read_text(path, buf, sizeof(buf)) < 0 || !(slash = strchr(buf, '/')))
		return -1;
	*nr_threads = strtol(slash + 1, NULL, 10);
	rooted(path, sizeof(path), root, "/proc/sys/kernel/threads-max");
	return read_long(path, threads_max);
}

int npg_pid_max_read(const char *root, long *pid_max)
{
	char path[1200];

	rooted(path, sizeof(path), root, "/proc/sys/kernel/pid_max");
	return read_long(path, pid_max);
}

/* one mount of a pids hierarchy, from a mountinfo line; 1 if it is one */
static int pids_mount(const char *root, char *line, char *point, size_t plen, char *mroot,
		      size_t rlen, int *version)
{
	char mr[512], mp[512], fstype[64], super[512];
	const char *sep = strstr(line, " - ");

	if (!sep || sscanf(line, "%*s %*s %*s %511s %511s", mr, mp) != 2 ||
	    sscanf(sep + 3, "%63s %*s %511s", fstype, super) != 2)
		return 0;
	if (strcmp(fstype, "cgroup") == 0) {
		for (char *tok = strtok(super, ","); tok; tok = strtok(NULL, ","))
			if (strcmp(tok, "pids") == 0) {
				*version = 1;
				goto found;
			}
		return 0;
	}
	if (strcmp(fstype, "cgroup2") == 0) {
		/* a v2 hierarchy counts only if it has the pids controller */
		char ctl[256], path[1200];

		snprintf(path, sizeof(path), "%s%s/cgroup.controllers", root, mp);
		if (read_text(path, ctl, sizeof(ctl)) < 0 || !strstr(ctl, "pids"))
			return 0;
		*version = 2;
		goto found;
	}
	return 0;
found:
	snprintf(point, plen, "%s", mp);
	snprintf(mroot, rlen, "%s", mr);
	return 1;
}

int npg_pids_hierarchies(const char *root, char (*mounts)[512], int *versions, int max)
{
	char line[1024], path[1200], mroot[512];
	int n = 0;
	FILE *f;

	rooted(path, sizeof(path), root, "/proc/self/mountinfo");
	if (!(f = fopen(path, "re")))
		return -1;
	while (n < max && fgets(line, sizeof(line), f))
		n += pids_mount(root ? root : "", line, mounts[n], sizeof(mounts[n]), mroot,
				sizeof(mroot), &versions[n]);
	fclose(f);
	return n;
}

/*
 * Where the pids controller of task @pid's cgroup lives: the mount point
 * of its hierarchy (v1 with the "pids" option, else v2) as our mountinfo
 * shows it, and the cgroup path below it from /proc/PID/cgroup. 0, 1 if
 * the controller is mounted nowhere, -1 if the task cannot be read.
 */
static int pids_cgroup_locate(const char *root, pid_t pid, char *mnt, size_t mlen, char *cgpath,
			      size_t clen, int *version)
{
	char line[1024], v1path[512] = "", v2path[512] = "", path[1200], mroot[512];
	bool have_v2 = false;
	FILE *f;

	snprintf(line, sizeof(line), "/proc/%d/cgroup", (int)pid);
	rooted(path, sizeof(path), root, line);
	if (!(f = fopen(path, "re")))
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		*c2 = '\0';
		c2[strcspn(c2 + 1, "\n") + 1] = '\0';
		if (strcmp(c1 + 1, "") == 0) {
			snprintf(v2path, sizeof(v2path), "%s", c2 + 1);
			have_v2 = true;
		} else
			for (char *tok = strtok(c1 + 1, ","); tok; tok = strtok(NULL, ","))
				if (strcmp(tok, "pids") == 0)
					snprintf(v1path, sizeof(v1path), "%s", c2 + 1);
	}
	fclose(f);
	rooted(path, sizeof(path), root, "/proc/self/mountinfo");
	if (!(f = fopen(path, "re")))
		return -1;
	*version = 0;
	while (fgets(line, sizeof(line), f)) {
		char point[512], mr[512];
		int v;

		if (!pids_mount(root ? root : "", line, point, sizeof(point), mr, sizeof(mr), &v))
			continue;
		/* v1 wins: a controller bound to a v1 hierarchy is absent from v2 */
		if ((v == 1 && v1path[0]) || (v == 2 && have_v2 && *version == 0)) {
			snprintf(mnt, mlen, "%s", point);
			snprintf(mroot, sizeof(mroot), "%s", mr);
			snprintf(cgpath, clen, "%s", v == 1 ? v1path : v2path);
			*version = v;
		}
	}
	fclose(f);
	if (!*version)
		return 1;
	/* a mount of a subtree (a cgroup namespace's view): paths below its root */
	if (strcmp(mroot, "/") != 0 && strncmp(cgpath, mroot, strlen(mroot)) == 0) {
		memmove(cgpath, cgpath + strlen(mroot), strlen(cgpath + strlen(mroot)) + 1);
		if (!cgpath[0])
			snprintf(cgpath, clen, "/");
	}
	return 0;
}

int npg_pids_cgroup_read(struct npg_pids_cgroup *out)
{
	char path[1200], val[256];

	snprintf(path, sizeof(path), "%s/pids.current", out->dir);
	if (read_long(path, &out->current) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/pids.max", out->dir);
	if (read_text(path, val, sizeof(val)) < 0)
		return -1;
	out->max = strncmp(val, "max", 3) == 0 ? -1 : strtol(val, NULL, 10);
	/* "max N": forks pids_can_fork() refused (pids_event()) */
	out->refused = -1;
	snprintf(path, sizeof(path), "%s/pids.events", out->dir);
	if (read_text(path, val, sizeof(val)) == 0) {
		const char *m = strstr(val, "max ");

		if (m)
			out->refused = strtol(m + 4, NULL, 10);
	}
	/* pids.events.local exists only on cgroup2 of kernels whose pids_event()
	 * charges the cgroup over its limit and its ancestors */
	out->refused_local = -1;
	snprintf(path, sizeof(path), "%s/pids.events.local", out->dir);
	if (out->version == 2 && read_text(path, val, sizeof(val)) == 0) {
		const char *m = strstr(val, "max ");

		out->refused_local = m ? strtol(m + 4, NULL, 10) : -1;
	}
	out->events_scope = out->version == 2 && out->refused_local >= 0 && !out->localevents
		? NPG_PIDS_EVENTS_SUBTREE : NPG_PIDS_EVENTS_FORKER;
	return 0;
}

bool npg_pids_localevents(const char *root)
{
	char line[1024], path[1200];
	bool found = false;
	FILE *f;

	rooted(path, sizeof(path), root, "/proc/self/mountinfo");
	if (!(f = fopen(path, "re")))
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		const char *sep = strstr(line, " - ");

		found = sep && strncmp(sep + 3, "cgroup2 ", 8) == 0 && strstr(sep, "pids_localevents");
	}
	fclose(f);
	return found;
}

/* @dir's cgroup and each ancestor below the hierarchy's root, which is
 * @top characters of @dir long */
static int chain_from(const char *dir, size_t top, int version, bool localevents,
		      struct npg_pids_cgroup *out, int max)
{
	char cur[1100];
	int n = 0;

	snprintf(cur, sizeof(cur), "%s", dir);
	while (strlen(cur) > top && cur[strlen(cur) - 1] == '/')
		cur[strlen(cur) - 1] = '\0';
	while (n < max && strlen(cur) > top) {
		struct npg_pids_cgroup *c = &out[n];

		memset(c, 0, sizeof(*c));
		snprintf(c->dir, sizeof(c->dir), "%s", cur);
		snprintf(c->path, sizeof(c->path), "%s", cur + top);
		c->version = version;
		c->localevents = localevents;
		if (npg_pids_cgroup_read(c) == 0)
			n++;
		*strrchr(cur, '/') = '\0';
	}
	return n;
}

int npg_pids_cgroup_chain(const char *root, pid_t pid, struct npg_pids_cgroup *out, int max)
{
	char mnt[512], cgpath[512], dir[1100];
	int version, rc = pids_cgroup_locate(root, pid, mnt, sizeof(mnt), cgpath, sizeof(cgpath),
					     &version);

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	snprintf(dir, sizeof(dir), "%s%s%s", root ? root : "", mnt, strcmp(cgpath, "/") ? cgpath : "");
	return chain_from(dir, strlen(root ? root : "") + strlen(mnt), version,
			  version == 2 && npg_pids_localevents(root), out, max);
}

int npg_pids_cgroup_chain_dir(const char *root, const char *cgroup, struct npg_pids_cgroup *out,
			      int max)
{
	char mounts[8][512], dir[1100];
	int versions[8], n = npg_pids_hierarchies(root, mounts, versions, 8);
	size_t rl = strlen(root ? root : "");

	for (int i = 0; i < n; i++) {
		size_t ml = strlen(mounts[i]);
		struct stat st;

		/* a directory inside this hierarchy, or a cgroup path below it */
		if (strncmp(cgroup, mounts[i], ml) == 0 && (cgroup[ml] == '/' || !cgroup[ml]))
			snprintf(dir, sizeof(dir), "%s%s", root ? root : "", cgroup);
		else
			snprintf(dir, sizeof(dir), "%s%s%s", root ? root : "", mounts[i],
				 strcmp(cgroup, "/") ? cgroup : "");
		if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
			return chain_from(dir, rl + ml, versions[i],
					  versions[i] == 2 && npg_pids_localevents(root), out, max);
	}
	errno = ENOENT;
	return -1;
}

int npg_tasklimits_read(struct npg_tasklimit *out, int max)
{
	struct npg_pids_cgroup cg[NPG_TASKLIMITS_MAX];
	long tasks, v;
	int n = 0, ncg;

	if (max < 2 || npg_threads_read("", &v, &tasks) < 0)
		return -1;
	out[n++] = (struct npg_tasklimit){ "kernel.threads-max", v, tasks };
	/* every task holds a pid; pid_max bounds them (pids below 300 are
	 * reserved once the counter wraps, alloc_pid(): RESERVED_PIDS) */
	if (npg_pid_max_read("", &v) == 0)
		out[n++] = (struct npg_tasklimit){ "kernel.pid_max", v, tasks };
	ncg = npg_pids_cgroup_chain("", getpid(), cg, NPG_TASKLIMITS_MAX);
	for (int i = 0; i < ncg && n < max; i++) {
		if (cg[i].max < 0)
			continue;
		out[n] = (struct npg_tasklimit){ "", cg[i].max, cg[i].current };
		snprintf(out[n].what, sizeof(out[n].what), "pids cgroup %.150s (pids.max)", cg[i].path);
		n++;
	}
	return n;
}
