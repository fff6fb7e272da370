/* nprocguard: git-style dispatch to subcommands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <unistd.h>

#include "backend/real/wire.h"
#include "backend/backend.h"
#include "backend/real/teardown.h"
#include "backend/real/uidlock.h"
#include "cli/cli.h"
#include "cli/closeout.h"
#include "model/policy.h"

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
} commands[] = {
	{ "run", npg_cmd_run, "run scenarios on the model of one or all policies" },
	{ "audit", npg_cmd_audit, "run a program with failing privilege drops: does it go on as root?" },
	{ "exec", npg_cmd_exec, "run a command as another user, dropped correctly" },
	{ "conform", npg_cmd_conform, "compare the model with the running kernel" },
	{ "compare", npg_cmd_compare, "run the same scenarios on two kernels: what differs, and which policies say so" },
	{ "export", npg_cmd_export, "write scenarios as kernel selftests (C, TAP) that need no nprocguard" },
	{ "explore", npg_cmd_explore, "check properties over every interleaving of concurrent scenarios" },
	{ "policies", npg_cmd_policies, "list the modelled kernel policies" },
	{ "status", npg_cmd_status, "per-user task counts against RLIMIT_NPROC, flagged tasks" },
	{ "explain", npg_cmd_explain, "which limit refuses a task's next fork or execve, with the numbers" },
	{ "guest", npg_cmd_guest, "run a program as root inside a kernel image under QEMU" },
};

static void usage(FILE *out)
{
	fprintf(out, "Usage:\n nprocguard <command> [options] [args]\n\n"
		"Model, test and check Linux RLIMIT_NPROC accounting and set*uid() rules.\n\n"
		"Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, " %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(out, "\nOptions:\n -h, --help     display this help\n"
		" -V, --version  display version\n\n"
		"See 'nprocguard <command> --help' and nprocguard(1).\n");
}

noreturn void npg_usage_error(const char *cmd)
{
	fprintf(stderr, "Try 'nprocguard%s%s --help' for more information.\n", cmd ? " " : "",
		cmd ? cmd : "");
	exit(NPG_EXIT_USAGE);
}

long npg_parse_policy_list(const char *arg)
{
	long mask = 0;
	char *copy = strdup(arg), *save = NULL;

	if (!copy) {
		perror("nprocguard");
		exit(NPG_EXIT_USAGE);
	}
	for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		const struct npg_policy *p = npg_policy_find(name);

		if (strcmp(name, "all") == 0) {
			mask |= (1L << NPG_NPOLICIES) - 1;
		} else if (p) {
			mask |= 1L << npg_policy_index(p);
		} else {
			fprintf(stderr, "nprocguard: unknown policy '%s' (see 'nprocguard policies')\n",
				name);
			free(copy);
			return -1;
		}
	}
	free(copy);
	return mask ? mask : -1;
}

/*
 * Descriptors 0-2 must exist before we create sockets and pipes for
 * puppets. A closed one becomes /dev/null opened the other way round (as
 * gnulib's stdopen does), so that output to a closed stdout still fails
 * with EBADF and is reported at exit instead of vanishing.
 */
static void ensure_std_fds(void)
{
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 &&
		    open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY) != fd)
			exit(NPG_EXIT_USAGE);
}

/*
 * Users of the password database (getpwent: /etc/passwd, and LDAP or the
 * like through NSS) whose uid is in the window above @base: a warning, not
 * an error -- the real backend refuses to start anyway if one of them has
 * a process, but their files and a later login would meet our tasks' uids.
 */
static void warn_known_users(const char *cmd, uint32_t base)
{
	struct passwd *pw;
	char first[64] = "";
	unsigned long n = 0;

	setpwent();
	while ((pw = getpwent()) != NULL) {
		if (pw->pw_uid <= base || pw->pw_uid > base + NPG_UID_WINDOW)
			continue;
		if (n++ == 0)
			snprintf(first, sizeof(first), "%s (%u)", pw->pw_name, pw->pw_uid);
	}
	endpwent();
	if (n)
		fprintf(stderr, "nprocguard %s: warning: --uid-base %u: uids %u-%u include "
			"user %s%s; pick a window no account uses\n", cmd, base, base + 1,
			base + NPG_UID_WINDOW, first, n > 1 ? " and others" : "");
}

int npg_parse_uid_base(const char *cmd, const char *arg, uint32_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' ||
	    v + NPG_UID_WINDOW >= NPG_ID_NONE) {
		fprintf(stderr, "nprocguard %s: bad --uid-base '%s' (0 to %u)\n", cmd, arg,
			NPG_ID_NONE - NPG_UID_WINDOW - 1);
		return -1;
	}
	*out = (uint32_t)v;
	warn_known_users(cmd, *out);
	return 0;
}

int npg_real_preflight(struct npg_host *host)
{
	if (npg_host_probe(host) < 0) {
		fprintf(stderr, "nprocguard: cannot read this process's state from /proc: %s\n",
			strerror(errno));
		return -1;
	}
	if (!host->root) {
		fprintf(stderr, "nprocguard: the real backend needs root: it creates processes "
			"of other users and sets their credentials\n");
		return -1;
	}
	return 0;
}

int npg_real_claim_window(const char *cmd, uint32_t base, bool wait)
{
	char err[512];

	/*
	 * From the moment the window is ours, an interruption must clean up
	 * (the lock alone would pass to the next run while our processes are
	 * still there, orphaned to init): the handlers come first.
	 */
	npg_teardown_install();
	if (npg_uid_window_lock(base, wait, err, sizeof(err)) < 0) {
		fprintf(stderr, "nprocguard %s: %s\n", cmd, err);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	/* a real-backend task after execve() (not for users) */
	if (argc == 2 && strcmp(argv[1], "__puppet") == 0)
		npg_puppet_main(NPG_PUPPET_SOCK_FD);
	ensure_std_fds();
	atexit(npg_close_stdout);
	if (argc < 2) {
		usage(stderr);
		return NPG_EXIT_USAGE;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return NPG_EXIT_OK;
	}
	if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
		printf("nprocguard %s\n", NPG_VERSION);
		return NPG_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "nprocguard: unknown command '%s'\n", argv[1]);
	npg_usage_error(NULL);
}
