/*
 * The runtime of an exported kselftest (see npg_kselftest.h): the
 * controller, its puppets, the /proc readers, the uid window and the
 * teardown. Written by `nprocguard export --format kselftest` beside the
 * generated file of each scenario; it needs a C11 compiler, glibc or
 * another libc with pthreads, and Linux 3.0 or later at run time (no
 * pidfd, subreaper, execveat or close_range() is required: each is used
 * when the kernel has it).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* pipe2(), dprintf(), F_DUPFD_CLOEXEC, MSG_CMSG_CLOEXEC */
#endif
#include <ctype.h>
#include <endian.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "npg_kselftest.h"

/* What older headers may lack; the kernel answers EINVAL or ENOSYS when it does */
#ifndef PR_SET_NO_NEW_PRIVS
#define PR_SET_NO_NEW_PRIVS 38
#endif
#ifndef PR_SET_CHILD_SUBREAPER
#define PR_SET_CHILD_SUBREAPER 36
#endif
#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#endif
#ifndef PR_CAP_AMBIENT_CLEAR_ALL
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif
#ifndef PR_CAPBSET_DROP
#define PR_CAPBSET_DROP 24
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#if !defined(SYS_execveat) && defined(__x86_64__)
#define SYS_execveat 322
#endif
#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif
#ifndef __WALL
#define __WALL 0x40000000
#endif
#ifndef UMOUNT_NOFOLLOW
#define UMOUNT_NOFOLLOW 8
#endif

#define KSFT_PASS 0
#define KSFT_FAIL 1
#define KSFT_SKIP 4

#define PUPPET_ARG "__npg_kselftest_puppet"
#define EXE_FD 3		/* this program, for a puppet's execve() of itself */
#define SOCK_FD 4		/* a process's own socket, kept across execve() */
#define UID_WINDOW 4096		/* uids base .. base + 4095 belong to the test */
#define DEFAULT_UID_BASE 3000000000u
#define ANSWER_TIMEOUT_MS 10000	/* a puppet answers a command within this */
#define STOP_TIMEOUT_MS 30000	/* every process is gone within this at the end */
#define DEFAULT_TIMEOUT_S 120	/* the whole test (NPG_KSELFTEST_TIMEOUT) */
#define LOCK_DIR "/run/nprocguard"	/* shared with nprocguard's own real runs */
#define PF_NPROC_EXCEEDED 0x00001000u	/* include/linux/sched.h, field 9 of stat */
#define CAP_LAST 40		/* CAP_CHECKPOINT_RESTORE: the last one named */
#define CAP_ALL ((UINT64_C(1) << (CAP_LAST + 1)) - 1)
#define CAP_SYS_ADMIN_BIT 21
#define CAP_SYS_RESOURCE_BIT 24

/* --- the wire: one command, one answer, over SOCK_SEQPACKET --- */

enum msg_kind { MSG_CMD, MSG_RESULT, MSG_HELLO, MSG_DUMPABLE, MSG_ABORT };

/* What a step yields (TAP renders it as nprocguard does) */
enum res_kind { RES_OK, RES_ERRNO, RES_ID, RES_KILLED, RES_RUNNING, RES_DEAD, RES_SKIP,
		RES_SUSPENDED };

struct msg {
	int32_t kind;
	/* a command */
	int32_t op, value, ngroups, file;
	uint32_t id[3];
	uint32_t groups[KST_NGROUPS];
	uint64_t lim_cur, lim_max, caps;
	int64_t target_pid;
	char path[256];
	/* an answer */
	int32_t result;
	int64_t rvalue;
	int32_t wait_status;
	/* a hello */
	int32_t pid, tid;
};

struct res {
	enum res_kind kind;
	long value;
};

static int send_msg(int sock, const struct msg *m, int fd)
{
	struct iovec iov = { (void *)m, sizeof(*m) };
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(cbuf, 0, sizeof(cbuf));
		h.msg_control = cbuf;
		h.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&h);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	do
		n = sendmsg(sock, &h, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(*m) ? 0 : -1;
}

/* 1, 0 on EOF, -1 on error; *fd an attached descriptor or -1 */
static int recv_msg(int sock, struct msg *m, int *fd)
{
	struct iovec iov = { m, sizeof(*m) };
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	ssize_t n;

	if (fd)
		*fd = -1;
	do
		n = recvmsg(sock, &h, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return (int)n;
	for (c = CMSG_FIRSTHDR(&h); c; c = CMSG_NXTHDR(&h, c)) {
		int got;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		memcpy(&got, CMSG_DATA(c), sizeof(int));
		if (fd)
			*fd = got;
		else
			close(got);
	}
	if (n != (ssize_t)sizeof(*m)) {
		errno = EPROTO;
		return -1;
	}
	return 1;
}

static pid_t my_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* Close every descriptor from @first up; kernels before 5.9 lack close_range() */
static void close_from(int first)
{
	struct rlimit lim;

	if (syscall(SYS_close_range, (unsigned)first, ~0U, 0U) == 0)
		return;
	if (getrlimit(RLIMIT_NOFILE, &lim) < 0 || lim.rlim_cur > 65536)
		lim.rlim_cur = 65536;
	for (int fd = first; fd < (int)lim.rlim_cur; fd++)
		close(fd);
}

/* --- capabilities: capget()/capset() of the calling thread, 64-bit sets --- */

struct cap_header {
	uint32_t version;
	int pid;
};

struct cap_data {
	uint32_t effective, permitted, inheritable;
};

#define CAP_VERSION_3 0x20080522	/* _LINUX_CAPABILITY_VERSION_3, 2.6.26+ */

static int caps_get(uint64_t *eff, uint64_t *prm, uint64_t *inh)
{
	struct cap_header h = { CAP_VERSION_3, 0 };
	struct cap_data d[2];

	if (syscall(SYS_capget, &h, d) < 0)
		return -1;
	*eff = d[0].effective | (uint64_t)d[1].effective << 32;
	*prm = d[0].permitted | (uint64_t)d[1].permitted << 32;
	*inh = d[0].inheritable | (uint64_t)d[1].inheritable << 32;
	return 0;
}

static long caps_set(uint64_t eff, uint64_t prm, uint64_t inh)
{
	struct cap_header h = { CAP_VERSION_3, 0 };
	struct cap_data d[2] = {
		{ (uint32_t)eff, (uint32_t)prm, (uint32_t)inh },
		{ (uint32_t)(eff >> 32), (uint32_t)(prm >> 32), (uint32_t)(inh >> 32) },
	};

	return syscall(SYS_capset, &h, d);
}

static bool cap_has(uint64_t set, int cap)
{
	return cap >= 0 && cap < 64 && (set >> cap & 1);
}

/* ========================= the puppets ========================= */

static void answer(int sock, enum res_kind kind, long value, int wait_status)
{
	struct msg m = { .kind = MSG_RESULT, .result = kind, .rvalue = value,
			 .wait_status = wait_status };

	if (send_msg(sock, &m, -1) < 0)
		syscall(SYS_exit_group, 111);
}

/* A raw system call's return: 0 or -1 with errno */
static void answer_syscall(int sock, long r)
{
	if (r < 0)
		answer(sock, RES_ERRNO, errno, 0);
	else
		answer(sock, RES_OK, 0, 0);
}

static void say_hello(int sock)
{
	struct msg m = { .kind = MSG_HELLO, .pid = getpid(), .tid = my_tid() };

	if (send_msg(sock, &m, -1) < 0)
		syscall(SYS_exit_group, 111);
}

static void serve(int sock, bool thread) __attribute__((noreturn));

static void *thread_main(void *arg)
{
	int sock = (int)(intptr_t)arg;

	say_hello(sock);
	serve(sock, true);
}

static void do_fork(int sock, int child_sock)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (dup2(child_sock, SOCK_FD) < 0)
			_exit(111);
		close_from(SOCK_FD + 1);
		say_hello(SOCK_FD);
		serve(SOCK_FD, false);
	}
	close(child_sock);
	answer_syscall(sock, pid < 0 ? -1 : 0);
}

/*
 * vfork as posix_spawn() makes it: clone(CLONE_VM | CLONE_VFORK) on a
 * stack of its own. The child serves commands in its parent's memory (a
 * copy of the descriptor table, so its socket is its own) while this
 * thread sleeps in the kernel until the child execs or exits; only then
 * does the answer go out, and the controller collects it then. The child
 * says hello first, on its own socket.
 */
static int vfork_child_main(void *arg) __attribute__((noreturn));

static int vfork_child_main(void *arg)
{
	int child_sock = (int)(intptr_t)arg;

	if (dup2(child_sock, SOCK_FD) < 0)
		syscall(SYS_exit_group, 111);
	close_from(SOCK_FD + 1);
	say_hello(SOCK_FD);
	serve(SOCK_FD, false);
}

static void do_vfork(int sock, int child_sock)
{
	size_t size = 256 * 1024;
	char *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
			   MAP_STACK, -1, 0);
	pid_t pid;

	if (stack == MAP_FAILED) {
		close(child_sock);
		answer(sock, RES_ERRNO, errno, 0);
		return;
	}
	pid = clone(vfork_child_main, stack + size, CLONE_VM | CLONE_VFORK | SIGCHLD,
		    (void *)(intptr_t)child_sock);
	munmap(stack, size);
	/* a failure is answered before the child's socket closes: the controller,
	 * seeing that socket end, finds the answer already there */
	answer_syscall(sock, pid < 0 ? -1 : 0);
	close(child_sock);
}

static void do_thread(int sock, int child_sock)
{
	pthread_attr_t attr;
	pthread_t th;
	int err;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	err = pthread_create(&th, &attr, thread_main, (void *)(intptr_t)child_sock);
	pthread_attr_destroy(&attr);
	if (err) {
		close(child_sock);
		answer(sock, RES_ERRNO, err, 0);
		return;
	}
	answer(sock, RES_OK, 0, 0);
}

static void do_wait(int sock, pid_t child)
{
	int status = 0;
	pid_t r = waitpid(child, &status, WNOHANG);

	if (r < 0)
		answer(sock, RES_ERRNO, errno, 0);
	else if (r == 0)
		answer(sock, RES_RUNNING, 0, 0);
	else
		answer(sock, RES_OK, 0, status);
}

/*
 * execve() of this program again, from the descriptor the controller
 * opened on it: the new image is a puppet again and says hello on the
 * same socket. execveat() is 3.19's; before, the descriptor's /proc link
 * (the calling thread's own: /proc/self is the leader, whose credentials
 * a thread that changed its own need not pass). A declared missing file
 * is a name never made in the test's private directory.
 */
static void exec_image(const char *path)
{
	char *argv[] = { "npg-kselftest-puppet", PUPPET_ARG, NULL };
	char *envp[] = { NULL };
	char fdpath[64];

	if (path[0]) {
		execve(path, argv, envp);
		return;
	}
#ifdef SYS_execveat
	syscall(SYS_execveat, EXE_FD, "", argv, envp, AT_EMPTY_PATH);
	if (errno != ENOSYS && errno != ENOENT)
		return;
#endif
	snprintf(fdpath, sizeof(fdpath), "/proc/%d/task/%d/fd/%d", (int)getpid(), (int)my_tid(),
		 EXE_FD);
	execve(fdpath, argv, envp);
}

/*
 * The new image finds its socket at SOCK_FD. A thread's socket is
 * elsewhere, and that descriptor is the leader's: it is put aside
 * (close-on-exec, so that a successful exec drops it and the leader's
 * connection ends with the old leader) and put back if the exec fails.
 */
static void do_execve(int sock, bool thread, const char *path)
{
	int saved = -1, err;

	if (thread) {
		saved = fcntl(SOCK_FD, F_DUPFD_CLOEXEC, SOCK_FD + 1);
		if (saved < 0 || dup2(sock, SOCK_FD) < 0) {
			answer(sock, RES_ERRNO, errno, 0);
			return;
		}
	}
	exec_image(path);
	err = errno;
	if (thread) {
		dup2(saved, SOCK_FD);
		close(saved);
	}
	answer(sock, RES_ERRNO, err, 0);
}

