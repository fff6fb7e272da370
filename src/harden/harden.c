/*
 * libnprocguard-harden.so: an LD_PRELOAD library (or /etc/ld.so.preload
 * entry) that makes a failed identity change fatal -- Solar Designer's
 * 2006 proposal (seed 003) for any program, on any kernel.
 *
 * A set*id call that the kernel's own rules permit (the caller holds
 * CAP_SETUID/CAP_SETGID, or only moves among its current ids) can fail
 * only for abnormal reasons: RLIMIT_NPROC on 2.6.0-3.0, an LSM, a seccomp
 * profile, memory. Such a failure -- or a "success" after which the ids
 * are not the ones asked for, in any thread -- is logged to stderr and
 * syslog and ends the process: NPROCGUARD_HARDEN=abort (default), kill,
 * or log (report and carry on). Calls the rules forbid fail as usual and
 * end nothing: an unprivileged setuid(0) probing whether root can be
 * regained (EPERM), and inside a user namespace an id that is not mapped
 * there (EINVAL) or setgroups() where /proc/self/setgroups says "deny"
 * (EPERM) -- rootless containers make such calls and carry on.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <syslog.h>
#include <unistd.h>

#define NONE ((unsigned)-1)

enum mode { MODE_ABORT, MODE_KILL, MODE_LOG, MODE_UNKNOWN };

static enum mode harden_mode(void)
{
	const char *m = getenv("NPROCGUARD_HARDEN");

	if (!m || !*m || strcmp(m, "abort") == 0)
		return MODE_ABORT;
	if (strcmp(m, "kill") == 0)
		return MODE_KILL;
	if (strcmp(m, "log") == 0)
		return MODE_LOG;
	return MODE_UNKNOWN;
}

/*
 * A mistyped mode is said at start, not discovered when a drop fails: the
 * library then keeps its safe default (abort) rather than guess.
 */
__attribute__((constructor)) static void check_mode(void)
{
	if (harden_mode() == MODE_UNKNOWN)
		fprintf(stderr, "nprocguard-harden: %s[%d]: NPROCGUARD_HARDEN='%s' is not abort, kill "
			"or log; a failed identity change will abort\n", program_invocation_short_name,
			(int)getpid(), getenv("NPROCGUARD_HARDEN"));
}

/* The next definition of @name (libc's), looked up once */
static void *real(const char *name)
{
	static struct {
		const char *name;
		void *fn;
	} cache[16];
	void *fn;
	size_t i;

	for (i = 0; i < sizeof(cache) / sizeof(cache[0]); i++) {
		const char *cached = __atomic_load_n(&cache[i].name, __ATOMIC_ACQUIRE);

		if (!cached)
			break;
		if (strcmp(cached, name) == 0)
			return cache[i].fn;
	}
	fn = dlsym(RTLD_NEXT, name);
	if (!fn) {
		fprintf(stderr, "nprocguard-harden: %s not found: %s\n", name, dlerror());
		abort();
	}
	/* a race between threads only costs a second lookup */
	if (i < sizeof(cache) / sizeof(cache[0])) {
		cache[i].fn = fn;
		__atomic_store_n(&cache[i].name, name, __ATOMIC_RELEASE);
	}
	return fn;
}

/* Report, then end the process as configured; returns only in log mode. */
static void fatal(const char *call, const char *what, int err)
{
	enum mode mode = harden_mode() == MODE_UNKNOWN ? MODE_ABORT : harden_mode();
	static const char *const verbs[] = { "aborting", "killing the process", "continuing" };
	char line[512];
	sigset_t abrt;

	snprintf(line, sizeof(line), "nprocguard-harden: %s[%d]: %s %s%s%s; %s",
		 program_invocation_short_name, (int)getpid(), call, what, err ? ": " : "",
		 err ? strerror(err) : "", verbs[mode]);
	fprintf(stderr, "%s\n", line);
	openlog("nprocguard-harden", LOG_PID, LOG_AUTHPRIV);
	syslog(LOG_CRIT, "%s", line + strlen("nprocguard-harden: "));
	closelog();
	if (mode == MODE_LOG)
		return;
	if (mode == MODE_KILL)
		kill(getpid(), SIGKILL);
	/* abort() even if the program blocked or caught SIGABRT */
	signal(SIGABRT, SIG_DFL);
	sigemptyset(&abrt);
	sigaddset(&abrt, SIGABRT);
	sigprocmask(SIG_UNBLOCK, &abrt, NULL);
	abort();
}

