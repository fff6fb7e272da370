/*
 * The facts explain decides on, read once: the task (its ids, capabilities,
 * flag and RLIMIT_NPROC), its user's task count, and the machine's limits
 * through src/system/tasklimits.c. Every path is read below f->root, so a
 * recorded tree (`--sysroot`) drives the same code as the running system.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/nsfs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "system/procfs.h"
#include "system/procscan.h"
#include "system/taskiter.h"
#include "system/usernames.h"
#include "tools/explain/explain.h"

static int read_rooted(const char *root, const char *rel, char *buf, size_t len)
{
	char path[1200];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	return npg_read_small(path, buf, len) < 0 ? -1 : 0;
}

static int link_rooted(const char *root, const char *rel, char *buf, size_t len)
{
	char path[1200];
	ssize_t n;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	n = readlink(path, buf, len - 1);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

static const char *after(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);

	return p ? p + strlen(key) : NULL;
}

/* "Max processes  512  1024  processes": soft and hard, "unlimited" as UINT64_MAX */
static void parse_limits(const char *buf, uint64_t *soft, uint64_t *hard)
{
	const char *p = after(buf, "Max processes");
	char *end;

	*soft = *hard = UINT64_MAX;
	if (!p)
		return;
	while (*p == ' ')
		p++;
	if (strncmp(p, "unlimited", 9) != 0)
		*soft = strtoull(p, &end, 10), p = end;
	else
		p += 9;
	while (*p == ' ')
		p++;
	if (strncmp(p, "unlimited", 9) != 0)
		*hard = strtoull(p, NULL, 10);
}

/* stat field 9, after the parenthesised comm (which may hold spaces and parentheses) */
static unsigned long stat_flags(const char *buf, char *state)
{
	const char *p = strrchr(buf, ')');

	if (!p || p[1] != ' ')
		return 0;
	*state = p[2];
	for (int field = 2; field < 9 && p; field++)
		p = strchr(p + 1, ' ');
	return p ? strtoul(p + 1, NULL, 10) : 0;
}

/* The task itself: status, stat, limits, its user namespace. */
static int read_task(struct npg_explain_facts *f, char *why, size_t whylen)
{
	char rel[128], buf[8192], mine[64], theirs[64];
	const char *p;
	char state = '?';
	size_t n;

	snprintf(rel, sizeof(rel), "/proc/%d/status", (int)f->pid);
	if (read_rooted(f->root, rel, buf, sizeof(buf)) < 0) {
		snprintf(why, whylen, "no process %d (%s%s): %s", (int)f->pid, f->root, rel,
			 strerror(errno));
		return -1;
	}
	if (!(p = after(buf, "Name:\t")) || !after(buf, "\nUid:\t")) {
		snprintf(why, whylen, "%s%s: no Name or Uid line", f->root, rel);
		errno = EINVAL;
		return -1;
	}
	n = strcspn(p, "\n");
	snprintf(f->comm, sizeof(f->comm), "%.*s", (int)(n < 15 ? n : 15), p);
	p = after(buf, "\nUid:\t");
	f->ruid = (uint32_t)strtoul(p, (char **)&p, 10);
	f->euid = (uint32_t)strtoul(p, NULL, 10);
	f->cap_eff = (p = after(buf, "\nCapEff:\t")) ? strtoull(p, NULL, 16) : 0;

	snprintf(rel, sizeof(rel), "/proc/%d/stat", (int)f->pid);
	if (read_rooted(f->root, rel, buf, sizeof(buf)) == 0)
		f->flagged = stat_flags(buf, &state) & NPG_PF_NPROC_EXCEEDED;
	snprintf(rel, sizeof(rel), "/proc/%d/limits", (int)f->pid);
	if (read_rooted(f->root, rel, buf, sizeof(buf)) < 0) {
		snprintf(why, whylen, "%s%s: %s", f->root, rel, strerror(errno));
		return -1;
	}
	parse_limits(buf, &f->nproc_soft, &f->nproc_hard);

	/* capable() asks the initial user namespace: CapEff counts only there */
	snprintf(rel, sizeof(rel), "/proc/%d/ns/user", (int)f->pid);
	f->init_userns = link_rooted(f->root, "/proc/self/ns/user", mine, sizeof(mine)) < 0 ||
			 link_rooted(f->root, rel, theirs, sizeof(theirs)) < 0 ||
			 strcmp(mine, theirs) == 0;
	f->userns_level = f->init_userns ? 0 : -1;
	npg_user_name(f->ruid, f->user, sizeof(f->user));
	return 0;
}