static void do_capset(int sock, const struct msg *m)
{
	uint64_t eff, prm, inh;

	if (caps_get(&eff, &prm, &inh) < 0) {
		answer(sock, RES_ERRNO, errno, 0);
		return;
	}
	switch (m->value) {
	case KST_CAPSET_DROP:
		eff &= ~m->caps;
		prm &= ~m->caps;
		break;
	case KST_CAPSET_KEEP:
		eff &= m->caps;
		prm &= m->caps;
		break;
	case KST_CAPSET_RAISE:
		eff |= m->caps;
		break;
	case KST_CAPSET_LOWER:
		eff &= ~m->caps;
		break;
	case KST_CAPSET_INHERITABLE:
		inh = m->caps;
		break;
	}
	answer_syscall(sock, caps_set(eff, prm, inh));
}

/* One command, run raw on this thread: no glibc wrapper broadcasts set*id */
static void run(int sock, bool thread, const struct msg *m, int fd)
{
	struct rlimit lim = { .rlim_cur = m->lim_cur, .rlim_max = m->lim_max };
	gid_t groups[KST_NGROUPS];

	switch ((enum kst_op)m->op) {
	case KST_FORK:
		do_fork(sock, fd);
		return;
	case KST_THREAD:
		do_thread(sock, fd);
		return;
	case KST_VFORK:
		do_vfork(sock, fd);
		return;
	case KST_EXIT:
		/* no answer: the controller watches the task go */
		syscall(thread ? SYS_exit : SYS_exit_group, m->value);
		_exit(m->value);
	case KST_WAIT:
		do_wait(sock, (pid_t)m->target_pid);
		return;
	case KST_SETUID:
		answer_syscall(sock, syscall(SYS_setuid, m->id[0]));
		return;
	case KST_SETEUID:
		answer_syscall(sock, syscall(SYS_setresuid, -1, m->id[0], -1));
		return;
	case KST_SETREUID:
		answer_syscall(sock, syscall(SYS_setreuid, m->id[0], m->id[1]));
		return;
	case KST_SETRESUID:
		answer_syscall(sock, syscall(SYS_setresuid, m->id[0], m->id[1], m->id[2]));
		return;
	case KST_SETFSUID:
		answer(sock, RES_ID, (uint32_t)syscall(SYS_setfsuid, m->id[0]), 0);
		return;
	case KST_SETGID:
		answer_syscall(sock, syscall(SYS_setgid, m->id[0]));
		return;
	case KST_SETEGID:
		answer_syscall(sock, syscall(SYS_setresgid, -1, m->id[0], -1));
		return;
	case KST_SETREGID:
		answer_syscall(sock, syscall(SYS_setregid, m->id[0], m->id[1]));
		return;
	case KST_SETRESGID:
		answer_syscall(sock, syscall(SYS_setresgid, m->id[0], m->id[1], m->id[2]));
		return;
	case KST_SETFSGID:
		answer(sock, RES_ID, (uint32_t)syscall(SYS_setfsgid, m->id[0]), 0);
		return;
	case KST_SETGROUPS:
		for (int i = 0; i < m->ngroups && i < KST_NGROUPS; i++)
			groups[i] = m->groups[i];
		answer_syscall(sock, syscall(SYS_setgroups, m->ngroups, groups));
		return;
	case KST_SETRLIMIT:
	case KST_PRLIMIT:
		answer_syscall(sock, syscall(SYS_prlimit64, (pid_t)m->target_pid, RLIMIT_NPROC, &lim,
					     NULL));
		return;
	case KST_KEEPCAPS:
		answer_syscall(sock, prctl(PR_SET_KEEPCAPS, m->value, 0, 0, 0));
		return;
	case KST_CAPSET:
		do_capset(sock, m);
		return;
	case KST_EXECVE:
		do_execve(sock, thread, m->path);
		return;
	case KST_KILL:
		/* to its own process, the answer is the caller's death */
		answer_syscall(sock, syscall(SYS_kill, (pid_t)m->target_pid, m->value));
		return;
	case KST_SECUREBITS:
		answer_syscall(sock, prctl(PR_SET_SECUREBITS, (unsigned long)m->value, 0, 0, 0));
		return;
	case KST_AMBIENT:
		answer_syscall(sock, prctl(PR_CAP_AMBIENT, (unsigned long)m->value,
					   m->value == PR_CAP_AMBIENT_CLEAR_ALL ? 0UL :
					   (unsigned long)m->caps, 0, 0));
		return;
	case KST_NO_NEW_PRIVS:
		answer_syscall(sock, prctl(PR_SET_NO_NEW_PRIVS, m->value, 0, 0, 0));
		return;
	case KST_DUMPABLE:
		answer_syscall(sock, prctl(PR_SET_DUMPABLE, (unsigned long)m->value, 0, 0, 0));
		return;
	}
	answer(sock, RES_ERRNO, ENOSYS, 0);
}

static void serve(int sock, bool thread)
{
	for (;;) {
		struct msg m;
		int fd, r = recv_msg(sock, &m, &fd);

		if (r <= 0)	/* the controller is gone: so is the whole process */
			syscall(SYS_exit_group, 0);
		if (m.kind == MSG_DUMPABLE) {
			/* the mm's, whichever thread asks */
			answer(sock, RES_OK, prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 0);
			continue;
		}
		if (m.kind == MSG_ABORT) {
			/* glibc's __nptl_setxid_error(): abort() when threads disagree */
			signal(SIGABRT, SIG_DFL);
			raise(SIGABRT);
			syscall(SYS_exit_group, 111);
		}
		if (m.kind == MSG_CMD)
			run(sock, thread, &m, fd);
		else if (fd >= 0)
			close(fd);
	}
}

static void puppet_main(int sock) __attribute__((noreturn));

static void puppet_main(int sock)
{
	/* an abort() (glibc's set*id disagreement) leaves no core file */
	struct rlimit no_core = { 0, 0 };

	setrlimit(RLIMIT_CORE, &no_core);
	say_hello(sock);
	serve(sock, false);
}

/* ========================= reading /proc ========================= */

struct proc_task {
	char state;			/* R, S, D, Z, X ... */
	uint32_t uid[4], gid[4];	/* real, effective, saved, fs */
	uint64_t cap_eff, cap_prm, cap_bnd;
	unsigned long flags;		/* field 9 of stat */
	unsigned long long starttime;	/* field 22: tells a reused pid apart */
	int exit_code;			/* field 52: a zombie's wait status (3.5+) */
	bool has_exit_code;
	bool no_new_privs;		/* NoNewPrivs (4.10+) */
};