static bool has_cap(int cap)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) < 0)
		return false;
	return (d[cap / 32].effective >> (cap % 32)) & 1;
}

/* The first line of /proc/self/@name into @buf; false if unreadable */
static bool read_self(const char *name, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return false;
	buf[n] = '\0';
	return true;
}

/*
 * Does the caller's user namespace map @id (uid_map or gid_map)? An id it
 * does not map is refused by the kernel with EINVAL before any other
 * rule (make_kuid() in kernel/sys.c). Unreadable maps: assume mapped, as
 * before user namespaces.
 */
static bool mapped(bool gid, unsigned id)
{
	char buf[4096];
	const char *p = buf;
	unsigned inside, outside, count;
	int used;

	if (id == NONE)
		return true;
	if (!read_self(gid ? "gid_map" : "uid_map", buf, sizeof(buf)))
		return true;
	while (sscanf(p, "%u %u %u%n", &inside, &outside, &count, &used) == 3) {
		if (id >= inside && id - inside < count)
			return true;
		p += used;
	}
	return false;
}

/* setgroups() is refused in a user namespace whose /proc/self/setgroups is "deny" */
static bool setgroups_allowed(void)
{
	char buf[16];

	return !read_self("setgroups", buf, sizeof(buf)) || strncmp(buf, "deny", 4) != 0;
}

static bool all_mapped_groups(const gid_t *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!mapped(true, list[i]))
			return false;
	return true;
}

struct ids {
	unsigned r, e, s;
};

static struct ids current(bool gid)
{
	struct ids c;

	if (gid)
		getresgid(&c.r, &c.e, &c.s);
	else
		getresuid(&c.r, &c.e, &c.s);
	return c;
}

static bool among(unsigned id, struct ids c)
{
	return id == NONE || id == c.r || id == c.e || id == c.s;
}

/* Every thread's ids (status "Uid:"/"Gid:" lines) equal @want: glibc applies set*id to all */
static bool all_threads_hold(bool gid, struct ids want)
{
	char path[64];
	DIR *d;
	struct dirent *e;
	struct stat st;
	bool ok = true;
	ssize_t n;
	int fd;

	/* procfs gives /proc/self/task one link per thread plus two: one
	 * stat() instead of reading a file, so single-threaded callers pay
	 * almost nothing */
	if (stat("/proc/self/task", &st) < 0 || st.st_nlink <= 3)
		return true;
	d = opendir("/proc/self/task");
	if (!d)
		return true;
	while (ok && (e = readdir(d))) {
		char buf[4096];
		const char *line;
		struct ids got;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%.20s/status", e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;	/* the thread exited */
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		line = strstr(buf, gid ? "\nGid:" : "\nUid:");
		if (line && sscanf(line + 5, "%u %u %u", &got.r, &got.e, &got.s) == 3 &&
		    (got.r != want.r || got.e != want.e || got.s != want.s))
			ok = false;
	}
	closedir(d);
	return ok;
}

/*
 * The common check after a set*id call. @permitted: the kernel's
 * permission rules allow it; @want: the ids it must have produced; @asked:
 * the three ids passed (NONE for none), which the caller's user namespace
 * must map -- looked at only after a failure, so a successful call costs
 * no read of the map.
 */
