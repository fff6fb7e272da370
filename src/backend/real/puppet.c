/*
 * A puppet is one scenario task made real: a process (or a thread of one)
 * that performs the system calls its controller sends, raw, on itself, and
 * reports what they returned. Everything observed about it afterwards is
 * read from /proc by the controller, not reported by the puppet.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <linux/capability.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/real/tracer.h"
#include "backend/real/wire.h"

/*
 * Tests only: NPG_PUPPET_DELAY_MS makes every puppet and filler wait that
 * long before each effect it was asked for, so that a controller which
 * observes before the effect is acknowledged gets caught.
 */
void npg_puppet_test_delay(void)
{
	static long ms = -1;

	if (ms < 0) {
		const char *v = getenv("NPG_PUPPET_DELAY_MS");

		ms = v ? strtol(v, NULL, 10) : 0;
		if (ms < 0 || ms > 10000)
			ms = 0;
	}
	if (ms > 0) {
		struct timespec t = { ms / 1000, ms % 1000 * 1000000L };

		nanosleep(&t, NULL);
	}
}

/* Close every descriptor from @first up; kernels before 5.9 lack close_range() */
void npg_close_from(int first)
{
	struct rlimit lim;

	if (syscall(SYS_close_range, (unsigned)first, ~0U, 0U) == 0)
		return;
	if (getrlimit(RLIMIT_NOFILE, &lim) < 0 || lim.rlim_cur > 65536)
		lim.rlim_cur = 65536;
	for (int fd = first; fd < (int)lim.rlim_cur; fd++)
		close(fd);
}

static void send_result(int sock, enum npg_result_kind kind, long value, int wait_status)
{
	struct npg_wire_msg m = { .kind = NPG_WIRE_RESULT, .result = kind, .value = value,
				  .wait_status = wait_status };

	if (npg_wire_send(sock, &m, -1) < 0)
		_exit(111);
}

/* A raw system call's return: 0/-1 with errno. */
static void send_syscall(int sock, long r)
{
	if (r < 0)
		send_result(sock, NPG_R_ERRNO, errno, 0);
	else
		send_result(sock, NPG_R_OK, 0, 0);
}

static void say_hello(int sock)
{
	struct npg_wire_msg m = { .kind = NPG_WIRE_HELLO, .pid = getpid(), .tid = gettid() };

	if (npg_wire_send(sock, &m, -1) < 0)
		_exit(111);
}

static void serve(int sock, bool thread, bool inherit) __attribute__((noreturn));

static void *thread_main(void *arg)
{
	int sock = (int)(intptr_t)arg;

	say_hello(sock);
	serve(sock, true, false);
}

/* capget()/capset() on the calling thread only (pid 0), 64-bit sets */
static int caps_get(uint64_t *eff, uint64_t *prm, uint64_t *inh)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) < 0)
		return -1;
	*eff = d[0].effective | (uint64_t)d[1].effective << 32;
	*prm = d[0].permitted | (uint64_t)d[1].permitted << 32;
	*inh = d[0].inheritable | (uint64_t)d[1].inheritable << 32;
	return 0;
}

static long capset3(uint64_t eff, uint64_t prm, uint64_t inh)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = {
		{ (uint32_t)eff, (uint32_t)prm, (uint32_t)inh },
		{ (uint32_t)(eff >> 32), (uint32_t)(prm >> 32), (uint32_t)(inh >> 32) },
	};

	return syscall(SYS_capset, &h, d);
}

long npg_puppet_capset(uint64_t eff, uint64_t prm)
{
	return capset3(eff, prm, 0);
}

static void do_fork(int sock, int child_sock)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (dup2(child_sock, NPG_PUPPET_SOCK_FD) < 0)
			_exit(111);
		npg_close_from(NPG_PUPPET_SOCK_FD + 1);
		say_hello(NPG_PUPPET_SOCK_FD);
		serve(NPG_PUPPET_SOCK_FD, false, false);
	}
	close(child_sock);
	send_syscall(sock, pid < 0 ? -1 : 0);
}

