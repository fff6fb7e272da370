/*
 * Reads every task through the BPF task iterator of
 * src/system/bpf/taskiter.bpf.c: one read() returns what /proc spreads
 * over two or three files per task, and the kernel's own RLIMIT_NPROC
 * counter besides. libbpf does the loading; the expensive part is its
 * parse of the kernel's BTF (about 60 ms here), which a pinned iterator
 * pays once per boot instead of once per run.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/types.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "system/bpfpin.h"
#include "system/procfs.h"
#include "system/taskiter-record.h"
#include "system/taskiter.h"
#include "system/usernames.h"

extern const char npg_taskiter_obj_start[], npg_taskiter_obj_end[];

const char *npg_taskiter_pin_path(void)
{
	const char *env = getenv("NPROCGUARD_BPF_PIN");

	return env && *env ? env : NPG_TASKITER_PIN_DEFAULT;
}

bool npg_taskiter_pinned(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* libbpf's own messages only with NPROCGUARD_DEBUG set: its warnings are not ours to print */
static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	if (!getenv("NPROCGUARD_DEBUG"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static const char *load_failure(int err)
{
	if (err == EPERM || err == EACCES)
		return "loading a BPF iterator needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN)";
	if (err == ENOENT || err == ESRCH || err == ENOTSUP || err == EINVAL)
		return "this kernel has no BPF task iterator or no BTF (needs Linux 5.8+ with "
		       "CONFIG_DEBUG_INFO_BTF)";
	return "cannot load the BPF task iterator";
}

/* The embedded object opened, loaded and attached; NULL with errno and @why. */
static struct bpf_link *load_iterator(struct bpf_object **objp, const char **why)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = "nprocguard_taskiter");
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_link *link;
	int err;

	libbpf_set_print(libbpf_log);
	obj = bpf_object__open_mem(npg_taskiter_obj_start,
				   (size_t)(npg_taskiter_obj_end - npg_taskiter_obj_start), &opts);
	if (!obj) {
		*why = "cannot open the embedded BPF object";
		return NULL;
	}
	err = bpf_object__load(obj);
	if (err) {
		bpf_object__close(obj);
		*why = load_failure(-err);
		errno = -err;
		return NULL;
	}
	prog = bpf_object__find_program_by_name(obj, "npg_dump_task");
	link = prog ? bpf_program__attach_iter(prog, NULL) : NULL;
	if (!link) {
		err = errno ? errno : ENOENT;
		bpf_object__close(obj);
		*why = load_failure(err);
		errno = err;
		return NULL;
	}
	*objp = obj;
	return link;
}

static int add_record(struct npg_scan *s, const struct npg_taskiter_record *r)
{
	struct npg_scan_task *t = npg_scan_push(s);

	if (!t)
		return -1;
	t->pid = (pid_t)r->tgid;
	t->tid = (pid_t)r->tid;
	t->ruid = r->ruid;
	/* /proc's State is 'Z' or 'X' once exit_state is set (fs/proc/array.c) */
	t->zombie = r->exit_state != 0;
	t->flagged = (r->flags & NPG_PF_NPROC_EXCEEDED) != 0;
	/* RLIM_INFINITY is ~0UL on 64-bit kernels */
	t->nproc_soft = r->nproc_cur == ~(__u64)0 ? UINT64_MAX : r->nproc_cur;
	/* only the initial namespace's counter is comparable with real uids seen from it */
	t->kernel_count = r->userns_level == 0 ? r->kernel_count : -1;
	/* copy_process(): root's ucounts (init_ucounts), or capable() in the initial namespace */
	t->exempt = (r->ruid == 0 && r->userns_level == 0) ||
		    (r->userns_level == 0 && (r->cap_effective & NPG_CAPS_EXEMPT_NPROC));
	memcpy(t->comm, r->comm, sizeof(t->comm));
	t->comm[sizeof(t->comm) - 1] = '\0';
	/* a thread group short of its thread count is read again from /proc */
	t->nr_threads = r->nr_threads;
	t->parent = (pid_t)r->parent_tgid;
	if (s->names)
		npg_usernames_want(s->names, t->ruid);
	return 0;
}

