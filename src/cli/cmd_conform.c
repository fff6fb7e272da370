/*
 * nprocguard conform: the same scenarios on the model and on the running
 * kernel, and every place where they disagree. With --random, scenarios
 * are generated, and any that disagrees is shrunk and written out.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"
#include "cli/cli.h"
#include "cli/closeout.h"
#include "cli/conform_report.h"
#include "cli/model_option.h"
#include "cli/scenario_files.h"
#include "guest/guest.h"
#include "identify/cache.h"
#include "report/report.h"
#include "runner/conform.h"
#include "runner/random.h"
#include "runner/reasons.h"

#define RANDOM_TEXT_MAX 8192

_Static_assert(NPG_GUEST_NO_RESULT == NPG_EXIT_NOT_RUN, "conform --kernel: one status for no result");

static void usage(void)
{
	printf("Usage:\n nprocguard conform [options] FILE...\n"
	       " nprocguard conform [options] --random N [--seed S]\n\n"
	       "Run each scenario on the model and on the running kernel (as root) and\n"
	       "report, step by step, every result, credential, flag, capability set or\n"
	       "per-user count on which they differ, and every expectation of the file\n"
	       "('=> ...', the model's policy's) either contradicts.\n"
	       "FILE '-' is standard input (once); a directory stands for the sequential\n"
	       "*.npg files under it, sorted, symbolic links not followed.\n\n"
	       "Options:\n"
	       " -p, --policy NAME    the model to compare (default: the one for this\n"
	       "                      kernel's release, see 'nprocguard policies --releases');\n"
	       "                      its RLIMIT_NPROC rules, the kernel's credential rules\n"
	       "     --model MODEL    'identified': the policy and rules nprocguard identify\n"
	       "                      finds by asking this kernel (kept for this boot, else\n"
	       "                      probed first); or POLICY[,+RULE|,-RULE|,RULE=N]...\n"
	       " -f, --format FORMAT  text (default) or json\n"
	       " -u, --uid-base UID   real uids for scenario users start above UID\n"
	       "                      (default 3000000000; 0 to 4294963198)\n"
	       "     --wait           wait for another run holding the same uid window\n"
	       "                      instead of refusing to start\n"
	       " -r, --random N       generate N random scenarios instead of reading files\n"
	       "                      (1 to 10000000)\n"
	       " -s, --seed S         seed for --random (0 to 2^64-1, default 1)\n"
	       " -o, --out DIR        where shrunk differing random scenarios go (default .;\n"
	       "                      made if missing; with --kernel, this machine's DIR)\n"
	       " -q, --quiet          print only differences and the summary\n"
	       "     --kernel IMAGE   boot the x86_64 kernel IMAGE under QEMU and compare\n"
	       "                      there, as root in a minimal initramfs; the model is\n"
	       "                      picked from the guest's release\n"
	       "     --jobs N         with --kernel: guests at once, each running its share\n"
	       "                      of the scenarios, the report put back in order\n"
	       "                      (1 to 64; default: the online CPUs, fewer if memory\n"
	       "                      is short; TCG takes a host core per guest)\n"
	       "     --accel auto|tcg|kvm  QEMU's accelerator (default auto: KVM when\n"
	       "                      /dev/kvm opens and a first boot works, else TCG,\n"
	       "                      said in one line)\n"
	       "     --guest-timeout S  give up on the guest after S seconds\n"
	       "                        (1 to 604800, default 3600)\n"
	       " -h, --help           display this help\n\n"
	       "Exit status: 0 no difference, 1 a difference or a failed expectation, 2 usage\n"
	       "error (a bad image too) or a lost output file, 3 a scenario could not run: no\n"
	       "root, the uid window held by another run or in use, the machine's limits;\n"
	       "with --kernel, the guest gave no result (which is said).\n"
	       "Interrupted by SIGINT, SIGTERM or SIGHUP, it cleans up (QEMU included) and\n"
	       "dies of that signal (128+N in a shell).\n");
}

struct conform_opts {
	const struct npg_policy *policy;
	enum npg_format fmt;
	uint32_t uid_base;
	struct npg_host host;
	/*
	 * The kernel's release: its point release's rules, the identified ones
	 * (--model), or -- under --policy -- the credential rules the model
	 * takes from it (npg_rules_for_policy())
	 */
	const struct npg_release *release;
	bool quiet;
	bool wait;
};

/* --random's line of scenarios done; erased before any other output */
static struct npg_progress progress;

