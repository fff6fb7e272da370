/*
 * A program run as root inside a kernel image booted under QEMU
 * (npg_guest_boot()), and its first user, `nprocguard conform --kernel
 * IMAGE`: the same comparison, run in the guest. The report printed is the
 * guest's own (it names the guest's release); the exit status is the
 * guest's conform's.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest/guest.h"

#define ARGV_MAX NPG_GUEST_ARGV_MAX

int npg_guest_option(struct npg_guest_opts *g, const char *cmd, int c, const char *arg)
{
	char *end;
	long v;

	switch (c) {
	case 0x100:
		g->kernel = arg;
		return 0;
	case 0x101:
		if (strcmp(arg, "tcg") != 0 && strcmp(arg, "kvm") != 0 && strcmp(arg, "auto") != 0) {
			fprintf(stderr, "nprocguard %s: --accel is auto, tcg or kvm, not '%s'\n", cmd,
				arg);
			return -1;
		}
		g->accel = arg;
		return 0;
	case 0x102:
		errno = 0;
		v = strtol(arg, &end, 10);
		/* digits only: strtol() would take " 5" and "+5" */
		if (errno || *end || v < 1 || v > 7 * 24 * 3600 || *arg < '0' || *arg > '9') {
			fprintf(stderr, "nprocguard %s: bad --guest-timeout '%s' (seconds, 1 to "
				"604800)\n", cmd, arg);
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
	static const char *const names[] = { "kernel", "accel", "guest-timeout", "jobs" };
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

/* "nprocguard CMD" and the options meant for the guest, then "--" and the files. */
static int guest_argv(const char *cmd, int argc, char **argv, int optind_, char **out)
{
	int n = 0;

	out[n++] = "nprocguard";
	out[n++] = (char *)cmd;
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

/* Why there is no result, said as @cmd */
static void guest_failed(const struct npg_qemu_result *r, const char *console, const char *cmd)
{
	char why[2400];

	if (r->status.state == NPG_GUEST_FAILED) {
		fprintf(stderr, "nprocguard %s: the guest's /init failed: %s\n", cmd, r->status.error);
	} else if (r->status.state == NPG_GUEST_RUNNING) {
		npg_guest_diagnose(console, r->status.state, r->timed_out, r->seconds, why, sizeof(why));
		fprintf(stderr, "nprocguard %s: the program was running in the guest (%s) but "
			"gave no exit status: %s\n", cmd, r->status.release, why);
	} else if (!r->timed_out && WIFEXITED(r->qemu_status) && WEXITSTATUS(r->qemu_status) != 0) {
		fprintf(stderr, "nprocguard %s: QEMU could not boot the image (exit status %d; "
			"its own message is above)\n", cmd, WEXITSTATUS(r->qemu_status));
	} else {
		npg_guest_diagnose(console, r->status.state, r->timed_out, r->seconds, why, sizeof(why));
		fprintf(stderr, "nprocguard %s: %s\n", cmd, why);
	}
}

int npg_guest_check_image(const char *image, const char *cmd, const char *what)
{
	char why[512];

	if (npg_image_check(image, why, sizeof(why)) == 0)
		return 0;
	fprintf(stderr, "nprocguard %s: %s%s%s: %s\n", cmd, what ? what : "", what ? " " : "",
		image[0] ? image : "''", why);
	return -1;
}

static pthread_mutex_t initramfs_lock = PTHREAD_MUTEX_INITIALIZER;

/* auto's choice once made in this process: "kvm" or "tcg", said once */
static const char *volatile auto_choice;

const char *npg_guest_accel(const struct npg_guest_opts *g, const char *cmd)
{
	const char *dev = getenv("NPROCGUARD_KVM");
	int fd;

	if (g->accel && strcmp(g->accel, "auto") != 0)
		return g->accel;
	if (auto_choice)
		return auto_choice;
	if (!dev || !*dev)
		dev = "/dev/kvm";
	/* what QEMU does first with it: without it, QEMU would only fail */
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "nprocguard %s: no KVM (%s: %s): using TCG\n", cmd, dev,
			strerror(errno));
		return auto_choice = "tcg";
	}
	close(fd);
	return "auto";
}

static void say_accel(const struct npg_guest_opts *g, const char *accel)
{
	char line[16];
	int n = snprintf(line, sizeof(line), "%s\n", accel);

	if (g->accel_fd > 2 && write(g->accel_fd, line, (size_t)n) < 0)
		return;	/* the reader is gone: so is the run */
}

