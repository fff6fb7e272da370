/* nprocguard: git-style dispatch to subcommands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <unistd.h>

#include "backend/real/wire.h"
#include "cli/cli.h"
#include "cli/closeout.h"

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
	{ "identify", npg_cmd_identify, "which policy and rules this kernel follows, asked of it" },
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
		if (strcmp(argv[1], commands[i].name) == 0) {
			static char name[32];

			/* getopt_long's own messages begin with argv[0]: "nprocguard run: ..." */
			snprintf(name, sizeof(name), "nprocguard %s", commands[i].name);
			argv[1] = name;
			npg_closeout_command(commands[i].name);
			return commands[i].fn(argc - 1, argv + 1);
		}
	fprintf(stderr, "nprocguard: unknown command '%s'\n", argv[1]);
	npg_usage_error(NULL);
}
