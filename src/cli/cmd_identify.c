/* nprocguard identify: which policy and rules this kernel follows, asked of it. */
#include <errno.h>
#include <getopt.h>
#include <libsmartcols.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "cli/cli.h"
#include "cli/closeout.h"
#include "guest/guest.h"
#include "identify/cache.h"
#include "identify/generate.h"
#include "identify/identify.h"
#include "identify/probes.h"
#include "model/policy.h"
#include "model/release.h"
#include "report/report.h"

static void usage(void)
{
	printf("Usage:\n nprocguard identify [options]\n"
	       " nprocguard identify --generate DIR [--random N] [--seed S] [FILE...]\n\n"
	       "Ask the running kernel (as root), or a kernel image booted under QEMU, which\n"
	       "policy and rules it follows: run the probes of scenarios/identify/ on it and on\n"
	       "the model of every configuration the history of stable releases has, and print\n"
	       "the one no probe contradicts, each of its rules with the probe that decided it.\n"
	       "The answer is kept for this boot (conform --model identified uses it).\n\n"
	       "Options:\n"
	       " -J, --json             JSON output\n"
	       " -u, --uid-base UID     first uid of the window the probes use (3000000000)\n"
	       " -W, --wait             wait for another run that holds the uid window\n"
	       "     --kernel IMAGE     ask a kernel image booted under QEMU instead\n"
	       "     --accel auto|tcg|kvm  QEMU's accelerator (default auto: KVM when it\n"
	       "                        works, else TCG, said in one line)\n"
	       "     --guest-timeout S  seconds the guest may run (1 to 604800; 3600)\n"
	       "     --generate DIR     write new probes into DIR, found from the model: the\n"
	       "                        FILEs, then --random N random scenarios (default 4000,\n"
	       "                        --seed 1), each shrunk (make identify-probes)\n"
	       " -h, --help             display this help\n\n"
	       "Exit status: 0 identified, 1 no configuration fits every probe (the nearest\n"
	       "is said), 2 bad usage, 3 the probes could not run (not root, window taken).\n");
}

/* "FILE:LINE" of statement @stmt of probe @p */
static void where(const struct npg_probes *ps, int p, int stmt, char *buf, size_t len)
{
	const struct npg_probe *pr = &ps->p[p];

	snprintf(buf, len, "%s:%d", pr->file, stmt >= 0 ? pr->sc->stmts[stmt].line : 0);
}

static void step_of(const struct npg_probes *ps, int p, int stmt, char *buf, size_t len)
{
	npg_stmt_label(ps->p[p].sc, &ps->p[p].sc->stmts[stmt], buf, len);
}

/* One dimension's row: its value, how it was decided, and the evidence */
struct dim_row {
	const char *name;
	char value[64];
	const char *how;
	char evidence[1024];
	int first, count;	/* its entries in id->ruled[] */
};

static const char *how_word(enum npg_decision d)
{
	return d == NPG_DECIDED ? "decided" : d == NPG_UNDECIDED_HERE ? "unreproducible" : "untold";
}

static void value_of(const struct npg_identified *id, const struct npg_ruled_out *r, char *buf,
		     size_t len)
{
	if (!r->dim.rule)
		snprintf(buf, len, "%s", npg_config_policy_name(&id->config)->name);
	else if (r->dim.rule->is_int)
		snprintf(buf, len, "%d", npg_rule_get(&id->config.rules, r->dim.rule));
	else
		snprintf(buf, len, "%s", npg_rule_get(&id->config.rules, r->dim.rule) ? "with" : "without");
}

static void evidence_of(const struct npg_probes *ps, const struct npg_identified *id,
			const struct npg_ruled_out *r, char *buf, size_t len)
{
	char at[200], step[200];

	if (r->decision == NPG_NOT_TOLD) {
		/* the value is the nearest configuration's to what the version says */
		bool as_version = r->dim.rule ? npg_rule_get(&id->config.rules, r->dim.rule) ==
						npg_rule_get(&id->version.rules, r->dim.rule)
					      : id->config.policy == id->version.policy;

		snprintf(buf, len, "no probe tells it from %s under these rules: %s", r->other,
			 as_version ? "as the version says" : "as the nearest release has it");
		return;
	}
	where(ps, r->probe, r->at.stmt, at, sizeof(at));
	step_of(ps, r->probe, r->at.stmt, step, sizeof(step));
	if (r->decision == NPG_UNDECIDED_HERE)
		snprintf(buf, len, "%s (%s): unreproducible here: %s", at, step, r->reason);
	else
		snprintf(buf, len, "%s (%s): %s: kernel %s, %s %s", at, step, r->at.field, r->at.kernel,
			 r->other, r->at.model);
}

/* The rows: one per dimension, its worst decision and its first evidence */
static int dim_rows(const struct npg_probes *ps, const struct npg_identified *id,
		    struct dim_row *rows)
{
	int n = 0;