/* A small /proc file whole, NUL-terminated: its length, or -1 */
static ssize_t read_small(const char *path, char *buf, size_t len)
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
static int read_task(pid_t pid, pid_t tid, struct proc_task *out)
{
	char path[64], status[4096], stat[1024];
	const char *f;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	if (read_small(path, stat, sizeof(stat)) <= 0 || parse_stat(stat, out) < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	if (read_small(path, status, sizeof(status)) <= 0)
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
static int read_nproc(pid_t pid, uint64_t *soft, uint64_t *hard)
{
	char path[64], buf[4096];
	const char *line;

	snprintf(path, sizeof(path), "/proc/%d/limits", (int)pid);
	if (read_small(path, buf, sizeof(buf)) <= 0 || !(line = strstr(buf, "Max processes")))
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
static int for_each_task(int (*fn)(pid_t, pid_t, const uint32_t *, void *), void *arg)
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
			if (read_small(path, status, sizeof(status)) <= 0 ||
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
static pid_t find_uid_in_range(uint32_t lo, uint32_t hi)
{
	struct range a = { .lo = lo, .hi = hi };

	if (for_each_task(range_one, &a) < 0)
		return -1;
	return a.found;
}

static void kill_uid_range(uint32_t lo, uint32_t hi)
{
	struct range a = { .lo = lo, .hi = hi, .kill = true };

	for_each_task(range_one, &a);
}

/* Every task of the machine, threads and zombies included; -1 if unknown */
static long count_all_tasks(void)
{
	struct range a = { .lo = 1, .hi = 0 };

	return for_each_task(range_one, &a) < 0 ? -1 : a.tasks;
}

/* ========================= the controller ========================= */

struct ktask {
	pid_t pid, tid;		/* thread-group id and task id */
	int sock;		/* the controller's end, or -1 */
	int pidfd;		/* a process's (5.3+), or -1 */
	bool created, alive, gone;
	bool tainted;		/* cannot be made here: its steps and checks are skipped */
	char why[240];
	bool hard_capped;	/* hard RLIMIT_NPROC lower here than the scenario says */
	bool exit_known;
	int exit_status;	/* a wait status */
	unsigned long long starttime;
	/* 5.14-5.16: the uid whose ucounts it is charged to, as far as /proc tells */
	bool ruid_seen, key_known;
	uint32_t last_ruid, key;
	/* a vfork() child: 1 + the task whose answer waits for its exec or exit; 0: none */
	int vfork_waiter;
	bool shares_mm;		/* a vfork() child that has not exec'd: its parent's memory */
};

static const struct kst_scenario *S;
static struct ktask *T;
static int pol = -1;		/* the policy checked: index into S->policies */
static const struct kst_era *era;	/* the running kernel's */
static char release[128];
static uint32_t base = DEFAULT_UID_BASE;
static uint64_t host_bnd, host_eff, host_beyond, host_nproc_hard;
static uint64_t bset;		/* what tasks start with: the scenario's, within the machine's */
static bool subreaper;
static bool window_ours;	/* checked empty: what is in it now is the test's to kill */
static int exe_fd = -1, filler_pipe[2] = { -1, -1 };
static char execdir[256];
static char nosuid_dir[300];	/* its nosuid tmpfs, once mounted */
static char (*file_why)[240];	/* per declared file: why it cannot be made here, or "" */
static bool *touched;		/* per user: a task that cannot be made here acts on it */
static long *counts;		/* per user, read once after each step */
static bool counts_valid;
static char diverged[400];	/* why nothing is checked from some step on */
static char charged_unknown[300];
static int cur_line;		/* the statement being run, for an interruption's message */

/* processes made outside the scenario's tasks (the users' `procs`) */
static pid_t *fillers;
static long nfillers;

static int npass, nfail, nskip, ntest;

static volatile sig_atomic_t stop_sig;
static bool tearing_down;

static void on_signal(int sig)
{
	if (!stop_sig)
		stop_sig = sig;
}

static void finish_stopped(void) __attribute__((noreturn));

/* An interruption or the test's timeout: clean up and end now */
static void check_stop(void)
{
	if (stop_sig && !tearing_down)
		finish_stopped();
}

static long elapsed_ms(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
}

static void nap_ms(long ms)
{
	struct timespec t = { ms / 1000, ms % 1000 * 1000000L };

	nanosleep(&t, NULL);
	check_stop();
}

/* poll() for up to @ms, in slices that notice an interruption: as poll() */
static int poll_slices(struct pollfd *p, int n, long ms)
{
	struct timespec start;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		int r;

		check_stop();
		r = poll(p, (nfds_t)n, 100);
		if (r > 0 || (r < 0 && errno != EINTR))
			return r;
		if (elapsed_ms(&start) >= ms) {
			errno = ETIMEDOUT;
			return 0;
		}
	}
}

/* One answer within ANSWER_TIMEOUT_MS: 1, 0 on EOF, -1 (ETIMEDOUT) */
static int recv_timed(int sock, struct msg *m, int *fd)
{
	struct pollfd p = { .fd = sock, .events = POLLIN };
	int n = poll_slices(&p, 1, ANSWER_TIMEOUT_MS);

	if (n == 0)
		errno = ETIMEDOUT;
	if (n <= 0)
		return -1;
	return recv_msg(sock, m, fd);
}

/* --- TAP --- */

/* Scenario text goes out as it is, but never as a control sequence or a second line */
static void put_safe(const char *s)
{
	for (; *s; s++)
		putchar((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s);
}

static void tap_result(bool ok, const struct kst_stmt *st, const char *expected,
		       const char *got)
{
	ntest++;
	if (ok) {
		npass++;
		printf("ok %d - %d: ", ntest, st->line);
		put_safe(st->text);
		putchar('\n');
		return;
	}
	nfail++;
	printf("not ok %d - ", ntest);
	put_safe(S->file);
	printf(":%d: ", st->line);
	put_safe(st->text);
	printf(": expected ");
	put_safe(expected);
	printf(", got ");
	put_safe(got);
	putchar('\n');
}

static void tap_skip(const struct kst_stmt *st, const char *why)
{
	ntest++;
	nskip++;
	printf("ok %d - %d: ", ntest, st->line);
	put_safe(st->text);
	printf(" # SKIP ");
	put_safe(why);
	putchar('\n');
}

/* --- capabilities by name, for messages --- */

static const char *const cap_names[CAP_LAST + 1] = {
	"chown", "dac_override", "dac_read_search", "fowner", "fsetid", "kill", "setgid",
	"setuid", "setpcap", "linux_immutable", "net_bind_service", "net_broadcast",
	"net_admin", "net_raw", "ipc_lock", "ipc_owner", "sys_module", "sys_rawio",
	"sys_chroot", "sys_ptrace", "sys_pacct", "sys_admin", "sys_boot", "sys_nice",
	"sys_resource", "sys_time", "sys_tty_config", "mknod", "lease", "audit_write",
	"audit_control", "setfcap", "mac_override", "mac_admin", "syslog", "wake_alarm",
	"block_suspend", "audit_read", "perfmon", "bpf", "checkpoint_restore",
};

static void cap_list(uint64_t set, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int c = 0; c <= CAP_LAST && used < len; c++)
		if (cap_has(set, c))
			used += (size_t)snprintf(buf + used, len - used, "%scap_%s", used ? "," : "",
						 cap_names[c]);
}

/* --- ids: the scenario's and the kernel's --- */

static const struct kst_id *id_entry(uint32_t id)
{
	for (int i = 0; i < S->nids; i++)
		if (S->ids[i].id == id)
			return &S->ids[i];
	return NULL;
}

/* A scenario id as a kernel id: 0 and -1 stay */
static uint32_t map_id(uint32_t id)
{
	const struct kst_id *e;

	if (id == 0 || id == KST_ID_NONE || !(e = id_entry(id)) || e->offset == 0)
		return id;
	return base + e->offset;
}

/* A kernel id as the scenario's (one outside the window stays as it is) */
static uint32_t unmap_id(uint32_t real)
{
	for (int i = 0; i < S->nids && real > base; i++)
		if (S->ids[i].offset && base + S->ids[i].offset == real)
			return S->ids[i].id;
	return real;
}

/* An id shown as the scenario names it: a user's or group's name, else its number */
static void render_id(uint32_t id, bool gid, char *buf, size_t len)
{
	const struct kst_id *e = id_entry(id);
	const char *name = e ? (gid ? e->gname : e->uname) : NULL;

	if (name)
		snprintf(buf, len, "%s", name);
	else if (id == KST_ID_NONE)
		snprintf(buf, len, "-1");
	else
		snprintf(buf, len, "%u", id);
}

static const char *const errno_names[] = {
	[EPERM] = "EPERM", [ENOENT] = "ENOENT", [ESRCH] = "ESRCH", [EINTR] = "EINTR",
	[EIO] = "EIO", [ENXIO] = "ENXIO", [E2BIG] = "E2BIG", [ENOEXEC] = "ENOEXEC",
	[EBADF] = "EBADF", [ECHILD] = "ECHILD", [EAGAIN] = "EAGAIN", [ENOMEM] = "ENOMEM",
	[EACCES] = "EACCES", [EFAULT] = "EFAULT", [ENOTBLK] = "ENOTBLK", [EBUSY] = "EBUSY",
	[EEXIST] = "EEXIST", [EXDEV] = "EXDEV", [ENODEV] = "ENODEV", [ENOTDIR] = "ENOTDIR",
	[EISDIR] = "EISDIR", [EINVAL] = "EINVAL", [ENFILE] = "ENFILE", [EMFILE] = "EMFILE",
	[ENOTTY] = "ENOTTY", [ETXTBSY] = "ETXTBSY", [EFBIG] = "EFBIG", [ENOSPC] = "ENOSPC",
	[ESPIPE] = "ESPIPE", [EROFS] = "EROFS", [EMLINK] = "EMLINK", [EPIPE] = "EPIPE",
	[EDOM] = "EDOM", [ERANGE] = "ERANGE", [EDEADLK] = "EDEADLK",
	[ENAMETOOLONG] = "ENAMETOOLONG", [ENOLCK] = "ENOLCK", [ENOSYS] = "ENOSYS",
	[ENOTEMPTY] = "ENOTEMPTY", [ELOOP] = "ELOOP", [ENOMSG] = "ENOMSG", [EIDRM] = "EIDRM",
	[ENOSTR] = "ENOSTR", [ENODATA] = "ENODATA", [ETIME] = "ETIME", [ENOSR] = "ENOSR",
	[EPROTO] = "EPROTO", [EBADMSG] = "EBADMSG", [EOVERFLOW] = "EOVERFLOW",
	[EILSEQ] = "EILSEQ", [EUSERS] = "EUSERS", [ENOTSOCK] = "ENOTSOCK",
	[EMSGSIZE] = "EMSGSIZE", [EOPNOTSUPP] = "EOPNOTSUPP", [ENOBUFS] = "ENOBUFS",
	[ETIMEDOUT] = "ETIMEDOUT", [ESTALE] = "ESTALE", [EDQUOT] = "EDQUOT",
	[ECANCELED] = "ECANCELED", [ENOKEY] = "ENOKEY", [EOWNERDEAD] = "EOWNERDEAD",
};

static const char *const signal_names[] = {
	[SIGHUP] = "SIGHUP", [SIGINT] = "SIGINT", [SIGQUIT] = "SIGQUIT", [SIGILL] = "SIGILL",
	[SIGTRAP] = "SIGTRAP", [SIGABRT] = "SIGABRT", [SIGBUS] = "SIGBUS", [SIGFPE] = "SIGFPE",
	[SIGKILL] = "SIGKILL", [SIGUSR1] = "SIGUSR1", [SIGSEGV] = "SIGSEGV",
	[SIGUSR2] = "SIGUSR2", [SIGPIPE] = "SIGPIPE", [SIGALRM] = "SIGALRM",
	[SIGTERM] = "SIGTERM", [SIGSTKFLT] = "SIGSTKFLT", [SIGCHLD] = "SIGCHLD",
	[SIGCONT] = "SIGCONT", [SIGSTOP] = "SIGSTOP", [SIGTSTP] = "SIGTSTP",
	[SIGTTIN] = "SIGTTIN", [SIGTTOU] = "SIGTTOU", [SIGURG] = "SIGURG", [SIGXCPU] = "SIGXCPU",
	[SIGXFSZ] = "SIGXFSZ", [SIGVTALRM] = "SIGVTALRM", [SIGPROF] = "SIGPROF",
	[SIGWINCH] = "SIGWINCH", [SIGIO] = "SIGIO", [SIGPWR] = "SIGPWR", [SIGSYS] = "SIGSYS",
};

static void render_signal(int sig, char *buf, size_t len)
{
	if (sig > 0 && sig < (int)(sizeof(signal_names) / sizeof(signal_names[0])) &&
	    signal_names[sig])
		snprintf(buf, len, "%s", signal_names[sig]);
	else
		snprintf(buf, len, "%d", sig);
}

static bool op_is_gid(enum kst_op op)
{
	return op >= KST_SETGID && op <= KST_SETGROUPS;
}

static void render_result(const struct kst_stmt *st, struct res r, char *buf, size_t len)
{
	char sig[32];

	switch (r.kind) {
	case RES_OK:
		snprintf(buf, len, "ok");
		return;
	case RES_ERRNO:
		if (r.value > 0 && r.value < (long)(sizeof(errno_names) / sizeof(errno_names[0])) &&
		    errno_names[r.value])
			snprintf(buf, len, "%s", errno_names[r.value]);
		else
			snprintf(buf, len, "errno %ld", r.value);
		return;
	case RES_ID:
		render_id((uint32_t)r.value, op_is_gid(st->op), buf, len);
		return;
	case RES_KILLED:
		render_signal((int)r.value, sig, sizeof(sig));
		snprintf(buf, len, "killed %s", sig);
		return;
	case RES_RUNNING:
		snprintf(buf, len, "running");
		return;
	case RES_DEAD:
		snprintf(buf, len, "dead");
		return;
	case RES_SKIP:
		snprintf(buf, len, "skipped");
		return;
	case RES_SUSPENDED:
		snprintf(buf, len, "suspended");
		return;
	}
}

/* --- the end: every process made is killed and reaped --- */

static unsigned long long start_time_of(pid_t pid)
{
	struct proc_task pt;

	return read_task(pid, pid, &pt) == 0 ? pt.starttime : 0;
}

/* Is @t's process (a leader) still there, and the one the test made? */
static bool still_there(const struct ktask *t)
{
	struct proc_task pt;

	return read_task(t->pid, t->pid, &pt) == 0 &&
	       (t->starttime == 0 || pt.starttime == t->starttime);
}

/*
 * Reap until no child is left: every puppet, filler and (as a subreaper,
 * 3.4+) orphan of the test ends up our child once its parent is gone.
 * The window is killed again now and then, in case a task forked after
 * the last sweep. 0, or -1 if some were still there after STOP_TIMEOUT_MS.
 */
static int reap_everything(void)
{
	for (int ms = 0; ms < STOP_TIMEOUT_MS; ) {
		pid_t pid = waitpid(-1, NULL, WNOHANG | __WALL);

		if (pid < 0 && errno == ECHILD)
			return 0;
		if (pid > 0)
			continue;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		if (++ms % 100 == 0 && window_ours)
			kill_uid_range(base, base + UID_WINDOW);
	}
	return -1;
}

/*
 * Before 3.4 there is no child subreaper: init reaps the orphans, whose
 * uid may be root's, outside the window. Wait until the window is empty
 * and each process whose start time was taken is gone (or its pid is
 * another process's). 0, or -1 after STOP_TIMEOUT_MS.
 */
static int await_init_reaped(void)
{
	for (int i = 0; i < STOP_TIMEOUT_MS / 2; i++) {
		bool left = window_ours && find_uid_in_range(base, base + UID_WINDOW) != 0;

		for (int k = 0; k < S->ntasks && !left; k++) {
			const struct ktask *t = &T[k];

			if (t->created && !t->gone && t->tid == t->pid && t->starttime &&
			    still_there(t)) {
				left = true;
				if (i % 50 == 0)
					kill(t->pid, SIGKILL);
			}
		}
		if (!left)
			return 0;
		if (i % 50 == 0 && window_ours)
			kill_uid_range(base, base + UID_WINDOW);
		nanosleep(&(struct timespec){ 0, 2000000 }, NULL);
	}
	return -1;
}

/*
 * The private directory and every file in it; its nosuid mount detached
 * first (MNT_DETACH: a task killed but not yet reaped may still hold a
 * file of it), never followed if it became a link
 */
static void remove_execdir(void)
{
	DIR *d;
	struct dirent *e;

	if (nosuid_dir[0]) {
		umount2(nosuid_dir, MNT_DETACH | UMOUNT_NOFOLLOW);
		rmdir(nosuid_dir);
		nosuid_dir[0] = '\0';
	}
	if (!execdir[0])
		return;
	if ((d = opendir(execdir))) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	rmdir(execdir);
	execdir[0] = '\0';
}

/* Everything made goes; 0, or -1 if something was still there at the end */
static int teardown(void)
{
	int rc = 0;

	tearing_down = true;
	for (int i = 0; T && i < S->ntasks; i++) {
		struct ktask *t = &T[i];

		/* a pid that init reaped and gave to another process is not killed */
		if (t->created && !t->gone && t->tid == t->pid && still_there(t))
			kill(t->pid, SIGKILL);
		if (t->sock >= 0)
			close(t->sock);
		if (t->pidfd >= 0)
			close(t->pidfd);
		t->sock = t->pidfd = -1;
	}
	for (long i = 0; i < nfillers; i++)
		kill(fillers[i], SIGKILL);
	for (int i = 0; i < 2; i++)
		if (filler_pipe[i] >= 0)
			close(filler_pipe[i]);
	filler_pipe[0] = filler_pipe[1] = -1;
	if (window_ours)
		kill_uid_range(base, base + UID_WINDOW);
	if (reap_everything() < 0 || (!subreaper && await_init_reaped() < 0) ||
	    (window_ours && find_uid_in_range(base, base + UID_WINDOW) != 0))
		rc = -1;
	remove_execdir();
	return rc;
}

static void finish_stopped(void)
{
	int sig = stop_sig;
	bool clean = teardown() == 0;

	fflush(stdout);
	if (sig == SIGALRM) {
		printf("Bail out! %s:%d: the test did not end within its timeout%s\n", S->file,
		       cur_line, clean ? "; every task of the test was killed and reaped" :
		       "; some of its tasks could not be reaped");
		fflush(stdout);
		exit(KSFT_FAIL);
	}
	printf("Bail out! interrupted by %s at %s:%d; %s\n", sig == SIGINT ? "SIGINT" :
	       sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "SIGQUIT", S->file,
	       cur_line, clean ? "every task of the test was killed and reaped" :
	       "some of its tasks could not be reaped");
	fflush(stdout);
	signal(sig, SIG_DFL);
	raise(sig);
	exit(KSFT_FAIL);
}

/* A set-up that cannot go on: clean up, say why, fail */
static void bail_out(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

static void bail_out(const char *fmt, ...)
{
	va_list ap;

	teardown();
	printf("Bail out! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	exit(KSFT_FAIL);
}

/* --- tasks going away --- */

static struct ktask *task_by_pid(pid_t pid)
{
	/* not gone: after an execve from a thread, the old leader's entry had this pid */
	for (int i = 0; i < S->ntasks; i++)
		if (T[i].created && !T[i].gone && T[i].pid == pid && T[i].tid == pid)
			return &T[i];
	return NULL;
}

static void mark_group_gone(pid_t tgid, bool keep_leader)
{
	for (int i = 0; i < S->ntasks; i++) {
		struct ktask *t = &T[i];

		if (!t->created || t->pid != tgid || t->gone || (keep_leader && t->tid == tgid))
			continue;
		t->alive = false;
		if (t->tid != tgid) {
			t->gone = true;		/* threads are released at once */
			if (t->sock >= 0)
				close(t->sock);
			t->sock = -1;
		}
	}
}

/* As init would: reap whatever became our child (top-level tasks, orphans) */
static void reap_children(void)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG | __WALL)) > 0) {
		struct ktask *t = task_by_pid(pid);

		if (!t)
			continue;	/* a filler */
		t->exit_known = true;
		t->exit_status = status;
		t->alive = false;
		t->gone = true;
		mark_group_gone(pid, false);
	}
}

/* Until @t's /proc entry is gone or, unless @want_gone, a zombie: 0, -1 on timeout */
static int wait_task_settled(const struct ktask *t, bool want_gone)
{
	struct timespec start;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		struct proc_task pt;

		if (read_task(t->pid, t->tid, &pt) < 0)
			return 0;
		if (!want_gone && (pt.state == 'Z' || pt.state == 'X'))
			return 0;
		if (elapsed_ms(&start) > ANSWER_TIMEOUT_MS)
			return -1;
		nap_ms(1);
	}
}