static void emit_text(const struct npg_run *run, const struct npg_diff *d, void *arg)
{
	const struct npg_stmt *st = &run->sc->stmts[d->stmt];
	char label[160];

	(void)arg;
	npg_progress_clear(&progress);
	npg_stmt_label(run->sc, st, label, sizeof(label));
	/* the file name and the statement come from the user: no escape sequences */
	npg_safe_fputs(run->sc->file, stdout);
	printf(":%d: ", st->line);
	npg_safe_fputs(label, stdout);
	printf(": %s: model %s, kernel %s\n", d->field, d->a, d->b);
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

/* What a run of both backends goes through, statement by statement */
struct conform_sink {
	void (*emit)(const struct npg_run *, const struct npg_diff *, void *);
	void *emit_arg;
	struct npg_conform_stats st;
	struct npg_expectation_stats expect;
	/* JSON: the failed expectations, written after the differences */
	FILE *failures;
	char *failures_buf;
	size_t failures_len;
	bool first_failure;
	/*
	 * Both sides run under this machine's Yama and the harness's
	 * no_new_privs, whatever the file describes: from the first step the
	 * difference decides on (a ptrace attach or PR_SET_PTRACER under
	 * another Yama, as run --real stops comparing there; an execve or a
	 * check of no_new_privs under it), the file's expectations are another
	 * machine's. The line, 0 before; and why.
	 */
	bool yama_differs, no_new_privs;
	int host_yama;
	int unchecked_line;
	char unchecked_why[160];
	bool both_started;
	/* text: the unreproducible lines, held back to follow the file's summary */
	FILE *held;
	char *held_buf;
	size_t held_len;
	bool json;		/* JSON: one object per file */
	bool first_file, first_diff;
	bool shrinking;		/* start failures are not told */
	struct npg_reasons *reasons;	/* NULL: not tallied (shrinking) */
	int scenario;
	int policy_index;	/* whose expectations the file's are: npg_expectations_of() */
	/* a guest kept more root tasks than the file declares: how many (0: none) */
	long root_raised, root_declared;
};

static int conform_begin(void *arg, const struct npg_run *run)
{
	struct conform_sink *cs = arg;

	cs->both_started = run->cols[0].started && run->cols[1].started;
	cs->root_raised = 0;
	/*
	 * A guest whose own root tasks are more than the file declares: the
	 * model starts from the guest's count, as run --host takes the
	 * machine's bounding set -- still the model against the kernel -- and
	 * the file's expectations, written for its own count, do not apply
	 */
	if (cs->both_started && run->cols[1].backend->root_raised > 0) {
		cs->root_raised = run->cols[1].backend->root_raised;
		cs->root_declared = 0;
		for (int i = 0; i < run->sc->nnames; i++)
			if (!run->sc->names[i].group && run->sc->names[i].id == 0)
				cs->root_declared = run->sc->names[i].procs;
		npg_model_backend_root_procs(run->cols[0].backend, run->sc, cs->root_raised);
		run->cols[0].policy_index = run->cols[1].policy_index = -1;
	}
	if (cs->both_started && cs->json) {
		npg_progress_clear(&progress);
		printf("%s\n    {\"file\": ", cs->first_file ? "" : ",");
		npg_json_string(stdout, run->sc->file);
		printf(", \"differences\": [");
		cs->first_diff = true;
	}
	return ferror(stdout) ? NPG_REPORT_WRITE_ERROR : 0;
}

/* @obs[c] failed the file's expectation: one JSON object in @cs->failures */
static void json_failure(struct conform_sink *cs, const struct npg_run *run, int s, int c,
			 const struct npg_obs *o)
{
	char label[160];

	npg_stmt_label(run->sc, &run->sc->stmts[s], label, sizeof(label));
	fprintf(cs->failures, "%s\n        {\"line\": %d, \"statement\": ",
		cs->first_failure ? "" : ",", run->sc->stmts[s].line);
	npg_json_string(cs->failures, label);
	fprintf(cs->failures, ", \"side\": \"%s\", \"expected\": ", c == 0 ? "model" : "kernel");
	npg_json_string(cs->failures, o->expected);
	fprintf(cs->failures, ", \"got\": ");
	npg_json_string(cs->failures, o->text);
	fprintf(cs->failures, "}");
	cs->first_failure = false;
}

/*
 * The file's expectation of statement @s, for the model's policy (none
 * where the file's `policies` leave its era out), on each side: a side
 * that could not reproduce the statement is not checked. Failures are
 * told -- with --quiet too, as differences are -- and fail the run.
 */
static void check_expectations(struct conform_sink *cs, const struct npg_run *run, int s,
			       const struct npg_obs *obs, bool quiet)
{
	struct npg_obs failed[2];
	bool any = false;

	const struct npg_stmt *st = &run->sc->stmts[s];

	/* a guest's own root tasks above the file's count: its expectations do not apply */
	if (cs->root_raised && cs->policy_index >= 0 &&
	    npg_expect_for(&st->expect, cs->policy_index)) {
		if (!cs->unchecked_line) {
			cs->unchecked_line = st->line;
			snprintf(cs->unchecked_why, sizeof(cs->unchecked_why), "root has %ld tasks "
				 "outside the scenario in this guest, the file declares %ld",
				 cs->root_raised, cs->root_declared);
		}
		cs->expect.unchecked++;
		return;
	}
	if (!obs[0].expected && !obs[1].expected)
		return;
	if (!cs->unchecked_line && cs->yama_differs && st->kind == NPG_STMT_STEP &&
	    ((st->op.code == NPG_OP_PTRACE && st->op.value != NPG_PTRACE_DETACH) ||
	     st->op.code == NPG_OP_PTRACER)) {
		cs->unchecked_line = st->line;
		snprintf(cs->unchecked_why, sizeof(cs->unchecked_why), "the file's Yama (ptrace_scope "
			 "%d, -1: none) is not this machine's (%d)", run->sc->yama_scope,
			 cs->host_yama);
	}
	if (!cs->unchecked_line && cs->no_new_privs &&
	    ((st->kind == NPG_STMT_STEP && st->op.code == NPG_OP_EXECVE) ||
	     (st->kind == NPG_STMT_CHECK && st->check == NPG_CHECK_NO_NEW_PRIVS))) {
		cs->unchecked_line = st->line;
		snprintf(cs->unchecked_why, sizeof(cs->unchecked_why), "this process runs with "
			 "no_new_privs, and so do the tasks");
	}
	if (cs->unchecked_line) {
		cs->expect.unchecked++;
		return;
	}
	cs->expect.checked++;
	for (int c = 0; c < 2; c++) {
		failed[c] = obs[c];
		/* only the failures: npg_report_mismatches() tells unreproducible ones too */
		failed[c].unreproducible = false;
		failed[c].ok = obs[c].ok || obs[c].unreproducible;
		any |= !failed[c].ok;
		if (!failed[c].ok && cs->failures)
			json_failure(cs, run, s, c, &obs[c]);
	}
	if (!any) {
		cs->expect.held++;
		return;
	}
	cs->expect.failed++;
	if (quiet && !cs->json) {
		npg_progress_clear(&progress);
		npg_report_mismatches(stdout, run, s, failed);
	}
}

static int conform_statement(void *arg, const struct npg_run *run, int s,
			     const struct npg_obs *obs)
{
	struct conform_sink *cs = arg;

	if (!cs->both_started)
		return 0;
	if (!cs->shrinking)
		check_expectations(cs, run, s, obs, !cs->held);
	if (cs->failures && ferror(cs->failures))
		return NPG_REPORT_NO_MEMORY;
	if (npg_conform_diff(run, s, obs, 0, 1, cs->emit, cs->emit_arg, &cs->st) < 0)
		return NPG_REPORT_NO_MEMORY;
	if (cs->reasons && (obs[0].unreproducible || obs[1].unreproducible) &&
	    npg_reasons_add(cs->reasons, cs->scenario,
			    obs[1].unreproducible ? obs[1].reason : obs[0].reason) < 0)
		return NPG_REPORT_NO_MEMORY;
	if (cs->held)
		npg_report_mismatches(cs->held, run, s, obs);
	if (cs->held && ferror(cs->held))
		return NPG_REPORT_NO_MEMORY;
	return ferror(stdout) ? NPG_REPORT_WRITE_ERROR : 0;
}

/* Run @sc on both backends through @cs. npg_run_scenario()'s result. */
static int run_both(const struct conform_opts *o, const struct npg_scenario *sc,
		    struct conform_sink *cs)
{
	struct npg_backend be[2];
	struct npg_column cols[2];
	struct npg_run run;
	struct npg_sink sink = { .begin = conform_begin, .statement = conform_statement, .arg = cs };
	int rc, pi;

	npg_model_backend_as_machine(&be[0], o->policy, o->release, &o->host);
	npg_real_backend_init(&be[1], &o->host, o->uid_base);
	/* the kernel is read and compared by the rules of the model it is compared with */
	be[1].policy = o->policy;
	be[1].release = o->release;
	/* the model runs under this machine's Yama: so does the real side, whatever the file says */
	be[1].yama_fixed = true;
	snprintf(be[0].label, sizeof(be[0].label), "model %s", o->policy->name);
	pi = npg_expectations_of(sc, o->policy);
	cs->policy_index = pi;
	cols[0] = (struct npg_column){ .backend = &be[0], .policy_index = pi };
	cols[1] = (struct npg_column){ .backend = &be[1], .policy_index = pi };
	rc = npg_run_scenario(&run, sc, cols, 2, &sink);
	if (rc == NPG_RUN_NOT_STARTED)
		for (int c = 0; c < run.ncols; c++)
			if (!run.cols[c].started && !cs->shrinking)
				fprintf(stderr, "nprocguard conform: %s: %s: %s\n", sc->file,
					run.cols[c].backend->label, run.cols[c].error);
	npg_run_free(&run);
	return rc;
}

/* 0, or -1 when nothing more can be written (out of memory, a write error: said) */
static int conform_one(const struct conform_opts *o, const struct npg_scenario *sc,
		       struct npg_conform_totals *tot)
{
	struct conform_sink cs = { .json = o->fmt == NPG_FORMAT_JSON,
				   .first_file = tot->first_json,
				   .yama_differs = sc->yama_scope != o->host.yama_scope,
				   .host_yama = o->host.yama_scope,
				   .no_new_privs = o->host.no_new_privs,
				   .reasons = &tot->reasons, .scenario = tot->attempted++ };
	struct npg_conform_stats *st = &cs.st;
	int rc;

	if (cs.json) {
		cs.emit = emit_json;
		cs.emit_arg = &cs.first_diff;
		cs.first_failure = true;
		cs.failures = open_memstream(&cs.failures_buf, &cs.failures_len);
		if (!cs.failures) {
			fprintf(stderr, "nprocguard conform: %s: out of memory\n", sc->file);
			return -1;
		}
	} else {
		cs.emit = emit_text;
	}
	if (!cs.json && !o->quiet) {
		cs.held = open_memstream(&cs.held_buf, &cs.held_len);
		if (!cs.held) {
			fprintf(stderr, "nprocguard conform: %s: out of memory\n", sc->file);
			return -1;
		}
	}
	rc = run_both(o, sc, &cs);
	if (cs.held && fclose(cs.held) != 0 && rc == 0)
		rc = NPG_REPORT_NO_MEMORY;
	if (cs.failures && fclose(cs.failures) != 0 && rc == 0)
		rc = NPG_REPORT_NO_MEMORY;
	if (rc == NPG_RUN_NO_MEMORY || rc == NPG_REPORT_NO_MEMORY || rc == NPG_REPORT_WRITE_ERROR ||
	    rc == NPG_RUN_NOT_STARTED) {
		if (rc == NPG_RUN_NO_MEMORY || rc == NPG_REPORT_NO_MEMORY)
			fprintf(stderr, "nprocguard conform: %s: out of memory\n", sc->file);
		/* a write error is said at exit, for every subcommand */
		tot->not_started |= rc == NPG_RUN_NOT_STARTED;
		free(cs.held_buf);
		free(cs.failures_buf);
		return rc == NPG_RUN_NOT_STARTED ? 0 : -1;
	}
	if (cs.json) {
		printf("],\n     \"statements\": %d, \"agree\": %d, \"differ\": %d, "
		       "\"unreproducible\": %d", st->statements, st->agree, st->differ,
		       st->unreproducible);
		if (cs.root_raised)
			printf(", \"root_procs\": %ld, \"root_procs_declared\": %ld", cs.root_raised,
			       cs.root_declared);
		printf(",\n     \"expectations\": %d, \"expectations_held\": %d, "
		       "\"expectations_failed\": %d, \"expectations_unchecked\": %d, "
		       "\"failed_expectations\": [", cs.expect.checked, cs.expect.held,
		       cs.expect.failed, cs.expect.unchecked);
		fwrite(cs.failures_buf, 1, cs.failures_len, stdout);
		printf("]}");
		tot->first_json = false;
		tot->json_objects++;
	} else if (!o->quiet) {
		npg_safe_fputs(sc->file, stdout);
		printf(": %d statements: %d agree, %d differ, %d unreproducible here", st->statements,
		       st->agree, st->differ, st->unreproducible);
		if (cs.expect.checked)
			printf("; %d expectations: %d held, %d failed", cs.expect.checked,
			       cs.expect.held, cs.expect.failed);
		if (cs.expect.unchecked)
			printf("; %d expectations from line %d on not checked: %s", cs.expect.unchecked,
			       cs.unchecked_line, cs.unchecked_why);
		putchar('\n');
		if (cs.root_raised)
			printf("  root has %ld tasks outside the scenario in this guest, the file "
			       "declares %ld: the model started from %ld, and the file's expectations "
			       "do not apply\n", cs.root_raised, cs.root_declared, cs.root_raised);
		if (st->unreproducible || cs.expect.failed)
			fwrite(cs.held_buf, 1, cs.held_len, stdout);
	}
	free(cs.held_buf);
	free(cs.failures_buf);
	tot->expect.checked += cs.expect.checked;
	tot->expect.held += cs.expect.held;
	tot->expect.failed += cs.expect.failed;
	tot->expect.unchecked += cs.expect.unchecked;
	tot->scenarios++;
	tot->stats.statements += st->statements;
	tot->stats.agree += st->agree;
	tot->stats.differ += st->differ;
	tot->stats.unreproducible += st->unreproducible;
	return 0;
}

/* --- random --- */

struct shrink_ctx {
	const struct conform_opts *o;
};

static int differences_in(const struct conform_opts *o, const char *name, const char *text,
			  bool *parsed)
{
	struct npg_scenario *sc = npg_scenario_parse(name, text, strlen(text), NULL);
	int ndiff = 0;
	struct conform_sink cs = { .emit = count_only, .emit_arg = &ndiff, .shrinking = true };

	*parsed = sc != NULL;
	if (!sc)
		return 0;
	if (run_both(o, sc, &cs) != 0)
		ndiff = -1;
	npg_scenario_free(sc);
	return ndiff;
}

static bool still_differs(const char *text, void *arg)
{
	struct shrink_ctx *ctx = arg;
	bool parsed;

	return differences_in(ctx->o, "shrinking", text, &parsed) > 0 && parsed;
}

/*
 * The shrunk scenario, whole or not at all: written beside its name and
 * renamed (a guest's /init sends back only whole files). -1 (said) if not.
 */
static int write_shrunk(const char *dir, uint64_t seed, int n, const char *text)
{
	char path[4096], part[4200];
	int fd;
	FILE *f;

	snprintf(path, sizeof(path), "%s/conform-random-%llu-%d.npg", dir, (unsigned long long)seed, n);
	snprintf(part, sizeof(part), "%s/.conform-random-%llu-%d.npg.%d", dir,
		 (unsigned long long)seed, n, (int)getpid());
	fd = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		fprintf(stderr, "nprocguard conform: %s: %s\n", part, strerror(errno));
		if (fd >= 0)
			close(fd), unlink(part);
		return -1;
	}
	fprintf(f, "# Shrunk from 'nprocguard conform --random' (seed %llu, scenario %d):\n"
		"# the model and the kernel disagreed on this.\n%s", (unsigned long long)seed, n, text);
	if (ferror(f) | (fclose(f) != 0) || rename(part, path) < 0) {
		fprintf(stderr, "nprocguard conform: %s: %s\n", path, strerror(errno));
		unlink(part);
		return -1;
	}
	fprintf(stderr, "nprocguard conform: wrote %s\n", path);
	return 0;
}