/*
 * Records are parsed as each read() returns them (32 KiB at a time, the
 * iterator's seq_file buffer), so that user names are being looked up on
 * other CPUs while the kernel is still walking the tasks.
 */
static int read_records(struct npg_scan *s, int fd, const char **why)
{
	struct npg_taskiter_header h;
	struct npg_taskiter_record r;
	char buf[65536];
	size_t have = 0, off;
	bool header = false;
	ssize_t n;

	for (;;) {
		n = read(fd, buf + have, sizeof(buf) - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*why = "cannot read the BPF task iterator";
			return -1;
		}
		have += (size_t)n;
		off = 0;
		if (!header && have >= sizeof(h)) {
			memcpy(&h, buf, sizeof(h));
			if (h.magic != NPG_TASKITER_MAGIC || h.record_size != sizeof(r)) {
				*why = "the pinned BPF task iterator is from another nprocguard version "
				       "(run nprocguard status --pin again)";
				errno = EPROTO;
				return -1;
			}
			header = true;
			off = sizeof(h);
		}
		for (; header && have - off >= sizeof(r); off += sizeof(r)) {
			memcpy(&r, buf + off, sizeof(r));
			if (add_record(s, &r) < 0) {
				*why = "out of memory";
				return -1;
			}
		}
		memmove(buf, buf + off, have - off);
		have -= off;
		if (n == 0)
			break;
	}
	if (!header || have != 0) {
		*why = header ? "the BPF task iterator returned a partial record"
			      : "the BPF task iterator returned no data";
		errno = EIO;
		return -1;
	}
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

static bool shown(const struct npg_scan *s, pid_t tgid)
{
	size_t lo = 0, hi = s->ntasks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->tasks[mid].pid < tgid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->ntasks && s->tasks[lo].pid == tgid;
}

static int add_pid(pid_t **v, size_t *n, size_t *cap, pid_t pid)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i] == pid)
			return 0;
	if (*n == *cap) {
		pid_t *grown = realloc(*v, (*cap = *cap ? *cap * 2 : 64) * sizeof(**v));

		if (!grown)
			return -1;
		*v = grown;
	}
	(*v)[(*n)++] = pid;
	return 0;
}

/*
 * Cheap suspects, from the records alone: thread groups with fewer tasks
 * shown than their thread count (under churn), and parents never shown
 * themselves (on the VMs this was written on, pid 1 and its threads never
 * reach the iterator: a kernel may hide tasks from BPF). The short groups'
 * tasks are dropped, to be read again from /proc. @s must be sorted.
 */
static int suspects(struct npg_scan *s, pid_t **redo, size_t *nredo)
{
	size_t cap = 0, keep = 0, i = 0;

	*redo = NULL;
	*nredo = 0;
	for (size_t k = 0; k < s->ntasks; k++) {
		pid_t parent = s->tasks[k].parent;

		if (parent > 0 && !shown(s, parent) && add_pid(redo, nredo, &cap, parent) < 0)
			return -1;
	}
	while (i < s->ntasks) {
		pid_t pid = s->tasks[i].pid;
		size_t first = i;
		long want = 0;

		for (; i < s->ntasks && s->tasks[i].pid == pid; i++)
			if (s->tasks[i].nr_threads > want)
				want = s->tasks[i].nr_threads;
		if ((long)(i - first) < want) {
			if (add_pid(redo, nredo, &cap, pid) < 0)
				return -1;
			continue;
		}
		memmove(&s->tasks[keep], &s->tasks[first], (i - first) * sizeof(s->tasks[0]));
		keep += i - first;
	}
	s->ntasks = keep;
	return 0;
}