/*
 * QEMU under @q->accel, or with "auto" a trial under KVM and, when KVM
 * failed, the same boot again under TCG (said in one line)
 */
static int qemu_run_accel(const struct npg_guest_opts *g, struct npg_qemu_opts *q,
			  struct npg_qemu_result *r, const char *cmd, char *err, size_t errlen)
{
	bool trial = strcmp(q->accel, "auto") == 0;

	if (trial) {
		q->accel = "kvm";
		q->kvm_trial = true;
		q->ready_fd = g->accel_fd;
	} else {
		say_accel(g, q->accel);
	}
	if (npg_qemu_run(q, r, err, errlen) < 0)
		return -1;
	if (trial && !r->kvm_error[0] && r->status.state != NPG_GUEST_BOOTING)
		auto_choice = "kvm";
	if (!trial || !r->kvm_error[0])
		return 0;
	auto_choice = "tcg";
	fprintf(stderr, "nprocguard %s: KVM failed (%s): using TCG\n", cmd, r->kvm_error);
	say_accel(g, "tcg");
	q->accel = "tcg";
	q->kvm_trial = false;
	q->ready_fd = 0;
	if (npg_guest_pending_signal())
		return 0;	/* r says it */
	return npg_qemu_run(q, r, err, errlen);
}

int npg_guest_boot(const struct npg_guest_opts *g, const struct npg_initramfs_spec *spec,
		   int out_fd, int err_fd, const char *cmd, struct npg_guest_result *res)
{
	char cache[PATH_MAX], tmp[PATH_MAX], initrd[PATH_MAX + 32], console[PATH_MAX + 32],
		err[1024];
	const char *tmpdir = getenv("TMPDIR");
	struct npg_qemu_opts q = {
		.kernel = g->kernel, .accel = npg_guest_accel(g, cmd), .cancel_fd = g->cancel_fd,
		.memory_mb = NPG_GUEST_MEMORY_MB, .boot_timeout = NPG_GUEST_BOOT_TIMEOUT,
		.timeout = g->timeout ? g->timeout : NPG_GUEST_TIMEOUT,
		.qemu = getenv("NPROCGUARD_QEMU"), .initrd = initrd, .console_log = console,
		.out_fd = out_fd, .err_fd = err_fd,
	};
	struct npg_guest_files files = { .dirfd = -1, .fd = -1, .dir = spec->out_dir };
	struct npg_qemu_result r;
	int ret = -1, rc;

	memset(res, 0, sizeof(*res));
	if (spec->out_dir) {
		files.dirfd = open(spec->out_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (files.dirfd < 0) {
			fprintf(stderr, "nprocguard %s: %s: %s\n", cmd, spec->out_dir, strerror(errno));
			return -1;
		}
		q.files = &files;
	}
	if (spec->cache_base && npg_cache_dir(cache, sizeof(cache)) < 0) {
		fprintf(stderr, "nprocguard %s: cache directory %s: %s\n", cmd, cache, strerror(errno));
		return -1;
	}
	/* the run's files: its initramfs and the console log */
	snprintf(tmp, sizeof(tmp), "%s/nprocguard-guest.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(tmp)) {
		fprintf(stderr, "nprocguard %s: %s: %s\n", cmd, tmp, strerror(errno));
		return -1;
	}
	snprintf(initrd, sizeof(initrd), "%s/initramfs.cpio", tmp);
	snprintf(console, sizeof(console), "%s/console.log", tmp);
	/* one archive at a time: its writer keeps the libraries' list in static buffers */
	pthread_mutex_lock(&initramfs_lock);
	rc = npg_initramfs_write(spec, cache, initrd, err, sizeof(err));
	pthread_mutex_unlock(&initramfs_lock);
	if (rc < 0 && !npg_guest_pending_signal()) {
		fprintf(stderr, "nprocguard %s: initramfs: %s\n", cmd, err);
		goto clean;
	}
	if (npg_guest_pending_signal()) {
		fprintf(stderr, "nprocguard %s: interrupted before the guest started\n", cmd);
		goto clean;
	}
	if (qemu_run_accel(g, &q, &r, cmd, err, sizeof(err)) < 0) {
		fprintf(stderr, "nprocguard %s: %s\n", cmd, err);
		goto clean;
	}
	snprintf(res->release, sizeof(res->release), "%s", r.status.release);
	res->out_errno = r.out_errno;
	res->files = files.received;
	if (files.error[0]) {
		fprintf(stderr, "nprocguard %s: a file the guest sent back was not written: %s\n", cmd,
			files.error);
		res->lost_files = true;
	}
	if (r.signal || r.cancelled) {
		if (!g->quiet_stop && !r.cancelled)
			fprintf(stderr, "nprocguard %s: interrupted: the guest was stopped\n", cmd);
	} else if (r.kvm_error[0]) {
		fprintf(stderr, "nprocguard %s: KVM failed: %s\n", cmd, r.kvm_error);
	} else if (r.status.state == NPG_GUEST_DONE) {
		res->exit_status = r.status.exit_status;
		res->signal = r.status.signal;
		ret = 0;
	} else {
		guest_failed(&r, console, cmd);
	}
clean:
	nftw(tmp, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
	if (files.dirfd >= 0)
		close(files.dirfd);
	return ret;
}

/* This binary, as the guest's /bin/nprocguard, run in the directory we are in */
int npg_guest_self(struct npg_initramfs_spec *spec, char *exe, size_t exelen, char *cwd,
		   size_t cwdlen, const char *cmd)
{
	ssize_t len = readlink("/proc/self/exe", exe, exelen - 1);

	if (len < 0 || !getcwd(cwd, cwdlen)) {
		fprintf(stderr, "nprocguard %s: cannot find this binary or directory: %s\n", cmd,
			strerror(errno));
		return -1;
	}
	exe[len] = '\0';
	*spec = (struct npg_initramfs_spec){ .exe = exe, .guest_exe = "/bin/nprocguard",
					     .cache_base = true, .cwd = cwd };
	return 0;
}

int npg_guest_cmd_init(struct npg_guest_cmd *gc, const struct npg_guest_opts *g, const char *cmd,
		       int argc, char **argv, int optind_)
{
	if (npg_guest_self(&gc->spec, gc->exe, sizeof(gc->exe), gc->cwd, sizeof(gc->cwd), cmd) < 0)
		return NPG_GUEST_NO_RESULT;
	gc->spec.argc = guest_argv(cmd, argc, argv, optind_, gc->argv);
	gc->spec.argv = gc->argv;
	gc->spec.files = argv + optind_;
	gc->spec.nfiles = argc - optind_;
	gc->spec.out_dir = g->out_dir;
	if (gc->spec.argc < 0) {
		fprintf(stderr, "nprocguard %s: more than %d arguments for the guest\n", cmd, ARGV_MAX);
		return 2;
	}
	return 0;
}

int npg_guest_subcommand(const struct npg_guest_opts *g, const char *cmd, int argc, char **argv,
			 int optind_, int *out_errno)
{
	struct npg_guest_cmd *gc = malloc(sizeof(*gc));
	struct npg_guest_result res;
	int ret = NPG_GUEST_NO_RESULT;	/* unless the guest's command gives its own */

	*out_errno = 0;
	if (npg_guest_check_image(g->kernel, cmd, "--kernel") < 0) {
		free(gc);
		return 2;
	}
	if (!gc) {
		fprintf(stderr, "nprocguard %s: out of memory\n", cmd);
		return NPG_GUEST_NO_RESULT;
	}
	if ((ret = npg_guest_cmd_init(gc, g, cmd, argc, argv, optind_)) != 0) {
		free(gc);
		return ret;
	}
	ret = NPG_GUEST_NO_RESULT;
	npg_guest_catch_signals();
	fflush(stdout);
	if (npg_guest_boot(g, &gc->spec, 1, 2, cmd, &res) == 0) {
		if (res.signal)
			fprintf(stderr, "nprocguard %s: nprocguard in the guest (%s) was killed by "
				"signal %d\n", cmd, res.release, res.signal);
		else
			ret = res.exit_status;
		/* a shrunk scenario lost here is lost output, as a write error */
		if (res.lost_files)
			ret = 2;
	}
	*out_errno = res.out_errno;
	npg_guest_release_signals();
	free(gc);
	return ret;
}

int npg_guest_conform(const struct npg_guest_opts *g, int argc, char **argv, int optind_,
		      int *out_errno)
{
	return npg_guest_subcommand(g, "conform", argc, argv, optind_, out_errno);
}