static void count_task(struct npg_explain_facts *f, bool leader, bool zombie, bool flagged)
{
	f->tasks++;
	f->procs += leader;
	f->threads += !leader;
	f->zombies += zombie;
	f->flagged_tasks += flagged;
}

/* A recorded tree: every ROOT/proc/PID/task/TID with the user's real uid. */
static int count_sysroot(struct npg_explain_facts *f)
{
	char path[1200], rel[160], buf[4096];
	struct dirent *d, *t;
	DIR *proc, *tasks;

	snprintf(path, sizeof(path), "%s/proc", f->root);
	if (!(proc = opendir(path)))
		return -1;
	while ((d = readdir(proc))) {
		int pid = atoi(d->d_name);

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "%s/proc/%d/task", f->root, pid);
		if (!(tasks = opendir(path)))
			continue;
		while ((t = readdir(tasks))) {
			int tid = atoi(t->d_name);
			const char *uid;
			char state = '?';
			unsigned long flags;

			if (tid <= 0)
				continue;
			snprintf(rel, sizeof(rel), "/proc/%d/task/%d/status", pid, tid);
			if (read_rooted(f->root, rel, buf, sizeof(buf)) < 0 ||
			    !(uid = after(buf, "\nUid:\t")) || strtoul(uid, NULL, 10) != f->ruid)
				continue;
			snprintf(rel, sizeof(rel), "/proc/%d/task/%d/stat", pid, tid);
			if (read_rooted(f->root, rel, buf, sizeof(buf)) < 0)
				continue;
			flags = stat_flags(buf, &state);
			count_task(f, pid == tid, state == 'Z' || state == 'X',
				   flags & NPG_PF_NPROC_EXCEEDED);
		}
		closedir(tasks);
	}
	closedir(proc);
	return 0;
}

/* The running system: the pinned BPF iterator if there is one, else /proc. */
static int count_live(struct npg_explain_facts *f, const char *source, char *why, size_t whylen)
{
	struct npg_scan scan;
	const char *pin = npg_taskiter_pin_path(), *reason = NULL;
	int rc = -1;

	memset(&scan, 0, sizeof(scan));
	if (strcmp(source, "proc") != 0 && (strcmp(source, "bpf") == 0 || npg_taskiter_pinned(pin))) {
		rc = npg_taskiter_scan(&scan, pin, strcmp(source, "bpf") == 0 && geteuid() == 0, &reason);
		if (rc == 0)
			f->count_source = "bpf";
		else if (rc == -2 || strcmp(source, "bpf") == 0) {
			snprintf(why, whylen, "%s: %s", pin, reason ? reason : strerror(errno));
			return -1;
		}
	}
	if (rc != 0) {
		if (npg_scan_tasks_opt(&scan, false) < 0) {
			snprintf(why, whylen, "cannot read /proc: %s", strerror(errno));
			return -1;
		}
		f->count_source = "proc";
	}
	for (size_t i = 0; i < scan.ntasks; i++) {
		const struct npg_scan_task *t = &scan.tasks[i];

		if (t->ruid != f->ruid)
			continue;
		count_task(f, t->pid == t->tid, t->zombie, t->flagged);
		if (t->kernel_count >= 0 && t->pid == f->pid)
			f->kernel_count = t->kernel_count;
	}
	npg_scan_free(&scan);
	return 0;
}

/*
 * Namespaces met while walking, each with its parent: NS_GET_PARENT
 * (nsfs, 4.9+) on a /proc/PID/ns/ file answers the parent namespace, and
 * EPERM at the top we may see (the initial namespace, from it).
 */
struct ns_node {
	unsigned long long ino, parent;	/* parent 0: the top */
	uint32_t owner;			/* user namespaces: NS_GET_OWNER_UID */
};

struct ns_map {
	struct ns_node *n;
	int len, cap;
};