/*
 * clone(CLONE_NEWUSER | SIGCHLD): a child as fork()'s, in a new user
 * namespace, made by the raw call -- glibc has no wrapper without a
 * stack of its own. As glibc's own _Fork() does (arch_fork()), the
 * kernel writes the child's tid into the thread descriptor the child
 * inherits (CLONE_CHILD_SETTID), so that glibc in the child knows its
 * own tid; that field's address is the one glibc gave the kernel as the
 * calling thread's clear_child_tid, which PR_GET_TID_ADDRESS returns
 * (CONFIG_CHECKPOINT_RESTORE; without it the field keeps the parent's
 * tid, which only glibc's own thread functions read). clone3() first
 * (5.3+); before it, clone() with this architecture's argument order
 * (glibc's arch-fork.h), or ENOSYS where this build does not know it.
 */
struct clone3_args {		/* struct clone_args, CLONE_ARGS_SIZE_VER0 */
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

#ifndef SYS_clone3
#define SYS_clone3 435
#endif

static long clone_newuser(pid_t *ctid)
{
	uint64_t flags = CLONE_NEWUSER | (ctid ? CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID : 0);
	struct clone3_args a = { .flags = flags, .child_tid = (uint64_t)(uintptr_t)ctid,
				 .exit_signal = SIGCHLD };
	long pid = syscall(SYS_clone3, &a, sizeof(a));

	if (pid >= 0 || errno != ENOSYS)
		return pid;
#if defined(__x86_64__)
	return syscall(SYS_clone, flags | SIGCHLD, 0L, NULL, ctid, 0L);
#elif defined(__i386__) || defined(__arm__) || defined(__aarch64__) || defined(__powerpc__)
	return syscall(SYS_clone, flags | SIGCHLD, 0L, NULL, 0L, ctid);	/* CLONE_BACKWARDS */
#else
	errno = ENOSYS;
	return -1;
#endif
}

static void do_clone_user(int sock, int child_sock)
{
	pid_t *ctid = NULL;
	long pid;

	if (prctl(PR_GET_TID_ADDRESS, &ctid, 0, 0, 0) < 0)
		ctid = NULL;
	pid = clone_newuser(ctid);
	if (pid == 0) {
		if (dup2(child_sock, NPG_PUPPET_SOCK_FD) < 0)
			syscall(SYS_exit_group, 111);
		npg_close_from(NPG_PUPPET_SOCK_FD + 1);
		say_hello(NPG_PUPPET_SOCK_FD);
		serve(NPG_PUPPET_SOCK_FD, false, false);
	}
	close(child_sock);
	send_syscall(sock, pid < 0 ? -1 : 0);
}

/*
 * write TASK uid_map|gid_map|setgroups, sysctl user.max_user_namespaces:
 * this task opens the file and writes @text in one write(2) -- map_write()
 * and proc_setgroups_write() take a whole write from offset 0 only --
 * and answers the errno of the open (EACCES, ENOENT) or of the write
 * (EPERM, EINVAL).
 */
static void do_write_file(int sock, const char *path, const char *text)
{
	size_t len = strnlen(text, sizeof(((struct npg_wire_msg *)0)->text));
	int fd = open(path, O_WRONLY | O_CLOEXEC), err;
	ssize_t n;

	if (fd < 0) {
		send_result(sock, NPG_R_ERRNO, errno, 0);
		return;
	}
	n = write(fd, text, len);
	err = errno;
	close(fd);
	if (n < 0)
		send_result(sock, NPG_R_ERRNO, err, 0);
	else if ((size_t)n != len)
		send_result(sock, NPG_R_ERRNO, EIO, 0);	/* a short write: no kernel rule makes one */
	else
		send_result(sock, NPG_R_OK, 0, 0);
}

/*
 * vfork as posix_spawn() makes it: clone(CLONE_VM | CLONE_VFORK) on a
 * stack of its own. The child serves commands in the parent's memory --
 * a copy of the descriptor table, though, so its socket is its own --
 * while this thread sleeps in the kernel until the child execs or exits;
 * only then does the reply go out, and the controller collects it then.
 * The child says hello first, on its own socket.
 */
static int vfork_child_main(void *arg) __attribute__((noreturn));

static int vfork_child_main(void *arg)
{
	int child_sock = (int)(intptr_t)arg;

	if (dup2(child_sock, NPG_PUPPET_SOCK_FD) < 0)
		syscall(SYS_exit_group, 111);
	npg_close_from(NPG_PUPPET_SOCK_FD + 1);
	say_hello(NPG_PUPPET_SOCK_FD);
	serve(NPG_PUPPET_SOCK_FD, false, false);
}

#if defined(__SANITIZE_ADDRESS__)
/*
 * AddressSanitizer cannot follow a second stack in shared memory (it
 * warns on every noreturn call there and its reports may be false), so
 * a sanitizer build's child gets a copy of the memory instead, on the
 * same stack, as fork() would. What the kernel does and /proc shows is
 * the same: copy_process() charges it, and CLONE_VFORK alone makes the
 * parent wait (vfork_done), with or without CLONE_VM.
 */
static void do_vfork(int sock, int child_sock)
{
	long pid = syscall(SYS_clone, CLONE_VFORK | SIGCHLD, NULL, NULL, NULL, 0L);

	if (pid == 0)
		vfork_child_main((void *)(intptr_t)child_sock);
	send_syscall(sock, pid < 0 ? -1 : 0);
	close(child_sock);
}
#else
static void do_vfork(int sock, int child_sock)
{
	size_t size = 256 * 1024;
	char *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
			   MAP_STACK, -1, 0);
	pid_t pid;