/*
 * Until a process has exited: a zombie whose other threads are released
 * (exit_notify() has reparented its children), or reaped. A pidfd polls
 * readable then (5.3+); before, /proc is asked. 0, or -1 on timeout.
 */
static int wait_process_exited(const struct ktask *t)
{
	struct timespec start;
	char path[64];

	if (t->pidfd >= 0) {
		struct pollfd p = { .fd = t->pidfd, .events = POLLIN };

		return poll_slices(&p, 1, ANSWER_TIMEOUT_MS) > 0 ? 0 : -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/task", (int)t->pid);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		DIR *d;
		struct dirent *e;
		int others = 0;

		if (wait_task_settled(t, false) < 0)
			return -1;
		if (!(d = opendir(path)))
			return 0;	/* reaped */
		while ((e = readdir(d)))
			if (e->d_name[0] != '.' && atoi(e->d_name) != t->pid)
				others++;
		closedir(d);
		if (others == 0)
			return 0;
		if (elapsed_ms(&start) > ANSWER_TIMEOUT_MS)
			return -1;
		nap_ms(1);
	}
}

/* --- what a step yields --- */

static char skip_why[400];

static struct res skip(const char *why)
{
	snprintf(skip_why, sizeof(skip_why), "%s", why);
	return (struct res){ RES_SKIP, 0 };
}

/* Nothing is checked from @st on: the steps still run, so the tasks stay as driven */
static struct res diverge(const struct kst_stmt *st, const char *why)
{
	if (!diverged[0])
		snprintf(diverged, sizeof(diverged), "%.300s (line %d); nothing is checked after it",
			 why, st->line);
	return skip(diverged);
}

/* The test lost a task it drives: errno says how */
static struct res broken(const char *what)
{
	char why[200];

	snprintf(why, sizeof(why), "the test lost its task: %s: %s", what, strerror(errno));
	return skip(why);
}

#define EXIT_UNKNOWABLE "how the process ended: this kernel's /proc/PID/stat has no exit " \
			"code (3.5+), and its parent is a task of the scenario, not the test"

/* A process died under a step: by which signal? */
static struct res died(struct ktask *t)
{
	struct proc_task pt;
	bool readable = false;
	int status = 0;

	if (wait_process_exited(t) < 0)
		return broken("a task that died did not exit");
	if (read_task(t->pid, t->pid, &pt) == 0 && pt.state == 'Z' && pt.has_exit_code) {
		status = pt.exit_code;
		readable = true;
	}
	reap_children();
	if (t->exit_known)
		status = t->exit_status;
	mark_group_gone(t->pid, true);
	t->alive = false;
	if (!readable && !t->exit_known)
		return skip(EXIT_UNKNOWABLE);
	if (WIFSIGNALED(status))
		return (struct res){ RES_KILLED, WTERMSIG(status) };
	return (struct res){ RES_DEAD, 0 };
}

static void taint(struct ktask *t, const char *why)
{
	char copy[sizeof(t->why)];

	snprintf(copy, sizeof(copy), "%s", why);	/* @why may be another task's */
	t->tainted = true;
	memcpy(t->why, copy, sizeof(copy));
}

/* ========================= setting up ========================= */

/* This process's bounding and effective sets, and its hard RLIMIT_NPROC */
static int probe_host(void)
{
	struct proc_task self;
	struct rlimit lim;

	if (read_task(getpid(), my_tid(), &self) < 0 || getrlimit(RLIMIT_NPROC, &lim) < 0)
		return -1;
	/* 3.0-3.15 show a full set as all 64 bits: the bits above the last named
	 * capability are kept apart, and given back to a root task as they are */
	host_bnd = self.cap_bnd & CAP_ALL;
	host_eff = self.cap_eff & CAP_ALL;
	host_beyond = self.cap_bnd & self.cap_prm & ~CAP_ALL;
	host_nproc_hard = lim.rlim_max == RLIM_INFINITY ? KST_UNLIMITED : lim.rlim_max;
	return 0;
}

/*
 * The window is the test's alone for its whole length: a flock(2) on the
 * aligned blocks it overlaps, the ones nprocguard's own real runs take,
 * then a scan of /proc for any task already using one of its uids.
 */
static void claim_window(void)
{
	uint32_t blocks[2] = { base / UID_WINDOW * UID_WINDOW,
			       (base + UID_WINDOW - 1) / UID_WINDOW * UID_WINDOW };
	pid_t busy;
	int dirfd;

	if ((mkdir(LOCK_DIR, 0755) < 0 && errno != EEXIST) ||
	    (dirfd = open(LOCK_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		printf("# no lock on the uid window: %s: %s\n", LOCK_DIR, strerror(errno));
	} else {
		for (int i = 0; i < 2 && (i == 0 || blocks[1] != blocks[0]); i++) {
			char name[64];
			int fd;

			snprintf(name, sizeof(name), "uid-window-%u.lock", blocks[i]);
			fd = openat(dirfd, name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
			if (fd < 0)
				bail_out("cannot open %s/%s: %s", LOCK_DIR, name, strerror(errno));
			if (flock(fd, LOCK_EX | LOCK_NB) < 0)
				bail_out("uids %u..%u are in use by another run (lock %s/%s): set "
					 "NPG_UID_BASE to another window", base, base + UID_WINDOW - 1,
					 LOCK_DIR, name);
			if (ftruncate(fd, 0) == 0)
				dprintf(fd, "%ld\n", (long)getpid());
			/* fd stays open: the lock lasts as long as this process */
		}
		close(dirfd);
	}
	busy = find_uid_in_range(base, base + UID_WINDOW);
	if (busy < 0)
		bail_out("cannot scan /proc: %s", strerror(errno));
	if (busy > 0)
		bail_out("pid %d already runs with a uid in %u..%u: set NPG_UID_BASE to an empty "
			 "window", (int)busy, base, base + UID_WINDOW - 1);
	window_ours = true;
}

/*
 * Refuse what the machine cannot hold before making any process: a large
 * `procs` could exhaust the machine's pids halfway. A tenth of each limit
 * (at least 64 tasks) stays for the rest of the machine.
 */
static void check_capacity(void)
{
	static const char *const limits[] = { "/proc/sys/kernel/threads-max",
					      "/proc/sys/kernel/pid_max" };
	long need = S->ntasks, used = count_all_tasks();
	char buf[64];

	for (int u = 0; u < S->nusers; u++)
		if (!S->users[u].group && S->users[u].id != 0)
			need += S->users[u].procs;
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]) && used >= 0; i++) {
		long limit, reserve;

		if (read_small(limits[i], buf, sizeof(buf)) <= 0)
			continue;
		limit = atol(buf);
		reserve = limit / 10 > 64 ? limit / 10 : 64;
		if (used + need + reserve > limit)
			bail_out("the scenario needs up to %ld tasks at once, but %s is %ld with %ld "
				 "in use", need, limits[i], limit, used);
	}
}

/*
 * Every directory from / down to @path is searchable by others: a task
 * running as a scenario uid must reach what it executes
 */
static bool reachable_by_all(const char *path)
{
	char prefix[256];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(prefix) || path[0] != '/')
		return false;
	for (size_t i = 1; i <= n; i++) {
		struct stat st;

		if (i < n && path[i] != '/')
			continue;
		memcpy(prefix, path, i);
		prefix[i] = '\0';
		if (stat(prefix, &st) < 0 || !S_ISDIR(st.st_mode) || !(st.st_mode & S_IXOTH))
			return false;
	}
	return true;
}

/* Where a declared file is: a nosuid one on the nosuid mount; a missing one is never made */
static void file_path(int file, char *buf, size_t len)
{
	const struct kst_file *f = &S->files[file - 1];

	snprintf(buf, len, "%.200s/%s%d", execdir, f->missing ? "missing-" :
		 f->nosuid ? "nosuid/file-" : "file-", file);
}

/*
 * security.capability as declared: VFS_CAP_REVISION_2, little-endian as
 * on disk (struct vfs_cap_data), the fE bit in the magic
 */
static int write_fcaps(int fd, const struct kst_file *f)
{
	uint32_t v[5] = {
		htole32(0x02000000u | (f->fcap_effective ? 0x000001u : 0)),
		htole32((uint32_t)f->fcap_permitted), htole32((uint32_t)f->fcap_inheritable),
		htole32((uint32_t)(f->fcap_permitted >> 32)),
		htole32((uint32_t)(f->fcap_inheritable >> 32)),
	};

	return fsetxattr(fd, "security.capability", v, sizeof(v), 0);
}

/*
 * A declared set-id or file-capability program: a copy of this program
 * (a puppet that executes it goes on as a puppet), owned by the mapped
 * owner and group, with S_ISUID/S_ISGID (S_IXGRP, which bprm_fill_uid()
 * wants for S_ISGID, is in 0755). Owner first, mode after: chown() clears
 * the set-id bits; the capabilities last.
 */
