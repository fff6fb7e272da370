/* Two kernels' records of the same scenarios, compared (compare.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"
#include "report/report.h"
#include "runner/random.h"

void npg_compare_init(struct npg_compare *c)
{
	/* two runs of one release (host and its own image, one image twice) */
	if (strcmp(c->sides[0].name, c->sides[1].name) == 0)
		for (int i = 0; i < 2; i++) {
			size_t n = strlen(c->sides[i].name);

			snprintf(c->sides[i].name + n, sizeof(c->sides[i].name) - n, " [%d]", i + 1);
		}
	c->ncand = npg_candidates(c->sides, 2, c->cand);
}

/* The candidates that agree with each side, for the scenario being reported */
struct agreements {
	struct npg_agreement a[2][NPG_CANDIDATES_MAX];
	bool done;
};

static int agree_all(struct npg_compare *c, const struct npg_scenario *sc, int index,
		     struct agreements *ag)
{
	if (ag->done)
		return 0;
	for (int side = 0; side < 2; side++)
		for (int k = 0; k < c->ncand; k++)
			if (npg_agreement_of(&c->cand[k], &c->sides[side].rec.host, sc,
					     &c->sides[side].rec.scen[index], &ag->a[side][k]) < 0)
				return -1;
	ag->done = true;
	return 0;
}

/*
 * The candidates whose model agreed with a kernel on every field of every
 * statement up to @stmt: "linux-2.6, ow-2006". A release variant ("linux-3.1
 * as 5.10.223") only where its era's own rules do not agree as far.
 */
static void predictors(const struct npg_compare *c, const struct npg_agreement *a, int stmt,
		       char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int k = 0; k < c->ncand; k++) {
		const struct npg_candidate *cd = &c->cand[k];

		if (!a[k].ran || a[k].first_mismatch <= stmt)
			continue;
		if (cd->release) {
			int era = npg_policy_index(cd->policy);

			if (era >= 0 && a[era].ran && a[era].first_mismatch > stmt)
				continue;
		}
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? ", " : "", cd->label);
	}
	if (!buf[0])
		snprintf(buf, len, "no policy");
}

struct printer {
	struct npg_compare *c;
	const struct npg_scenario *sc;
	int stmt;
};

/* One line a field, as conform prints them */
static void print_difference(const struct npg_field *a, const struct npg_field *b, void *arg)
{
	struct printer *p = arg;
	const struct npg_stmt *st = &p->sc->stmts[p->stmt];
	char label[160];

	npg_stmt_label(p->sc, st, label, sizeof(label));
	npg_safe_fputs(p->sc->file, stdout);
	printf(":%d: ", st->line);
	npg_safe_fputs(label, stdout);
	printf(": %s: %s %s, %s %s\n", a->name, p->c->sides[0].name, a->value, p->c->sides[1].name,
	       b->value);
}

/* A candidate whose model predicts both kernels up to @stmt: the machines differ, not the rules */
static const struct npg_candidate *both_predict(const struct npg_compare *c,
						const struct agreements *ag, int stmt)
{
	for (int k = 0; k < c->ncand; k++)
		if (ag->a[0][k].ran && ag->a[0][k].first_mismatch > stmt && ag->a[1][k].ran &&
		    ag->a[1][k].first_mismatch > stmt)
			return &c->cand[k];
	return NULL;
}

/* After a statement's differences: who predicts each side up to it */
static void print_predicted(const struct npg_compare *c, const struct agreements *ag, int stmt)
{
	const struct npg_candidate *both = both_predict(c, ag, stmt);
	char pa[600], pb[600];

	predictors(c, ag->a[0], stmt, pa, sizeof(pa));
	predictors(c, ag->a[1], stmt, pb, sizeof(pb));
	printf("    predicted: %s by %s; %s by %s\n", c->sides[0].name, pa, c->sides[1].name, pb);
	if (both)
		printf("    (%s predicts both: the machines differ -- Yama, fs.suid_dumpable, "
		       "the harness's no_new_privs -- not the kernels' rules)\n", both->label);
}