	if (stack == MAP_FAILED) {
		close(child_sock);
		send_result(sock, NPG_R_ERRNO, errno, 0);
		return;
	}
	pid = clone(vfork_child_main, stack + size, CLONE_VM | CLONE_VFORK | SIGCHLD,
		    (void *)(intptr_t)child_sock);
	munmap(stack, size);
	/* a failure is answered before the child's socket closes: the controller,
	 * seeing that socket end, finds the answer already there */
	send_syscall(sock, pid < 0 ? -1 : 0);
	close(child_sock);
}
#endif

static void do_thread(int sock, int child_sock)
{
	pthread_t th;
	pthread_attr_t attr;
	int err;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	err = pthread_create(&th, &attr, thread_main, (void *)(intptr_t)child_sock);
	pthread_attr_destroy(&attr);
	if (err) {
		close(child_sock);
		send_result(sock, NPG_R_ERRNO, err, 0);
		return;
	}
	send_result(sock, NPG_R_OK, 0, 0);
}

static void do_wait(int sock, pid_t child)
{
	int status = 0;
	pid_t r;

	/* a traced child of ours reports its ptrace stops here too: passed on */
	do
		r = waitpid(child, &status, WNOHANG);
	while (r > 0 && npg_tracer_pass_stop(r, status));

	if (r < 0)
		send_result(sock, NPG_R_ERRNO, errno, 0);
	else if (r == 0)
		send_result(sock, NPG_R_RUNNING, 0, 0);
	else
		send_result(sock, NPG_R_OK, 0, status);
}

/*
 * Re-execute nprocguard from the descriptor it was opened on. execveat()
 * is missing before 3.19 (ENOSYS), and on 5.10 with TOMOYO and no /dev/fd
 * an empty path fails with ENOENT; both fall back to the /proc path, as
 * fexecve(3) does. The RLIMIT_NPROC test of execve comes before the file
 * lookup (do_execveat_common()), so an ENOENT means that test had already
 * passed and cleared PF_NPROC_EXCEEDED: a second attempt cannot differ.
 */
static void exec_image(const char *file, char **env)
{
	char *argv[] = { "nprocguard", "__puppet", NULL };
	char path[64];

	if (file[0]) {	/* a declared file: missing, or a set-id / file-capability copy */
		execve(file, argv, env);
		return;
	}
	syscall(SYS_execveat, NPG_PUPPET_EXE_FD, "", argv, env, AT_EMPTY_PATH);
	if (errno == ENOSYS || errno == ENOENT) {
		/*
		 * The calling thread's own fd link, not /proc/self's: /proc/self
		 * is the thread group leader, whose credentials a thread that
		 * changed its own need not pass (proc_fd_access_allowed(): EACCES
		 * on 3.0 for a non-leader thread of another uid).
		 */
		snprintf(path, sizeof(path), "/proc/%d/task/%d/fd/%d", (int)getpid(), (int)gettid(),
			 NPG_PUPPET_EXE_FD);
		execve(path, argv, env);
	}
}

