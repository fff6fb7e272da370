/*
 * nprocguard guest: one program run as root inside a kernel image booted
 * under QEMU -- the machinery of `conform --kernel`, for any static or
 * dynamic program (an exported kselftest, a probe): its output comes back
 * as it is written, its exit status becomes ours.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/closeout.h"
#include "guest/guest.h"

/* As env(1) and timeout(1): our own failures are above any status a
 * program usually gives, below the 128+N of a signal */
#define GUEST_EXIT_FAILED 125	/* usage error, or the guest gave no result */

#define FILES_MAX 256
#define ENV_MAX 1024

/* --env NAME=VALUE, or NAME for ours: "NAME=VALUE" in @out (allocated); -1 (said) if refused */
static int env_option(const char *arg, char **out)
{
	size_t len = strcspn(arg, "=");
	const char *value;

	if (len == 0 || (!isalpha((unsigned char)arg[0]) && arg[0] != '_') ||
	    strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != len) {
		fprintf(stderr, "nprocguard guest: bad --env '%s': NAME=VALUE or NAME, a NAME of "
			"letters, digits and '_', not starting with a digit\n", arg);
		return -1;
	}
	if (arg[len] == '=') {
		*out = strdup(arg);
	} else if (!(value = getenv(arg))) {
		fprintf(stderr, "nprocguard guest: --env %s: %s is not set here (give --env %s=VALUE)\n",
			arg, arg, arg);
		return -1;
	} else if (asprintf(out, "%s=%s", arg, value) < 0) {
		*out = NULL;
	}
	if (!*out) {
		fprintf(stderr, "nprocguard guest: --env: out of memory\n");
		return -1;
	}
	return 0;
}

static void usage(void)
{
	printf("Usage:\n nprocguard guest --kernel IMAGE [options] [--] PROGRAM [ARG...]\n\n"
	       "Boot the x86_64 kernel IMAGE under QEMU with a minimal initramfs holding\n"
	       "PROGRAM (and, if it is dynamic, the libraries ldd(1) lists), run it there\n"
	       "as root (PID 1 is nprocguard's /init: /proc, /sys and /dev mounted), copy\n"
	       "its standard output and error here as they come, and exit with its status.\n"
	       "PROGRAM keeps its path (a name without '/' is looked up in PATH), and runs\n"
	       "in a directory of the same path as this one.\n\n"
	       "Options:\n"
	       "     --kernel IMAGE   the kernel to boot (required)\n"
	       " -f, --file PATH      copy PATH into the guest at the same path (repeatable)\n"
	       " -e, --env NAME=VALUE set NAME in PROGRAM's environment; --env NAME passes\n"
	       "                      ours (repeatable)\n"
	       "     --accel auto|tcg|kvm  QEMU's accelerator (default auto: KVM when it\n"
	       "                      works, else TCG, said in one line)\n"
	       "     --guest-timeout S  give up on the guest after S seconds\n"
	       "                        (1 to 604800, default 3600)\n"
	       " -h, --help           display this help\n\n"
	       "PROGRAM's environment is not ours: it holds HOME=/ and TERM=linux (from the\n"
	       "kernel), TMPDIR=/npg-tmp (a tmpfs), NPG_PROGRESS=0, NPG_GUEST_KERNEL=1,\n"
	       "NPG_GUEST_REAPED=/npg-reaped (the orphans /init reaped), and no PATH; then\n"
	       "each --env, in order (a later one wins, /init's own included).\n\n"
	       "Exit status: PROGRAM's; 128+N when signal N killed it; 126 it could not be\n"
	       "run in the guest, 127 it was not found there; 125 a usage error, or the\n"
	       "guest gave no result (QEMU missing, a panic, a hang: said on stderr);\n"
	       "2 its output could not all be written here (said: write error).\n");
}

static void usage_error(void)
{
	fprintf(stderr, "Try 'nprocguard guest --help' for more information.\n");
	exit(GUEST_EXIT_FAILED);
}

