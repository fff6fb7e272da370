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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/real/procfs.h"
#include "tools/procscan.h"

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

/* status: Name, State, Uid (real), Threads */
static int parse_status(const char *buf, struct npg_scan_task *t, unsigned long *threads)
{
	const char *name = strstr(buf, "Name:\t"), *state = strstr(buf, "\nState:\t");
	const char *uid = strstr(buf, "\nUid:\t");
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
	return 0;
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

static struct npg_scan_task *push(struct npg_scan *s)
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
		t = push(s);
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
		t->pid = pid;
		t->tid = (pid_t)atoi(e->d_name);
		t->nproc_soft = soft;
		t->flagged = read_at(tfd, "stat", buf, sizeof(buf)) > 0 && parse_flagged(buf);
		close(tfd);
	}
	closedir(d);
	return 0;
}

int npg_scan_tasks(struct npg_scan *s)
{
	DIR *proc = opendir("/proc");
	struct dirent *e;
	char buf[4096];

	memset(s, 0, sizeof(*s));
	if (!proc)
		return -1;
	while ((e = readdir(proc))) {
		struct npg_scan_task *t;
		unsigned long threads = 0;
		uint64_t soft;
		pid_t pid;
		int pfd;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid = (pid_t)atoi(e->d_name);
		pfd = openat(dirfd(proc), e->d_name, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (pfd < 0) {
			s->vanished++;
			continue;
		}
		soft = read_at(pfd, "limits", buf, sizeof(buf)) > 0 ? parse_nproc_soft(buf) : UINT64_MAX;
		t = push(s);
		if (!t) {
			close(pfd);
			closedir(proc);
			errno = ENOMEM;
			return -1;
		}
		if (read_at(pfd, "status", buf, sizeof(buf)) < 0 || parse_status(buf, t, &threads) < 0) {
			s->ntasks--;
			s->vanished++;
			close(pfd);
			continue;
		}
		if (threads > 1) {
			/* the leader is listed again under task/ */
			s->ntasks--;
			if (scan_threads(s, pfd, pid, soft) < 0) {
				close(pfd);
				closedir(proc);
				errno = ENOMEM;
				return -1;
			}
			close(pfd);
			continue;
		}
		t->pid = t->tid = pid;
		t->nproc_soft = soft;
		t->flagged = read_at(pfd, "stat", buf, sizeof(buf)) > 0 && parse_flagged(buf);
		close(pfd);
	}
	closedir(proc);
	return 0;
}

void npg_scan_free(struct npg_scan *s)
{
	free(s->tasks);
	memset(s, 0, sizeof(*s));
}