	for (int i = 0; i < id->nruled; i++) {
		const struct npg_ruled_out *r = &id->ruled[i];
		const char *name = npg_dimension_name(&r->dim);
		struct dim_row *row = n ? &rows[n - 1] : NULL;

		if (!row || strcmp(row->name, name) != 0) {
			row = &rows[n++];
			memset(row, 0, sizeof(*row));
			row->name = name;
			row->first = i;
			value_of(id, r, row->value, sizeof(row->value));
			row->how = how_word(r->decision);
			evidence_of(ps, id, r, row->evidence, sizeof(row->evidence));
		} else if (r->decision != NPG_DECIDED && strcmp(row->how, "decided") == 0) {
			/* the row says what is left open */
			row->how = how_word(r->decision);
			evidence_of(ps, id, r, row->evidence, sizeof(row->evidence));
		}
		row->count++;
	}
	return n;
}

static void headline(const struct npg_identified *id, const struct npg_host *host, FILE *f)
{
	char model[1200];

	fprintf(f, "kernel %s: %s", host->release, id->fits ? "follows " : "no configuration fits; "
		"nearest: ");
	fprintf(f, "%s", npg_config_policy_name(&id->config)->name);
	if (strchr(id->spec, ','))
		fprintf(f, " (%s)", id->spec);
	if (id->in_history)
		fprintf(f, ", the rules of: %s", id->where);
	else
		fprintf(f, ", a combination no release of the history has");
	fputc('\n', f);
	npg_release_model(&host->rel, model, sizeof(model));
	if (npg_config_equal(&id->config, &id->version))
		fprintf(f, "its version says the same: %s\n", model);
	else
		fprintf(f, "its version says otherwise: %s\n", model);
}

static int print_text(const struct npg_probes *ps, const struct npg_identified *id,
		      const struct npg_host *host)
{
	struct dim_row rows[96];
	int n = dim_rows(ps, id, rows);
	struct libscols_table *tb = scols_new_table();

	headline(id, host, stdout);
	if (!id->fits) {
		char at[200], step[200];

		where(ps, id->first_probe, id->first.stmt, at, sizeof(at));
		step_of(ps, id->first_probe, id->first.stmt, step, sizeof(step));
		printf("it is contradicted at %d statements, first %s (%s): %s: kernel %s, model %s\n",
		       id->contradictions, at, step, id->first.field, id->first.kernel, id->first.model);
		for (int i = 0; i < id->nagainst_all; i++)
			printf("no configuration of the history agrees with %s\n",
			       ps->p[id->against_all[i]].file);
	}
	if (!tb)
		return -1;
	if (!scols_table_new_column(tb, "RULE", 24, 0) || !scols_table_new_column(tb, "VALUE", 8, 0) ||
	    !scols_table_new_column(tb, "DECIDED", 9, 0) ||
	    !scols_table_new_column(tb, "EVIDENCE", 80, SCOLS_FL_WRAP)) {
		scols_unref_table(tb);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);

		if (!ln || scols_line_set_data(ln, 0, rows[i].name) ||
		    scols_line_set_data(ln, 1, rows[i].value) || scols_line_set_data(ln, 2, rows[i].how) ||
		    scols_line_set_data(ln, 3, rows[i].evidence)) {
			scols_unref_table(tb);
			return -1;
		}
	}
	scols_print_table(tb);
	scols_unref_table(tb);
	printf("identify: %d probes, %d statements, %d unreproducible here, %.1f s\n", id->nprobes,
	       id->nstatements, id->nunreproducible, id->seconds);
	return 0;
}

static void json_kv(const char *key, const char *value, bool comma)
{
	printf("  ");
	npg_json_string(stdout, key);
	printf(": ");
	npg_json_string(stdout, value);
	printf("%s\n", comma ? "," : "");
}

static int print_json(const struct npg_probes *ps, const struct npg_identified *id,
		      const struct npg_host *host)
{
	char model[1200];

	printf("{\n");
	json_kv("kernel", host->release, true);
	json_kv("policy", npg_config_policy_name(&id->config)->name, true);
	json_kv("config", id->spec, true);
	printf("  \"fits\": %s,\n  \"in_history\": %s,\n", id->fits ? "true" : "false",
	       id->in_history ? "true" : "false");
	json_kv("releases", id->where, true);
	npg_release_model(&host->rel, model, sizeof(model));
	json_kv("version_config", id->version_spec, true);
	json_kv("version_model", model, true);
	printf("  \"contradictions\": %d,\n  \"rules\": [", id->contradictions);
	for (int i = 0; i < id->nruled; i++) {
		const struct npg_ruled_out *r = &id->ruled[i];
		char value[64], ev[1024];

		value_of(id, r, value, sizeof(value));
		evidence_of(ps, id, r, ev, sizeof(ev));
		printf("%s\n    {\"rule\": ", i ? "," : "");
		npg_json_string(stdout, npg_dimension_name(&r->dim));
		printf(", \"value\": ");
		npg_json_string(stdout, value);
		printf(", \"other\": ");
		npg_json_string(stdout, r->other);
		printf(", \"decision\": ");
		npg_json_string(stdout, how_word(r->decision));
		if (r->decision != NPG_NOT_TOLD) {
			char at[200];

			where(ps, r->probe, r->at.stmt, at, sizeof(at));
			printf(", \"probe\": ");
			npg_json_string(stdout, at);
		}
		printf(", \"evidence\": ");
		npg_json_string(stdout, ev);
		printf("}");
	}
	printf("\n  ],\n  \"probes\": %d,\n  \"statements\": %d,\n  \"unreproducible\": %d,\n"
	       "  \"seconds\": %.3f\n}\n", id->nprobes, id->nstatements, id->nunreproducible,
	       id->seconds);
	return 0;
}