static int records_hold(struct npg_compare *c, const struct npg_scenario *sc, int i)
{
	for (int side = 0; side < 2; side++) {
		const struct npg_record *r = &c->sides[side].rec;

		if (i >= r->nscen || strcmp(r->scen[i].file, sc->file) != 0) {
			fprintf(stderr, "nprocguard compare: %s: the record of %s does not hold %s\n",
				sc->file, c->sides[side].name, sc->file);
			return -1;
		}
	}
	return 0;
}

/* What the machines alone explain, counted apart; *first: the first other difference, or -1 */
static int compare_one(struct npg_compare *c, const struct npg_scenario *sc, int i, int *first)
{
	const struct npg_record_scenario *ra = &c->sides[0].rec.scen[i],
					 *rb = &c->sides[1].rec.scen[i];
	struct agreements *ag = calloc(1, sizeof(*ag));
	struct printer p = { c, sc, 0 };
	int agree = 0, differ = 0, unrep = 0;

	*first = -1;
	if (!ag)
		return -1;
	c->t.scenarios++;
	for (int side = 0; side < 2; side++)
		if (c->sides[side].rec.scen[i].error) {
			fprintf(stderr, "nprocguard compare: %s: could not start on %s: %s\n", sc->file,
				c->sides[side].name, c->sides[side].rec.scen[i].error);
			c->t.not_started++;
			free(ag);
			return 0;
		}
	for (int s = 0; s < sc->nstmts; s++) {
		const struct npg_record_stmt *a = s < ra->nstmts ? &ra->stmts[s] : NULL,
					     *b = s < rb->nstmts ? &rb->stmts[s] : NULL;

		c->t.statements++;
		if (!a || !b || a->reason || b->reason) {
			unrep++;
			c->t.unrep[0] += !a || a->reason;
			c->t.unrep[1] += !b || b->reason;
			continue;
		}
		p.stmt = s;
		if (!npg_fields_diff(&a->fields, &b->fields, c->counts_only ? NULL : print_difference,
				     &p)) {
			agree++;
			continue;
		}
		differ++;
		if (agree_all(c, sc, i, ag) < 0) {
			free(ag);
			return -1;
		}
		if (both_predict(c, ag, s))
			c->t.machines++;
		else if (*first < 0)
			*first = s;
		if (!c->counts_only)
			print_predicted(c, ag, s);
	}
	c->t.agree += agree;
	c->t.differ += differ;
	c->t.unreproducible += unrep;
	if (!c->quiet && !c->counts_only) {
		npg_safe_fputs(sc->file, stdout);
		printf(": %d statements: %d agree, %d differ, %d unreproducible\n", sc->nstmts, agree,
		       differ, unrep);
		for (int s = 0; unrep && s < sc->nstmts; s++)
			for (int side = 0; side < 2; side++) {
				const struct npg_record_scenario *r = side ? rb : ra;

				if (s < r->nstmts && !r->stmts[s].reason)
					continue;
				npg_safe_fputs(sc->file, stdout);
				printf(":%d: %s: unreproducible there: ", sc->stmts[s].line,
				       c->sides[side].name);
				npg_safe_fputs(s < r->nstmts ? r->stmts[s].reason :
					       "its run stopped before", stdout);
				putchar('\n');
			}
	}
	free(ag);
	return 0;
}

int npg_compare_records(struct npg_compare *c, struct npg_scenario *const *sc, int n, int *first)
{
	for (int i = 0; i < n; i++) {
		int f;

		if (records_hold(c, sc[i], i) < 0)
			return -1;
		if (compare_one(c, sc[i], i, &f) < 0) {
			fprintf(stderr, "nprocguard compare: %s: out of memory\n", sc[i]->file);
			return -1;
		}
		if (first)
			first[i] = f;
		if (ferror(stdout))
			return -1;
	}
	return 0;
}

