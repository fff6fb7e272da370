/* nprocguard export: scenario files as programs that need no nprocguard. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/scenario_files.h"
#include "export/export.h"

static void usage(void)
{
	printf("Usage:\n nprocguard export --format kselftest [--policy NAME] -o DIR FILE...\n\n"
	       "Write each scenario FILE as a kernel selftest: a C program that performs its\n"
	       "steps with plain system calls and checks its expectations, printing TAP, with\n"
	       "the runtime the programs share and a Makefile that builds them alone (static)\n"
	       "or in a kernel tree's tools/testing/selftests/. A statement that cannot be\n"
	       "exported is refused, with its file:line, and nothing is written.\n"
	       "FILE '-' is standard input (once); a directory stands for the sequential\n"
	       "*.npg files under it, sorted, symbolic links not followed.\n\n"
	       "Options:\n"
	       " -f, --format FORMAT  kselftest (the only one, and the default)\n"
	       " -p, --policy NAME    check this policy's expectations on any kernel (default:\n"
	       "                      the policy of the running kernel's era, picked by the\n"
	       "                      test at run time as 'nprocguard conform' picks it)\n"
	       " -o, --out DIR        where the files go (made if missing; required)\n"
	       " -h, --help           display this help\n\n"
	       "Exit status: 0 written, 2 usage error, bad input or a statement refused.\n");
}

int npg_cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "policy", required_argument, NULL, 'p' },
		{ "out", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct npg_export_options o = { 0 };
	struct npg_scenario **sc;
	struct npg_scenario_files files;
	int c, n, bad = 0, rc;

	while ((c = getopt_long(argc, argv, "f:p:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "kselftest") != 0) {
				npg_bad_option("export", "--format", optarg, "unknown format "
					       "(kselftest)");
				npg_usage_error("export");
			}
			break;
		case 'p':
			if (!(o.policy = npg_parse_policy("export", optarg)))
				npg_usage_error("export");
			break;
		case 'o':
			if (!*optarg) {
				npg_bad_option("export", "--out", optarg, "empty (a directory)");
				npg_usage_error("export");
			}
			o.dir = optarg;
			break;
		case 'h':
			usage();
			return NPG_EXIT_OK;
		default:
			npg_usage_error("export");
		}
	}
	if (!o.dir || optind == argc) {
		fprintf(stderr, "nprocguard export: %s\n", !o.dir ? "-o DIR is required" :
			"no scenario file given");
		npg_usage_error("export");
	}
	if (npg_scenario_files("export", argv + optind, argc - optind, false, &files) < 0)
		return NPG_EXIT_USAGE;
	n = files.n;
	if (!(sc = calloc((size_t)n, sizeof(*sc)))) {
		perror("nprocguard");
		npg_scenario_files_free(&files);
		return NPG_EXIT_USAGE;
	}
	/* every file is read and checked, so that one run reports every refusal */
	for (int i = 0; i < n; i++) {
		if (!(sc[i] = npg_scenario_files_load(&files, i, NULL)))
			bad++;
		else
			bad += npg_export_check(sc[i], stderr) > 0;
	}
	if (bad)
		fprintf(stderr, "nprocguard export: %d of %d files cannot be exported; nothing was "
			"written\n", bad, n);
	rc = bad ? NPG_EXIT_USAGE :
	     npg_export_kselftest(&o, sc, n, stderr) < 0 ? NPG_EXIT_USAGE : NPG_EXIT_OK;
	for (int i = 0; i < n; i++)
		npg_scenario_free(sc[i]);
	free(sc);
	npg_scenario_files_free(&files);
	return rc;
}