static int make_copy(const struct kst_file *f, const char *path)
{
	char buf[65536];
	off_t off = 0;
	ssize_t n;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700), err;

	if (fd < 0)
		return -1;
	while ((n = pread(exe_fd, buf, sizeof(buf), off)) > 0) {
		if (write(fd, buf, (size_t)n) != n)
			goto fail;
		off += n;
	}
	if (n < 0 || fchown(fd, f->setuid ? map_id(f->uid) : 0, f->setgid ? map_id(f->gid) : 0) < 0 ||
	    fchmod(fd, 0755 | (f->setuid ? S_ISUID : 0) | (f->setgid ? S_ISGID : 0)) < 0 ||
	    (f->has_fcaps && write_fcaps(fd, f) < 0))
		goto fail;
	return close(fd);
fail:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

/*
 * A tmpfs mounted nosuid for the files declared `nosuid` (mnt_may_suid()
 * is false there: no set-id bits, no file capabilities), in this mount
 * namespace, which is the tasks' too. 0, or -1 with why in @why.
 */
static int mount_nosuid(char *why, size_t len)
{
	char dir[sizeof(nosuid_dir)], opts[64];
	struct stat st;
	unsigned long long n = 0;

	for (int i = 0; i < S->nfiles; i++)
		n += S->files[i].nosuid && !S->files[i].missing;
	if (n == 0)
		return 0;
	if (fstat(exe_fd, &st) < 0) {
		snprintf(why, len, "fstat of /proc/self/exe: %s", strerror(errno));
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s/nosuid", execdir);
	snprintf(opts, sizeof(opts), "size=%llu,mode=0755",
		 n * (unsigned long long)st.st_size + (1u << 20));
	if (mkdir(dir, 0755) < 0) {
		snprintf(why, len, "mkdir %.100s: %s", dir, strerror(errno));
		return -1;
	}
	if (mount("npg-kselftest-nosuid", dir, "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0) {
		snprintf(why, len, "mount -t tmpfs -o nosuid,nodev: %s", strerror(errno));
		rmdir(dir);
		return -1;
	}
	memcpy(nosuid_dir, dir, sizeof(dir));
	return 0;
}

/*
 * The private directory for what the scenario executes by path: a path
 * declared missing is a name never made in it, so execve() of it fails
 * with ENOENT whatever this machine has at the path the scenario says;
 * the others are copies of this program. Root-owned, 0755, reachable by
 * every uid, on a file system that honours set-id bits and allows exec.
 * A file this machine cannot make (no security.* xattrs, no tmpfs) is not
 * run: the steps that execute it are skipped, saying why.
 */
static void make_execdir(void)
{
	const char *dirs[] = { getenv("TMPDIR"), "/tmp", "/var/tmp", "/dev/shm", "/" };
	char nosuid_why[160] = "";
	bool nosuid_ok;

	if (!(file_why = calloc((size_t)S->nfiles, sizeof(*file_why))))
		bail_out("out of memory");
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !execdir[0]; i++) {
		struct statvfs vfs;

		if (!dirs[i] || dirs[i][0] != '/' || strlen(dirs[i]) > 150 ||
		    !reachable_by_all(dirs[i]) || statvfs(dirs[i], &vfs) < 0 ||
		    (vfs.f_flag & (ST_NOSUID | ST_NOEXEC)))
			continue;
		snprintf(execdir, sizeof(execdir), "%s%snpg-kselftest.XXXXXX", dirs[i],
			 dirs[i][strlen(dirs[i]) - 1] == '/' ? "" : "/");
		if (!mkdtemp(execdir) || chmod(execdir, 0755) < 0)
			execdir[0] = '\0';
	}
	if (!execdir[0])
		bail_out("no directory for the scenario's programs: $TMPDIR, /tmp, /var/tmp, /dev/shm "
			 "and / are each missing, not searchable by every uid, or mounted nosuid or "
			 "noexec");
	nosuid_ok = mount_nosuid(nosuid_why, sizeof(nosuid_why)) == 0;
	for (int i = 0; i < S->nfiles; i++) {
		const struct kst_file *f = &S->files[i];
		char path[sizeof(execdir) + 64];

		if (f->missing)
			continue;
		if (f->nosuid && !nosuid_ok) {
			snprintf(file_why[i], sizeof(file_why[i]), "'%.60s' is on a nosuid file "
				 "system, and none can be mounted here (%.100s)", f->path, nosuid_why);
			continue;
		}
		file_path(i + 1, path, sizeof(path));
		if (make_copy(f, path) < 0) {
			/* a file system without security.* xattrs: this file, not the rest */
			if ((errno == ENOTSUP || errno == EOPNOTSUPP) && f->has_fcaps) {
				snprintf(file_why[i], sizeof(file_why[i]), "this file system cannot "
					 "hold the file capabilities of '%.60s' (security.capability: "
					 "%s)", f->path, strerror(errno));
				unlink(path);
				continue;
			}
			bail_out("making %s for '%s': %s", path, f->path, strerror(errno));
		}
	}
}

/*
 * A filler is a process of a user's that the scenario does not drive (its
 * `procs N`). It counts for the user only once its setresuid() has
 * happened, so each one acknowledges the switch on a pipe, and the test
 * starts only when all have. It then waits for the pipe to close.
 */
static void filler_main(uint32_t uid, int ack)
{
	char c = 'k';

	close(filler_pipe[1]);
	if (syscall(SYS_setresgid, uid, uid, uid) < 0 || syscall(SYS_setresuid, uid, uid, uid) < 0)
		c = 'e';
	if (write(ack, &c, 1) != 1 || c != 'k')
		_exit(111);
	close(ack);
	while (read(filler_pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

static void default_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM };

	alarm(0);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
}

static void spawn_fillers(void)
{
	long total = 0, acked = 0;
	int ack[2];

	for (int u = 0; u < S->nusers; u++)
		if (!S->users[u].group && S->users[u].id != 0)
			total += S->users[u].procs;
	if (total == 0)
		return;
	if (!(fillers = calloc((size_t)total, sizeof(*fillers))) || pipe2(ack, O_CLOEXEC) < 0 ||
	    pipe2(filler_pipe, O_CLOEXEC) < 0)
		bail_out("setting up the users' other processes: %s", strerror(errno));
	for (int u = 0; u < S->nusers; u++) {
		const struct kst_user *n = &S->users[u];

		for (long i = 0; !n->group && n->id != 0 && i < n->procs; i++) {
			pid_t pid;

			fflush(stdout);
			if ((pid = fork()) < 0) {
				close(ack[1]);
				bail_out("fork of process %ld of %ld of user '%s': %s", i + 1,
					 n->procs, n->name, strerror(errno));
			}
			if (pid == 0) {
				default_signals();
				close(ack[0]);
				filler_main(map_id(n->id), ack[1]);
			}
			fillers[nfillers++] = pid;
		}
	}
	close(ack[1]);
	while (acked < total) {
		struct pollfd p = { .fd = ack[0], .events = POLLIN };
		char buf[4096];
		ssize_t got;

		if (poll_slices(&p, 1, ANSWER_TIMEOUT_MS) <= 0)
			bail_out("%ld processes of the scenario's users did not switch their uid "
				 "within %d s", total - acked, ANSWER_TIMEOUT_MS / 1000);
		got = read(ack[0], buf, sizeof(buf) < (size_t)(total - acked) ? sizeof(buf) :
			   (size_t)(total - acked));
		if (got <= 0 || memchr(buf, 'e', (size_t)got))
			bail_out("a process of a scenario user could not switch its uid");
		acked += got;
	}
	close(ack[0]);
}

/*
 * Make the mm fs.suid_dumpable, whatever the set-up's set*id calls did
 * (commit_creds() does so when the fsgid changes): the fsgid goes to
 * another gid and back while CAP_SETGID is still held.
 */
static int suid_dumpable_now(uint32_t egid)
{
	syscall(SYS_setfsgid, egid ^ 1);
	syscall(SYS_setfsgid, egid);
	if ((uint32_t)syscall(SYS_setfsgid, egid) != egid) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

/*
 * An initial task as the scenario declares it, in the new process. The
 * real uid changes first and alone, the effective and saved ones after:
 * 5.14-5.16 charge a task to the effective uid it has when its real user
 * changes (set_cred_ucounts()), and a task declared `uid A euid B` is
 * charged to A, as a set-uid program started by A is. The uid switch
 * happens under the widest limit we may set, so that it cannot set
 * PF_NPROC_EXCEEDED (a declared task starts without it); the scenario's
 * limit comes after. Capabilities come last, within this machine's
 * bounding set.
 */
static int apply_initial(const struct kst_task *d, const struct rlimit *lim)
{
	gid_t groups[KST_NGROUPS];
	struct rlimit widest;
	uint64_t eff, prm, within = d->caps_explicit ? host_bnd : bset;

	for (int g = 0; g < d->ngroups; g++)
		groups[g] = map_id(d->groups[g]);
	/* `bounding LIST`: PR_CAPBSET_DROP while still root */
	for (int cap = 0; cap <= CAP_LAST; cap++)
		if (cap_has(host_bnd & ~bset, cap) && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0)
			return -1;
	widest.rlim_max = cap_has(host_eff, CAP_SYS_RESOURCE_BIT) ? RLIM_INFINITY :
			  (rlim_t)host_nproc_hard;
	widest.rlim_cur = widest.rlim_max;
	if (setrlimit(RLIMIT_NPROC, &widest) < 0 ||
	    syscall(SYS_setgroups, d->ngroups, groups) < 0 ||
	    syscall(SYS_setresgid, map_id(d->gid[0]), map_id(d->gid[1]), map_id(d->gid[2])) < 0 ||
	    prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_setresuid, map_id(d->uid[0]), map_id(d->uid[0]), map_id(d->uid[0])) < 0 ||
	    caps_set(host_eff | host_beyond, host_eff | host_beyond, 0) < 0 ||
	    syscall(SYS_setresuid, -1, map_id(d->uid[1]), map_id(d->uid[2])) < 0 ||
	    caps_set(host_eff | host_beyond, host_eff | host_beyond, 0) < 0 ||
	    setrlimit(RLIMIT_NPROC, lim) < 0 || suid_dumpable_now(map_id(d->gid[1])) < 0)
		return -1;
	/* a root task as an execve() makes it, with a 3.0-3.15 kernel's extra bits */
	eff = (d->cap_eff & within) | (!d->caps_explicit && d->cap_eff == bset ? host_beyond : 0);
	prm = (d->cap_prm & within) | (!d->caps_explicit && d->cap_prm == bset ? host_beyond : 0);
	if (caps_set(eff, prm, 0) < 0 || prctl(PR_SET_KEEPCAPS, d->keepcaps, 0, 0, 0) < 0)
		return -1;
	/* begin_new_exec(): SUID_DUMP_USER when the effective ids are the real ones */
	if (d->uid[1] == d->uid[0] && d->gid[1] == d->gid[0])
		return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	return 0;
}

/* Put @from at @to, kept across execve() (dup2() leaves no FD_CLOEXEC) */
static int move_fd(int from, int to)
{
	return from == to ? fcntl(to, F_SETFD, 0) : (dup2(from, to) < 0 ? -1 : 0);
}

static void spawn_initial(int idx)
{
	const struct kst_task *d = &S->tasks[idx];
	struct ktask *t = &T[idx];
	struct rlimit lim = { d->nproc_cur, d->nproc_max };
	char lack[200];
	struct msg m;
	int sv[2];
	pid_t pid;

	if (S->has_bounding && (S->bounding & ~host_bnd)) {
		char why[sizeof(t->why)];

		cap_list(S->bounding & ~host_bnd, lack, sizeof(lack));
		snprintf(why, sizeof(why), "the scenario's bounding set has %.150s, which this "
			 "machine's bounding set lacks", lack);
		taint(t, why);
	} else if (d->caps_explicit && (d->cap_prm & ~host_bnd)) {
		char why[sizeof(t->why)];

		cap_list(d->cap_prm & ~host_bnd, lack, sizeof(lack));
		snprintf(why, sizeof(why), "task '%.40s' needs %.100s, which this machine's "
			 "bounding set lacks", d->name, lack);
		taint(t, why);
	}
	/* RLIM_INFINITY needs CAP_SYS_RESOURCE to raise to: keep what we have */
	if (lim.rlim_max > host_nproc_hard && !cap_has(host_eff, CAP_SYS_RESOURCE_BIT)) {
		lim.rlim_max = host_nproc_hard;
		if (lim.rlim_cur > lim.rlim_max)
			lim.rlim_cur = lim.rlim_max;
		t->hard_capped = true;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		bail_out("socketpair: %s", strerror(errno));
	fflush(stdout);
	if ((pid = fork()) < 0)
		bail_out("fork: %s", strerror(errno));
	if (pid == 0) {
		struct msg fail = { .kind = MSG_RESULT, .result = RES_ERRNO };
		/* out of the way of descriptors 3 and 4 first */
		int exe = fcntl(exe_fd, F_DUPFD_CLOEXEC, 64), sock = fcntl(sv[1], F_DUPFD_CLOEXEC, 64);

		default_signals();
		if (exe < 0 || sock < 0 || move_fd(exe, EXE_FD) < 0 || move_fd(sock, SOCK_FD) < 0)
			_exit(111);
		close_from(SOCK_FD + 1);
		if (apply_initial(d, &lim) < 0) {
			fail.rvalue = errno;
			send_msg(SOCK_FD, &fail, -1);
			_exit(111);
		}
		puppet_main(SOCK_FD);
	}
	close(sv[1]);
	t->sock = sv[0];
	t->pid = t->tid = pid;
	t->starttime = start_time_of(pid);
	t->created = t->alive = true;
	t->ruid_seen = t->key_known = true;	/* the set-up changes the real uid alone first */
	t->last_ruid = t->key = map_id(d->uid[0]);
	t->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (recv_timed(t->sock, &m, NULL) <= 0 || m.kind != MSG_HELLO)
		bail_out("task '%s' could not be set up: %s", d->name,
			 m.kind == MSG_RESULT ? strerror((int)m.rvalue) : "no answer");
}

/*
 * What a task that cannot be made here would have done to another task --
 * made it, killed, reaped or limited it -- does not happen: that one is
 * skipped too, to a fixed point. And the count of every user whose id a
 * skipped task names is skipped, since the task would have changed it.
 */
static void mark_touched(void)
{
	for (bool grew = true; grew; ) {
		grew = false;
		for (int s = 0; s < S->nstmts; s++) {
			const struct kst_stmt *st = &S->stmts[s];

			if (st->check || st->target < 0 || !T[st->task].tainted ||
			    T[st->target].tainted)
				continue;
			taint(&T[st->target], T[st->task].why);
			grew = true;
		}
	}
	for (int i = 0; i < S->ntasks; i++) {
		const struct kst_task *d = &S->tasks[i];

		if (!T[i].tainted)
			continue;
		for (int u = 0; u < S->nusers; u++) {
			uint32_t id = S->users[u].id;
			bool names = d->uid[0] == id || d->uid[1] == id || d->uid[2] == id;

			for (int s = 0; s < S->nstmts && !names; s++) {
				const struct kst_stmt *st = &S->stmts[s];

				names = !st->check && st->task == i &&
					(st->id[0] == id || st->id[1] == id || st->id[2] == id ||
					 (st->op == KST_EXECVE && st->file > 0 &&
					  S->files[st->file - 1].setuid && S->files[st->file - 1].uid == id));
			}
			if (names)
				touched[u] = true;
		}
	}
}

/* ========================= steps ========================= */

static void build_cmd(const struct kst_stmt *st, pid_t target_pid, struct msg *m)
{
	memset(m, 0, sizeof(*m));
	m->kind = MSG_CMD;
	m->op = st->op;
	m->value = st->value;
	m->lim_cur = st->lim_cur;
	m->lim_max = st->lim_max;
	m->caps = st->caps;
	m->target_pid = target_pid;
	for (int k = 0; k < 3; k++)
		m->id[k] = map_id(st->id[k]);
	m->ngroups = st->ngroups;
	for (int g = 0; g < st->ngroups && g < KST_NGROUPS; g++)
		m->groups[g] = map_id(st->groups[g]);
	if (st->op == KST_EXECVE && st->file > 0)
		file_path(st->file, m->path, sizeof(m->path));
}

/*
 * Send @st to @t and take the answer into @m: false, with *@res what the
 * step yields, when there is none -- the socket closed (@dies died: the
 * process's leader for a call that can kill the whole process) or the
 * exchange broke.
 */
static bool ask(struct ktask *t, const struct kst_stmt *st, pid_t target, struct ktask *dies,
		struct msg *m, struct res *res)
{
	struct msg cmd;
	int got;

	build_cmd(st, target, &cmd);
	if (send_msg(t->sock, &cmd, -1) < 0) {
		*res = broken("send");
		return false;
	}
	got = recv_timed(t->sock, m, NULL);
	if (got == 0) {
		*res = died(dies);
		return false;
	}
	if (got < 0 || m->kind != MSG_RESULT) {
		*res = broken("answer");
		return false;
	}
	return true;
}

/*
 * After a vfork command: true once the child's socket has its hello, false
 * when the parent answered (the vfork failed, or the parent died: one that
 * succeeded answers only once its child has exec'd or exited) or neither
 * did in time (the next wait says so)
 */
static bool vfork_hello_first(int parent_sock, int child_sock)
{
	struct pollfd p[2] = { { .fd = child_sock, .events = POLLIN },
			       { .fd = parent_sock, .events = POLLIN } };

	return poll_slices(p, 2, ANSWER_TIMEOUT_MS) > 0 && (p[0].revents & POLLIN) &&
	       !(p[1].revents & (POLLIN | POLLHUP));
}

/* Is @t asleep in vfork() for a child that has neither exec'd nor exited? */
static bool vfork_waiting(const struct ktask *t)
{
	for (int i = 0; i < S->ntasks; i++)
		if (T[i].vfork_waiter == (int)(t - T) + 1)
			return true;
	return false;
}

/*
 * A vfork() child that has exec'd or exited released its parent
 * (complete_vfork_done()): the parent's answer to the vfork command is
 * on its socket, collected now -- the acknowledgement that it runs again.
 * A parent that died meanwhile sends none.
 */
static int collect_vfork_answers(void)
{
	for (int i = 0; i < S->ntasks; i++) {
		struct ktask *c = &T[i], *p;
		struct msg m;

		if (!c->vfork_waiter || (c->alive && c->shares_mm))
			continue;
		p = &T[c->vfork_waiter - 1];
		c->vfork_waiter = 0;
		if (!p->alive || p->sock < 0)
			continue;
		if (recv_timed(p->sock, &m, NULL) < 0 || m.kind != MSG_RESULT)
			return -1;
	}
	return 0;
}

/* fork, vfork, thread: the new task is a puppet, its socket passed along */
static struct res step_new_task(struct ktask *t, const struct kst_stmt *st)
{
	struct ktask *c = &T[st->target];
	struct msg cmd, m, hello;
	int sv[2], got;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return broken("socketpair");
	build_cmd(st, 0, &cmd);
	if (send_msg(t->sock, &cmd, sv[1]) < 0) {
		close(sv[0]), close(sv[1]);
		return broken("send");
	}
	close(sv[1]);
	/* vfork: the child's hello comes first; the parent's answer when it execs or exits */
	if (st->op == KST_VFORK && vfork_hello_first(t->sock, sv[0]))
		goto hello;
	got = recv_timed(t->sock, &m, NULL);
	if (got == 0) {
		close(sv[0]);
		return died(t);
	}
	if (got < 0 || m.kind != MSG_RESULT) {
		close(sv[0]);
		return broken(st->op == KST_THREAD ? "thread" : "fork");
	}
	if (m.result != RES_OK) {
		close(sv[0]);
		return (struct res){ (enum res_kind)m.result, (long)m.rvalue };
	}
hello:
	if (recv_timed(sv[0], &hello, NULL) <= 0 || hello.kind != MSG_HELLO) {
		close(sv[0]);
		return broken("hello from the new task");
	}
	c->sock = sv[0];
	c->pid = hello.pid;
	c->tid = hello.tid;
	c->created = c->alive = true;
	/* a new task shares or copies its creator's credentials, ucounts included */
	c->key_known = t->key_known;
	c->key = t->key;
	c->ruid_seen = t->ruid_seen;
	c->last_ruid = t->last_ruid;
	if (st->op == KST_VFORK) {
		c->vfork_waiter = (int)(t - T) + 1;
		c->shares_mm = true;
	}
	if (st->op == KST_FORK || st->op == KST_VFORK) {
		c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
		c->starttime = start_time_of(c->pid);
	}
	return (struct res){ RES_OK, 0 };
}

static struct res step_exit(struct ktask *t, const struct kst_stmt *st)
{
	struct msg cmd;

	build_cmd(st, 0, &cmd);
	if (send_msg(t->sock, &cmd, -1) < 0)
		return broken("send");
	if (t->tid != t->pid) {
		/* a thread leaves alone and is released at once */
		if (wait_task_settled(t, true) < 0)
			return broken("the thread did not exit");
		t->alive = false;
		t->gone = true;
		t->exit_known = true;
		t->exit_status = (st->value & 0xff) << 8;
		close(t->sock);
		t->sock = -1;
		return (struct res){ RES_OK, 0 };
	}
	if (wait_process_exited(t) < 0)
		return broken("the process did not exit");
	/* what exit_group() was asked; /proc says the same from 3.5 on */
	if (!t->exit_known) {
		struct proc_task pt;

		if (read_task(t->pid, t->pid, &pt) < 0 || !pt.has_exit_code) {
			t->exit_known = true;
			t->exit_status = (st->value & 0xff) << 8;
		}
	}
	t->alive = false;
	mark_group_gone(t->pid, true);
	reap_children();
	return (struct res){ RES_OK, 0 };
}

/*
 * A thread's execve succeeded: it now has the leader's pid (de_thread()),
 * and the old leader was released without a zombie; its pidfd (the
 * process's) is the thread's now.
 */
static void take_over_leader(struct ktask *t, const struct msg *hello)
{
	struct ktask *old = task_by_pid(t->pid);

	if (old && old != t) {
		old->alive = false;
		old->gone = true;
		if (old->sock >= 0)
			close(old->sock);
		old->sock = -1;
		t->pidfd = old->pidfd;
		old->pidfd = -1;
		t->starttime = old->starttime;	/* de_thread() keeps the leader's start time */
	}
	t->tid = hello->tid;
}

static struct res step_execve(struct ktask *t, const struct kst_stmt *st)
{
	struct msg cmd, m;
	int got;

	build_cmd(st, 0, &cmd);
	if (send_msg(t->sock, &cmd, -1) < 0)
		return broken("send");
	got = recv_timed(t->sock, &m, NULL);
	/*
	 * A set-id or file-capability copy is a secure exec (AT_SECURE): a
	 * runtime that refuses one ends the new image before its hello.
	 * Nothing else kills the task meanwhile, so that death is not the
	 * kernel's answer.
	 */
	if (got == 0 && st->file > 0 && !S->files[st->file - 1].missing) {
		died(t);
		return skip("the set-id or file-capability copy of this test did not start (its "
			    "runtime may refuse a secure exec)");
	}
	if (got == 0)
		return died(t);
	if (got < 0)
		return broken("execve");
	if (m.kind == MSG_RESULT)
		return (struct res){ (enum res_kind)m.result, (long)m.rvalue };
	/* the new image said hello: de_thread() took the other threads */
	t->shares_mm = false;
	if (t->tid != t->pid)
		take_over_leader(t, &m);
	mark_group_gone(t->pid, true);
	return (struct res){ RES_OK, 0 };
}

/*
 * kill: a fatal signal is acted on after the sender's kill() has
 * returned; the answer counts only once the target's process has exited,
 * so that what is read next is its death, not a race with it. A signal to
 * the caller's own process kills the caller.
 */
static struct res step_kill(struct ktask *t, const struct kst_stmt *st, pid_t target)
{
	struct ktask *tt = &T[st->target], *leader = task_by_pid(t->pid);
	struct msg m;
	struct res res;

	if (!ask(t, st, target, leader ? leader : t, &m, &res))
		return res;
	if (m.result == RES_OK && st->value != 0 && tt->alive && tt->pid == t->pid)
		return died(leader ? leader : t);
	if (m.result != RES_OK || st->value == 0 || !tt->alive)
		return (struct res){ (enum res_kind)m.result, (long)m.rvalue };
	if (wait_process_exited(tt) < 0)
		return broken("the process killed did not exit");
	tt->alive = false;
	mark_group_gone(tt->pid, true);
	reap_children();
	return (struct res){ RES_OK, 0 };
}

static bool live_thread_of(int i, pid_t pid)
{
	return T[i].created && T[i].alive && !T[i].gone && T[i].pid == pid;
}

/*
 * glibc's set*id in a threaded process (__nptl_setxid()): the raw call on
 * every thread -- the newest first, the main thread, the caller last --
 * one at a time, so that the counts each one meets are repeatable. A
 * thread whose result differs from an earlier one's makes glibc abort().
 */
static struct res step_glibc(struct ktask *t, const struct kst_stmt *st)
{
	struct ktask *leader = task_by_pid(t->pid);
	int caller = st->task, lead = leader ? (int)(leader - T) : caller, n = 0, first_error = -1;
	int *order = calloc((size_t)S->ntasks + 1, sizeof(*order));
	struct res res = { RES_OK, 0 };

	if (!order)
		return broken("out of memory");
	for (int i = S->ntasks - 1; i >= 0; i--)	/* tasks are numbered in creation order */
		if (i != caller && i != lead && live_thread_of(i, t->pid))
			order[n++] = i;
	if (caller != lead && live_thread_of(lead, t->pid))
		order[n++] = lead;
	order[n++] = caller;
	for (int k = 0; k < n; k++) {
		struct msg m;
		int error;

		if (!ask(&T[order[k]], st, 0, leader ? leader : t, &m, &res)) {
			free(order);
			return res;
		}
		res = (struct res){ (enum res_kind)m.result, (long)m.rvalue };
		error = m.result == RES_ERRNO ? (int)m.rvalue : 0;
		if (first_error >= 0 && error != first_error) {
			struct msg abort_msg = { .kind = MSG_ABORT };

			free(order);
			if (send_msg(t->sock, &abort_msg, -1) < 0)
				return broken("send");
			recv_timed(t->sock, &m, NULL);	/* its death, not an answer */
			return died(leader ? leader : t);
		}
		first_error = error;
	}
	free(order);
	return res;
}

#define ROOT_COUNT_SET_USER "5.14-5.16 set_user() compares the caller's old count, root's " \
	"here, which includes the machine's own processes (the caller lacks CAP_SYS_RESOURCE " \
	"and CAP_SYS_ADMIN)"
#define ROOT_COUNT_FORK "5.14-5.16 copy_process() compares the count of root's ucounts, " \
	"which this task is charged to (its real uid changed while its effective uid was 0) " \
	"and which includes the machine's own processes"
#define ROOT_COUNT_EXECVE "5.14-5.16 execve() of a task whose flag is set compares the " \
	"count of root's ucounts, which this task is charged to (its real uid changed while " \
	"its effective uid was 0) and which includes the machine's own processes"

/*
 * 5.14-5.16 compare root's count -- every root process of this machine --
 * where a task is charged to root's ucounts or set_user() reads the
 * caller's old ones: what the kernel then decides cannot be known here,
 * and nothing is checked after it.
 */
static const char *decision_on_roots_count(const struct ktask *t, const struct kst_stmt *st)
{
	struct proc_task pt;
	uint32_t ruid = st->id[0];
	bool capable;

	if (!era || !era->ucounts_by_euid || t->tainted || !t->alive || !t->created ||
	    read_task(t->pid, t->tid, &pt) < 0)
		return NULL;
	capable = cap_has(pt.cap_eff, CAP_SYS_RESOURCE_BIT) || cap_has(pt.cap_eff, CAP_SYS_ADMIN_BIT);
	if (st->op == KST_FORK || st->op == KST_THREAD || st->op == KST_VFORK)
		return t->key_known && t->key == 0 && pt.uid[0] != 0 && !capable ?
		       ROOT_COUNT_FORK : NULL;
	if (st->op == KST_EXECVE)
		return t->key_known && t->key == 0 && (pt.flags & PF_NPROC_EXCEEDED) ?
		       ROOT_COUNT_EXECVE : NULL;
	if (st->op != KST_SETUID && st->op != KST_SETREUID && st->op != KST_SETRESUID)
		return NULL;
	if (ruid == KST_ID_NONE || ruid == 0)
		return NULL;
	/* only root's count is out of reach: whoever else t is charged to, counts agree */
	if (map_id(ruid) == pt.uid[0] || (t->key_known && t->key != 0))
		return NULL;
	return capable ? NULL : ROOT_COUNT_SET_USER;
}

static struct res step_run(const struct kst_stmt *st)
{
	struct ktask *t = &T[st->task];
	pid_t target = 0;
	struct msg m;
	struct res res;

	counts_valid = false;
	if (t->tainted)
		return skip(t->why);
	if (!t->alive)
		return (struct res){ RES_DEAD, 0 };
	/* wait_for_vfork_done(): no call until the child execs or exits (glibc's set*id waits) */
	if (vfork_waiting(t))
		return (struct res){ RES_SUSPENDED, 0 };
	for (int i = 0; st->glibc && i < S->ntasks; i++)
		if (live_thread_of(i, t->pid) && vfork_waiting(&T[i]))
			return (struct res){ RES_SUSPENDED, 0 };
	if (t->shares_mm && (st->glibc || st->op == KST_FORK || st->op == KST_VFORK ||
			     st->op == KST_THREAD))
		return skip("a vfork() child whose execve failed still shares its parent's memory: "
			    "a puppet cannot create tasks there");
	if (st->target >= 0 && st->op != KST_FORK && st->op != KST_THREAD && st->op != KST_VFORK) {
		struct ktask *tt = &T[st->target];

		if (tt->tainted)
			return skip(tt->why);
		/* a pid that cannot exist: the kernel answers ECHILD / ESRCH */
		target = tt->created && !tt->gone ? tt->tid : INT_MAX;
		if (st->op == KST_SETRLIMIT)
			target = 0;
		if (st->op != KST_WAIT && tt->hard_capped &&
		    (st->lim_max > host_nproc_hard || st->lim_cur > host_nproc_hard))
			return skip("the scenario's hard RLIMIT_NPROC is above this process's, and "
				    "CAP_SYS_RESOURCE is not held here");
	}
	if (st->glibc)
		return step_glibc(t, st);
	switch (st->op) {
	case KST_FORK:
	case KST_VFORK:
	case KST_THREAD:
		return step_new_task(t, st);
	case KST_EXIT:
		return step_exit(t, st);
	case KST_EXECVE:
		/* the program is not there, and what follows may depend on it in any
		 * task: nothing after it is checked */
		if (st->file > 0 && file_why[st->file - 1][0])
			return diverge(st, file_why[st->file - 1]);
		return step_execve(t, st);
	case KST_KILL:
		return step_kill(t, st, target);
	default:
		break;
	}
	if (!ask(t, st, target, t, &m, &res))
		return res;
	if (st->op == KST_WAIT && m.result == RES_OK) {
		struct ktask *child = &T[st->target];

		child->gone = true;
		child->exit_known = true;
		child->exit_status = m.wait_status;
	}
	if (m.result == RES_ID)
		m.rvalue = unmap_id((uint32_t)m.rvalue);
	return (struct res){ (enum res_kind)m.result, (long)m.rvalue };
}

static struct res step(const struct kst_stmt *st)
{
	const char *unknowable = diverged[0] ? NULL : decision_on_roots_count(&T[st->task], st);
	struct res res = step_run(st);

	if (collect_vfork_answers() < 0)
		res = broken("the answer of a parent its vfork() child released");
	if (diverged[0] && res.kind != RES_SKIP)
		return skip(diverged);
	if (!unknowable || res.kind == RES_SKIP)
		return res;
	return diverge(st, unknowable);
}

/* ========================= checks ========================= */

enum state { ABSENT, RUNNING, ZOMBIE, REAPED };

struct view {
	enum state state;
	uint32_t uid[4], gid[4];	/* as the scenario names them */
	uint64_t cap_eff;
	bool flag, no_new_privs;
	uint64_t nproc_cur, nproc_max;
	int exit_code, exit_signal;
};

/*
 * What a task looks like now, from /proc. Also follows, for 5.14-5.16,
 * the uid its ucounts are keyed on: set_cred_ucounts() takes the
 * effective uid when the real user changes, which /proc does not show.
 */
static void view(int task, struct view *out)
{
	struct ktask *t = &T[task];
	struct proc_task pt;

	memset(out, 0, sizeof(*out));
	out->state = ABSENT;
	if (!t->created)
		return;
	if (t->gone || read_task(t->pid, t->tid, &pt) < 0) {
		out->state = REAPED;
	} else {
		out->state = pt.state == 'Z' || pt.state == 'X' ? ZOMBIE : RUNNING;
		if (out->state == ZOMBIE && !t->exit_known && t->tid == t->pid && pt.has_exit_code) {
			t->exit_known = true;
			t->exit_status = pt.exit_code;
		}
		for (int i = 0; i < 4; i++) {
			out->uid[i] = unmap_id(pt.uid[i]);
			out->gid[i] = unmap_id(pt.gid[i]);
		}
		out->cap_eff = pt.cap_eff & CAP_ALL;
		out->flag = (pt.flags & PF_NPROC_EXCEEDED) != 0;
		out->no_new_privs = pt.no_new_privs;
		if (era && era->ucounts_by_euid && !charged_unknown[0] && pt.uid[0] != pt.uid[1] &&
		    (!t->ruid_seen || t->last_ruid != pt.uid[0]))
			snprintf(charged_unknown, sizeof(charged_unknown), "5.14-5.16 charge a task "
				 "to its effective uid at its last real uid change "
				 "(set_cred_ucounts()), which /proc does not show: '%.40s' has real "
				 "uid %u, effective %u", S->tasks[task].name, unmap_id(pt.uid[0]),
				 unmap_id(pt.uid[1]));
		if (t->ruid_seen && t->last_ruid != pt.uid[0]) {
			t->key = pt.uid[1];
			t->key_known = true;
		}
		t->ruid_seen = true;
		t->last_ruid = pt.uid[0];
		read_nproc(t->pid, &out->nproc_cur, &out->nproc_max);
	}
	if (t->exit_known) {
		if (WIFSIGNALED(t->exit_status))
			out->exit_signal = WTERMSIG(t->exit_status);
		else
			out->exit_code = WEXITSTATUS(t->exit_status);
	}
}

static int count_one(pid_t pid, pid_t tid, const uint32_t *ids, void *arg)
{
	(void)pid, (void)tid, (void)arg;
	for (int u = 0; u < S->nusers; u++)
		if (!S->users[u].group && map_id(S->users[u].id) == ids[0])
			counts[u]++;
	return 0;
}

/* A user's count: the tasks of the machine whose real uid is its (threads, zombies) */
static long count_of(uint32_t user)
{
	if (!counts_valid) {
		memset(counts, 0, (size_t)S->nusers * sizeof(*counts));
		if (for_each_task(count_one, NULL) < 0)
			return -1;
		counts_valid = true;
	}
	for (int u = 0; u < S->nusers; u++)
		if (!S->users[u].group && S->users[u].id == user)
			return counts[u];
	return 0;
}

/*
 * PR_GET_DUMPABLE of @task's memory, asked of a thread of its process or
 * of a vfork() child still in that memory -- one that can answer now: not
 * asleep in vfork(). -1 if none does.
 */
static int ask_dumpable(int task)
{
	for (int i = 0; i < S->ntasks; i++) {
		struct ktask *x = &T[i];
		struct msg m = { .kind = MSG_DUMPABLE };
		bool same_mm = x->pid == T[task].pid ||
			       (x->shares_mm && x->vfork_waiter &&
				T[x->vfork_waiter - 1].pid == T[task].pid);

		if (!x->created || x->gone || !x->alive || x->sock < 0 || x->tainted || !same_mm ||
		    vfork_waiting(x))
			continue;
		if (send_msg(x->sock, &m, -1) == 0 && recv_timed(x->sock, &m, NULL) > 0 &&
		    m.kind == MSG_RESULT && m.result == RES_OK)
			return (int)m.rvalue;
	}
	return -1;
}

static void render_limit(uint64_t v, char *buf, size_t len)
{
	if (v == KST_UNLIMITED)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
}

static const char *const state_names[] = { "absent", "running", "zombie", "reaped" };

/* What check @st reads, in the form expectations take; false (skip_why) if it cannot be read */
static bool observe_check(const struct kst_stmt *st, char *buf, size_t len)
{
	struct ktask *t = st->task >= 0 ? &T[st->task] : NULL;
	char a[64], b[64], c[64];
	struct view v;

	if (diverged[0]) {
		skip(diverged);
		return false;
	}
	if (st->what == KST_COUNT) {
		long n;

		if (charged_unknown[0]) {
			skip(charged_unknown);
			return false;
		}
		if (st->user == 0) {
			skip("root's count here includes the machine's own processes");
			return false;
		}
		for (int u = 0; u < S->nusers; u++)
			if (S->users[u].id == st->user && touched[u]) {
				skip("a task that cannot be made here acts on this user");
				return false;
			}
		if ((n = count_of(st->user)) < 0) {
			skip("/proc cannot be read");
			return false;
		}
		snprintf(buf, len, "%ld", n);
		return true;
	}
	if (t->tainted) {
		skip(t->why);
		return false;
	}
	view(st->task, &v);
	if (st->what == KST_NPROC && t->hard_capped) {
		skip("hard RLIMIT_NPROC is capped here");
		return false;
	}
	switch (st->what) {
	case KST_COUNT:
		break;
	case KST_UIDS:
	case KST_GIDS: {
		const uint32_t *ids = st->what == KST_UIDS ? v.uid : v.gid;

		render_id(ids[0], st->what == KST_GIDS, a, sizeof(a));
		render_id(ids[1], st->what == KST_GIDS, b, sizeof(b));
		render_id(ids[2], st->what == KST_GIDS, c, sizeof(c));
		snprintf(buf, len, "%s %s %s", a, b, c);
		break;
	}
	case KST_RUID:
	case KST_EUID:
	case KST_SUID:
	case KST_FSUID:
		render_id(v.uid[st->what - KST_RUID], false, buf, len);
		break;
	case KST_FLAG:
		snprintf(buf, len, "%s", v.flag ? "set" : "clear");
		break;
	case KST_STATE:
		snprintf(buf, len, "%s", state_names[v.state]);
		break;
	case KST_EXIT_STATUS:
		if (v.state != ZOMBIE && v.state != REAPED) {
			snprintf(buf, len, "none");
		} else if (v.state == ZOMBIE && !t->exit_known) {
			skip(EXIT_UNKNOWABLE);	/* before 3.5 only its parent learns it */
			return false;
		} else if (v.exit_signal) {
			render_signal(v.exit_signal, a, sizeof(a));
			snprintf(buf, len, "killed %s", a);
		} else {
			snprintf(buf, len, "exited %d", v.exit_code);
		}
		break;
	case KST_CAP:
		snprintf(buf, len, "%s", cap_has(v.cap_eff, st->cap) ? "yes" : "no");
		break;
	case KST_NPROC:
		render_limit(v.nproc_cur, a, sizeof(a));
		render_limit(v.nproc_max, b, sizeof(b));
		snprintf(buf, len, "%s %s", a, b);
		break;
	case KST_NNP:
		snprintf(buf, len, "%s", v.no_new_privs ? "yes" : "no");
		break;
	case KST_DUMPABLE_CHECK: {
		int d;

		/* an exited task has no mm, so no dumpability */
		if (v.state != RUNNING || !t->alive) {
			snprintf(buf, len, "none");
			break;
		}
		if ((d = ask_dumpable(st->task)) < 0) {
			skip("no thread of the process answered PR_GET_DUMPABLE");
			return false;
		}
		snprintf(buf, len, "%d", d);
		break;
	}
	}
	return true;
}

/* ========================= the test ========================= */

/* The policy of kernel release @rel's era, as nprocguard conform picks it: its index, or -1 */
static int policy_of_release(const char *rel)
{
	int major = 0, minor = 0, found = -1;

	if (sscanf(rel, "%d.%d", &major, &minor) != 2)
		return -1;
	era = NULL;
	for (int i = 0; i < S->neras; i++)
		if (major > S->eras[i].major ||
		    (major == S->eras[i].major && minor >= S->eras[i].minor))
			era = &S->eras[i];
	for (int i = 0; era && i < S->npolicies; i++)
		if (strcmp(S->policies[i], era->policy) == 0)
			found = i;
	return found;
}

static void usage(const char *prog)
{
	printf("Usage: %s [-u BASE]\n\n"
	       "The kselftest of %s, exported by nprocguard: run as root.\n"
	       " -u BASE  scenario uids are BASE+1 ... (default $NPG_UID_BASE, else %u);\n"
	       "          uids BASE..BASE+%d must be unused\n"
	       "Environment: NPG_KSELFTEST_TIMEOUT (seconds, default %d).\n"
	       "Exit status: 0 pass, 1 fail, 4 skip.\n", prog, S->file, DEFAULT_UID_BASE,
	       UID_WINDOW - 1, DEFAULT_TIMEOUT_S);
}

static bool parse_base(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v + UID_WINDOW >= KST_ID_NONE)
		return false;
	base = (uint32_t)v;
	return true;
}

/* Descriptors 0-2 exist before any socket or pipe is made */
static void ensure_std_fds(void)
{
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) != fd)
			exit(KSFT_FAIL);
}