/* The processes /proc lists and @s (sorted) lacks; NULL with errno. */
static pid_t *unseen_processes(const struct npg_scan *s, size_t *n)
{
	size_t nproc, out = 0;
	pid_t *procs = npg_proc_pids(&nproc);

	*n = 0;
	if (!procs)
		return NULL;
	qsort(procs, nproc, sizeof(*procs), cmp_pid);
	for (size_t k = 0; k < nproc; k++)
		if (!shown(s, procs[k]))
			procs[out++] = procs[k];
	*n = out;
	return procs;
}

static int read_from_proc(struct npg_scan *s, pid_t *pids, size_t n)
{
	int rc = n ? npg_scan_pids(s, pids, n, true) : 0;

	s->from_proc += n;
	free(pids);
	if (rc == 0 && n)
		npg_scan_sort(s);	/* already sorted if nothing was added */
	return rc;
}

/*
 * Fill @s from an open iterator session @fd, then complete it from /proc:
 * first the suspects, then, only if the total still differs from the
 * kernel's task count, every process /proc lists that is missing.
 */
int npg_taskiter_read(struct npg_scan *s, int fd, const char **why)
{
	long expected = npg_system_tasks();
	size_t nredo;
	pid_t *redo;

	/* one allocation: growing by doubling copies and faults in pages twice */
	if (expected > 0)
		(void)npg_scan_reserve(s, (size_t)expected + (size_t)expected / 8 + 64);
	if (read_records(s, fd, why) < 0)
		return -1;
	npg_scan_sort(s);
	if (suspects(s, &redo, &nredo) < 0 || read_from_proc(s, redo, nredo) < 0) {
		*why = "cannot read /proc";
		return -1;
	}
	if ((long)s->ntasks == npg_system_tasks())
		return 0;
	/* churn, another pid namespace, or hidden tasks without a hidden parent */
	redo = unseen_processes(s, &nredo);
	if (!redo || read_from_proc(s, redo, nredo) < 0) {
		*why = "cannot read /proc";
		return -1;
	}
	return 0;
}

/*
 * A new pass over the tasks from the iterator pinned at @path, once its
 * directories and the object itself are checked. -1 with errno and @why;
 * -2 if something is there that must not be read: another user's
 * directory, or an object that is not our iterator.
 */
static int open_pinned(const char *path, const char **why)
{
	const char *name;
	char objpath[4200];
	int dfd = npg_pin_dir_open(path, false, &name, why), lfd, fd, err;

	if (dfd < 0)
		return errno == EPERM ? -2 : -1;
	npg_pin_fd_path(dfd, name, objpath, sizeof(objpath));
	lfd = bpf_obj_get(objpath);
	err = errno;
	close(dfd);
	if (lfd < 0) {
		*why = err == ENOENT ? "no BPF task iterator is pinned (nprocguard status --pin)"
		       : err == EACCES || err == EPERM
			       ? "the pinned BPF task iterator is not readable by this user"
			       : "cannot open the pinned BPF task iterator";
		errno = err;
		return -1;
	}
	if (npg_pin_is_ours(lfd, why) < 0) {
		err = errno;
		close(lfd);
		errno = err;
		return err == EBADFD ? -2 : -1;
	}
	/* a session of the link checked, not of whatever the path names now */
	fd = bpf_iter_create(lfd);
	err = errno;
	close(lfd);
	if (fd < 0) {
		*why = "cannot start the pinned BPF task iterator";
		errno = err;
	}
	return fd;
}

int npg_taskiter_scan(struct npg_scan *s, const char *pin, bool may_load, const char **why)
{
	struct bpf_object *obj = NULL;
	struct bpf_link *link = NULL;
	int fd, rc, saved;

	fd = open_pinned(pin, why);
	if (fd == -2 || (fd < 0 && (errno != ENOENT || !may_load)))
		return fd;
	if (fd < 0) {
		link = load_iterator(&obj, why);
		if (!link)
			return -1;
		fd = bpf_iter_create(bpf_link__fd(link));
		if (fd < 0) {
			saved = errno;
			bpf_link__destroy(link);
			bpf_object__close(obj);
			*why = "cannot start the BPF task iterator";
			errno = saved;
			return -1;
		}
	}
	rc = npg_taskiter_read(s, fd, why);
	saved = errno;
	close(fd);
	if (link) {
		bpf_link__destroy(link);
		bpf_object__close(obj);
	}
	if (rc < 0) {
		npg_scan_free(s);
		errno = saved;
	}
	return rc;
}

