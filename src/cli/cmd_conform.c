/*
 * nprocguard conform: the same scenarios on the model and on the running
 * kernel, and every place where they disagree. With --random, scenarios
 * are generated, and any that disagrees is shrunk and written out.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/backend.h"
#include "cli/cli.h"
#include "report/report.h"
#include "runner/conform.h"
#include "runner/random.h"

#define RANDOM_TEXT_MAX 8192

static void usage(void)
{
	printf("Usage:\n nprocguard conform [options] FILE...\n"
	       " nprocguard conform [options] --random N [--seed S]\n\n"
	       "Run each scenario on the model and on the running kernel (as root) and\n"
	       "report, step by step, every result, credential, flag, capability set or\n"
	       "per-user count on which they differ.\n\n"
	       "Options:\n"
	       " -p, --policy NAME    the model to compare (default: the one for this\n"
	       "                      kernel's release, see 'nprocguard policies')\n"
	       " -f, --format FORMAT  text (default) or json\n"
	       " -u, --uid-base UID   real uids for scenario users start above UID\n"
	       "                      (default 3000000000)\n"
	       " -r, --random N       generate N random scenarios instead of reading files\n"
	       " -s, --seed S         seed for --random (default 1)\n"
	       " -o, --out DIR        where shrunk differing random scenarios go (default .)\n"
	       " -q, --quiet          print only differences and the summary\n"
	       " -h, --help           display this help\n\n"
	       "Exit status: 0 no difference, 1 a difference, 2 usage error or no root.\n");
}

struct conform_opts {
	const struct npg_policy *policy;
	enum npg_format fmt;
	uint32_t uid_base;
	struct npg_host host;
	bool quiet;
};

struct totals {
	int scenarios;
	struct npg_conform_stats stats;
	bool broken;
	bool first_json;
};

static void emit_text(const struct npg_run *run, const struct npg_diff *d, void *arg)
{
	const struct npg_stmt *st = &run->sc->stmts[d->stmt];
	char label[160];

	(void)arg;
	npg_stmt_label(run->sc, st, label, sizeof(label));
	printf("%s:%d: %s: %s: model %s, kernel %s\n", run->sc->file, st->line, label, d->field,
	       d->a, d->b);
}

static void emit_json(const struct npg_run *run, const struct npg_diff *d, void *arg)
{
	const struct npg_stmt *st = &run->sc->stmts[d->stmt];
	bool *first = arg;
	char label[160];

	npg_stmt_label(run->sc, st, label, sizeof(label));
	printf("%s\n        {\"line\": %d, \"statement\": ", *first ? "" : ",", st->line);
	npg_json_string(stdout, label);
	printf(", \"field\": ");
	npg_json_string(stdout, d->field);
	printf(", \"model\": ");
	npg_json_string(stdout, d->a);
	printf(", \"kernel\": ");
	npg_json_string(stdout, d->b);
	printf("}");
	*first = false;
}

static void count_only(const struct npg_run *run, const struct npg_diff *d, void *arg)
{
	(void)run, (void)d;
	++*(int *)arg;
}

/* Run @sc on both backends; fills @run (caller frees). -1 if a backend failed to start. */
static int run_both(const struct conform_opts *o, const struct npg_scenario *sc,
		    struct npg_backend be[2], struct npg_column cols[2], struct npg_run *run)
{
	npg_model_backend_init(&be[0], o->policy, o->host.cap_bnd);
	npg_real_backend_init(&be[1], &o->host, o->uid_base);
	snprintf(be[0].label, sizeof(be[0].label), "model %s", o->policy->name);
	cols[0] = (struct npg_column){ .backend = &be[0], .policy_index = npg_policy_index(o->policy) };
	cols[1] = (struct npg_column){ .backend = &be[1], .policy_index = npg_policy_index(o->policy) };
	return npg_run_scenario(run, sc, cols, 2);
}

static void report_start_failure(const struct npg_run *run)
{
	for (int c = 0; c < run->ncols; c++)
		if (!run->cols[c].started)
			fprintf(stderr, "nprocguard conform: %s: %s: %s\n", run->sc->file,
				run->cols[c].backend->label, run->cols[c].error);
}

static void conform_one(const struct conform_opts *o, const struct npg_scenario *sc,
			struct totals *tot)
{
	struct npg_backend be[2];
	struct npg_column cols[2];
	struct npg_run run;
	struct npg_conform_stats st = { 0 };
	bool first = true;

