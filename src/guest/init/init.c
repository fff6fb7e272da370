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
 * panic from a hang from a kernel that never spoke. When /npg-out names a
 * directory, each file the program makes there is sent on the status port
 * ("npg-guest: file SIZE NAME", then its bytes) and removed: every second
 * while it runs, and once more when it has ended, before its status.
 *
 * PID 1 must never exit (the kernel would panic), so every failure is
 * reported on the status port and ends in a power-off.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/time.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define ARGS_FILE "/npg-args"
#define GUEST_TMP "/npg-tmp"	/* a tmpfs: $TMPDIR of the program */
#define ENV_FILE "/npg-env"	/* NAME=VALUE\0...: the host's test hooks and --env */
#define OUT_FILE "/npg-out"	/* the directory whose new files go back to the host */
#define OUT_FILE_MAX (16 << 20)	/* NPG_GUEST_FILE_MAX */
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

/* In the program's process, before its exec: -1 (said) if the file is cut short */
static int load_env(void)
{
	static char env[ARGS_MAX];
	int fd = open(ENV_FILE, O_RDONLY);
	ssize_t len;

	if (fd < 0)
		return 0;
	len = read(fd, env, sizeof(env));
	close(fd);
	if (len == (ssize_t)sizeof(env)) {
		dprintf(2, "nprocguard guest /init: %s is longer than %d bytes\n", ENV_FILE, ARGS_MAX - 1);
		return -1;
	}
	for (char *p = env; len > 0 && p < env + len; p += strlen(p) + 1)
		if (strchr(p, '='))
			putenv(p);
	return 0;
}

/* --- files sent back --- */

static char out_dir[4096];
static char **out_old;	/* what was there before the program: never sent */
static int out_nold;
static volatile sig_atomic_t out_tick;

static void on_alarm(int sig)
{
	(void)sig;
	out_tick = 1;
}

/* @name is never to be sent: there before the program, or refused once */
static void out_keep(const char *name)
{
	char **v = realloc(out_old, (size_t)(out_nold + 1) * sizeof(*v));

	if (v && (v[out_nold] = strdup(name))) {
		out_old = v;
		out_nold++;
	} else if (v) {
		out_old = v;
	}
}

static bool out_was_there(const char *name)
{
	for (int i = 0; i < out_nold; i++)
		if (strcmp(out_old[i], name) == 0)
			return true;
	return false;
}

/* Read OUT_FILE and note what its directory holds already */
static void out_setup(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART: waitid returns */
	int fd = open(OUT_FILE, O_RDONLY);
	ssize_t len;
	struct dirent *e;
	DIR *d;

	if (fd < 0)
		return;
	len = read(fd, out_dir, sizeof(out_dir) - 1);
	close(fd);
	if (len <= 0 || !(d = opendir(out_dir))) {
		out_dir[0] = '\0';
		return;
	}
	out_dir[len] = '\0';
	while ((e = readdir(d)))
		out_keep(e->d_name);
	closedir(d);
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &(struct itimerval){ { 1, 0 }, { 1, 0 } }, NULL);
}

static bool write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		buf += n, len -= (size_t)n;
	}
	return true;
}

/* One file, whole, then removed; a file still being written is a hidden one (renamed when done) */
static void out_send(int dirfd, const char *name, int err)
{
	struct stat sb = { 0 };
	char head[512], *data;
	ssize_t n = 0;
	int fd;

	if (name[0] == '.' || out_was_there(name) || strlen(name) > 255)
		return;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return;
	/* what is not a regular file of at most 16 MiB is said once, and left there */
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_size > OUT_FILE_MAX) {
		dprintf(err, "nprocguard guest /init: %s/%s: %s: not sent back\n", out_dir, name,
			fd < 0 ? strerror(errno) : !S_ISREG(sb.st_mode) ? "not a regular file" :
			"larger than 16 MiB");
		if (fd >= 0)
			close(fd);
		out_keep(name);
		return;
	}
	data = malloc((size_t)sb.st_size + 1);
	while (data && n < sb.st_size) {
		ssize_t r = read(fd, data + n, (size_t)(sb.st_size - n));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	if (!data || n != sb.st_size) {
		dprintf(err, "nprocguard guest /init: %s/%s: cannot read it: not sent back\n", out_dir,
			name);
		free(data);
		out_keep(name);
		return;
	}
	snprintf(head, sizeof(head), "npg-guest: file %lld %s\n", (long long)sb.st_size, name);
	if (write_all(status_fd, head, strlen(head)) && write_all(status_fd, data, (size_t)n))
		unlinkat(dirfd, name, 0);
	free(data);
}

static void out_send_all(int err)
{
	struct dirent *e;
	DIR *d;

	out_tick = 0;
	if (!out_dir[0] || !(d = opendir(out_dir)))
		return;
	while ((e = readdir(d)))
		out_send(dirfd(d), e->d_name, err);
	closedir(d);
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
static int reap_until(pid_t prog, int log, int err)
{
	siginfo_t si;
	int st;

	for (;;) {
		unsigned long long start;
		pid_t w;

		si.si_pid = 0;
		if (out_tick)
			out_send_all(err);
		if (waitid(P_ALL, 0, &si, WEXITED | WNOWAIT) < 0) {
			if (errno != EINTR)
				fail("waitid");
			continue;
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
	out_setup();
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
		if (load_env() < 0)
			_exit(126);
		yama_scope(getenv("NPG_GUEST_YAMA_SCOPE"));
		execv(prog, argv);
		dprintf(2, "nprocguard guest /init: cannot run %s: %s\n", prog, strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	st = reap_until(pid, reaped, err);
	setitimer(ITIMER_REAL, &(struct itimerval){ { 0, 0 }, { 0, 0 } }, NULL);
	out_send_all(err);	/* what the program wrote last */
	tcdrain(out);
	tcdrain(err);
	if (WIFEXITED(st))
		say("npg-guest: exit %d\n", WEXITSTATUS(st));
	else
		say("npg-guest: signal %d\n", WTERMSIG(st));
	tcdrain(status_fd);
	power_off();
}