int npg_scan_running(struct npg_scan *s, const char *source, bool want_limits)
{
	const char *pin = npg_taskiter_pin_path(), *why = NULL;
	int saved;

	if (strcmp(source, "proc") != 0 && npg_taskiter_pinned(pin) &&
	    npg_taskiter_scan(s, pin, false, &why) == 0)
		return 0;
	/* npg_taskiter_scan() leaves @s empty when it fails */
	if (npg_scan_tasks_opt(s, want_limits) < 0) {
		saved = errno;
		npg_scan_free(s);
		errno = saved;
		return -1;
	}
	return 0;
}

int npg_taskiter_pin(const char *path, bool *mounted, const char **why)
{
	struct bpf_object *obj = NULL;
	struct bpf_link *link;
	const char *name;
	char objpath[4200];
	struct statfs sf;
	int dfd, rc, err = 0;

	rc = npg_bpffs_ensure(path, why);
	if (rc < 0)
		return -1;
	*mounted = rc == 1;
	dfd = npg_pin_dir_open(path, true, &name, why);
	if (dfd < 0)
		return -1;
	if (fstatfs(dfd, &sf) < 0 || sf.f_type != BPF_FS_MAGIC) {
		close(dfd);
		*why = "not on a mounted bpf filesystem (mount -t bpf -o mode=0700 bpf /sys/fs/bpf)";
		errno = EINVAL;
		return -1;
	}
	link = load_iterator(&obj, why);
	if (!link) {
		err = errno;
		close(dfd);
		errno = err;
		return -1;
	}
	/* a pin from an older nprocguard is replaced, never read */
	if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT) {
		err = errno;
		*why = "cannot remove the old pin";
		goto out;
	}
	npg_pin_fd_path(dfd, name, objpath, sizeof(objpath));
	if (bpf_obj_pin(bpf_link__fd(link), objpath) < 0) {
		err = errno;
		*why = "cannot pin the BPF task iterator";
	}
out:
	/* the pin holds its own reference to the link and program */
	bpf_link__destroy(link);
	bpf_object__close(obj);
	close(dfd);
	errno = err;
	return err ? -1 : 0;
}

int npg_taskiter_unpin(const char *path, const char **why)
{
	const char *name;
	char objpath[4200], dir[4096];
	int dfd = npg_pin_dir_open(path, false, &name, why), lfd, err = 0;

	if (dfd < 0)
		return -1;
	npg_pin_fd_path(dfd, name, objpath, sizeof(objpath));
	/* only our iterator is removed: anything else was put there by someone else */
	lfd = bpf_obj_get(objpath);
	if (lfd < 0) {
		err = errno;
		*why = err == ENOENT ? "no BPF task iterator is pinned there"
				     : "cannot open the pinned BPF task iterator";
	} else if (npg_pin_is_ours(lfd, why) < 0) {
		err = errno;
	} else if (unlinkat(dfd, name, 0) < 0) {
		err = errno;
		*why = "cannot remove the pin";
	}
	if (lfd >= 0)
		close(lfd);
	close(dfd);
	if (err) {
		errno = err;
		return -1;
	}
	/* the directory --pin created for the default path, if nothing else is in it */
	if (strcmp(path, NPG_TASKITER_PIN_DEFAULT) == 0) {
		snprintf(dir, sizeof(dir), "%s", path);
		if (rmdir(dirname(dir)) < 0 && errno != ENOTEMPTY && errno != EEXIST) {
			*why = "cannot remove the pin's directory";
			return -1;
		}
	}
	return 0;
}