static int check(const char *call, bool gid, bool permitted, int rc, int err, struct ids want,
		 const unsigned asked[3])
{
	struct ids now;

	/* EPERM, or EINVAL for an id this namespace does not map, is the normal answer */
	if (!permitted || (rc != 0 && !(mapped(gid, asked[0]) && mapped(gid, asked[1]) &&
					mapped(gid, asked[2])))) {
		errno = err;
		return rc;
	}
	if (rc != 0) {
		fatal(call, "failed", err);
		errno = err;
		return rc;
	}
	now = current(gid);
	if (now.r != want.r || now.e != want.e || now.s != want.s) {
		char what[160];

		snprintf(what, sizeof(what), "returned 0 but the %s are %u %u %u",
			 gid ? "gids" : "uids", now.r, now.e, now.s);
		fatal(call, what, 0);
	} else if (!all_threads_hold(gid, want)) {
		fatal(call, "returned 0 but a thread kept other ids", 0);
	}
	return rc;
}

/* --- uids and gids, generic over the two --- */

static int do_setid(bool gid, unsigned id)
{
	int (*fn)(unsigned) = real(gid ? "setgid" : "setuid");
	struct ids old = current(gid), want = old;
	bool priv = has_cap(gid ? CAP_SETGID : CAP_SETUID);
	char call[64];
	int rc, err;

	snprintf(call, sizeof(call), "%s(%u)", gid ? "setgid" : "setuid", id);
	if (priv)
		want.r = want.s = id;
	want.e = id;
	rc = fn(id);
	err = errno;
	return check(call, gid, id != NONE && (priv || id == old.r || id == old.s), rc, err, want,
		     (unsigned[]){ id, NONE, NONE });
}

static int do_setreid(bool gid, unsigned r, unsigned e)
{
	int (*fn)(unsigned, unsigned) = real(gid ? "setregid" : "setreuid");
	struct ids old = current(gid), want = old;
	bool priv = has_cap(gid ? CAP_SETGID : CAP_SETUID);
	bool ok = priv || ((r == NONE || r == old.r || r == old.e) && among(e, old));
	char call[64];
	int rc, err;

	snprintf(call, sizeof(call), "%s(%d, %d)", gid ? "setregid" : "setreuid", (int)r, (int)e);
	if (r != NONE)
		want.r = r;
	if (e != NONE)
		want.e = e;
	if (r != NONE || (e != NONE && e != old.r))
		want.s = want.e;
	rc = fn(r, e);
	err = errno;
	return check(call, gid, ok, rc, err, want, (unsigned[]){ r, e, NONE });
}

static int do_setresid(bool gid, const char *name, unsigned r, unsigned e, unsigned s)
{
	int (*fn)(unsigned, unsigned, unsigned) = real(gid ? "setresgid" : "setresuid");
	struct ids old = current(gid), want = old;
	bool ok = has_cap(gid ? CAP_SETGID : CAP_SETUID) ||
		  (among(r, old) && among(e, old) && among(s, old));
	char call[80];
	int rc, err;

	snprintf(call, sizeof(call), "%s(%d, %d, %d)", name, (int)r, (int)e, (int)s);
	if (r != NONE)
		want.r = r;
	if (e != NONE)
		want.e = e;
	if (s != NONE)
		want.s = s;
	rc = fn(r, e, s);
	err = errno;
	return check(call, gid, ok, rc, err, want, (unsigned[]){ r, e, s });
}

int setuid(uid_t uid) { return do_setid(false, uid); }
int setgid(gid_t gid) { return do_setid(true, gid); }
int setreuid(uid_t r, uid_t e) { return do_setreid(false, r, e); }
int setregid(gid_t r, gid_t e) { return do_setreid(true, r, e); }
int setresuid(uid_t r, uid_t e, uid_t s) { return do_setresid(false, "setresuid", r, e, s); }
int setresgid(gid_t r, gid_t e, gid_t s) { return do_setresid(true, "setresgid", r, e, s); }