static struct ns_node *ns_find(const struct ns_map *m, unsigned long long ino)
{
	for (int i = 0; i < m->len; i++)
		if (m->n[i].ino == ino)
			return &m->n[i];
	return NULL;
}

/* The namespace of @fd (closed here) and its ancestors, entered into @m. */
static struct ns_node *ns_walk(struct ns_map *m, int fd)
{
	struct ns_node *first = NULL, *prev = NULL;

	while (fd >= 0) {
		struct ns_node *node;
		struct stat st;
		uid_t owner = 0;
		int pfd;

		if (fstat(fd, &st) < 0) {
			close(fd);
			return NULL;
		}
		if (prev)
			prev->parent = st.st_ino;
		if ((node = ns_find(m, st.st_ino))) {
			close(fd);
			return first ? first : node;
		}
		if (m->len == m->cap) {
			struct ns_node *more = realloc(m->n, (size_t)(m->cap ? m->cap * 2 : 64) *
							     sizeof(*more));

			if (!more) {
				close(fd);
				return NULL;
			}
			/* pointers into the old array move with it */
			if (first)
				first = more + (first - m->n);
			m->n = more;
			m->cap = m->cap ? m->cap * 2 : 64;
		}
		node = &m->n[m->len++];
		node->ino = st.st_ino;
		node->parent = 0;
		node->owner = ioctl(fd, NS_GET_OWNER_UID, &owner) == 0 ? owner : UINT32_MAX;
		if (!first)
			first = node;
		pfd = ioctl(fd, NS_GET_PARENT);
		close(fd);
		prev = node;
		fd = pfd;
	}
	return first;
}

/* "user:[4026531837]" -> 4026531837 */
static unsigned long long ns_ino(const char *link)
{
	const char *p = strchr(link, '[');

	return p ? strtoull(p + 1, NULL, 10) : 0;
}

/* The namespace of kind @kind ("user", "pid") of process @pid, entered into @m. */
static struct ns_node *ns_of(struct ns_map *m, const char *pid, const char *kind)
{
	char rel[96], link[64];
	struct ns_node *node;
	int fd;