static int generate(const char *dir, long random_n, uint64_t seed, int nfiles, char **files)
{
	struct npg_generate_opts o = { .outdir = dir, .seeds = files, .nseeds = nfiles,
				       .random = (int)random_n, .mutations = (int)random_n, .seed = seed,
				       .log = stderr };

	return npg_identify_generate(&o) < 0 ? NPG_EXIT_USAGE : NPG_EXIT_OK;
}

int npg_cmd_identify(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "uid-base", required_argument, NULL, 'u' },
		{ "wait", no_argument, NULL, 'W' },
		{ "generate", required_argument, NULL, 'G' },
		{ "random", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		NPG_GUEST_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct npg_guest_opts guest = { 0 };
	struct npg_host host;
	struct npg_identified id;
	struct npg_probes probes;
	uint32_t uid_base = NPG_DEFAULT_UID_BASE;
	const char *gen_dir = NULL;
	unsigned long random_n = 4000;
	uint64_t seed = 1;
	bool json = false, wait = false, random_given = false;
	char err[512];
	int c;

	while ((c = getopt_long(argc, argv, "Ju:Wh", longopts, NULL)) != -1) {
		switch (c) {
		case 'J':
			json = true;
			break;
		case 'u':
			if (npg_parse_uid_base("identify", optarg, &uid_base) < 0)
				npg_usage_error("identify");
			break;
		case 'W':
			wait = true;
			break;
		case 'G':
			gen_dir = optarg;
			break;
		case 'r':
			if (npg_parse_count("identify", "--random", optarg, 0, 10000000, &random_n) < 0)
				npg_usage_error("identify");
			random_given = true;
			break;
		case 's':
			if (npg_parse_seed("identify", "--seed", optarg, &seed) < 0)
				npg_usage_error("identify");
			break;
		case 'h':
			usage();
			return NPG_EXIT_OK;
		case 0x100:
		case 0x101:
		case 0x102:
			if (npg_guest_option(&guest, "identify", c, optarg) < 0)
				npg_usage_error("identify");
			break;
		default:
			npg_usage_error("identify");
		}
	}
	if (gen_dir)
		return generate(gen_dir, (long)random_n, seed, argc - optind, argv + optind);
	if (random_given) {
		fprintf(stderr, "nprocguard identify: --random goes with --generate\n");
		npg_usage_error("identify");
	}
	if (optind < argc) {
		fprintf(stderr, "nprocguard identify: unexpected argument '%s' (the probes are "
			"linked in)\n", argv[optind]);
		npg_usage_error("identify");
	}
	if (guest.kernel) {
		int lost, rc = npg_guest_subcommand(&guest, "identify", argc, argv, optind, &lost);

		npg_closeout_lost(lost);	/* its report, copied here: exit 2 at exit */
		return rc;
	}
	if (npg_real_preflight(&host) < 0)
		return NPG_EXIT_NOT_RUN;
	if (npg_real_claim_window("identify", uid_base, wait) < 0)
		return NPG_EXIT_NOT_RUN;
	if (npg_identify_kernel(&host, uid_base, &id, err, sizeof(err)) < 0) {
		fprintf(stderr, "nprocguard identify: %s\n", err);
		return NPG_EXIT_NOT_RUN;
	}
	/* what --model identified reads back, for this boot */
	if (id.fits && !host.own_kernel && npg_identified_save(&id, host.release) < 0)
		fprintf(stderr, "nprocguard identify: cannot keep the answer in the cache: %s\n",
			strerror(errno));
	if (npg_probes_load(&probes, stderr) < 0) {
		npg_probes_free(&probes);
		return NPG_EXIT_USAGE;
	}
	if ((json ? print_json : print_text)(&probes, &id, &host) < 0) {
		fprintf(stderr, "nprocguard identify: out of memory\n");
		npg_probes_free(&probes);
		return NPG_EXIT_USAGE;
	}
	npg_probes_free(&probes);
	return id.fits ? NPG_EXIT_OK : NPG_EXIT_FAILED;
}