/* --- kinds of differences, and shrinking --- */

static int what_of(const struct npg_stmt *st)
{
	return st->kind == NPG_STMT_STEP ? (int)st->op.code : (int)st->check;
}

/* "setuid", "glibc setuid", "execve", "check flag", "check count" */
static void what_name(const struct npg_stmt *st, char *buf, size_t len)
{
	const char *t = st->text;
	size_t n = strcspn(t, " ");

	if (st->kind == NPG_STMT_CHECK && strncmp(t, "count ", 6) != 0 && t[n])
		t += n + 1, n = strcspn(t, " ");	/* past the task's name */
	else if (strncmp(t, "glibc ", 6) == 0 || strncmp(t, "prctl ", 6) == 0 ||
		 strncmp(t, "ptrace attach ", 14) == 0 || strncmp(t, "ptrace detach ", 14) == 0)
		n += 1 + strcspn(t + n + 1, " ");	/* the call and its request */
	snprintf(buf, len, "%s%.*s", st->kind == NPG_STMT_CHECK ? "check " : "", (int)n, t);
}

/*
 * A field as a kind of difference: a count is any user's, named by its
 * level only ("count", "count in a namespace") -- the users and namespaces
 * of two random scenarios are named apart, their rules are not
 */
static void field_kind(const char *field, char *buf, size_t len)
{
	if (strncmp(field, "count ", 6) == 0)
		snprintf(buf, len, "%s", strstr(field, " in ") ? "count in a namespace" : "count");
	else
		snprintf(buf, len, "%s", field);
}

static bool same_kind(const struct npg_difference_kind *k, const struct npg_stmt *st,
		      const char *field)
{
	char f[sizeof(k->field)];

	field_kind(field, f, sizeof(f));
	return st->kind == k->kind && what_of(st) == k->what && strcmp(f, k->field) == 0;
}

int npg_compare_divergence(const struct npg_compare *c, const struct npg_scenario *sc, int index,
			   int stmt, struct npg_difference_kind *k)
{
	const struct npg_fields *fa = &c->sides[0].rec.scen[index].stmts[stmt].fields,
				*fb = &c->sides[1].rec.scen[index].stmts[stmt].fields;

	for (int f = 0; f < fa->n; f++) {
		const struct npg_field *other = npg_field_find(fb, fa->f[f].name);

		if (!other || strcmp(other->value, fa->f[f].value) == 0)
			continue;
		*k = (struct npg_difference_kind){ .kind = sc->stmts[stmt].kind,
						   .what = what_of(&sc->stmts[stmt]) };
		field_kind(fa->f[f].name, k->field, sizeof(k->field));
		what_name(&sc->stmts[stmt], k->name, sizeof(k->name));
		return 0;
	}
	return -1;
}

struct shrink_ctx {
	struct npg_compare *c;
	const struct npg_candidate *cand[2];
	long root_procs[2];		/* each side's guest kept: npg_record_scenario's */
	const struct npg_difference_kind *want;
	bool found;
};

static void note_kind(const struct npg_run *run, const struct npg_diff *d, void *arg)
{
	struct shrink_ctx *x = arg;

	if (same_kind(x->want, &run->sc->stmts[d->stmt], d->field))
		x->found = true;
}

/* each side's model starts from the root tasks its guest kept */
static int models_begin(void *arg, const struct npg_run *run)
{
	struct shrink_ctx *x = arg;

	for (int side = 0; side < 2; side++)
		if (run->cols[side].started && x->root_procs[side] > 0)
			npg_model_backend_root_procs(run->cols[side].backend, run->sc, x->root_procs[side]);
	return 0;
}