	snprintf(rel, sizeof(rel), "/proc/%.20s/ns/%s", pid, kind);
	if (link_rooted("", rel, link, sizeof(link)) < 0)
		return NULL;
	if ((node = ns_find(m, ns_ino(link))))
		return node;
	fd = open(rel, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? NULL : ns_walk(m, fd);
}

/* The uid @uid of the initial namespace as @pid's user namespace names it; -1 unmapped. */
static int64_t uid_inside(pid_t pid, uint32_t uid)
{
	char rel[64], buf[4096], *line, *save = NULL;

	snprintf(rel, sizeof(rel), "/proc/%d/uid_map", (int)pid);
	if (read_rooted("", rel, buf, sizeof(buf)) < 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long in, out, n;

		if (sscanf(line, "%llu %llu %llu", &in, &out, &n) == 3 && uid >= out && uid - out < n)
			return (int64_t)(in + (uid - out));
	}
	return -1;
}

/*
 * The tasks charged at each level of the task's ucounts chain: a task in
 * namespace N with real uid u is charged to (N, u), then to (parent of N,
 * owner of N), and so on up (inc_rlimit_ucounts(): iter = iter->ns->ucounts).
 * Threads count, each with its own real uid; zombies count until reaped.
 */
static void count_userns(struct npg_explain_facts *f, struct ns_map *m)
{
	DIR *proc = opendir("/proc");
	struct dirent *d;

	if (!proc) {
		for (int j = 0; j < f->nuserns; j++)
			f->userns[j].count = -1;
		return;
	}
	while ((d = readdir(proc))) {
		char path[96], rel[160], buf[4096];
		struct ns_node *node;
		struct dirent *t;
		DIR *tasks;

		if (atoi(d->d_name) <= 0)
			continue;
		if (!(node = ns_of(m, d->d_name, "user"))) {
			f->userns_unread++;
			continue;
		}
		/* ns_walk() may have moved the array: keep the inode, not the pointer */
		unsigned long long ns = node->ino;

		snprintf(path, sizeof(path), "/proc/%.20s/task", d->d_name);
		if (!(tasks = opendir(path)))
			continue;
		while ((t = readdir(tasks))) {
			const char *uidp;
			unsigned long long cur = ns;
			uint32_t uid;

			if (atoi(t->d_name) <= 0)
				continue;
			snprintf(rel, sizeof(rel), "/proc/%.20s/task/%.20s/status", d->d_name, t->d_name);
			if (read_rooted("", rel, buf, sizeof(buf)) < 0 || !(uidp = after(buf, "\nUid:\t")))
				continue;
			uid = (uint32_t)strtoul(uidp, NULL, 10);
			while (cur) {
				const struct ns_node *n = ns_find(m, cur);

				for (int j = 0; j < f->nuserns; j++)
					if (f->userns[j].inode == cur && f->userns[j].uid == uid)
						f->userns[j].count++;
				if (!n)
					break;
				uid = n->owner;
				cur = n->parent;
			}
		}
		closedir(tasks);
	}
	closedir(proc);
}

/*
 * The task's user namespace chain (live only: NS_GET_PARENT needs the
 * namespace file itself): each level's namespace, the uid charged there,
 * its count, and its limit when /proc shows it.
 */
static void read_userns(struct npg_explain_facts *f)
{
	struct ns_map m = { NULL, 0, 0 };
	const struct ns_node *chain[NPG_EXPLAIN_MAX_USERNS + 1];
	char rel[64];
	int fd, n = 0;

	if (f->root[0] || f->init_userns)
		return;
	snprintf(rel, sizeof(rel), "/proc/%d/ns/user", (int)f->pid);
	if ((fd = open(rel, O_RDONLY | O_CLOEXEC)) < 0 || !ns_walk(&m, fd))
		goto out;
	/* ns_walk() entered the task's namespace first, then each parent */
	for (const struct ns_node *node = &m.n[0]; node && n <= NPG_EXPLAIN_MAX_USERNS;
	     node = node->parent ? ns_find(&m, node->parent) : NULL)
		chain[n++] = node;
	if (n > NPG_EXPLAIN_MAX_USERNS || n < 2)
		goto out;	/* deeper than we show: left as unread, and said so */
	for (int i = 0; i < n; i++) {
		struct npg_userns_level *l = &f->userns[i];

		l->level = n - 1 - i;
		l->inode = chain[i]->ino;
		l->owner = chain[i]->owner;
		l->uid = i == 0 ? f->ruid : chain[i - 1]->owner;
		l->uid_inside = i == 0 ? uid_inside(f->pid, f->ruid) : i == n - 1 ? (int64_t)l->uid : -1;
		l->limit = i > 0 ? -2 : f->nproc_soft == UINT64_MAX ? -1 : (int64_t)f->nproc_soft;
	}
	f->nuserns = n;
	f->userns_level = n - 1;
	count_userns(f, &m);
out:
	free(m.n);
}

/*
 * kernel.pid_max of pid namespace @ns (an fd of /proc/PID/ns/pid or a
 * parent of it), as a task inside reads it (per namespace since 6.14,
 * where the sysctl answers for the reader's active namespace): a child
 * joins it with setns() and forks a reader. -1 when we may not (not root)
 * or it is unreadable; -2 when the reader could not be forked with EAGAIN:
 * alloc_pid() found no free pid in that namespace or one above it.
 */
static long pid_max_inside(int ns)
{
	long v = -1;
	int fds[2], status;
	pid_t child;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	child = fork();
	if (child == 0) {
		pid_t reader;

		if (setns(ns, CLONE_NEWPID) < 0)
			_exit(1);
		reader = fork();
		if (reader < 0)
			_exit(errno == EAGAIN ? 2 : 1);
		if (reader == 0) {
			long max;

			if (npg_pid_max_read("", &max) < 0 ||
			    write(fds[1], &max, sizeof(max)) != (ssize_t)sizeof(max))
				_exit(1);
			_exit(0);
		}
		_exit(reader > 0 && waitpid(reader, &status, 0) == reader && status == 0 ? 0 : 1);
	}
	close(fds[1]);
	if (child > 0) {
		if (read(fds[0], &v, sizeof(v)) != (ssize_t)sizeof(v))
			v = -1;
		if (waitpid(child, &status, 0) == child && WIFEXITED(status) &&
		    WEXITSTATUS(status) == 2)
			v = -2;
	}
	close(fds[0]);
	return v;
}

/*
 * Pids in use at each level shown: every task whose pid namespace is that
 * one or below it holds a pid there (alloc_pid() takes one per level).
 */
static void count_pidns(struct npg_explain_facts *f, struct ns_map *m)
{
	DIR *proc = opendir("/proc");
	struct dirent *d;

	for (int j = 1; j < f->npidns; j++)
		f->pidns[j].used = proc ? 0 : -1;
	if (!proc)
		return;
	while ((d = readdir(proc))) {
		char rel[96], buf[4096];
		const struct ns_node *node;
		unsigned long long cur;
		const char *thr;
		long n;

		if (atoi(d->d_name) <= 0 || !(node = ns_of(m, d->d_name, "pid")) || !node->parent)
			continue;	/* the initial namespace's count is nr_threads */
		cur = node->ino;
		snprintf(rel, sizeof(rel), "/proc/%.20s/status", d->d_name);
		if (read_rooted("", rel, buf, sizeof(buf)) < 0)
			continue;
		n = (thr = after(buf, "\nThreads:\t")) ? strtol(thr, NULL, 10) : 1;
		while (cur) {
			const struct ns_node *c = ns_find(m, cur);

			for (int j = 1; j < f->npidns; j++)
				if (f->pidns[j].inode == cur)
					f->pidns[j].used += n;
			cur = c ? c->parent : 0;
		}
	}
	closedir(proc);
}

/*
 * alloc_pid() takes a pid at every level from the task's namespace up to
 * the initial one (kernel/pid.c: for (i = ns->level; i >= 0; i--)). Level
 * 0 is read from ROOT/proc; the deeper ones, live, through NS_GET_PARENT
 * on /proc/PID/ns/pid (pid_max from inside each, as root); from a recorded
 * tree only the task's own level is known to exist, with nothing read.
 */
static void read_pidns(struct npg_explain_facts *f)
{
	struct ns_map m = { NULL, 0, 0 };
	int fds[NPG_EXPLAIN_MAX_PIDNS], nfd = 0, fd;
	char rel[64], buf[8192];
	const char *p;
	int depth = 0;

	f->npidns = 0;
	f->pidns[0] = (struct npg_pidns_level){ 0, 0, -1, f->nr_threads };
	if (npg_pid_max_read(f->root, &f->pidns[0].pid_max) < 0)
		f->pidns[0].pid_max = -1;
	f->npidns = 1;
	f->pidns_hidden = 0;
	if (!f->have_task)
		return;
	snprintf(rel, sizeof(rel), "/proc/%d/status", (int)f->pid);
	if (read_rooted(f->root, rel, buf, sizeof(buf)) < 0 || !(p = after(buf, "\nNSpid:")))
		return;
	for (p = strchr(p, '\t'); p && *p == '\t'; p = strpbrk(p + 1, "\t\n"))
		depth++;
	if (depth <= 1)
		return;
	snprintf(rel, sizeof(rel), "/proc/%d/ns/pid", (int)f->pid);
	if (f->root[0] || (fd = open(rel, O_RDONLY | O_CLOEXEC)) < 0) {
		f->pidns[1] = (struct npg_pidns_level){ depth - 1, 0, -1, -1 };
		f->npidns = 2;
		return;
	}
	/* the task's namespace and each parent below the initial one, innermost first */
	for (int i = 0; i < depth - 1 && fd >= 0; i++) {
		struct stat st;
		int pfd = ioctl(fd, NS_GET_PARENT);

		if (nfd < NPG_EXPLAIN_MAX_PIDNS - 1 && fstat(fd, &st) == 0) {
			f->pidns[nfd + 1] = (struct npg_pidns_level){ depth - 1 - i, st.st_ino, -1, -1 };
			fds[nfd++] = fd;
		} else {
			f->pidns_hidden++;
			close(fd);
		}
		fd = pfd;
	}
	if (fd >= 0)
		close(fd);
	/* outermost first, as pidns[0] is the initial namespace */
	for (int i = 0, j = nfd - 1; i < j; i++, j--) {
		struct npg_pidns_level l = f->pidns[i + 1];
		int t = fds[i];

		f->pidns[i + 1] = f->pidns[j + 1], f->pidns[j + 1] = l;
		fds[i] = fds[j], fds[j] = t;
	}
	f->npidns = nfd + 1;
	count_pidns(f, &m);
	free(m.n);
	for (int i = 0; i < nfd; i++) {
		f->pidns[i + 1].pid_max = pid_max_inside(fds[i]);
		close(fds[i]);
	}
}

static void read_machine(struct npg_explain_facts *f, const char *cgroup)
{
	struct utsname u;
	int n;

	if (f->root[0]) {
		if (read_rooted(f->root, "/proc/sys/kernel/osrelease", f->release, sizeof(f->release)) == 0)
			f->release[strcspn(f->release, "\n")] = '\0';
		if (read_rooted(f->root, "/proc/sys/kernel/version", f->version, sizeof(f->version)) == 0)
			f->version[strcspn(f->version, "\n")] = '\0';
	} else if (uname(&u) == 0) {
		snprintf(f->release, sizeof(f->release), "%s", u.release);
		snprintf(f->version, sizeof(f->version), "%s", u.version);
	}
	if (npg_threads_read(f->root, &f->threads_max, &f->nr_threads) < 0)
		f->threads_max = f->nr_threads = -1;
	read_pidns(f);
	n = cgroup ? npg_pids_cgroup_chain_dir(f->root, cgroup, f->cgroups, NPG_EXPLAIN_MAX_CGROUPS)
		   : npg_pids_cgroup_chain(f->root, f->pid, f->cgroups, NPG_EXPLAIN_MAX_CGROUPS);
	f->ncgroups = n > 0 ? n : 0;
}

static void init_facts(struct npg_explain_facts *f, const struct npg_explain_source *src)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->root, sizeof(f->root), "%s", src->root ? src->root : "");
	/* "/" is the running system too; a trailing slash would double in every path */
	while (f->root[0] && f->root[strlen(f->root) - 1] == '/')
		f->root[strlen(f->root) - 1] = '\0';
	f->kernel_count = -1;
	f->userns_level = -1;
}