static void catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM };
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART: waits see EINTR */

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* Exit with the kselftest status after the last line; nothing is left behind */
static int finish(void)
{
	if (teardown() < 0) {
		printf("Bail out! processes with uids %u..%u were still there %d s after the "
		       "test\n", base, base + UID_WINDOW - 1, STOP_TIMEOUT_MS / 1000);
		fflush(stdout);
		return KSFT_FAIL;
	}
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n", npass, nfail, nskip);
	if (fflush(stdout) != 0 || ferror(stdout))
		return KSFT_FAIL;
	return nfail ? KSFT_FAIL : npass == 0 && nskip > 0 ? KSFT_SKIP : KSFT_PASS;
}

static void run_statement(const struct kst_stmt *st, long delay_ms)
{
	const char *want = pol >= 0 ? st->expect[pol] : NULL;
	char got[256];
	bool observed;

	cur_line = st->line;
	if (delay_ms > 0)
		nap_ms(delay_ms);
	check_stop();
	if (st->check) {
		observed = observe_check(st, got, sizeof(got));
	} else {
		struct res r = step(st);
		struct view ignored;

		observed = r.kind != RES_SKIP;
		render_result(st, r, got, sizeof(got));
		/* as nprocguard observes the actor after every statement (5.14's key) */
		if (T[st->task].created && !T[st->task].tainted)
			view(st->task, &ignored);
	}
	if (want && !observed)
		tap_skip(st, skip_why);
	else if (want)
		tap_result(strcmp(want, got) == 0, st, want, got);
	else if (observed)
		printf("# %d: %s => %s (%s expects nothing here)\n", st->line, st->text, got,
		       S->policies[pol]);
	else
		printf("# %d: %s: skipped: %s\n", st->line, st->text, skip_why);
	fflush(stdout);
}

