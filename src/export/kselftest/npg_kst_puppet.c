/*
 * The puppets: each scenario task is a process or thread that runs the
 * system calls the controller sends it, raw (no glibc wrapper broadcasts
 * set*id to the other threads), and answers what they returned.
 */
#include "npg_kst.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

static void answer(int sock, enum res_kind kind, long value, int wait_status)
{
	struct msg m = { .kind = MSG_RESULT, .result = kind, .rvalue = value,
			 .wait_status = wait_status };

	if (kst_send_msg(sock, &m, -1) < 0)
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
	struct msg m = { .kind = MSG_HELLO, .pid = getpid(), .tid = kst_my_tid() };

	if (kst_send_msg(sock, &m, -1) < 0)
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
		kst_close_from(SOCK_FD + 1);
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
	kst_close_from(SOCK_FD + 1);
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
	snprintf(fdpath, sizeof(fdpath), "/proc/%d/task/%d/fd/%d", (int)getpid(), (int)kst_my_tid(),
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

	if (kst_caps_get(&eff, &prm, &inh) < 0) {
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
	answer_syscall(sock, kst_caps_set(eff, prm, inh));
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
		int fd, r = kst_recv_msg(sock, &m, &fd);

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


void kst_puppet_main(int sock)
{
	/* an abort() (glibc's set*id disagreement) leaves no core file */
	struct rlimit no_core = { 0, 0 };

	setrlimit(RLIMIT_CORE, &no_core);
	say_hello(sock);
	serve(sock, false);
}