	if (run_both(o, sc, be, cols, &run) < 0) {
		report_start_failure(&run);
		tot->broken = true;
		npg_run_free(&run);
		return;
	}
	if (o->fmt == NPG_FORMAT_JSON) {
		printf("%s\n    {\"file\": ", tot->first_json ? "" : ",");
		npg_json_string(stdout, sc->file);
		printf(", \"differences\": [");
		npg_conform_diff(&run, 0, 1, emit_json, &first, &st);
		printf("],\n     \"statements\": %d, \"agree\": %d, \"differ\": %d, "
		       "\"unreproducible\": %d}", st.statements, st.agree, st.differ, st.unreproducible);
		tot->first_json = false;
	} else {
		npg_conform_diff(&run, 0, 1, emit_text, NULL, &st);
		if (!o->quiet)
			printf("%s: %d statements: %d agree, %d differ, %d unreproducible here\n",
			       sc->file, st.statements, st.agree, st.differ, st.unreproducible);
		if (!o->quiet && st.unreproducible)
			npg_report_mismatches(stdout, &run);
	}
	tot->scenarios++;
	tot->stats.statements += st.statements;
	tot->stats.agree += st.agree;
	tot->stats.differ += st.differ;
	tot->stats.unreproducible += st.unreproducible;
	npg_run_free(&run);
}

/* --- random --- */

struct shrink_ctx {
	const struct conform_opts *o;
};

static int differences_in(const struct conform_opts *o, const char *name, const char *text,
			  bool *parsed)
{
	struct npg_scenario *sc = npg_scenario_parse(name, text, strlen(text), NULL);
	struct npg_backend be[2];
	struct npg_column cols[2];
	struct npg_run run;
	struct npg_conform_stats st = { 0 };
	int ndiff = 0;

	*parsed = sc != NULL;
	if (!sc)
		return 0;
	if (run_both(o, sc, be, cols, &run) == 0)
		npg_conform_diff(&run, 0, 1, count_only, &ndiff, &st);
	else
		ndiff = -1;
	npg_run_free(&run);
	npg_scenario_free(sc);
	return ndiff;
}

static bool still_differs(const char *text, void *arg)
{
	struct shrink_ctx *ctx = arg;
	bool parsed;

	return differences_in(ctx->o, "shrinking", text, &parsed) > 0 && parsed;
}

static int write_shrunk(const char *dir, uint64_t seed, int n, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/conform-random-%llu-%d.npg", dir, (unsigned long long)seed, n);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "nprocguard conform: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "# Shrunk from 'nprocguard conform --random' (seed %llu, scenario %d):\n"
		"# the model and the kernel disagreed on this.\n%s", (unsigned long long)seed, n, text);
	fclose(f);
	fprintf(stderr, "nprocguard conform: wrote %s\n", path);
	return 0;
}

