/*
 * /init of the guest that `nprocguard conform --kernel` boots: PID 1 of a
 * minimal initramfs. Built static (no loader, no libraries), so it runs on
 * any x86_64 kernel the image can boot, 3.0 included.
 *
 * It mounts /proc, /sys, /dev and a tmpfs for $TMPDIR, runs the program named in /npg-args
 * (/bin/nprocguard for conform, a user's for `nprocguard guest`) with the
 * arguments there, its stdout on the second serial port and its stderr on the
 * third, reports on the fourth ("npg-guest: start RELEASE", then
 * "npg-guest: exit N" or "npg-guest: signal N"), and powers the guest off.
 * The first serial port stays the kernel's console, so the host can tell a
 * panic from a hang from a kernel that never spoke.
 *
 * PID 1 must never exit (the kernel would panic), so every failure is
 * reported on the status port and ends in a power-off.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define ARGS_FILE "/npg-args"
#define GUEST_TMP "/npg-tmp"	/* a tmpfs: $TMPDIR of the program */
#define ENV_FILE "/npg-env"	/* NAME=VALUE\0...: the host's test hooks */
/* "PID STARTTIME WAIT-STATUS" of every orphan PID 1 reaped, for the program */
#define REAPED_FILE "/npg-reaped"
#define ARGS_MAX 65536
#define ARGV_MAX 1024

static int status_fd = -1;

__attribute__((format(printf, 1, 2)))
static void say(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (status_fd >= 0 && len > 0)
		(void)!write(status_fd, line, (size_t)len < sizeof(line) ? (size_t)len : sizeof(line) - 1);
}

static noreturn void power_off(void)
{
	sync();
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}

static noreturn void fail(const char *what)
{
	say("npg-guest: error %s: %s\n", what, strerror(errno));
	power_off();
}

/*
 * A serial port, raw: the tty layer would otherwise turn "\n" into "\r\n".
 * Its node is made by hand when there is no devtmpfs (ttyS<n> is char 4:64+n).
 */
static int open_port(int n)
{
	char path[32];
	struct termios t;
	int fd;

	snprintf(path, sizeof(path), "/dev/ttyS%d", n);
	fd = open(path, O_RDWR | O_NOCTTY);
	if (fd < 0 && errno == ENOENT && mknod(path, S_IFCHR | 0600, makedev(4, 64 + n)) == 0)
		fd = open(path, O_RDWR | O_NOCTTY);
	if (fd >= 0 && tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		tcsetattr(fd, TCSANOW, &t);
	}
	return fd;
}

/* NUL-separated: the working directory, the program, then its argv. */
static int read_args(char *buf, char **argv, char **cwd, char **prog)
{
	int fd = open(ARGS_FILE, O_RDONLY), argc = 0;
	ssize_t len;

	if (fd < 0)
		return -1;
	len = read(fd, buf, ARGS_MAX - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	*cwd = buf;
	*prog = buf + strlen(buf) + 1;
	if (*prog >= buf + len)
		return -1;
	for (char *p = *prog + strlen(*prog) + 1; p < buf + len; p += strlen(p) + 1) {
		if (argc == ARGV_MAX - 1)
			return -1;	/* never a silently shorter argv */
		argv[argc++] = p;
	}
	argv[argc] = NULL;
	return argc;
}

static void load_env(void)
{
	static char env[4096];
	int fd = open(ENV_FILE, O_RDONLY);
	ssize_t len;

	if (fd < 0)
		return;
	len = read(fd, env, sizeof(env) - 1);
	close(fd);
	for (char *p = env; len > 0 && p < env + len; p += strlen(p) + 1)
		if (strchr(p, '='))
			putenv(p);
}

/*
 * NPG_GUEST_YAMA_SCOPE: the guest's kernel.yama.ptrace_scope, when its
 * kernel has Yama -- the guest is this run's alone, so its Yama may be
 * set, and conform then compares the ptrace rules under it (the model
 * takes the machine's scope)
 */
static void yama_scope(const char *scope)
{
	int fd;

	if (!scope || !*scope)
		return;
	fd = open("/proc/sys/kernel/yama/ptrace_scope", O_WRONLY);
	if (fd < 0) {
		dprintf(2, "nprocguard guest /init: no Yama here (%s): ptrace_scope left alone\n",
			strerror(errno));
		return;
	}
	if (write(fd, scope, strlen(scope)) < 0)
		dprintf(2, "nprocguard guest /init: ptrace_scope %s: %s\n", scope, strerror(errno));
	close(fd);
}

/* Field 22 of /proc/PID/stat (a zombie's too): tells a reused pid apart. 0 if unreadable. */
static unsigned long long start_time(pid_t pid)
{
	char path[64], stat[1024], *p;
	unsigned long long t = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, stat, sizeof(stat) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	stat[n] = '\0';
	/* after the command's ')': field 3 on; starttime is the 20th of those */
	if (!(p = strrchr(stat, ')')))
		return 0;
	if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
		   "%*d %*d %llu", &t) != 1)
		return 0;
	return t;
}

