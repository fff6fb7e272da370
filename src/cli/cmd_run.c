/* nprocguard run: scenarios on the model, one column per policy. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "report/report.h"
#include "runner/run.h"

static void usage(void)
{
	printf("Usage:\n nprocguard run [options] FILE...\n\n"
	       "Run scenario files on the model of one or several kernel policies and\n"
	       "check every expectation they state.\n\n"
	       "Options:\n"
	       " -p, --policy LIST    NAME[,NAME...] or 'all' (default: the file's\n"
	       "                      'policies' line, else all)\n"
	       " -f, --format FORMAT  text (default), json or tap\n"
	       " -h, --help           display this help\n\n"
	       "With one policy, text output is a step-by-step trace; with several, a\n"
	       "side-by-side table, one column per policy.\n\n"
	       "Exit status: 0 every expectation held, 1 one failed, 2 usage or syntax error.\n");
}

struct run_totals {
	int expectations, failed, unreproducible, tap_number;
	bool broken;
};

static void run_one(const struct npg_scenario *sc, long mask, enum npg_format fmt,
		    struct run_totals *tot, bool first)
{
	struct npg_backend backends[NPG_NPOLICIES];
	struct npg_column cols[NPG_NPOLICIES];
	struct npg_run run;
	int n = 0;

	for (int i = 0; npg_policies[i]; i++) {
		if (!(mask & (1L << i)))
			continue;
		npg_model_backend_init(&backends[n], npg_policies[i], NPG_CAP_ALL);
		cols[n] = (struct npg_column){ .backend = &backends[n], .policy_index = i };
		n++;
	}
	if (npg_run_scenario(&run, sc, cols, n) < 0)
		tot->broken = true;
	switch (fmt) {
	case NPG_FORMAT_TEXT:
		npg_report_text(stdout, &run);
		break;
	case NPG_FORMAT_JSON:
		npg_report_json_run(stdout, &run, first);
		break;
	case NPG_FORMAT_TAP:
		npg_report_tap_run(stdout, &run, &tot->tap_number);
		break;
	}
	fflush(stdout);
	npg_report_mismatches(stderr, &run);
	tot->expectations += run.expectations;
	tot->failed += run.failed;
	tot->unreproducible += run.unreproducible;
	npg_run_free(&run);
}

int npg_cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum npg_format fmt = NPG_FORMAT_TEXT;
	struct run_totals tot = { 0 };
	struct npg_scenario **sc;
	long mask = 0;
	int c, nfiles, bad = 0;

	while ((c = getopt_long(argc, argv, "p:f:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			mask = npg_parse_policy_list(optarg);
			if (mask < 0)
				npg_usage_error("run");
			break;
		case 'f':
			if (npg_format_parse(optarg, &fmt) < 0) {
				fprintf(stderr, "nprocguard run: unknown format '%s'\n", optarg);
				npg_usage_error("run");
			}
			break;
		case 'h':
			usage();
			return NPG_EXIT_OK;
		default:
			npg_usage_error("run");
		}
	}
	nfiles = argc - optind;
	if (nfiles == 0) {
		fprintf(stderr, "nprocguard run: no scenario file given\n");
		npg_usage_error("run");
	}
	/* parse everything first: a bad file stops the run before any result */
	sc = calloc((size_t)nfiles, sizeof(*sc));
	if (!sc) {
		perror("nprocguard");
		return NPG_EXIT_USAGE;
	}
	for (int i = 0; i < nfiles; i++)
		if (!(sc[i] = npg_scenario_load(argv[optind + i], stderr)))
			bad++;
	if (!bad) {
		if (fmt == NPG_FORMAT_JSON)
			npg_report_json_begin(stdout, "run");
		for (int i = 0; i < nfiles; i++)
			run_one(sc[i], mask ? mask : (long)sc[i]->policies, fmt, &tot, i == 0);
		if (fmt == NPG_FORMAT_JSON)
			npg_report_json_end(stdout, tot.expectations, tot.failed, tot.unreproducible);
		if (fmt == NPG_FORMAT_TAP)
			npg_report_tap_end(stdout, tot.tap_number);
		if (fmt == NPG_FORMAT_TEXT && nfiles > 1)
			printf("%d files, %d expectations: %d held, %d failed\n", nfiles,
			       tot.expectations, tot.expectations - tot.failed, tot.failed);
	}
	for (int i = 0; i < nfiles; i++)
		npg_scenario_free(sc[i]);
	free(sc);
	if (bad)
		return NPG_EXIT_USAGE;
	return tot.failed || tot.broken ? NPG_EXIT_FAILED : NPG_EXIT_OK;
}
