#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/real/teardown.h"

#define MAX_PIDS 8192

static volatile sig_atomic_t npids;
static pid_t pids[MAX_PIDS];
/* each one's start time when remembered (0: unknown), so that a pid reaped
 * and taken by another process meanwhile is never killed */
static unsigned long long starts[MAX_PIDS];
static volatile sig_atomic_t then_group;
/* the execdir and its files, removed by the handler: fixed buffers, no malloc */
#define MAX_PATHS 64
#define PATH_LEN 256
static char dir_path[PATH_LEN];
static char mount_path[PATH_LEN];
static volatile sig_atomic_t have_mount;	/* set once mount_path is written, as nfiles */
static char file_paths[MAX_PATHS][PATH_LEN];
static volatile sig_atomic_t nfiles;
static const char *volatile where_file;
static volatile sig_atomic_t where_line;
static const char *volatile where_what;

/*
 * Field 22 of /proc/PID/stat, the start time, with open(), read() and
 * close() alone (async-signal-safe); 0 when it cannot be read. The command
 * name in parentheses may hold anything: the fields start after the last ')'.
 */
static unsigned long long start_time(pid_t pid)
{
	char path[40] = "/proc/", buf[1024], *p = path + 6, *q;
	char digits[16];
	unsigned long long v = 0;
	int nd = 0, fd, field = 2;
	ssize_t n;

	for (unsigned u = (unsigned)pid; nd == 0 || u; u /= 10)
		digits[nd++] = (char)('0' + u % 10);
	while (nd > 0)
		*p++ = digits[--nd];
	memcpy(p, "/stat", sizeof("/stat"));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (!(q = strrchr(buf, ')')))
		return 0;
	for (q++; *q && field < 22; q++)
		if (*q == ' ')
			field++;
	for (; *q >= '0' && *q <= '9'; q++)
		v = v * 10 + (unsigned long long)(*q - '0');
	return field == 22 ? v : 0;
}

void npg_teardown_remember(pid_t pid)
{
	if (npids < MAX_PIDS) {
		starts[npids] = start_time(pid);
		pids[npids] = pid;
		npids = npids + 1;
	}
}

void npg_teardown_forget_all(void)
{
	npids = 0;
}

void npg_teardown_remember_dir(const char *dir)
{
	nfiles = 0;
	have_mount = 0;
	snprintf(dir_path, sizeof(dir_path), "%s", dir);
}

void npg_teardown_remember_file(const char *path)
{
	if (nfiles < MAX_PATHS) {
		snprintf(file_paths[nfiles], PATH_LEN, "%s", path);
		nfiles = nfiles + 1;
	}
}

void npg_teardown_forget_dir(void)
{
	nfiles = 0;
	have_mount = 0;
	dir_path[0] = '\0';
}

void npg_teardown_remember_mount(const char *path)
{
	have_mount = 0;
	if (snprintf(mount_path, PATH_LEN, "%s", path) < PATH_LEN)
		have_mount = 1;
}

void npg_teardown_forget_mount(void)
{
	have_mount = 0;
}

/*
 * unlink(), rmdir() and umount2() -- a plain system call -- are
 * async-signal-safe. The processes are gone by now, but a mount still in
 * use would only be detached, never refused (MNT_DETACH).
 */
static void remove_paths(void)
{
	for (int i = 0; i < nfiles; i++)
		unlink(file_paths[i]);
	if (have_mount) {
		umount2(mount_path, MNT_DETACH | UMOUNT_NOFOLLOW);
		rmdir(mount_path);
	}
	if (dir_path[0])
		rmdir(dir_path);
}

void npg_teardown_set_group(pid_t pgid)
{
	then_group = pgid;
}

void npg_teardown_set_where(const char *file, int line, const char *what)
{
	where_file = NULL;	/* never a file with another run's line */
	where_line = line;
	where_what = what;
	where_file = file;
}

void npg_teardown_set_phase(const char *what)
{
	where_what = what;
}

/* --- async-signal-safe output --- */

static void put(const char *s)
{
	size_t n = strlen(s);

	while (n > 0) {
		ssize_t w = write(STDERR_FILENO, s, n);

		if (w <= 0 && errno != EINTR)
			return;
		if (w > 0)
			s += w, n -= (size_t)w;
	}
}

static void put_int(long v)
{
	char buf[24], *p = buf + sizeof(buf) - 1;
	bool neg = v < 0;
	unsigned long u = neg ? -(unsigned long)v : (unsigned long)v;

	*p = '\0';
	do
		*--p = (char)('0' + u % 10);
	while ((u /= 10) && p > buf + 1);
	if (neg)
		*--p = '-';
	put(p);
}

static const char *signame(int sig)
{
	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	case SIGQUIT: return "SIGQUIT";
	}
	return "a signal";
}

/*
 * Closing every descriptor above stderr ends the puppets and fillers by
 * themselves (they exit on EOF of their socket or pipe), including the
 * ones not yet remembered; SIGKILL to those remembered only makes it
 * faster. As a child subreaper we inherit every orphan, so waiting until
 * ECHILD means every process of the run is gone -- zombies included --
 * before the signal ends us. alarm() bounds the wait should a task hang in
 * the kernel.
 */
static void close_descriptors(void)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0)
		return;
#endif
	for (int fd = 3; fd < 65536; fd++)	/* kernels before 5.9 */
		close(fd);
}

static void on_fatal_signal(int sig)
{
	const char *file = where_file;

	close_descriptors();
	if (then_group > 0)
		kill(-(pid_t)then_group, SIGKILL);
	for (int i = 0; i < npids; i++)
		if (!starts[i] || start_time(pids[i]) == starts[i])
			kill(pids[i], SIGKILL);
	alarm(10);
	while (waitpid(-1, NULL, __WALL) > 0 || errno == EINTR)
		;
	/* without a subreaper (before 3.4) orphans are init's to reap: wait
	 * until each remembered process is gone (nanosleep() is safe here) */
	for (int i = 0; i < npids; i++)
		while (starts[i] && start_time(pids[i]) == starts[i])
			nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
	remove_paths();
	if (isatty(STDERR_FILENO))
		put("\r\033[K");	/* over a progress line, if one is shown */
	put("nprocguard: interrupted by ");
	put(signame(sig));
	if (file) {
		put(" at ");
		put(file);
		if (where_line > 0) {
			put(":");
			put_int(where_line);
		}
		if (where_what) {
			put(" (");
			put(where_what);
			put(")");
		}
	}
	put("; every task of the run was killed and reaped\n");
	signal(sig, SIG_DFL);
	raise(sig);
}

void npg_teardown_install(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	static bool installed;
	struct sigaction sa = { .sa_handler = on_fatal_signal };

	if (installed)
		return;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&sa.sa_mask, sigs[i]);	/* one handler at a time */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	installed = true;
}
