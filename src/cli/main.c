/* nprocguard: git-style dispatch to subcommands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "model/policy.h"

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
} commands[] = {
	{ "run", npg_cmd_run, "run scenarios on the model of one or all policies" },
	{ "policies", npg_cmd_policies, "list the modelled kernel policies" },
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

int main(int argc, char **argv)
{
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
