/*
 * Writing a user namespace's id maps, and why a machine refuses user
 * namespaces (kernel/user_namespace.c, kernel/fork.c; 6.1).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/real/idmap.h"
#include "backend/real/teardown.h"
#include "model/release.h"
#include "system/procfs.h"

/* major.minor.patch as one number, to compare releases */
#define RELEASE(a, b, c) ((a) * 65536 + (b) * 256 + (c))

enum npg_userns_form npg_userns_form_probe(char *why, size_t len)
{
	struct npg_release rel;
	int v;

	/* ns/user: 3.8 ("userns: Implement setns for the user namespace"); uid_map: 3.5 */
	if (access("/proc/self/ns/user", F_OK) == 0 && access("/proc/self/uid_map", F_OK) == 0)
		return NPG_USERNS_MAPS;
	if (npg_running_release(&rel) < 0) {
		snprintf(why, len, "this kernel has no user namespaces with id maps "
			 "(/proc/self/ns/user), and its release cannot be read");
		return NPG_USERNS_NONE;
	}
	v = RELEASE(rel.major, rel.minor < 255 ? rel.minor : 255, rel.patch < 255 ? rel.patch : 255);
	if (v >= RELEASE(3, 8, 0))
		snprintf(why, len, "this kernel has no user namespaces (/proc/self/ns/user: "
			 "CONFIG_USER_NS is off)");
	else if (v >= RELEASE(3, 5, 0))
		snprintf(why, len, "3.5-3.7's user namespaces (uid_map, with 3.0's privileged "
			 "clone() and no unshare()) are neither form the model has");
	else if (v >= RELEASE(2, 6, 39))
		return NPG_USERNS_LEGACY;
	else
		snprintf(why, len, "the user namespaces before 2.6.39 (capabilities not relative "
			 "to the namespace) are not modelled");
	return NPG_USERNS_NONE;
}

int npg_idmap_probe(struct npg_idmap_host *h)
{
	struct npg_release rel;
	struct stat st;
	long v;

	memset(h, 0, sizeof(*h));
	h->overflowuid = h->overflowgid = 65534;
	if ((v = npg_read_long("/proc/sys/kernel/overflowuid")) >= 0)
		h->overflowuid = (uint32_t)v;
	if ((v = npg_read_long("/proc/sys/kernel/overflowgid")) >= 0)
		h->overflowgid = (uint32_t)v;
	/* UID_GID_MAP_MAX_EXTENTS: 5 lines, 340 since 6397fac4915a (4.15) */
	h->max_lines = 5;
	if (npg_running_release(&rel) == 0 &&
	    (rel.major > 4 || (rel.major == 4 && rel.minor >= 15)))
		h->max_lines = 340;
	/* ns/user and uid_map: 3.8 (unprivileged user namespaces, 22d917d80e84), CONFIG_USER_NS */
	switch (npg_userns_form_probe(h->unsupported, sizeof(h->unsupported))) {
	case NPG_USERNS_LEGACY:
		h->legacy = true;
		snprintf(h->unsupported, sizeof(h->unsupported), "2.6.39-3.4's user namespaces "
			 "have no id maps");
		return 0;
	case NPG_USERNS_NONE:
		return 0;
	case NPG_USERNS_MAPS:
		break;
	}
	if (stat("/proc/self/ns/user", &st) < 0)
		return -1;
	h->init_ino = (uint64_t)st.st_ino;
	h->supported = true;
	return 0;
}

enum write_stage { WROTE, OPEN_FAILED, WRITE_FAILED, SETNS_FAILED };

struct write_report {
	int stage;
	int err;
	int which;		/* 0 uid_map, 1 gid_map */
};

/*
 * An open that failed with @err ENOENT while the task's directory is
 * there: the kernel has no such file (/proc/PID/uid_map and gid_map came
 * in 3.5 with proc_uid_map_write()), which is its answer to the writer,
 * not a task that went away.
 */