/* The namespace operations this kernel has, for the generator */
static unsigned random_flags(const struct npg_host *host)
{
	if (host->userns)
		return 0;
	return host->userns_legacy ? NPG_RANDOM_USERNS_2_6_39 : NPG_RANDOM_NO_USERNS;
}

/* Random scenario @n: run, and when it differs shrunk and written to @outdir */
static void random_one(const struct conform_opts *o, uint64_t seed, int n, char *text,
		       const char *outdir, struct npg_conform_totals *tot)
{
	struct conform_opts quiet = *o;
	struct npg_scenario *sc;
	char name[64];
	int before = tot->stats.differ;

	if (npg_random_scenario(seed, n, random_flags(&o->host), text, RANDOM_TEXT_MAX) < 0)
		return;
	snprintf(name, sizeof(name), "random-%llu-%d", (unsigned long long)seed, n);
	npg_progress_update(&progress, n);
	sc = npg_scenario_parse(name, text, strlen(text), stderr);
	if (!sc) {
		npg_progress_clear(&progress);
		fprintf(stderr, "nprocguard conform: internal error: generated scenario %d does "
			"not parse\n%s", n, text);
		tot->broken = true;
		return;
	}
	quiet.quiet = true;
	if (conform_one(&quiet, sc, tot) < 0)
		tot->broken = tot->stopped = true;
	if (tot->stats.differ > before) {
		struct shrink_ctx ctx = { o };
		int tries;

		npg_progress_clear(&progress);
		tries = npg_shrink_lines(text, still_differs, &ctx);

		fprintf(stderr, "nprocguard conform: scenario %d differs; shrunk in %d tries "
			"to:\n%s", n, tries, text);
		if (write_shrunk(outdir, seed, n, text) < 0)
			tot->broken = true;	/* lost output: exit 2 */
	}
	npg_scenario_free(sc);
}