static int models_statement(void *arg, const struct npg_run *run, int s, const struct npg_obs *obs)
{
	struct shrink_ctx *x = arg;
	struct npg_conform_stats st = { 0 };

	if (!run->cols[0].started || !run->cols[1].started)
		return 1;
	if (npg_conform_diff(run, s, obs, 0, 1, note_kind, x, &st) < 0)
		return 1;
	return x->found;	/* found: no need to go on */
}

/* Do the two predicting models still differ in that kind of statement and field? */
static bool models_differ(const char *text, void *arg)
{
	struct shrink_ctx *x = arg;
	struct npg_scenario *sc = npg_scenario_parse("shrinking", text, strlen(text), NULL);
	struct npg_backend be[2];
	struct npg_column cols[2];
	struct npg_run run;
	struct npg_sink sink = { .begin = models_begin, .statement = models_statement, .arg = x };

	if (!sc)
		return false;
	x->found = false;
	for (int side = 0; side < 2; side++) {
		npg_model_backend_as_machine(&be[side], x->cand[side]->policy, x->cand[side]->release,
					     &x->c->sides[side].rec.host);
		cols[side] = (struct npg_column){ .backend = &be[side], .policy_index = -1 };
	}
	npg_run_scenario(&run, sc, cols, 2, &sink);
	npg_run_free(&run);
	npg_scenario_free(sc);
	return x->found;
}

/* The candidate that predicts all of a side's record: its own release first, then its era */
static const struct npg_candidate *best(const struct npg_compare *c, const struct npg_side *side,
					const struct npg_agreement *a)
{
	const struct npg_candidate *found = NULL;

	for (int k = c->ncand - 1; k >= 0; k--) {
		if (!a[k].ran || a[k].first_mismatch != INT_MAX)
			continue;
		if (c->cand[k].release == &side->rel)
			return &c->cand[k];
		if (!found || (side->has_rel && c->cand[k].policy == side->rel.policy &&
			       !c->cand[k].release))
			found = &c->cand[k];
	}
	return found;
}

int npg_compare_shrink(struct npg_compare *c, const struct npg_scenario *sc, int index,
		       const struct npg_difference_kind *kind, char *text, char *why, size_t whylen)
{
	struct agreements *ag = calloc(1, sizeof(*ag));
	struct shrink_ctx x = { .c = c, .want = kind };
	int ret = -1;

	if (!ag || agree_all(c, sc, index, ag) < 0) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	for (int side = 0; side < 2; side++) {
		if (index < c->sides[side].rec.nscen)
			x.root_procs[side] = c->sides[side].rec.scen[index].root_procs;
		x.cand[side] = best(c, &c->sides[side], ag->a[side]);
		if (!x.cand[side]) {
			snprintf(why, whylen, "no policy predicts all that %s did", c->sides[side].name);
			goto out;
		}
	}
	if (!models_differ(text, &x)) {
		snprintf(why, whylen, "%s and %s, which predict the two, do not differ there",
			 x.cand[0]->label, x.cand[1]->label);
		goto out;
	}
	npg_shrink_lines(text, models_differ, &x);
	snprintf(why, whylen, "%s by %s, %s by %s", c->sides[0].name, x.cand[0]->label,
		 c->sides[1].name, x.cand[1]->label);
	ret = 0;
out:
	free(ag);
	return ret;
}

void npg_compare_summary(const struct npg_compare *c, FILE *out)
{
	fprintf(out, "compare: %d scenarios, %d statements, %d differ", c->t.scenarios,
		c->t.statements, c->t.differ);
	if (c->t.machines)
		fprintf(out, " (%d by the machines alone)", c->t.machines);
	fprintf(out, ", %d unreproducible (%s %d, %s %d)", c->t.unreproducible, c->sides[0].name,
		c->t.unrep[0], c->sides[1].name, c->t.unrep[1]);
	if (c->t.not_started)
		fprintf(out, ", %d not started", c->t.not_started);
	fprintf(out, ", kernels %s and %s\n", c->sides[0].name, c->sides[1].name);
}