static bool no_such_file(pid_t pid, pid_t tid, int err)
{
	char dir[64];

	snprintf(dir, sizeof(dir), "/proc/%d/task/%d", (int)pid, (int)tid);
	return err == ENOENT && access(dir, F_OK) == 0;
}

/* map_write() of each text, uid_map first; the first failure ends it */
static void write_here(pid_t pid, pid_t tid, const char *const text[2], struct write_report *rep)
{
	memset(rep, 0, sizeof(*rep));
	for (int i = 0; i < 2; i++) {
		char path[80];
		size_t len = strlen(text[i]);
		ssize_t n;
		int fd, e;

		if (len == 0)
			continue;
		rep->which = i;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)pid, (int)tid,
			 i ? "gid_map" : "uid_map");
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0) {
			rep->err = errno;
			rep->stage = no_such_file(pid, tid, rep->err) ? WROTE : OPEN_FAILED;
			return;
		}
		/* one write: map_write() takes the whole map from offset 0 */
		n = write(fd, text[i], len);
		e = errno;
		close(fd);
		if (n == (ssize_t)len)
			continue;
		/* the kernel's judgement of the map: its lines (EINVAL), its ids (EPERM) */
		if (n < 0 && (e == EINVAL || e == EPERM)) {
			rep->err = e;
			return;
		}
		rep->stage = WRITE_FAILED;
		rep->err = n < 0 ? e : EIO;
		return;
	}
}

/*
 * The writer for a namespace whose parent is not the initial one.
 * proc_uid_map_write() wants the opener in the namespace's parent, so it
 * setns()es there (userns_install(): CAP_SYS_ADMIN over it, which root of
 * the initial namespace has, and one thread, an fs_struct of its own: a
 * fork). There it has every capability, as map_write() and
 * new_idmap_permitted() want of a privileged writer. Its fs ids are set
 * first to the owner the map files have for a reader in the initial
 * namespace (task_dump_owner(): the task's euid, or root of the namespace
 * its memory was made in when it is not dumpable): an owner unmapped in
 * the parent namespace would defeat CAP_DAC_OVERRIDE there
 * (privileged_wrt_inode_uidgid()), an owner's own access does not need it.
 */
static void helper_main(int report, int parent_nsfd, uid_t fsuid, gid_t fsgid, pid_t pid,
			pid_t tid, const char *const text[2]) __attribute__((noreturn));