static int conform_random(const struct conform_opts *o, int count, uint64_t seed,
			  const char *outdir, struct totals *tot)
{
	char *text = malloc(RANDOM_TEXT_MAX);
	struct timespec t0, t1;

	if (!text)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int n = 0; n < count; n++) {
		struct npg_scenario *sc;
		char name[64];

		if (npg_random_scenario(seed, n, text, RANDOM_TEXT_MAX) < 0)
			continue;
		snprintf(name, sizeof(name), "random-%llu-%d", (unsigned long long)seed, n);
		sc = npg_scenario_parse(name, text, strlen(text), stderr);
		if (!sc) {
			fprintf(stderr, "nprocguard conform: internal error: generated scenario %d does "
				"not parse\n%s", n, text);
			tot->broken = true;
			continue;
		}
		{
			struct conform_opts quiet = *o;
			int before = tot->stats.differ;

			quiet.quiet = true;
			conform_one(&quiet, sc, tot);
			if (tot->stats.differ > before) {
				struct shrink_ctx ctx = { o };
				int tries = npg_shrink_lines(text, still_differs, &ctx);

				fprintf(stderr, "nprocguard conform: scenario %d differs; shrunk in %d tries "
					"to:\n%s", n, tries, text);
				write_shrunk(outdir, seed, n, text);
			}
		}
		npg_scenario_free(sc);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (o->fmt == NPG_FORMAT_TEXT)
		printf("random: %d scenarios (seed %llu) in %.1f s\n", count, (unsigned long long)seed,
		       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	free(text);
	return 0;
}

int npg_cmd_conform(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "format", required_argument, NULL, 'f' },
		{ "uid-base", required_argument, NULL, 'u' },
		{ "random", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },
		{ "out", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct conform_opts o = { .fmt = NPG_FORMAT_TEXT, .uid_base = NPG_DEFAULT_UID_BASE };
	struct totals tot = { .first_json = true };
	const char *outdir = ".";
	long random_n = -1;
	unsigned long long seed = 1;
	int c, nfiles, bad = 0;
	char *end;

	while ((c = getopt_long(argc, argv, "p:f:u:r:s:o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			o.policy = npg_policy_find(optarg);
			if (!o.policy) {
				fprintf(stderr, "nprocguard conform: unknown policy '%s'\n", optarg);
				npg_usage_error("conform");
			}
			break;
		case 'f':
			if (npg_format_parse(optarg, &o.fmt) < 0 || o.fmt == NPG_FORMAT_TAP) {
				fprintf(stderr, "nprocguard conform: unknown format '%s'\n", optarg);
				npg_usage_error("conform");
			}
			break;
		case 'u':
			if (npg_parse_uid_base(optarg, &o.uid_base) < 0)
				npg_usage_error("conform");
			break;
		case 'r':
			errno = 0;
			random_n = strtol(optarg, &end, 10);
			if (errno || *end || random_n < 1 || random_n > 10000000) {
				fprintf(stderr, "nprocguard conform: bad --random '%s'\n", optarg);
				npg_usage_error("conform");
			}
			break;
		case 's':
			errno = 0;
			seed = strtoull(optarg, &end, 10);
			if (errno || *end || optarg[0] == '-') {
				fprintf(stderr, "nprocguard conform: bad --seed '%s'\n", optarg);
				npg_usage_error("conform");
			}
			break;
		case 'o':
			outdir = optarg;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'h':
			usage();
			return NPG_EXIT_OK;
		default:
			npg_usage_error("conform");
		}
	}
	nfiles = argc - optind;
	if ((nfiles == 0) == (random_n < 0)) {
		fprintf(stderr, "nprocguard conform: give scenario files or --random N\n");
		npg_usage_error("conform");
	}
	if (npg_real_preflight(&o.host) < 0)
		return NPG_EXIT_USAGE;
	if (!o.policy) {
		o.policy = o.host.policy ? o.host.policy : &npg_policy_linux_6;
		if (o.fmt == NPG_FORMAT_TEXT && !o.quiet)
			printf("model %s, picked for kernel %s (override with --policy)\n", o.policy->name,
			       o.host.release);
	}
	if (o.fmt == NPG_FORMAT_JSON) {
		printf("{\n  \"kernel\": ");
		npg_json_string(stdout, o.host.release);
		printf(",\n  \"policy\": ");
		npg_json_string(stdout, o.policy->name);
		printf(",\n  \"scenarios\": [");
	}
	if (random_n > 0) {
		conform_random(&o, (int)random_n, seed, outdir, &tot);
	} else {
		struct npg_scenario **sc = calloc((size_t)nfiles, sizeof(*sc));

		if (!sc)
			return NPG_EXIT_USAGE;
		for (int i = 0; i < nfiles; i++)
			if (!(sc[i] = npg_scenario_load(argv[optind + i], stderr)))
				bad++;
		for (int i = 0; !bad && i < nfiles; i++)
			conform_one(&o, sc[i], &tot);
		for (int i = 0; i < nfiles; i++)
			npg_scenario_free(sc[i]);
		free(sc);
		if (bad)
			return NPG_EXIT_USAGE;
	}
	if (o.fmt == NPG_FORMAT_JSON)
		printf("\n  ],\n  \"summary\": {\"scenarios\": %d, \"statements\": %d, \"agree\": %d, "
		       "\"differ\": %d, \"unreproducible\": %d}\n}\n", tot.scenarios,
		       tot.stats.statements, tot.stats.agree, tot.stats.differ,
		       tot.stats.unreproducible);
	else
		printf("conform: %d scenarios, %d statements, %d differences, %d unreproducible here, "
		       "kernel %s, model %s\n", tot.scenarios, tot.stats.statements, tot.stats.differ,
		       tot.stats.unreproducible, o.host.release, o.policy->name);
	if (tot.broken)
		return NPG_EXIT_USAGE;
	return tot.stats.differ ? NPG_EXIT_FAILED : NPG_EXIT_OK;
}