/*
 * Scenario @i of the run, when it is @sh's (every one outside a shard):
 * run by @fn, and in a shard its output sent as that scenario's frame
 */
static void shard_scenario(struct npg_shard *sh, int i, struct npg_conform_totals *tot,
			   void (*fn)(int, void *), void *arg)
{
	int objects = tot->json_objects;

	if (!npg_shard_mine(sh, i))
		return;
	fn(i, arg);
	if (sh->n == 0)
		return;
	/* each scenario's JSON object stands alone: the host puts the commas */
	tot->first_json = true;
	if (npg_shard_frame(sh, "scenario", i, tot->json_objects > objects) < 0)
		tot->broken = tot->stopped = true;
}

struct random_run {
	const struct conform_opts *o;
	uint64_t seed;
	char *text;
	const char *outdir;
	struct npg_conform_totals *tot;
};

static void random_step(int n, void *arg)
{
	struct random_run *r = arg;

	random_one(r->o, r->seed, n, r->text, r->outdir, r->tot);
}

/* @count random scenarios; the seconds they took in @seconds */
static int conform_random(const struct conform_opts *o, int count, uint64_t seed,
			  const char *outdir, struct npg_shard *sh, struct npg_conform_totals *tot,
			  double *seconds)
{
	struct random_run run = { o, seed, malloc(RANDOM_TEXT_MAX), outdir, tot };
	struct timespec t0, t1;

	if (!run.text)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	npg_progress_init(&progress, "conform");
	npg_progress_begin(&progress, "random", count, "scenarios");
	for (int n = 0; !tot->stopped && n < count; n++)
		shard_scenario(sh, n, tot, random_step, &run);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	npg_progress_clear(&progress);
	*seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	free(run.text);
	return 0;
}