int npg_explain_gather(struct npg_explain_facts *f, const struct npg_explain_source *src,
		       pid_t pid, char *why, size_t whylen)
{
	init_facts(f, src);
	f->pid = pid;
	f->have_task = true;
	if (read_task(f, why, whylen) < 0)
		return -1;
	if (f->root[0]) {
		if (count_sysroot(f) < 0) {
			snprintf(why, whylen, "%s/proc: %s", f->root, strerror(errno));
			return -1;
		}
		f->count_source = "sysroot";
	} else if (count_live(f, src->bpf_source ? src->bpf_source : "auto", why, whylen) < 0)
		return -1;
	read_userns(f);
	read_machine(f, NULL);
	return 0;
}

int npg_explain_gather_cgroup(struct npg_explain_facts *f, const struct npg_explain_source *src,
			      const char *cgroup, char *why, size_t whylen)
{
	init_facts(f, src);
	read_machine(f, cgroup);
	if (f->ncgroups == 0) {
		snprintf(why, whylen, "%s: not a cgroup of a pids hierarchy", cgroup);
		errno = ENOENT;
		return -1;
	}
	return 0;
}

/* The user's live process with the lowest soft RLIMIT_NPROC: its forks fail first. */
pid_t npg_explain_most_limited(uint32_t uid, const char *source)
{
	struct npg_scan scan;
	uint64_t best = 0;
	pid_t pid = 0;

	memset(&scan, 0, sizeof(scan));
	if (npg_scan_running(&scan, source, true) < 0)
		return -1;
	for (size_t i = 0; i < scan.ntasks; i++) {
		const struct npg_scan_task *t = &scan.tasks[i];

		if (t->ruid != uid || t->pid != t->tid || t->zombie)
			continue;
		if (!pid || t->nproc_soft < best) {
			pid = t->pid;
			best = t->nproc_soft;
		}
	}
	npg_scan_free(&scan);
	return pid;
}
