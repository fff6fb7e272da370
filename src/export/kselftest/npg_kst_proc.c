/*
 * Reading /proc: a task's state, ids, capabilities and flags, a process's
 * RLIMIT_NPROC, and every task of the machine (threads and zombies
 * included) for the counts and the uid window.
 */
#include "npg_kst.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A small /proc file whole, NUL-terminated: its length, or -1 */
ssize_t kst_read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, total = 0;

	if (fd < 0)
		return -1;
	while ((size_t)total < len - 1 && (n = read(fd, buf + total, len - 1 - (size_t)total)) > 0)
		total += n;
	close(fd);
	buf[total] = '\0';
	return total;
}

/* "Uid:\t0\t0\t0\t0": before 3.5 printed signed (-1), later unsigned */
static void parse_ids(const char *p, uint32_t ids[4])
{
	for (int i = 0; i < 4; i++) {
		char *end;
		long long v = strtoll(p, &end, 10);

		if (end == p)
			return;
		ids[i] = (uint32_t)v;
		p = end;
	}
}

static const char *field(const char *status, const char *name)
{
	const char *p = strstr(status, name);

	return p ? p + strlen(name) : NULL;
}

/* The fields after "(comm)": comm may hold spaces and parentheses */
static int parse_stat(const char *stat, struct proc_task *t)
{
	const char *p = strrchr(stat, ')');

	if (!p || p[1] != ' ')
		return -1;
	p += 2;
	t->state = *p;
	for (int i = 3; *p && i <= 52; i++) {
		if (i == 9)
			t->flags = strtoul(p, NULL, 10);
		else if (i == 22)
			t->starttime = strtoull(p, NULL, 10);
		else if (i == 52) {
			t->exit_code = (int)strtol(p, NULL, 10);
			t->has_exit_code = true;
		}
		if (!(p = strchr(p, ' ')))
			break;
		p++;
	}
	return 0;
}

/* One task (a thread of @pid, or the leader when tid == pid): 0, or -1 if gone */
int kst_read_task(pid_t pid, pid_t tid, struct proc_task *out)
{
	char path[64], status[4096], stat[1024];
	const char *f;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	if (kst_read_small(path, stat, sizeof(stat)) <= 0 || parse_stat(stat, out) < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	if (kst_read_small(path, status, sizeof(status)) <= 0)
		return -1;
	if ((f = field(status, "\nUid:")))
		parse_ids(f, out->uid);
	if ((f = field(status, "\nGid:")))
		parse_ids(f, out->gid);
	if ((f = field(status, "\nCapPrm:")))
		out->cap_prm = strtoull(f, NULL, 16);
	if ((f = field(status, "\nCapEff:")))
		out->cap_eff = strtoull(f, NULL, 16);
	if ((f = field(status, "\nCapBnd:")))
		out->cap_bnd = strtoull(f, NULL, 16);
	if ((f = field(status, "\nNoNewPrivs:")))
		out->no_new_privs = strtoul(f, NULL, 10) != 0;
	return 0;
}

static int parse_limit(const char *s, uint64_t *v)
{
	while (*s == ' ')
		s++;
	if (strncmp(s, "unlimited", 9) == 0) {
		*v = KST_UNLIMITED;
		return 0;
	}
	if (!isdigit((unsigned char)*s))
		return -1;
	*v = strtoull(s, NULL, 10);
	return 0;
}

/* RLIMIT_NPROC of a process from /proc/PID/limits: 0 or -1 */
int kst_read_nproc(pid_t pid, uint64_t *soft, uint64_t *hard)
{
	char path[64], buf[4096];
	const char *line;

	snprintf(path, sizeof(path), "/proc/%d/limits", (int)pid);
	if (kst_read_small(path, buf, sizeof(buf)) <= 0 || !(line = strstr(buf, "Max processes")))
		return -1;
	line += strlen("Max processes");
	if (parse_limit(line, soft) < 0)
		return -1;
	while (*line == ' ')
		line++;
	while (*line && *line != ' ')
		line++;
	return parse_limit(line, hard);
}

static bool numeric(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/*
 * @fn(pid, tid, the four real/effective/saved/fs uids, arg) for every task
 * of the machine, threads and zombies included; one that vanishes midway
 * is skipped. @fn returns non-zero to stop. 0, or -1 if /proc cannot be read.
 */
int kst_for_each_task(int (*fn)(pid_t, pid_t, const uint32_t *, void *), void *arg)
{
	DIR *proc = opendir("/proc");
	struct dirent *pe;
	int rc = 0;

	if (!proc)
		return -1;
	while (rc == 0 && (pe = readdir(proc))) {
		char path[600], status[4096];
		DIR *tasks;
		struct dirent *te;

		if (!numeric(pe->d_name))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", pe->d_name);
		if (!(tasks = opendir(path)))
			continue;
		while (rc == 0 && (te = readdir(tasks))) {
			uint32_t ids[4] = { 0 };
			const char *f;

			if (!numeric(te->d_name))
				continue;
			snprintf(path, sizeof(path), "/proc/%s/task/%s/status", pe->d_name, te->d_name);
			if (kst_read_small(path, status, sizeof(status)) <= 0 ||
			    !(f = field(status, "\nUid:")))
				continue;
			parse_ids(f, ids);
			rc = fn(atoi(pe->d_name), atoi(te->d_name), ids, arg);
		}
		closedir(tasks);
	}
	closedir(proc);
	return rc < 0 ? -1 : 0;
}

struct range {
	uint32_t lo, hi;
	pid_t found;
	bool kill;
	long tasks;		/* every task seen */
};

static int range_one(pid_t pid, pid_t tid, const uint32_t *ids, void *arg)
{
	struct range *a = arg;

	(void)tid;
	a->tasks++;
	for (int i = 0; i < 4; i++) {
		if (ids[i] < a->lo || ids[i] >= a->hi)
			continue;
		if (!a->kill) {
			a->found = pid;
			return 1;
		}
		kill(pid, SIGKILL);
		break;
	}
	return 0;
}

/* The first task with any uid in [lo, hi): its pid, 0 if none, -1 on error */
pid_t kst_find_uid_in_range(uint32_t lo, uint32_t hi)
{
	struct range a = { .lo = lo, .hi = hi };

	if (kst_for_each_task(range_one, &a) < 0)
		return -1;
	return a.found;
}

void kst_kill_uid_range(uint32_t lo, uint32_t hi)
{
	struct range a = { .lo = lo, .hi = hi, .kill = true };

	kst_for_each_task(range_one, &a);
}

/* Every task of the machine, threads and zombies included; -1 if unknown */
long kst_count_all_tasks(void)
{
	struct range a = { .lo = 1, .hi = 0 };

	return kst_for_each_task(range_one, &a) < 0 ? -1 : a.tasks;
}