int kst_main(const struct kst_scenario *sc, int argc, char **argv)
{
	const char *env_base = getenv("NPG_UID_BASE"), *env;
	long timeout = DEFAULT_TIMEOUT_S, delay_ms = 0;
	struct utsname u;
	int plan = 0, opt;

	if (argc == 2 && strcmp(argv[1], PUPPET_ARG) == 0)
		puppet_main(SOCK_FD);
	S = sc;
	ensure_std_fds();
	if (env_base && !parse_base(env_base)) {
		fprintf(stderr, "%s: bad NPG_UID_BASE '%s'\n", argv[0], env_base);
		return KSFT_FAIL;
	}
	while ((opt = getopt(argc, argv, "hu:")) != -1) {
		if (opt == 'h') {
			usage(argv[0]);
			return KSFT_PASS;
		}
		if (opt != 'u' || !parse_base(optarg)) {
			usage(argv[0]);
			return KSFT_FAIL;
		}
	}
	if ((env = getenv("NPG_KSELFTEST_TIMEOUT")) && atol(env) > 0)
		timeout = atol(env);
	/* tests of the exporter only: a pause before each statement */
	if ((env = getenv("NPG_KSELFTEST_DELAY_MS")) && atol(env) > 0)
		delay_ms = atol(env);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n# ");
	put_safe(S->file);
	if (S->title) {
		printf(": ");
		put_safe(S->title);
	}
	putchar('\n');
	if (S->source) {
		printf("# source: ");
		put_safe(S->source);
		putchar('\n');
	}
	snprintf(release, sizeof(release), "%s", uname(&u) == 0 ? u.release : "unknown");
	if (S->fixed) {
		pol = 0;
		policy_of_release(release);	/* the era, for what /proc cannot tell on 5.14-5.16 */
		printf("# kernel %s; expectations of policy %s (exported with --policy)\n", release,
		       S->policies[0]);
	} else if ((pol = policy_of_release(release)) >= 0) {
		printf("# kernel %s; expectations of policy %s, this kernel's era\n", release,
		       S->policies[pol]);
	} else {
		printf("1..0 # SKIP no policy of nprocguard models kernel %s\n", release);
		return KSFT_SKIP;
	}
	if (!S->in_file[pol]) {
		printf("1..0 # SKIP the scenario's policies leave out %s: it expects nothing of "
		       "it\n", S->policies[pol]);
		return KSFT_SKIP;
	}
	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root: it makes processes of other users and sets their "
		       "credentials\n");
		return KSFT_SKIP;
	}
	if (!(T = calloc((size_t)S->ntasks + 1, sizeof(*T))) ||
	    !(touched = calloc((size_t)S->nusers + 1, sizeof(*touched))) ||
	    !(counts = calloc((size_t)S->nusers + 1, sizeof(*counts)))) {
		printf("Bail out! out of memory\n");
		return KSFT_FAIL;
	}
	for (int i = 0; i < S->ntasks; i++)
		T[i].sock = T[i].pidfd = -1;
	if (probe_host() < 0) {
		printf("Bail out! cannot read this process's state from /proc: %s\n", strerror(errno));
		return KSFT_FAIL;
	}
	bset = (S->has_bounding ? S->bounding : host_bnd) & host_bnd;
	catch_signals();
	alarm((unsigned)timeout);
	printf("# uids %u..%u; every process of the test is killed and reaped at its end\n",
	       base + 1, base + UID_WINDOW - 1);
	claim_window();
	check_capacity();
	/*
	 * Orphans come to us, as to init, so that we reap them at once.
	 * Before 3.4 there is no child subreaper (EINVAL): they go to init,
	 * and the end waits for the window to empty instead.
	 */
	subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
	if ((exe_fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)) < 0)
		bail_out("opening /proc/self/exe: %s", strerror(errno));
	if (S->nfiles > 0)
		make_execdir();
	spawn_fillers();
	for (int i = 0; i < S->ntasks; i++)
		if (S->tasks[i].initial)
			spawn_initial(i);
	mark_touched();
	for (int s = 0; s < S->nstmts; s++)
		plan += S->stmts[s].expect[pol] != NULL;
	printf("1..%d\n", plan);
	for (int s = 0; s < S->nstmts; s++)
		run_statement(&S->stmts[s], delay_ms);
	cur_line = 0;
	alarm(0);
	return finish();
}
