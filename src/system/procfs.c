#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "system/procfs.h"

/* Read a small /proc file whole; -1 if it is gone. */
ssize_t npg_read_small(const char *path, char *buf, size_t len)
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

long npg_read_long(const char *path)
{
	char buf[64], *end;
	long v;

	if (npg_read_small(path, buf, sizeof(buf)) <= 0)
		return -1;
	v = strtol(buf, &end, 10);
	return end == buf ? -1 : v;
}

/*
 * "Uid:\t0\t0\t0\t0". Kernels before 3.5 print the ids signed (-1 for
 * 4294967295), later ones unsigned: take either as the 32-bit id.
 */
static void parse_ids(const char *line, uint32_t ids[4])
{
	const char *p = line;

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
static int parse_stat(const char *stat, struct npg_proc_task *t)
{
	const char *p = strrchr(stat, ')');
	int i = 3;

	if (!p || p[1] != ' ')
		return -1;
	p += 2;
	t->state = *p;
	for (; *p && i <= 52; i++) {
		if (i == 9)
			t->flags = strtoul(p, NULL, 10);
		else if (i == 22)
			t->starttime = strtoull(p, NULL, 10);
		else if (i == 52) {
			t->exit_code = (int)strtol(p, NULL, 10);
			t->has_exit_code = true;
		}
		p = strchr(p, ' ');
		if (!p)
			break;
		p++;
	}
	return 0;
}

int npg_proc_read_task(pid_t pid, pid_t tid, struct npg_proc_task *out)
{
	char path[64], status[4096], stat[1024];
	const char *f;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	if (npg_read_small(path, stat, sizeof(stat)) <= 0 || parse_stat(stat, out) < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	if (npg_read_small(path, status, sizeof(status)) <= 0)
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
	if ((f = field(status, "\nCapInh:")))
		out->cap_inh = strtoull(f, NULL, 16);
	if ((f = field(status, "\nCapAmb:")))	/* 4.3+ */
		out->cap_amb = strtoull(f, NULL, 16);
	if ((f = field(status, "\nNoNewPrivs:")))	/* 4.10+ */
		out->no_new_privs = strtoul(f, NULL, 10) != 0;
	if ((f = field(status, "\nPPid:")))
		out->ppid = (pid_t)strtol(f, NULL, 10);
	if ((f = field(status, "\nTracerPid:")))
		out->tracer_pid = (pid_t)strtol(f, NULL, 10);
	return 0;
}

int npg_proc_dump_owner(pid_t pid, pid_t tid, uint32_t *uid)
{
	char path[64];
	struct stat st;

	/* not /proc/PID itself: a world-readable directory keeps the euid */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	if (stat(path, &st) < 0)
		return -1;
	*uid = (uint32_t)st.st_uid;
	return 0;
}

static int parse_limit(const char *s, uint64_t *v)
{
	while (*s == ' ')
		s++;
	if (strncmp(s, "unlimited", 9) == 0) {
		*v = UINT64_MAX;
		return 0;
	}
	if (!isdigit((unsigned char)*s))
		return -1;
	*v = strtoull(s, NULL, 10);
	return 0;
}

int npg_proc_read_nproc(pid_t pid, uint64_t *soft, uint64_t *hard)
{
	char path[64], buf[4096];
	const char *line;

	snprintf(path, sizeof(path), "/proc/%d/limits", (int)pid);
	if (npg_read_small(path, buf, sizeof(buf)) <= 0)
		return -1;
	line = strstr(buf, "Max processes");
	if (!line)
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
 * The status of tasks without memory (kernel threads; zombies, exiting
 * tasks), whose credentials no longer change: read once, then known by
 * their /proc/PID inode, which belongs to one task (a pid used again is
 * another inode, proc_pid_lookup()), so that a scan reads only what can
 * change. A guest has a hundred kernel threads for a handful of the
 * run's tasks, each status read costing ~60 us under TCG
 * (bench/README.md, conform-kernel). fs/proc/array.c: "VmSize:" is
 * printed only for a task with an mm.
 */
#define STILL_MAX 4096
struct still {
	pid_t pid;
	ino_t ino;
	char *status;
};
static struct still still[STILL_MAX];
static pthread_mutex_t still_lock = PTHREAD_MUTEX_INITIALIZER;

static struct still *still_slot(pid_t pid)
{
	return &still[(unsigned)pid % STILL_MAX];
}

/*
 * Process @name's status into @status, or (*cached) the one known for
 * its inode. Single-threaded processes only (@threads 1 after the read).
 * 0, or -1 when it is gone.
 */
static int process_status(const char *name, char *status, size_t len, bool *cached)
{
	char path[600];
	struct stat st;
	struct still *s;
	pid_t pid = atoi(name);

	*cached = false;
	snprintf(path, sizeof(path), "/proc/%s", name);
	if (stat(path, &st) < 0)
		return -1;
	pthread_mutex_lock(&still_lock);
	s = still_slot(pid);
	if (s->status && s->pid == pid && s->ino == st.st_ino) {
		snprintf(status, len, "%s", s->status);
		*cached = true;
	}
	pthread_mutex_unlock(&still_lock);
	if (*cached)
		return 0;
	snprintf(path, sizeof(path), "/proc/%s/status", name);
	return npg_read_small(path, status, len) <= 0 ? -1 : 0;
}

static void remember_still(const char *name, const char *status)
{
	char path[600];
	struct stat st;
	struct still *s;
	pid_t pid = atoi(name);
	char *copy;

	if (strstr(status, "\nVmSize:"))
		return;		/* its credentials may change */
	snprintf(path, sizeof(path), "/proc/%s", name);
	if (stat(path, &st) < 0 || !(copy = strdup(status)))
		return;
	pthread_mutex_lock(&still_lock);
	s = still_slot(pid);
	free(s->status);
	*s = (struct still){ pid, st.st_ino, copy };
	pthread_mutex_unlock(&still_lock);
}

/*
 * Calls @fn(pid, tid, status text, arg) for every task; vanished tasks are
 * skipped. A process whose status says "Threads:\t1" (get_nr_threads(),
 * since 2.6.0) is its leader alone: its task directory is not walked.
 */
static int for_each_task(int (*fn)(pid_t, pid_t, const char *, void *),
			 int (*known)(pid_t, void *), void *arg)
{
	DIR *proc = opendir("/proc");
	struct dirent *pe;
	int rc = 0;

	if (!proc)
		return -1;
	while (rc == 0 && (pe = readdir(proc))) {
		char path[600], status[4096];
		const char *threads;
		DIR *tasks;
		struct dirent *te;
		bool cached;

		if (!numeric(pe->d_name))
			continue;
		/* the caller's own, whose credentials it knows: -1 stops, 1 done */
		if (known && (rc = known(atoi(pe->d_name), arg)) != 0) {
			rc = rc < 0 ? -1 : 0;
			continue;
		}
		if (process_status(pe->d_name, status, sizeof(status), &cached) < 0)
			continue;	/* exited since readdir */
		threads = field(status, "\nThreads:");
		if (threads && strtol(threads, NULL, 10) == 1) {
			if (!cached)
				remember_still(pe->d_name, status);
			rc = fn(atoi(pe->d_name), atoi(pe->d_name), status, arg);
			continue;
		}
		snprintf(path, sizeof(path), "/proc/%s/task", pe->d_name);
		tasks = opendir(path);
		if (!tasks)
			continue;
		while (rc == 0 && (te = readdir(tasks))) {
			if (!numeric(te->d_name))
				continue;
			snprintf(path, sizeof(path), "/proc/%s/task/%s/status", pe->d_name, te->d_name);
			if (npg_read_small(path, status, sizeof(status)) <= 0)
				continue;
			rc = fn(atoi(pe->d_name), atoi(te->d_name), status, arg);
		}
		closedir(tasks);
	}
	closedir(proc);
	return rc < 0 ? -1 : 0;
}

/*
 * The user namespace a task is in, by the inode number of its
 * /proc/PID/task/TID/ns/user (3.8+): the controller holds each namespace
 * it watches open, so that a number cannot be given to a new one.
 */
int npg_proc_task_userns(pid_t pid, pid_t tid, uint64_t *ino)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/ns/user", (int)pid, (int)tid);
	if (stat(path, &st) < 0)
		return -1;
	*ino = (uint64_t)st.st_ino;
	return 0;
}

struct ruid_arg {
	bool with_ns;
	int (*fn)(pid_t pid, pid_t tid, uint32_t ruid, uint64_t ns_ino, void *arg);
	void *arg;
	bool (*known)(pid_t pid, uint32_t *ruid, uint64_t *ns_ino, void *arg);
};

/* for_each_task()'s @known: 1 when @a->known knew @pid (passed on), -1 stop, 0 read it */
static int ruid_known(pid_t pid, void *arg)
{
	struct ruid_arg *a = arg;
	uint32_t ruid;
	uint64_t ino = 0;

	if (!a->known(pid, &ruid, &ino, a->arg))
		return 0;
	return a->fn(pid, pid, ruid, a->with_ns ? ino : 0, a->arg) < 0 ? -1 : 1;
}

static int ruid_one(pid_t pid, pid_t tid, const char *status, void *arg)
{
	struct ruid_arg *a = arg;
	const char *f = field(status, "\nUid:");
	uint32_t ids[4] = { 0 };
	uint64_t ino = 0;

	if (!f)
		return 0;
	parse_ids(f, ids);
	if (a->with_ns && npg_proc_task_userns(pid, tid, &ino) < 0)
		ino = 0;
	return a->fn(pid, tid, ids[0], ino, a->arg);
}

int npg_proc_for_each_ruid(bool with_ns,
			   int (*fn)(pid_t pid, pid_t tid, uint32_t ruid, uint64_t ns_ino, void *arg),
			   void *arg)
{
	struct ruid_arg a = { with_ns, fn, arg, NULL };

	return for_each_task(ruid_one, NULL, &a);
}

int npg_proc_for_each_ruid_known(bool with_ns,
				 bool (*known)(pid_t pid, uint32_t *ruid, uint64_t *ns_ino, void *arg),
				 int (*fn)(pid_t pid, pid_t tid, uint32_t ruid, uint64_t ns_ino,
					   void *arg),
				 void *arg)
{
	struct ruid_arg a = { with_ns, fn, arg, known };

	return for_each_task(ruid_one, ruid_known, &a);
}

struct count_arg {
	const uint32_t *uids;
	int n;
	long *counts;
};

static int count_one(pid_t pid, pid_t tid, uint32_t ruid, uint64_t ns_ino, void *arg)
{
	struct count_arg *a = arg;

	(void)pid, (void)tid, (void)ns_ino;
	for (int i = 0; i < a->n; i++)
		if (a->uids[i] == ruid)
			a->counts[i]++;
	return 0;
}

int npg_proc_count_by_ruid(const uint32_t *uids, int n, long *counts)
{
	struct count_arg a = { uids, n, counts };

	for (int i = 0; i < n; i++)
		counts[i] = 0;
	return npg_proc_for_each_ruid(false, count_one, &a);
}

/*
 * /proc/PID/task/TID/uid_map (gid_map): "first lower count" lines, the
 * lower ids as the reader's namespace sees them (uid_map_show()): kernel
 * ids for a reader in the initial namespace.
 */
int npg_proc_read_idmap(pid_t pid, pid_t tid, bool gid, uint32_t (*lines)[3], int max)
{
	char path[80], buf[4096];
	const char *p = buf;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)pid, (int)tid,
		 gid ? "gid_map" : "uid_map");
	if (npg_read_small(path, buf, sizeof(buf)) < 0)
		return -1;
	while (n < max) {
		char *end;
		unsigned long long v[3];
		int k;

		for (k = 0; k < 3; k++) {
			v[k] = strtoull(p, &end, 10);
			if (end == p)
				break;
			p = end;
		}
		if (k < 3)
			break;
		for (k = 0; k < 3; k++)
			lines[n][k] = (uint32_t)v[k];
		n++;
	}
	return n;
}

struct range_arg {
	uint32_t lo, hi;
	pid_t found;
	bool kill;
	int killed;
};

static int range_one(pid_t pid, pid_t tid, const char *status, void *arg)
{
	struct range_arg *a = arg;
	const char *f = field(status, "\nUid:");
	uint32_t ids[4] = { 0 };

	(void)tid;
	if (!f)
		return 0;
	parse_ids(f, ids);
	for (int i = 0; i < 4; i++) {
		if (ids[i] < a->lo || ids[i] >= a->hi)
			continue;
		if (!a->kill) {
			a->found = pid;
			return 1;
		}
		if (kill(pid, SIGKILL) == 0)
			a->killed++;
		break;
	}
	return 0;
}

pid_t npg_proc_find_uid_in_range(uint32_t lo, uint32_t hi)
{
	struct range_arg a = { .lo = lo, .hi = hi };

	if (for_each_task(range_one, NULL, &a) < 0)
		return -1;
	return a.found;
}

int npg_proc_kill_uid_range(uint32_t lo, uint32_t hi)
{
	struct range_arg a = { .lo = lo, .hi = hi, .kill = true };

	for_each_task(range_one, NULL, &a);
	return a.killed;
}