static void helper_main(int report, int parent_nsfd, uid_t fsuid, gid_t fsgid, pid_t pid,
			pid_t tid, const char *const text[2])
{
	struct write_report rep = { 0 };

	signal(SIGINT, SIG_DFL), signal(SIGTERM, SIG_DFL), signal(SIGHUP, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	/* the controller's end of every puppet's socket is open here too: go with it */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	setfsgid(fsgid);
	setfsuid(fsuid);
	if (setns(parent_nsfd, CLONE_NEWUSER) < 0) {
		rep.stage = SETNS_FAILED;
		rep.err = errno;
	} else {
		write_here(pid, tid, text, &rep);
	}
	if (write(report, &rep, sizeof(rep)) != (ssize_t)sizeof(rep))
		_exit(1);
	_exit(0);
}

/* Run the helper and collect its report; it is reaped on every path */
static int write_from_parent(pid_t pid, pid_t tid, int parent_nsfd, const char *const text[2],
			     int timeout_ms, struct write_report *rep, char *why, size_t len)
{
	char path[80];
	struct stat st;
	struct pollfd p;
	int fds[2], ready;
	ssize_t got = -1;
	pid_t helper;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/uid_map", (int)pid, (int)tid);
	if (stat(path, &st) < 0) {
		snprintf(why, len, "stat %s: %s", path, strerror(errno));
		return -1;
	}
	if (pipe2(fds, O_CLOEXEC) < 0) {
		snprintf(why, len, "pipe: %s", strerror(errno));
		return -1;
	}
	helper = fork();
	if (helper < 0) {
		snprintf(why, len, "fork of the map writer: %s", strerror(errno));
		close(fds[0]), close(fds[1]);
		return -1;
	}
	if (helper == 0) {
		close(fds[0]);
		helper_main(fds[1], parent_nsfd, st.st_uid, st.st_gid, pid, tid, text);
	}
	npg_teardown_remember(helper);
	close(fds[1]);
	p = (struct pollfd){ .fd = fds[0], .events = POLLIN };
	do
		ready = poll(&p, 1, timeout_ms);
	while (ready < 0 && errno == EINTR);
	if (ready > 0)
		got = read(fds[0], rep, sizeof(*rep));
	close(fds[0]);
	if (got != (ssize_t)sizeof(*rep))
		kill(helper, SIGKILL);
	while (waitpid(helper, NULL, __WALL) < 0 && errno == EINTR)
		;
	if (got != (ssize_t)sizeof(*rep)) {
		snprintf(why, len, "the map writer in the parent namespace %s",
			 ready == 0 ? "did not answer in time" : "died without an answer");
		return -1;
	}
	return 0;
}

int npg_idmap_write(pid_t pid, pid_t tid, int parent_nsfd, const char *uid_text,
		    const char *gid_text, int timeout_ms, int *err, int *failed, char *why,
		    size_t len)
{
	const char *const text[2] = { uid_text, gid_text };
	static const char *const stages[] = { "", "open", "write", "setns into the parent namespace" };
	struct write_report rep;

	*err = 0;
	*failed = -1;
	if (parent_nsfd < 0)
		write_here(pid, tid, text, &rep);
	else if (write_from_parent(pid, tid, parent_nsfd, text, timeout_ms, &rep, why, len) < 0)
		return -1;
	if (rep.stage != WROTE) {
		snprintf(why, len, "writing %s: %s: %s", rep.which ? "gid_map" : "uid_map",
			 stages[rep.stage], strerror(rep.err));
		return -1;
	}
	*err = rep.err;
	if (rep.err)
		*failed = rep.which;
	return 0;
}

void npg_idmap_refusal(pid_t pid, pid_t tid, const char *call, int err, char *buf, size_t len)
{
	char path[64], status[4096];
	const char *seccomp;

	/* Debian's and Ubuntu's ksys_unshare(): "!unprivileged_userns_clone && !capable(CAP_SYS_ADMIN)" */
	if (err == EPERM && npg_read_long("/proc/sys/kernel/unprivileged_userns_clone") == 0) {
		snprintf(buf, len, "this machine refuses user namespaces to unprivileged "
			 "tasks (kernel.unprivileged_userns_clone = 0)");
		return;
	}
	/* inc_user_namespaces() against ucount_max[UCOUNT_USER_NAMESPACES] */
	if (err == ENOSPC && npg_read_long("/proc/sys/user/max_user_namespaces") >= 0) {
		snprintf(buf, len, "this machine's limit on user namespaces was met "
			 "(user.max_user_namespaces = %ld)",
			 npg_read_long("/proc/sys/user/max_user_namespaces"));
		return;
	}
	/* security_create_user_ns(): AppArmor's unprivileged_userns mediation (Ubuntu 23.10+) */
	if ((err == EPERM || err == EACCES) &&
	    npg_read_long("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1) {
		snprintf(buf, len, "this machine's AppArmor policy restricts unprivileged "
			 "user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1)");
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	if (npg_read_small(path, status, sizeof(status)) > 0 &&
	    (seccomp = strstr(status, "\nSeccomp:")) && atoi(seccomp + 9) != 0) {
		snprintf(buf, len, "%s failed with %s under a seccomp filter of this machine",
			 call, strerrorname_np(err) ? strerrorname_np(err) : "?");
		return;
	}
	snprintf(buf, len, "%s failed with %s for a reason of this machine (an LSM, a "
		 "seccomp filter, a chroot or a namespace limit), not one the model has", call,
		 strerrorname_np(err) ? strerrorname_np(err) : "?");
}