struct files_run {
	const struct conform_opts *o;
	struct npg_scenario **sc;
	struct npg_conform_totals *tot;
};

static void file_step(int i, void *arg)
{
	struct files_run *r = arg;

	if (conform_one(r->o, r->sc[i], r->tot) < 0)
		r->tot->broken = r->tot->stopped = true;
}

/*
 * The model's line: which policy and rules, and for which kernel; then,
 * when identify found for this boot a configuration other than the one
 * the kernel's version says and the model was not given, a line that says so
 */
static void say_model(const struct conform_opts *o, bool given, bool picked)
{
	const struct npg_release *rel = o->release;
	char line[1200];

	if (rel && rel->policy == o->policy) {
		npg_release_model(rel, line, sizeof(line));
		printf("model %s, %s kernel %s%s\n", line, picked ? "picked for" : "for", o->host.release,
		       picked ? " (override with --policy or --model)" : "");
	} else if (rel) {
		printf("model %s (its RLIMIT_NPROC rules) with the credential rules of release "
		       "%d.%d.%d, for kernel %s\n", o->policy->name, rel->major, rel->minor, rel->patch,
		       o->host.release);
	} else {
		printf("model %s, for kernel %s\n", o->policy->name, o->host.release);
	}
	if (!given && npg_identified_differs(o->host.policy ? &o->host.rel : NULL, o->host.release,
					     line, sizeof(line)))
		printf("%s: --model identified compares with it\n", line);
}