/*
 * The new image finds its socket at NPG_PUPPET_SOCK_FD. A thread's socket
 * is elsewhere, and that descriptor is the leader's: it is put aside
 * (close-on-exec, so a successful exec drops it and the leader's
 * connection ends with the old leader) and put back if the exec fails.
 * The leader, blocked reading its socket meanwhile, holds the file itself
 * and is not disturbed.
 */
static void do_execve(int sock, bool thread, const char *file, const struct npg_tracees *tr)
{
	int saved = -1, err;
	/* this task's tracees stay its own in the new image (see tracer.h) */
	char **env = npg_tracer_env(tr);

	if (!env) {
		send_result(sock, NPG_R_ERRNO, ENOMEM, 0);
		return;
	}
	if (thread) {
		saved = fcntl(NPG_PUPPET_SOCK_FD, F_DUPFD_CLOEXEC, NPG_PUPPET_SOCK_FD + 1);
		if (saved < 0 || dup2(sock, NPG_PUPPET_SOCK_FD) < 0) {
			err = errno;
			npg_tracer_env_free(env);
			send_result(sock, NPG_R_ERRNO, err, 0);
			return;
		}
	}
	exec_image(file, env);
	err = errno;
	npg_tracer_env_free(env);
	if (thread) {
		dup2(saved, NPG_PUPPET_SOCK_FD);
		close(saved);
	}
	send_result(sock, NPG_R_ERRNO, err, 0);
}

static void do_capset(int sock, const struct npg_op *op)
{
	uint64_t eff, prm, inh, new_eff, new_prm, new_inh;

	if (caps_get(&eff, &prm, &inh) < 0) {
		send_result(sock, NPG_R_ERRNO, errno, 0);
		return;
	}
	npg_capset_compute(op, eff, prm, inh, &new_eff, &new_prm, &new_inh);
	send_syscall(sock, capset3(new_eff, new_prm, new_inh));
}

static void run(int sock, bool thread, const struct npg_wire_msg *m, int fd,
		struct npg_tracees *tr)
{
	const struct npg_op *op = &m->op;
	struct rlimit lim = { .rlim_cur = op->lim_cur, .rlim_max = op->lim_max };
	gid_t groups[NPG_NGROUPS];

