/*
 * Reads each /proc/PID once: its status (real uid, state, thread count),
 * stat (flags) and limits. Per-thread files are read only for processes
 * with more than one thread, since a thread can hold other credentials
 * than its leader (raw set*id calls act on one thread).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "system/procfs.h"
#include "system/procscan.h"
#include "system/usernames.h"

static ssize_t read_at(int dirfd, const char *name, char *buf, size_t len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return n;
}

static unsigned long field_after(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);

	return p ? strtoul(p + strlen(key), NULL, 10) : 0;
}

/* status: Name, State, Uid (real), Threads, CapEff */
static int parse_status(const char *buf, struct npg_scan_task *t, unsigned long *threads)
{
	const char *name = strstr(buf, "Name:\t"), *state = strstr(buf, "\nState:\t");
	const char *uid = strstr(buf, "\nUid:\t"), *cap = strstr(buf, "\nCapEff:\t");
	size_t n;

	if (!name || !state || !uid)
		return -1;
	name += 6;
	n = strcspn(name, "\n");
	if (n >= sizeof(t->comm))
		n = sizeof(t->comm) - 1;
	memcpy(t->comm, name, n);
	t->comm[n] = '\0';
	t->zombie = state[8] == 'Z' || state[8] == 'X';
	t->ruid = (uint32_t)strtoul(uid + 6, NULL, 10);
	*threads = field_after(buf, "\nThreads:\t");
	t->exempt = t->ruid == 0 || (cap && (strtoull(cap + 9, NULL, 16) & NPG_CAPS_EXEMPT_NPROC));
	return 0;
}

/*
 * CapEff counts for copy_process() only in the initial user namespace:
 * looked at (one readlink) only for the rare non-root task that has the
 * capabilities, against status's own namespace.
 */
static bool in_own_userns(int piddir)
{
	static char mine[64];
	char theirs[64];
	ssize_t n;

	if (!mine[0]) {
		n = readlink("/proc/self/ns/user", mine, sizeof(mine) - 1);
		if (n <= 0)
			return false;
		mine[n] = '\0';
	}
	n = readlinkat(piddir, "ns/user", theirs, sizeof(theirs) - 1);
	if (n <= 0)
		return false;
	theirs[n] = '\0';
	return strcmp(mine, theirs) == 0;
}

/* stat field 9 (flags), after the parenthesised comm */
static bool parse_flagged(const char *buf)
{
	const char *p = strrchr(buf, ')');

	if (!p)
		return false;
	for (int field = 2; field < 9 && p; field++)
		p = strchr(p + 1, ' ');
	return p && (strtoul(p + 1, NULL, 10) & NPG_PF_NPROC_EXCEEDED);
}

static uint64_t parse_nproc_soft(const char *buf)
{
	const char *p = strstr(buf, "\nMax processes");

	if (!p)
		return UINT64_MAX;
	p += strlen("\nMax processes");
	while (*p == ' ')
		p++;
	return isdigit((unsigned char)*p) ? strtoull(p, NULL, 10) : UINT64_MAX;
}

int npg_scan_reserve(struct npg_scan *s, size_t n)
{
	struct npg_scan_task *grown;

	if (n <= s->cap)
		return 0;
	grown = realloc(s->tasks, n * sizeof(*grown));
	if (!grown)
		return -1;
	s->tasks = grown;
	s->cap = n;
	return 0;
}