/*
 * conform --kernel: this command line, its scenario arguments replaced by
 * @files (expanded here) and standard input's scenario by a copy that the
 * guest's conform names <stdin> (--stdin-file); in @jobs guests at once
 * when there are scenarios enough (conform_jobs.c)
 */
static int conform_in_guest(const struct npg_guest_opts *guest, long jobs, char **argv,
			    int optind_, struct npg_scenario_files *files,
			    const struct npg_conform_end *end)
{
	char **gargv = calloc((size_t)(optind_ + files->n + 2), sizeof(char *)), *opt = NULL;
	int n = 0, lost = 0, rc = NPG_EXIT_USAGE, bad = 0;
	long scenarios = end->random_n > 0 ? end->random_n : files->n;

	if (!gargv || npg_scenario_files_copyable("conform", files) < 0 ||
	    npg_scenario_files_copy_stdin("conform", files) < 0)
		goto out;
	/* a file that does not parse is said here, once, before any guest boots */
	for (int i = 0; i < files->n; i++) {
		struct npg_scenario *sc = npg_scenario_files_load(files, i, NULL);

		bad += !sc;
		npg_scenario_free(sc);
	}
	if (bad)
		goto out;
	for (; n < optind_; n++)
		gargv[n] = argv[n];
	if (files->stdin_copy) {
		if (asprintf(&opt, "--stdin-file=%s", files->stdin_copy) < 0) {
			opt = NULL;
			goto out;
		}
		gargv[n++] = opt;
	}
	for (int i = 0; i < files->n; i++)
		gargv[n + i] = files->path[i];
	if (jobs == 0)
		jobs = npg_default_jobs();
	if (jobs > scenarios)
		jobs = scenarios;
	if (jobs > 1) {
		rc = npg_conform_jobs(guest, (int)jobs, n + files->n, gargv, n, (int)scenarios, end);
	} else {
		rc = npg_guest_conform(guest, n + files->n, gargv, n, &lost);
		npg_closeout_lost(lost);	/* its report, copied here: exit 2 at exit */
	}
out:
	npg_scenario_files_free(files);
	free(opt);
	free(gargv);
	return rc;
}