	npg_puppet_test_delay();
	switch (op->code) {
	case NPG_OP_FORK:
		do_fork(sock, fd);
		return;
	case NPG_OP_THREAD:
		do_thread(sock, fd);
		return;
	case NPG_OP_VFORK:
		do_vfork(sock, fd);
		return;
	case NPG_OP_CLONE_USER:
		do_clone_user(sock, fd);
		return;
	case NPG_OP_SETNS_USER: {
		/* the namespace's descriptor, or none (-1: EBADF) for one never made */
		long rc = syscall(SYS_setns, fd, CLONE_NEWUSER);
		int err = errno;

		if (fd >= 0)
			close(fd);
		errno = err;
		send_syscall(sock, rc);
		return;
	}
	case NPG_OP_WRITE_IDMAP:
	case NPG_OP_WRITE_SETGROUPS:
	case NPG_OP_MAX_USERNS:
		do_write_file(sock, m->path, m->text);
		return;
	case NPG_OP_PTRACE: {
		int err = op->value == NPG_PTRACE_DETACH ?
			  npg_tracer_detach(tr, (pid_t)m->target_pid) :
			  op->value == NPG_PTRACE_ATTACH ?
			  npg_tracer_attach(tr, (pid_t)m->target_pid, m->target_tgid, m->target_ppid) :
			  npg_tracer_seize(tr, (pid_t)m->target_pid, m->target_tgid, m->target_ppid);

		if (err)
			send_result(sock, NPG_R_ERRNO, err, 0);
		else
			send_result(sock, NPG_R_OK, 0, 0);
		return;
	}
	case NPG_OP_DUMPABLE:
		send_syscall(sock, prctl(PR_SET_DUMPABLE, (unsigned long)op->value, 0, 0, 0));
		return;
	case NPG_OP_PTRACER:
		/* Yama's; without it no LSM takes the option: EINVAL */
		send_syscall(sock, prctl(PR_SET_PTRACER, op->value == NPG_PTRACER_TASK ?
					 (unsigned long)m->target_pid : op->value == NPG_PTRACER_ANY ?
					 PR_SET_PTRACER_ANY : 0UL, 0, 0, 0));
		return;
	case NPG_OP_UNSHARE_USER:
		/*
		 * The kernel decides (EINVAL with other threads, EPERM for an
		 * unmapped euid or egid, or a refusal of the machine); the
		 * controller writes the maps after it, from the parent namespace
		 */
		send_syscall(sock, syscall(SYS_unshare, CLONE_NEWUSER));
		return;
	case NPG_OP_EXIT:
		/* no reply: the controller watches the task go */
		syscall(thread ? SYS_exit : SYS_exit_group, op->value);
		_exit(op->value);
	case NPG_OP_WAIT:
		do_wait(sock, (pid_t)m->target_pid);
		return;
	case NPG_OP_SETUID:
		send_syscall(sock, syscall(SYS_setuid, op->id[0]));
		return;
	case NPG_OP_SETEUID:
		send_syscall(sock, syscall(SYS_setresuid, -1, op->id[0], -1));
		return;
	case NPG_OP_SETREUID:
		send_syscall(sock, syscall(SYS_setreuid, op->id[0], op->id[1]));
		return;
	case NPG_OP_SETRESUID:
		send_syscall(sock, syscall(SYS_setresuid, op->id[0], op->id[1], op->id[2]));
		return;
	case NPG_OP_SETFSUID:
		send_result(sock, NPG_R_ID, (uint32_t)syscall(SYS_setfsuid, op->id[0]), 0);
		return;
	case NPG_OP_SETGID:
		send_syscall(sock, syscall(SYS_setgid, op->id[0]));
		return;
	case NPG_OP_SETEGID:
		send_syscall(sock, syscall(SYS_setresgid, -1, op->id[0], -1));
		return;
	case NPG_OP_SETREGID:
		send_syscall(sock, syscall(SYS_setregid, op->id[0], op->id[1]));
		return;
	case NPG_OP_SETRESGID:
		send_syscall(sock, syscall(SYS_setresgid, op->id[0], op->id[1], op->id[2]));
		return;
	case NPG_OP_SETFSGID:
		send_result(sock, NPG_R_ID, (uint32_t)syscall(SYS_setfsgid, op->id[0]), 0);
		return;
	case NPG_OP_SETGROUPS:
		for (int i = 0; i < op->ngroups; i++)
			groups[i] = op->groups[i];
		send_syscall(sock, syscall(SYS_setgroups, op->ngroups, groups));
		return;
	case NPG_OP_SETRLIMIT:
	case NPG_OP_PRLIMIT:
		send_syscall(sock, syscall(SYS_prlimit64, (pid_t)m->target_pid, RLIMIT_NPROC, &lim,
					   NULL));
		return;
	case NPG_OP_NO_NEW_PRIVS:
		send_syscall(sock, prctl(PR_SET_NO_NEW_PRIVS, op->value, 0, 0, 0));
		return;
	case NPG_OP_KEEPCAPS:
		send_syscall(sock, prctl(PR_SET_KEEPCAPS, op->value, 0, 0, 0));
		return;
	case NPG_OP_CAPSET:
		do_capset(sock, op);
		return;
	case NPG_OP_SECUREBITS:
		send_syscall(sock, prctl(PR_SET_SECUREBITS, (unsigned long)op->value, 0, 0, 0));
		return;
	case NPG_OP_AMBIENT:
		send_syscall(sock, prctl(PR_CAP_AMBIENT, (unsigned long)op->value,
					 op->value == PR_CAP_AMBIENT_CLEAR_ALL ? 0UL :
					 (unsigned long)op->caps, 0, 0));
		return;
	case NPG_OP_EXECVE:
		do_execve(sock, thread, m->path, tr);
		return;
	case NPG_OP_KILL:
		/* to its own group, the answer is the caller's death */
		send_syscall(sock, syscall(SYS_kill, (pid_t)m->target_pid, op->value));
		return;
	}
	send_result(sock, NPG_R_ERRNO, ENOSYS, 0);
}

