#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machine/tasklimits.h"

static int read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
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

/* nr_threads, the kernel's count of tasks: the 4th field of /proc/loadavg ("1/104") */
static int read_nr_threads(long *v)
{
	char buf[128];
	const char *slash;

	if (read_text("/proc/loadavg", buf, sizeof(buf)) < 0 || !(slash = strchr(buf, '/')))
		return -1;
	*v = strtol(slash + 1, NULL, 10);
	return 0;
}

/*
 * Where the pids controller of the calling process's cgroup lives: the
 * mount point of its hierarchy (v1 with the "pids" option, else v2) and
 * the cgroup path below it, from /proc/self/mountinfo and /proc/self/cgroup.
 */
static int pids_cgroup_dir(char *dir, size_t len)
{
	char line[1024], v1path[512] = "", v2path[512] = "", mnt[512] = "";
	bool v1 = false;
	FILE *f = fopen("/proc/self/cgroup", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		*c2 = '\0';
		c2[strcspn(c2 + 1, "\n") + 1] = '\0';
		if (strcmp(c1 + 1, "") == 0)
			snprintf(v2path, sizeof(v2path), "%s", c2 + 1);
		else
			for (char *tok = strtok(c1 + 1, ","); tok; tok = strtok(NULL, ","))
				if (strcmp(tok, "pids") == 0)
					snprintf(v1path, sizeof(v1path), "%s", c2 + 1);
	}
	fclose(f);
	if (!(f = fopen("/proc/self/mountinfo", "re")))
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char root[512], point[512], fstype[64], super[512];
		const char *sep = strstr(line, " - ");

		if (!sep || sscanf(line, "%*s %*s %*s %511s %511s", root, point) != 2 ||
		    sscanf(sep + 3, "%63s %*s %511s", fstype, super) != 2)
			continue;
		if (strcmp(fstype, "cgroup") == 0 && v1path[0]) {
			char *opts = super;

			for (char *tok = strtok(opts, ","); tok; tok = strtok(NULL, ","))
				if (strcmp(tok, "pids") == 0) {
					snprintf(mnt, sizeof(mnt), "%s", point);
					v1 = true;
				}
		} else if (strcmp(fstype, "cgroup2") == 0 && !v1 && v2path[0]) {
			/* a v2 hierarchy counts only if it has the pids controller */
			char ctl[256], path[600];

			snprintf(path, sizeof(path), "%s/cgroup.controllers", point);
			if (read_text(path, ctl, sizeof(ctl)) == 0 && strstr(ctl, "pids"))
				snprintf(mnt, sizeof(mnt), "%s", point);
		}
	}
	fclose(f);
	if (!mnt[0])
		return -1;
	snprintf(dir, len, "%s%s", mnt, v1 ? v1path : v2path);
	return (int)strlen(mnt);
}

/* pids.max and pids.current of the cgroup at @dir and each ancestor up to @top */
static int read_cgroup_chain(char *dir, int top, struct npg_tasklimit *out, int n, int max)
{
	while (n < max && (int)strlen(dir) > top) {
		char path[1200], val[64];
		long cur;

		snprintf(path, sizeof(path), "%s/pids.max", dir);
		if (read_text(path, val, sizeof(val)) == 0 && strncmp(val, "max", 3) != 0) {
			snprintf(path, sizeof(path), "%s/pids.current", dir);
			if (read_long(path, &cur) == 0) {
				out[n].limit = strtol(val, NULL, 10);
				out[n].used = cur;
				snprintf(out[n].what, sizeof(out[n].what), "pids cgroup %s (pids.max)",
					 dir + top);
				n++;
			}
		}
		*strrchr(dir, '/') = '\0';
	}
	return n;
}

int npg_tasklimits_read(struct npg_tasklimit *out, int max)
{
	char dir[1100];
	long tasks, v;
	int n = 0, top;

	if (max < 2 || read_nr_threads(&tasks) < 0)
		return -1;
	if (read_long("/proc/sys/kernel/threads-max", &v) == 0)
		out[n++] = (struct npg_tasklimit){ "kernel.threads-max", v, tasks };
	/* every task holds a pid; pid_max bounds them (pids below 300 are
	 * reserved once the counter wraps, alloc_pid(): RESERVED_PIDS) */
	if (read_long("/proc/sys/kernel/pid_max", &v) == 0)
		out[n++] = (struct npg_tasklimit){ "kernel.pid_max", v, tasks };
	top = pids_cgroup_dir(dir, sizeof(dir));
	if (top > 0)
		n = read_cgroup_chain(dir, top, out, n, max);
	return n;
}