static void free_scenarios(struct npg_scenario **sc, int n)
{
	for (int i = 0; sc && i < n; i++)
		npg_scenario_free(sc[i]);
	free(sc);
}

int npg_cmd_conform(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "model", required_argument, NULL, 'M' },
		{ "format", required_argument, NULL, 'f' },
		{ "uid-base", required_argument, NULL, 'u' },
		{ "wait", no_argument, NULL, 'W' },
		{ "random", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },
		{ "out", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "jobs", required_argument, NULL, 'J' },
		/* not for users: conform --kernel's copy of its standard input, in the guest */
		{ "stdin-file", required_argument, NULL, 'S' },
		/* not for users: one of several guests' share (conform_report.h) */
		{ "shard", required_argument, NULL, 'K' },
		NPG_GUEST_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct npg_guest_opts guest = { 0 };
	struct npg_release model_rel;
	struct npg_model_choice model = { 0 };
	struct npg_scenario_files files = { .stdin_index = -1 };
	const char *stdin_file = NULL;
	struct conform_opts o = { .fmt = NPG_FORMAT_TEXT, .uid_base = NPG_DEFAULT_UID_BASE };
	struct npg_conform_totals tot = { .first_json = true };
	struct npg_conform_end end = { .fmt = NPG_FORMAT_TEXT, .random_n = -1 };
	struct npg_config in_use = { 0 };
	struct npg_scenario **sc = NULL;
	struct npg_shard shard = { 0 };
	char spec[1024];
	long jobs = 0;
	const char *outdir = ".";
	long random_n = -1;
	unsigned long count;
	uint64_t seed = 1;
	int c, nfiles, bad = 0, rc;
	bool picked;

	while ((c = getopt_long(argc, argv, "p:f:u:r:s:o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (!(o.policy = npg_parse_policy("conform", optarg)))
				npg_usage_error("conform");
			break;
		case 'M':
			if (npg_model_parse("conform", optarg, &model) < 0)
				npg_usage_error("conform");
			break;
		case 'f':
			if (npg_format_parse(optarg, &o.fmt) < 0 || o.fmt == NPG_FORMAT_TAP) {
				npg_bad_option("conform", "--format", optarg, "unknown format (text "
					       "or json)");
				npg_usage_error("conform");
			}
			break;
		case 'W':
			o.wait = true;
			break;
		case 'u':
			if (npg_parse_uid_base("conform", optarg, &o.uid_base) < 0)
				npg_usage_error("conform");
			break;
		case 'r':
			if (npg_parse_count("conform", "--random", optarg, 1, 10000000, &count) < 0)
				npg_usage_error("conform");
			random_n = (long)count;
			break;
		case 's':
			if (npg_parse_seed("conform", "--seed", optarg, &seed) < 0)
				npg_usage_error("conform");
			break;
		case 'o':
			if (!*optarg) {
				npg_bad_option("conform", "--out", optarg, "empty (a directory)");
				npg_usage_error("conform");
			}
			outdir = optarg;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'S':
			stdin_file = optarg;
			break;
		case 'K':
			if (npg_shard_parse(&shard, "conform", optarg) < 0)
				npg_usage_error("conform");
			break;
		case 'J':
			if (npg_parse_count("conform", "--jobs", optarg, 1, NPG_JOBS_MAX, &count) < 0)
				npg_usage_error("conform");
			jobs = (long)count;
			break;
		case 'h':
			usage();
			return NPG_EXIT_OK;
		case 0x100:
		case 0x101:
		case 0x102:
			if (npg_guest_option(&guest, "conform", c, optarg) < 0)
				npg_usage_error("conform");
			break;
		default:
			npg_usage_error("conform");
		}
	}
	nfiles = argc - optind;
	if ((nfiles == 0) == (random_n < 0)) {
		fprintf(stderr, "nprocguard conform: give scenario files or --random N\n");
		npg_usage_error("conform");
	}
	/* before any scenario runs, not after the first difference */
	if (random_n > 0 && npg_out_dir("conform", "--out", outdir) < 0)
		return NPG_EXIT_USAGE;
	/* directories and "-" here, on this machine: the guest gets the files */
	if (nfiles > 0 && npg_scenario_files("conform", argv + optind, nfiles, false, &files) < 0)
		return NPG_EXIT_USAGE;
	if (guest.kernel) {	/* the same, inside that kernel under QEMU */
		/* what the guest writes to --out comes back here, where the user meant */
		guest.out_dir = random_n > 0 ? outdir : NULL;
		end = (struct npg_conform_end){ .fmt = o.fmt, .quiet = o.quiet,
						.random_n = random_n, .seed = seed };
		return conform_in_guest(&guest, jobs, argv, optind, &files, &end);
	}
	if (jobs) {
		fprintf(stderr, "nprocguard conform: --jobs is the number of guests: it goes with "
			"--kernel\n");
		npg_usage_error("conform");
	}
	if (npg_real_preflight(&o.host) < 0 ||
	    npg_real_claim_window("conform", o.uid_base, o.wait) < 0) {
		npg_scenario_files_free(&files);
		return NPG_EXIT_NOT_RUN;
	}
	if (model.arg && o.policy) {
		fprintf(stderr, "nprocguard conform: --model and --policy both name the model: "
			"give one\n");
		npg_usage_error("conform");
	}
	picked = !o.policy && !model.arg;
	/* the kernel's release decides its rules under any model: npg_rules_for_policy() */
	if (o.host.policy)
		o.release = &o.host.rel;
	if (model.arg) {
		if (npg_model_resolve("conform", &model, &o.host, o.uid_base, &model_rel) < 0) {
			npg_scenario_files_free(&files);
			return NPG_EXIT_NOT_RUN;
		}
		o.policy = model_rel.policy;
		o.release = &model_rel;
	}
	if (!o.policy)
		o.policy = o.host.policy ? o.host.policy : &npg_policy_linux_6;
	in_use.policy = o.policy;
	end = (struct npg_conform_end){ .fmt = o.fmt, .quiet = o.quiet, .random_n = random_n,
					.seed = seed };
	/* the files before the report begins: a bad one is a usage error, said alone */
	if (random_n < 0) {
		nfiles = files.n;
		if (!(sc = calloc((size_t)nfiles, sizeof(*sc)))) {
			npg_scenario_files_free(&files);
			return NPG_EXIT_USAGE;
		}
		for (int i = 0; i < nfiles; i++)
			if (!(sc[i] = npg_scenario_files_load(&files, i, stdin_file)))
				bad++;
		npg_scenario_files_free(&files);
		if (bad) {
			free_scenarios(sc, nfiles);
			return NPG_EXIT_USAGE;
		}
	}
	/* the policy and every rule it runs by, as --model takes them */
	npg_rules_for_policy(o.policy, o.release, &in_use.rules);
	npg_config_format(&in_use, spec, sizeof(spec));
	/* one of several guests: what follows is sent back in frames */
	if (shard.n && npg_shard_start(&shard) < 0) {
		free_scenarios(sc, nfiles);
		return NPG_EXIT_NOT_RUN;
	}
	if (o.fmt == NPG_FORMAT_TEXT && !o.quiet)
		say_model(&o, model.arg != NULL, picked);
	if (o.host.no_new_privs && o.fmt == NPG_FORMAT_TEXT && !o.quiet)
		printf("this process runs with no_new_privs: so do the scenario's tasks, in the "
		       "model too\n");
	/* what the model takes from this machine besides its kernel */
	if (o.fmt == NPG_FORMAT_TEXT && !o.quiet) {
		if (o.host.yama_scope >= 0)
			printf("this machine has Yama with ptrace_scope %d, ", o.host.yama_scope);
		else
			printf("this machine has no Yama, ");
		printf("fs.suid_dumpable %d%s: so has the model\n", o.host.suid_dumpable,
		       o.host.userns ? "" : o.host.userns_legacy ? ", the user namespaces of 2.6.39-3.4"
							 : ", no user namespaces");
	}
	if (o.fmt == NPG_FORMAT_JSON) {
		printf("{\n  \"kernel\": ");
		npg_json_string(stdout, o.host.release);
		printf(",\n  \"policy\": ");
		npg_json_string(stdout, o.policy->name);
		printf(",\n  \"model\": ");
		npg_json_string(stdout, spec);
		printf(",\n  \"scenarios\": [");
	}
	if (shard.n && npg_shard_frame(&shard, "header", -1, false) < 0)
		tot.broken = tot.stopped = true;
	if (random_n > 0) {
		if (conform_random(&o, (int)random_n, seed, outdir, &shard, &tot, &end.seconds) < 0)
			tot.broken = true;
	} else {
		struct files_run run = { &o, sc, &tot };

		for (int i = 0; !tot.stopped && i < nfiles; i++)
			shard_scenario(&shard, i, &tot, file_step, &run);
		free_scenarios(sc, nfiles);
	}
	end.release = o.host.release;
	end.spec = spec;
	if (shard.n) {
		if (npg_shard_finish(&shard, &tot, o.host.release, spec) < 0)
			tot.broken = true;
	} else {
		npg_conform_summary(&tot, &end);
	}
	rc = npg_conform_status(&tot);
	npg_reasons_free(&tot.reasons);
	return rc;
}