/*
 * Idle, a tracer looks at its tracees every NPG_TRACER_TICK_MS: their
 * stops and exits come as SIGCHLD, which is blocked (tracer.c), and a
 * signalfd would serve one thread of a process of several tracers.
 */
/*
 * How our child @pid ended, for a kernel whose /proc does not say (before
 * 3.5): waitid(WNOWAIT) reads a zombie's status and leaves it a zombie,
 * for the scenario's own wait. Any thread of the parent may ask: do_wait()
 * looks at the children of every thread of the group. The answer is a
 * wait status; ECHILD if it is no zombie child of ours.
 */
static void peek_exit(int sock, pid_t pid)
{
	siginfo_t si = { 0 };
	int status;

	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT | WNOHANG) < 0 || si.si_pid != pid) {
		send_result(sock, NPG_R_ERRNO, ECHILD, 0);
		return;
	}
	if (si.si_code == CLD_EXITED)
		status = (si.si_status & 0xff) << 8;
	else
		status = (si.si_status & 0x7f) | (si.si_code == CLD_DUMPED ? 0x80 : 0);
	send_result(sock, NPG_R_OK, 0, status);
}

static int await_command(int sock, struct npg_tracees *tr)
{
	struct pollfd p = { .fd = sock, .events = POLLIN };
	int n;

	if (tr->n == 0)
		return 1;
	npg_tracer_service(tr);
	n = poll(&p, 1, NPG_TRACER_TICK_MS);
	return n < 0 && errno != EINTR ? 1 : n;	/* an error: the read says what */
}

static void serve(int sock, bool thread, bool inherit)
{
	/* this task's own: a new task traces nothing, an exec'd one what it did */
	struct npg_tracees tr = { .n = 0, .t = NULL };

	if (inherit)
		npg_tracer_inherit(&tr);
	for (;;) {
		struct npg_wire_msg m;
		int fd, r;

		if (await_command(sock, &tr) <= 0)
			continue;
		r = npg_wire_recv(sock, &m, &fd);
		if (r <= 0)	/* the controller is gone: so is the whole process */
			syscall(SYS_exit_group, 0);
		if (m.kind == NPG_WIRE_DUMPABLE) {
			/* the mm's, whichever thread asks */
			send_result(sock, NPG_R_OK, prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 0);
			continue;
		}
		if (m.kind == NPG_WIRE_PEEK_EXIT) {
			peek_exit(sock, (pid_t)m.target_pid);
			continue;
		}
		if (m.kind != NPG_WIRE_CMD) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		run(sock, thread, &m, fd, &tr);
	}
}

void npg_puppet_main(int sock)
{
	/* an abort() (glibc's setxid failure) must leave no core file behind */
	struct rlimit no_core = { 0, 0 };

	setrlimit(RLIMIT_CORE, &no_core);
	/*
	 * A task of the scenario has every signal at its default action, as in
	 * the model: ow-2006's set_user() does force_sig(SIGSEGV), which runs
	 * a handler if there is one. The sanitizer build's runtime installs
	 * handlers for these (ASan's handle_segv, handle_sigbus, ...).
	 */
	signal(SIGSEGV, SIG_DFL);
	signal(SIGBUS, SIG_DFL);
	signal(SIGFPE, SIG_DFL);
	signal(SIGILL, SIG_DFL);
	/* kept across execve(), but a traced puppet must never take it (tracer.c) */
	if (npg_tracer_block_sigchld() < 0)
		_exit(111);
	say_hello(sock);
	serve(sock, false, true);
}