struct npg_scan_task *npg_scan_push(struct npg_scan *s)
{
	if (s->ntasks == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		struct npg_scan_task *grown = realloc(s->tasks, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		s->tasks = grown;
		s->cap = cap;
	}
	memset(&s->tasks[s->ntasks], 0, sizeof(s->tasks[0]));
	s->tasks[s->ntasks].kernel_count = -1;	/* /proc does not show it */
	return &s->tasks[s->ntasks++];
}

/* The threads of a multi-threaded process, each with its own status and stat */
static int scan_threads(struct npg_scan *s, int piddir, pid_t pid, uint64_t soft)
{
	int taskfd = openat(piddir, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = taskfd >= 0 ? fdopendir(taskfd) : NULL;
	struct dirent *e;
	char buf[4096];

	if (!d) {
		if (taskfd >= 0)
			close(taskfd);
		s->vanished++;
		return 0;
	}
	while ((e = readdir(d))) {
		struct npg_scan_task *t;
		unsigned long threads;
		int tfd;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		tfd = openat(dirfd(d), e->d_name, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (tfd < 0) {
			s->vanished++;
			continue;
		}
		t = npg_scan_push(s);
		if (!t) {
			close(tfd);
			closedir(d);
			return -1;
		}
		if (read_at(tfd, "status", buf, sizeof(buf)) < 0 ||
		    parse_status(buf, t, &threads) < 0) {
			s->ntasks--;
			s->vanished++;
			close(tfd);
			continue;
		}
		if (t->exempt && t->ruid != 0 && !in_own_userns(piddir))
			t->exempt = false;
		t->pid = pid;
		t->tid = (pid_t)atoi(e->d_name);
		t->nproc_soft = soft;
		t->flagged = read_at(tfd, "stat", buf, sizeof(buf)) > 0 && parse_flagged(buf);
		close(tfd);
	}
	closedir(d);
	return 0;
}

/* One process: its limits, then its task(s). 0, or -1 on ENOMEM. */
static int scan_process(struct npg_scan *s, int procfd, pid_t pid, bool want_limits)
{
	struct npg_scan_task *t;
	unsigned long threads = 0;
	uint64_t soft = UINT64_MAX;
	char name[16], buf[4096];
	int pfd;

	snprintf(name, sizeof(name), "%d", (int)pid);
	pfd = openat(procfd, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0) {
		s->vanished++;
		return 0;
	}
	if (want_limits && read_at(pfd, "limits", buf, sizeof(buf)) > 0)
		soft = parse_nproc_soft(buf);
	t = npg_scan_push(s);
	if (!t) {
		close(pfd);
		return -1;
	}
	if (read_at(pfd, "status", buf, sizeof(buf)) < 0 || parse_status(buf, t, &threads) < 0) {
		s->ntasks--;
		s->vanished++;
		close(pfd);
		return 0;
	}
	if (threads > 1) {
		/* the leader is listed again under task/ */
		s->ntasks--;
		if (scan_threads(s, pfd, pid, soft) < 0) {
			close(pfd);
			return -1;
		}
		close(pfd);
		return 0;
	}
	if (t->exempt && t->ruid != 0 && !in_own_userns(pfd))
		t->exempt = false;
	t->pid = t->tid = pid;
	t->nproc_soft = soft;
	t->flagged = read_at(pfd, "stat", buf, sizeof(buf)) > 0 && parse_flagged(buf);
	close(pfd);
	return 0;
}

/*
 * The number of tasks in the system, in every pid namespace: the second
 * half of /proc/loadavg's fourth field is the kernel's nr_threads, which
 * counts exactly the tasks that are hashed by pid (copy_process() to
 * __unhash_process(), kernel/fork.c and kernel/exit.c). -1 if unreadable.
 */
long npg_system_tasks(void)
{
	char buf[128];
	int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	const char *slash;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	slash = strchr(buf, '/');
	return slash ? strtol(slash + 1, NULL, 10) : -1;
}

/*
 * Is /proc mounted with hidepid (1/noaccess or 2/invisible) and is another
 * user's process (pid 1's) hidden from us? Then a scan of /proc shows only
 * part of the system. The mount options come from /proc/self/mountinfo.
 */
bool npg_proc_hides_tasks(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	bool hidepid = false;
	int fd;

	if (!f)
		return false;
	while (!hidepid && fgets(line, sizeof(line), f)) {
		char mnt[256], *sep = strstr(line, " - proc ");

		if (!sep || sscanf(line, "%*s %*s %*s %*s %255s", mnt) != 1 || strcmp(mnt, "/proc") != 0)
			continue;
		hidepid = strstr(sep, "hidepid=") && !strstr(sep, "hidepid=0") &&
			  !strstr(sep, "hidepid=off");
	}
	fclose(f);
	if (!hidepid)
		return false;
	fd = open("/proc/1/status", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return false;
	}
	return true;
}

static int cmp_task(const void *a, const void *b)
{
	const struct npg_scan_task *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

struct worker {
	pthread_t thread;
	struct npg_scan part;
	const pid_t *pids;
	size_t npids, first, stride;
	int procfd;
	bool want_limits;
	int rc;
};

static void *work(void *arg)
{
	struct worker *w = arg;

	for (size_t i = w->first; i < w->npids && w->rc == 0; i += w->stride)
		w->rc = scan_process(&w->part, w->procfd, w->pids[i], w->want_limits);
	return NULL;
}

/* The pids listed in /proc now */
pid_t *npg_proc_pids(size_t *n)
{
	DIR *proc = opendir("/proc");
	size_t cap = 1024;
	pid_t *pids;
	struct dirent *e;

	*n = 0;
	if (!proc)
		return NULL;
	pids = malloc(cap * sizeof(*pids));
	while (pids && (e = readdir(proc))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		if (*n == cap) {
			pid_t *grown = realloc(pids, (cap *= 2) * sizeof(*pids));

			if (!grown) {
				free(pids);
				pids = NULL;
				break;
			}
			pids = grown;
		}
		pids[(*n)++] = (pid_t)atoi(e->d_name);
	}
	closedir(proc);
	if (!pids)
		errno = ENOMEM;
	return pids;
}

void npg_scan_sort(struct npg_scan *s)
{
	qsort(s->tasks, s->ntasks, sizeof(*s->tasks), cmp_task);
}

/*
 * /proc files cost tens of microseconds each here: the processes are
 * split over up to NPG_SCAN_THREADS threads, one per CPU, and the parts
 * appended to @s.
 */
#define NPG_SCAN_THREADS 8

int npg_scan_pids(struct npg_scan *s, const pid_t *pids, size_t npids, bool want_limits)
{
	int procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct worker w[NPG_SCAN_THREADS];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t nw;
	int rc = 0;

	if (procfd < 0)
		return -1;
	nw = cpus < 1 ? 1 : cpus > NPG_SCAN_THREADS ? NPG_SCAN_THREADS : (size_t)cpus;
	if (npids < 256)
		nw = 1;	/* not worth a thread */
	for (size_t i = 0; i < nw; i++) {
		w[i] = (struct worker){ .pids = pids, .npids = npids, .first = i, .stride = nw,
					.procfd = procfd, .want_limits = want_limits };
		if (i > 0 && pthread_create(&w[i].thread, NULL, work, &w[i]) != 0)
			w[i].stride = 0;	/* could not start: done below */
	}
	work(&w[0]);
	for (size_t i = 1; i < nw; i++) {
		if (w[i].stride == 0) {
			w[i].stride = nw;
			work(&w[i]);
		} else {
			pthread_join(w[i].thread, NULL);
		}
	}
	for (size_t i = 0; i < nw; i++) {
		if (w[i].rc < 0)
			rc = -1;
		for (size_t k = 0; rc == 0 && k < w[i].part.ntasks; k++) {
			struct npg_scan_task *t = npg_scan_push(s);

			if (!t) {
				rc = -1;
				break;
			}
			*t = w[i].part.tasks[k];
			if (s->names)
				npg_usernames_want(s->names, t->ruid);
		}
		s->vanished += w[i].part.vanished;
		npg_scan_free(&w[i].part);
	}
	close(procfd);
	if (rc < 0)
		errno = ENOMEM;
	return rc;
}

int npg_scan_tasks_opt(struct npg_scan *s, bool want_limits)
{
	size_t npids;
	pid_t *pids;
	int rc;

	pids = npg_proc_pids(&npids);
	if (!pids)
		return -1;
	rc = npg_scan_pids(s, pids, npids, want_limits);
	free(pids);
	if (rc == 0)
		npg_scan_sort(s);
	return rc;
}

void npg_scan_free(struct npg_scan *s)
{
	struct npg_usernames *names = s->names;

	free(s->tasks);
	memset(s, 0, sizeof(*s));
	s->names = names;
}

static int cmp_user_uid(const void *a, const void *b)
{
	const struct npg_scan_user *x = a, *y = b;

	return x->uid < y->uid ? -1 : x->uid > y->uid;
}

int npg_scan_users(const struct npg_scan *s, struct npg_scan_user **out, size_t *nrows)
{
	struct npg_scan_user *rows = NULL, *r = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	*nrows = 0;
	for (size_t i = 0; i < s->ntasks; i++) {
		const struct npg_scan_task *t = &s->tasks[i];

		/* tasks of one process mostly share a uid: try the last row first */
		if (!r || r->uid != t->ruid) {
			r = NULL;
			for (size_t k = 0; k < n && !r; k++)
				if (rows[k].uid == t->ruid)
					r = &rows[k];
		}
		if (!r) {
			if (n == cap) {
				struct npg_scan_user *grown;

				cap = cap ? cap * 2 : 64;
				grown = realloc(rows, cap * sizeof(*rows));
				if (!grown) {
					free(rows);
					errno = ENOMEM;
					return -1;
				}
				rows = grown;
			}
			r = &rows[n++];
			memset(r, 0, sizeof(*r));
			r->uid = t->ruid;
			r->nproc_min = UINT64_MAX;
			r->kernel_count = -1;
		}
		/* all tasks of one uid in the initial namespace share one counter */
		if (t->kernel_count >= 0)
			r->kernel_count = t->kernel_count;
		r->tasks++;
		r->procs += t->pid == t->tid;
		r->zombies += t->zombie;
		r->flagged += t->flagged;
		r->live += !t->zombie;
		r->live_exempt += !t->zombie && t->exempt;
		if (t->pid == t->tid && !t->zombie) {
			if (t->nproc_soft < r->nproc_min || !r->nproc_pid) {
				r->nproc_min = t->nproc_soft;
				r->nproc_pid = t->pid;
			}
			if (t->nproc_soft > r->nproc_max || r->nproc_max == 0)
				r->nproc_max = t->nproc_soft;
		}
	}
	if (n)
		qsort(rows, n, sizeof(*rows), cmp_user_uid);
	*out = rows;
	*nrows = n;
	return 0;
}

bool npg_scan_user_exempt(const struct npg_scan_user *u)
{
	return u->uid == 0 || (u->live > 0 && u->live_exempt == u->live);
}