/* @name as execvp(3) would find it, made absolute, in @out */
static int find_program(const char *name, char *out)
{
	const char *path = getenv("PATH");
	char try[PATH_MAX];

	if (strchr(name, '/'))
		return realpath(name, out) ? 0 : -1;
	for (const char *p = path ? path : "/usr/local/bin:/usr/bin:/bin"; *p;) {
		size_t len = strcspn(p, ":");

		if (snprintf(try, sizeof(try), "%.*s/%s", (int)len, len ? p : ".", name) <
			    (int)sizeof(try) &&
		    access(try, X_OK) == 0 && realpath(try, out))
			return 0;
		p += len + (p[len] == ':');
	}
	errno = ENOENT;
	return -1;
}

int npg_cmd_guest(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "file", required_argument, NULL, 'f' },
		{ "env", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		NPG_GUEST_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct npg_guest_opts guest = { 0 };
	struct npg_guest_result res;
	char *files[FILES_MAX], *env[ENV_MAX], prog[PATH_MAX], cwd[PATH_MAX];
	struct npg_initramfs_spec spec = { .exe = prog, .cwd = cwd, .files = files, .env = env };
	struct stat sb;
	int c, ret = GUEST_EXIT_FAILED;

	/* "+": the program's own options are not ours */
	while ((c = getopt_long(argc, argv, "+f:e:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (spec.nfiles == FILES_MAX) {
				fprintf(stderr, "nprocguard guest: more than %d files\n", FILES_MAX);
				usage_error();
			}
			if (!*optarg) {
				npg_bad_option("guest", "--file", optarg, "empty (a file to copy into "
					       "the guest)");
				usage_error();
			}
			/* before any work: a FIFO would block the initramfs's copy, a
			 * device give no end (the copy checks again, as it opens) */
			if (stat(optarg, &sb) < 0) {
				fprintf(stderr, "nprocguard guest: --file %s: %s\n", optarg,
					strerror(errno));
				usage_error();
			}
			if (!S_ISREG(sb.st_mode)) {
				fprintf(stderr, "nprocguard guest: --file %s: not a regular file (the "
					"guest gets a copy of regular files only)\n", optarg);
				usage_error();
			}
			if (sb.st_size > NPG_CPIO_FILE_MAX) {
				fprintf(stderr, "nprocguard guest: --file %s: larger than %d MiB, more "
					"than a guest holds\n", optarg, NPG_CPIO_FILE_MAX >> 20);
				usage_error();
			}
			files[spec.nfiles++] = optarg;
			break;
		case 'e':
			if (spec.nenv == ENV_MAX) {
				fprintf(stderr, "nprocguard guest: more than %d --env\n", ENV_MAX);
				usage_error();
			}
			if (env_option(optarg, &env[spec.nenv]) < 0)
				usage_error();
			spec.nenv++;
			break;
		case 'h':
			usage();
			return NPG_EXIT_OK;
		case 0x100:
		case 0x101:
		case 0x102:
			if (npg_guest_option(&guest, "guest", c, optarg) < 0)
				usage_error();
			break;
		default:
			usage_error();
		}
	}
	if (!guest.kernel || optind >= argc) {
		fprintf(stderr, "nprocguard guest: give --kernel IMAGE and a PROGRAM to run\n");
		usage_error();
	}
	if (npg_guest_check_image(guest.kernel, "guest", "--kernel") < 0)
		goto out;
	if (find_program(argv[optind], prog) < 0 || stat(prog, &sb) < 0) {
		fprintf(stderr, "nprocguard guest: %s: %s\n", argv[optind], strerror(errno));
		goto out;
	}
	if (!S_ISREG(sb.st_mode) || !(sb.st_mode & 0111)) {
		fprintf(stderr, "nprocguard guest: %s: not an executable file\n", argv[optind]);
		goto out;
	}
	if (!getcwd(cwd, sizeof(cwd))) {
		fprintf(stderr, "nprocguard guest: cannot find this directory: %s\n", strerror(errno));
		goto out;
	}
	spec.argv = argv + optind;
	spec.argc = argc - optind;
	npg_guest_catch_signals();
	npg_closeout_flush();
	if (npg_guest_boot(&guest, &spec, 1, 2, "guest", &res) == 0)
		ret = res.signal ? 128 + res.signal : res.exit_status;
	npg_closeout_lost(res.out_errno);	/* the program's output: exit 2 at exit */
	npg_guest_release_signals();
out:
	for (int i = 0; i < spec.nenv; i++)
		free(env[i]);
	return ret;
}
