/*
 * `nprocguard conform --kernel IMAGE`: the same comparison, run as root
 * inside IMAGE booted under QEMU. The report printed is the guest's own
 * (it names the guest's release); the exit status is the guest's conform's.
 */
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest/guest.h"

#define ARGV_MAX 1024

int npg_guest_option(struct npg_guest_opts *g, int c, const char *arg)
{
	char *end;
	long v;

	switch (c) {
	case 0x100:
		g->kernel = arg;
		return 0;
	case 0x101:
		if (strcmp(arg, "tcg") != 0 && strcmp(arg, "kvm") != 0) {
			fprintf(stderr, "nprocguard conform: --accel is tcg or kvm, not '%s'\n", arg);
			return -1;
		}
		g->accel = arg;
		return 0;
	case 0x102:
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || *end || v < 1 || v > 7 * 24 * 3600) {
			fprintf(stderr, "nprocguard conform: bad --guest-timeout '%s' (seconds, 1 to "
				"604800)\n", arg);
			return -1;
		}
		g->timeout = (int)v;
		return 0;
	}
	return -1;
}

/* Is "--NAME[=V]" (as getopt_long accepted it, so unambiguous) a host-only option? */
static bool host_only(const char *a, bool *has_value)
{
	static const char *const names[] = { "kernel", "accel", "guest-timeout" };
	size_t len;

	if (strncmp(a, "--", 2) != 0 || a[2] == '\0')
		return false;
	a += 2;
	len = strcspn(a, "=");
	*has_value = a[len] == '=';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strncmp(names[i], a, len) == 0)
			return true;
	return false;
}

/* "nprocguard conform" and the options meant for the guest, then "--" and the files. */
static int guest_argv(int argc, char **argv, int optind_, char **out)
{
	int n = 0;

	out[n++] = "nprocguard";
	out[n++] = "conform";
	for (int i = 1; i < optind_; i++) {
		bool has_value;

		if (n >= ARGV_MAX - 2)
			return -1;
		if (strcmp(argv[i], "--") == 0)
			continue;
		if (host_only(argv[i], &has_value)) {
			i += !has_value;
			continue;
		}
		out[n++] = argv[i];
	}
	if (optind_ < argc)
		out[n++] = "--";
	for (int i = optind_; i < argc; i++) {
		if (n >= ARGV_MAX - 1)
			return -1;
		out[n++] = argv[i];
	}
	out[n] = NULL;
	return n;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

static int guest_failed(const struct npg_qemu_result *r, const char *console)
{
	char why[2400];

	if (r->status.state == NPG_GUEST_FAILED) {
		fprintf(stderr, "nprocguard conform: the guest's /init failed: %s\n", r->status.error);
	} else if (r->status.state == NPG_GUEST_DONE && r->status.signal) {
		fprintf(stderr, "nprocguard conform: nprocguard in the guest (%s) was killed by "
			"signal %d\n", r->status.release, r->status.signal);
	} else if (r->status.state == NPG_GUEST_RUNNING) {
		npg_guest_diagnose(console, r->timed_out, r->seconds, why, sizeof(why));
		fprintf(stderr, "nprocguard conform: nprocguard was running in the guest (%s) but "
			"gave no exit status: %s\n", r->status.release, why);
	} else if (!r->timed_out && WIFEXITED(r->qemu_status) && WEXITSTATUS(r->qemu_status) != 0) {
		fprintf(stderr, "nprocguard conform: QEMU could not boot the image (exit status %d; "
			"its own message is above)\n", WEXITSTATUS(r->qemu_status));
	} else {
		npg_guest_diagnose(console, r->timed_out, r->seconds, why, sizeof(why));
		fprintf(stderr, "nprocguard conform: %s\n", why);
	}
	return 2;
}

int npg_guest_conform(const struct npg_guest_opts *g, int argc, char **argv, int optind_)
{
	char *gargv[ARGV_MAX], exe[PATH_MAX], cwd[PATH_MAX], cache[PATH_MAX], tmp[PATH_MAX],
		initrd[PATH_MAX + 32], console[PATH_MAX + 32], err[1024];
	const char *tmpdir = getenv("TMPDIR");
	struct npg_initramfs_spec spec = { .exe = exe, .cwd = cwd };
	struct npg_qemu_opts q = {
		.kernel = g->kernel, .accel = g->accel ? g->accel : "tcg",
		.memory_mb = NPG_GUEST_MEMORY_MB, .boot_timeout = NPG_GUEST_BOOT_TIMEOUT,
		.timeout = g->timeout ? g->timeout : NPG_GUEST_TIMEOUT,
		.qemu = getenv("NPROCGUARD_QEMU"), .initrd = initrd, .console_log = console,
	};
	struct npg_qemu_result r;
	struct stat sb = { 0 };
	ssize_t len;
	int ret = 2;

	if (stat(g->kernel, &sb) < 0 || access(g->kernel, R_OK) < 0 || !S_ISREG(sb.st_mode)) {
		fprintf(stderr, "nprocguard conform: --kernel %s: %s\n", g->kernel,
			S_ISDIR(sb.st_mode) ? "a directory, not a kernel image" : strerror(errno));
		return 2;
	}
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len < 0 || !getcwd(cwd, sizeof(cwd))) {
		fprintf(stderr, "nprocguard conform: cannot find this binary or directory: %s\n",
			strerror(errno));
		return 2;
	}
	exe[len] = '\0';
	spec.argc = guest_argv(argc, argv, optind_, gargv);
	spec.argv = gargv;
	spec.files = argv + optind_;
	spec.nfiles = argc - optind_;
	if (spec.argc < 0) {
		fprintf(stderr, "nprocguard conform: more than %d arguments for the guest\n", ARGV_MAX);
		return 2;
	}
	if (npg_cache_dir(cache, sizeof(cache)) < 0) {
		fprintf(stderr, "nprocguard conform: cache directory %s: %s\n", cache, strerror(errno));
		return 2;
	}
	/* the run's files: its initramfs and the console log */
	snprintf(tmp, sizeof(tmp), "%s/nprocguard-guest.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	npg_guest_catch_signals();
	if (!mkdtemp(tmp)) {
		fprintf(stderr, "nprocguard conform: %s: %s\n", tmp, strerror(errno));
		goto out;
	}
	snprintf(initrd, sizeof(initrd), "%s/initramfs.cpio", tmp);
	snprintf(console, sizeof(console), "%s/console.log", tmp);
	if (npg_initramfs_write(&spec, cache, initrd, err, sizeof(err)) < 0) {
		fprintf(stderr, "nprocguard conform: initramfs: %s\n", err);
		goto clean;
	}
	if (npg_guest_pending_signal())
		goto clean;
	fflush(stdout);
	if (npg_qemu_run(&q, &r, err, sizeof(err)) < 0) {
		fprintf(stderr, "nprocguard conform: %s\n", err);
		goto clean;
	}
	if (r.signal)
		fprintf(stderr, "nprocguard conform: interrupted: the guest was stopped\n");
	else if (r.status.state == NPG_GUEST_DONE && !r.status.signal)
		ret = r.status.exit_status;
	else
		ret = guest_failed(&r, console);
clean:
	nftw(tmp, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
out:
	npg_guest_release_signals();
	return ret;
}