/* glibc's seteuid() is setresuid(-1, euid, -1); the wrapper checks the same way */
int seteuid(uid_t e)
{
	if (e == NONE) {
		errno = EINVAL;
		return -1;
	}
	return do_setresid(false, "seteuid", NONE, e, NONE);
}

int setegid(gid_t e)
{
	if (e == NONE) {
		errno = EINVAL;
		return -1;
	}
	return do_setresid(true, "setegid", NONE, e, NONE);
}

/* setfsuid() reports nothing: read the fs id back with an invalid id */
static int do_setfsid(bool gid, unsigned id)
{
	int (*fn)(unsigned) = real(gid ? "setfsgid" : "setfsuid");
	struct ids old = current(gid);
	int prev, now;
	bool ok = has_cap(gid ? CAP_SETGID : CAP_SETUID) || among(id, old);
	char call[64];

	prev = fn(id);
	now = fn(NONE);
	if (ok && id != NONE && (unsigned)now != id && mapped(gid, id)) {
		snprintf(call, sizeof(call), "%s(%u)", gid ? "setfsgid" : "setfsuid", id);
		fatal(call, "left the fs id unchanged", 0);
	}
	return prev;
}

int setfsuid(uid_t id) { return do_setfsid(false, id); }
int setfsgid(gid_t id) { return do_setfsid(true, id); }

static int cmp_gid(const void *a, const void *b)
{
	gid_t x = *(const gid_t *)a, y = *(const gid_t *)b;

	return x < y ? -1 : x > y;
}

/* The group list now equals @want (any order) */
static bool groups_are(const gid_t *want, int n)
{
	gid_t have[512], sorted[512];
	int got = getgroups(512, have);

	if (got < 0 || n > 512)
		return true;	/* cannot tell: do not guess */
	if (got != n)
		return false;
	if (n == 0)
		return true;
	memcpy(sorted, want, (size_t)n * sizeof(gid_t));
	qsort(sorted, (size_t)n, sizeof(gid_t), cmp_gid);
	qsort(have, (size_t)got, sizeof(gid_t), cmp_gid);
	return memcmp(sorted, have, (size_t)n * sizeof(gid_t)) == 0;
}

int setgroups(size_t n, const gid_t *list)
{
	int (*fn)(size_t, const gid_t *) = real("setgroups");
	bool ok = has_cap(CAP_SETGID);
	char call[64];
	int rc = fn(n, list), err = errno;

	snprintf(call, sizeof(call), "setgroups(%zu groups)", n);
	/* the user namespace's rules, judged only when the call failed */
	if (!ok || (rc != 0 && (!setgroups_allowed() || (list && !all_mapped_groups(list, n))))) {
		errno = err;
		return rc;
	}
	if (rc != 0)
		fatal(call, "failed", err);
	else if (!groups_are(list, (int)n))
		fatal(call, "returned 0 but the group list is not the one set", 0);
	errno = err;
	return rc;
}

int initgroups(const char *user, gid_t group)
{
	int (*fn)(const char *, gid_t) = real("initgroups");
	bool ok = has_cap(CAP_SETGID);
	gid_t want[512];
	int n = 512, rc = fn(user, group), err = errno;
	int listed = user ? getgrouplist(user, group, want, &n) : -1;
	char call[128];

	snprintf(call, sizeof(call), "initgroups(%.64s, %u)", user ? user : "(null)", (unsigned)group);
	/* glibc's initgroups() calls setgroups() inside libc, never through ours */
	if (!ok || (rc != 0 && (!setgroups_allowed() ||
				(listed >= 0 && !all_mapped_groups(want, (size_t)n))))) {
		errno = err;
		return rc;
	}
	if (rc != 0)
		fatal(call, "failed", err);
	else if (listed >= 0 && !groups_are(want, n))
		fatal(call, "returned 0 but the group list is not the user's", 0);
	errno = err;
	return rc;
}