/*
 * Reap every child until @prog's end. An orphan's status is written to
 * REAPED_FILE first: before 3.4 no child subreaper keeps orphans within
 * the run, and before 3.5 /proc/PID/stat has no exit code, so PID 1 is the
 * only one to see how a process whose parent died ended -- the real
 * backend reads it there (NPG_GUEST_REAPED).
 */
static int reap_until(pid_t prog, int log)
{
	siginfo_t si;
	int st;

	for (;;) {
		unsigned long long start;
		pid_t w;

		si.si_pid = 0;
		if (waitid(P_ALL, 0, &si, WEXITED | WNOWAIT) < 0) {
			if (errno == EINTR)
				continue;
			fail("waitid");
		}
		start = si.si_pid != prog ? start_time(si.si_pid) : 0;
		while ((w = waitpid(si.si_pid, &st, 0)) < 0 && errno == EINTR)
			;
		if (w < 0)
			fail("wait");
		if (w == prog)
			return st;
		if (log >= 0 && start)
			dprintf(log, "%d %llu %d\n", (int)w, start, st);
	}
}

int main(void)
{
	static char args[ARGS_MAX];
	char *argv[ARGV_MAX], *cwd, *prog;
	struct utsname u;
	int out, err, st = 0, null, reaped;
	pid_t pid;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);	/* may fail: nodes are made below */
	/*
	 * A tmpfs for the program's temporary files, $TMPDIR: the root is an
	 * initramfs (ramfs before 3.x's tmpfs roots), which holds no extended
	 * attributes, and conform's real backend makes its set-id and
	 * file-capability programs there -- a tmpfs of a kernel with
	 * CONFIG_TMPFS_XATTR holds security.capability. Not on /tmp: scenario
	 * files may have been put under /tmp at their host paths.
	 */
	if ((mkdir(GUEST_TMP, 01777) == 0 || errno == EEXIST) &&
	    mount("npg-tmp", GUEST_TMP, "tmpfs", MS_NODEV, "mode=1777") < 0)
		rmdir(GUEST_TMP);
	status_fd = open_port(3);
	out = open_port(1);
	err = open_port(2);
	if (status_fd < 0 || out < 0 || err < 0)
		fail("cannot open the serial ports ttyS1-ttyS3");
	uname(&u);
	say("npg-guest: start %s\n", u.release);
	if (read_args(args, argv, &cwd, &prog) < 1)
		fail("cannot read " ARGS_FILE " (or it has more arguments than /init takes)");
	null = open("/dev/null", O_RDWR);
	if (null < 0 && mknod("/dev/null", S_IFCHR | 0666, makedev(1, 3)) == 0)
		null = open("/dev/null", O_RDWR);
	reaped = open(REAPED_FILE, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	pid = fork();
	if (pid < 0)
		fail("fork");
	if (pid == 0) {
		dup2(null >= 0 ? null : out, 0);
		dup2(out, 1);
		dup2(err, 2);
		if (chdir(cwd) < 0) {
			dprintf(2, "nprocguard guest /init: cannot enter %s: %s\n", cwd, strerror(errno));
			_exit(126);
		}
		/* the serial ports are terminals nobody watches: no progress line */
		setenv("NPG_PROGRESS", "0", 1);
		if (access(GUEST_TMP, W_OK) == 0)
			setenv("TMPDIR", GUEST_TMP, 1);
		/* this kernel runs for the program alone: its root tasks are the
		 * program's and the kernel's (the real backend's root count) */
		setenv("NPG_GUEST_KERNEL", "1", 1);
		if (reaped >= 0)
			setenv("NPG_GUEST_REAPED", REAPED_FILE, 1);
		load_env();
		yama_scope(getenv("NPG_GUEST_YAMA_SCOPE"));
		execv(prog, argv);
		dprintf(2, "nprocguard guest /init: cannot run %s: %s\n", prog, strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	st = reap_until(pid, reaped);
	tcdrain(out);
	tcdrain(err);
	if (WIFEXITED(st))
		say("npg-guest: exit %d\n", WEXITSTATUS(st));
	else
		say("npg-guest: signal %d\n", WTERMSIG(st));
	tcdrain(status_fd);
	power_off();
}
