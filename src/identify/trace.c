/* A scenario's statements on one backend, in the fields identify compares. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "identify/trace.h"
#include "model/policy.h"
#include "model/release.h"
#include "runner/run.h"

struct collect {
	struct npg_trace *t;
	struct npg_fields scratch;	/* reused from statement to statement */
	long root_procs;		/* root's tasks the model starts from: 0 the file's */
};

/*
 * The backend has started: a guest's own root tasks beyond the file's are
 * noted (the kernel side), and the model starts from them (the model side)
 * -- probes with root callers read root's count in 5.14-5.16's set_user()
 */
static int on_begin(void *arg, const struct npg_run *run)
{
	struct collect *c = arg;
	struct npg_backend *b = run->cols[0].backend;

	if (!run->cols[0].started)
		return 0;
	c->t->root_raised = b->root_raised;
	if (c->root_procs > 0)
		npg_model_backend_root_procs(b, run->sc, c->root_procs);
	return 0;
}

/* FNV-1a over the compared fields' names and values */
static uint64_t digest_of(const struct npg_fields *fs)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (int i = 0; i < fs->n; i++) {
		if (strncmp(fs->f[i].name, "count ", 6) == 0)
			continue;
		for (const char *p = fs->f[i].name; *p; p++)
			h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
		h = (h ^ 0xff) * 0x100000001b3ULL;
		for (const char *p = fs->f[i].value; *p; p++)
			h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
		h = (h ^ 0xfe) * 0x100000001b3ULL;
	}
	return h;
}

/* every field of the scratch but the counts: see trace.h */
static int keep_fields(const struct npg_fields *all, struct npg_fields *out)
{
	for (int i = 0; i < all->n; i++)
		if (strncmp(all->f[i].name, "count ", 6) != 0 &&
		    npg_fields_add(out, all->f[i].name, all->f[i].value) < 0)
			return -1;
	return 0;
}

static int on_statement(void *arg, const struct npg_run *run, int stmt, const struct npg_obs *obs)
{
	struct collect *c = arg;
	struct npg_trace_stmt *ts = &c->t->s[stmt];
	const struct npg_stmt *st = &run->sc->stmts[stmt];

	c->t->n = stmt + 1;
	ts->unreproducible = obs[0].unreproducible;
	if (obs[0].unreproducible)
		snprintf(ts->reason, sizeof(ts->reason), "%s", obs[0].reason);
	/* a count checked is a count observed: see trace.h */
	if (st->kind == NPG_STMT_CHECK && st->check == NPG_CHECK_COUNT)
		return 0;
	if (npg_obs_fields(run->sc, stmt, &obs[0], &c->scratch) < 0)
		return NPG_RUN_NO_MEMORY;
	ts->digest = digest_of(&c->scratch);
	if (c->t->detailed && keep_fields(&c->scratch, &ts->fields) < 0)
		return NPG_RUN_NO_MEMORY;
	return 0;
}

static int trace_run(struct npg_trace *t, const struct npg_scenario *sc, struct npg_backend *b,
		     long root_procs, bool detailed)
{
	struct npg_column col = { .backend = b, .policy_index = -1 };
	struct collect c = { t, { 0 }, root_procs };
	struct npg_sink sink = { .begin = on_begin, .statement = on_statement, .arg = &c };
	struct npg_run run;
	int rc;

	memset(t, 0, sizeof(*t));
	t->detailed = detailed;
	t->s = calloc((size_t)sc->nstmts + 1, sizeof(*t->s));
	if (!t->s)
		return -1;
	rc = npg_run_scenario(&run, sc, &col, 1, &sink);
	if (rc == NPG_RUN_NOT_STARTED) {
		t->not_started = true;
		snprintf(t->error, sizeof(t->error), "%s", col.error[0] ? col.error : b->error);
	}
	npg_run_free(&run);
	npg_fields_free(&c.scratch);
	return rc == NPG_RUN_NO_MEMORY ? -1 : 0;
}

int npg_trace_run(struct npg_trace *t, const struct npg_scenario *sc, struct npg_backend *b,
		  bool detailed)
{
	return trace_run(t, sc, b, 0, detailed);
}

int npg_trace_model(struct npg_trace *t, const struct npg_scenario *sc,
		    const struct npg_config *c, const struct npg_host *host,
		    const struct npg_release *rel, long root_procs, bool detailed)
{
	struct npg_release as = { 0 };
	struct npg_backend b;

	/* the configuration's rules, as npg_rules_for_policy() gives a
	 * release's own policy; the release's CAP_LAST_CAP */
	as.policy = c->policy;
	as.rules = c->rules;
	as.cap_last_cap = rel ? rel->cap_last_cap : 40;
	npg_model_backend_as_machine(&b, c->policy, &as, host);
	return trace_run(t, sc, &b, root_procs, detailed);
}

void npg_trace_free(struct npg_trace *t)
{
	if (t->s)
		for (int i = 0; i < t->n; i++)
			npg_fields_free(&t->s[i].fields);
	free(t->s);
	memset(t, 0, sizeof(*t));
}

struct first_diff {
	struct npg_contradiction *first;
	int stmt;
	bool taken;
};

static void note_first(const struct npg_field *a, const struct npg_field *b, void *arg)
{
	struct first_diff *fd = arg;

	if (fd->taken || !fd->first)
		return;
	fd->taken = true;
	fd->first->stmt = fd->stmt;
	snprintf(fd->first->field, sizeof(fd->first->field), "%s", a->name);
	snprintf(fd->first->model, sizeof(fd->first->model), "%s", a->value);
	snprintf(fd->first->kernel, sizeof(fd->first->kernel), "%s", b->value);
}

bool npg_trace_stmt_differs(const struct npg_trace *a, const struct npg_trace *b, int i,
			    struct npg_contradiction *c)
{
	struct first_diff fd = { c, i, false };

	if (i >= a->n || i >= b->n || a->s[i].digest == b->s[i].digest)
		return false;
	if (!a->detailed || !b->detailed) {
		if (c) {
			memset(c, 0, sizeof(*c));
			c->stmt = i;
		}
		return true;
	}
	return npg_fields_diff(&a->s[i].fields, &b->s[i].fields, note_first, &fd) > 0;
}

static int compare(const struct npg_trace *a, const struct npg_trace *b, bool skip_unreproducible,
		   struct npg_contradiction *first)
{
	int n = a->n < b->n ? a->n : b->n, differ = 0;
	bool found = false;

	if (first)
		first->stmt = -1;
	for (int i = 0; i < n; i++) {
		if (skip_unreproducible && b->s[i].unreproducible)
			continue;
		if (npg_trace_stmt_differs(a, b, i, found ? NULL : first)) {
			differ++;
			found = true;
		}
	}
	return differ;
}

int npg_trace_contradictions(const struct npg_trace *model, const struct npg_trace *kernel,
			     struct npg_contradiction *first)
{
	return compare(model, kernel, true, first);
}

int npg_trace_differences(const struct npg_trace *a, const struct npg_trace *b,
			  struct npg_contradiction *first)
{
	return compare(a, b, false, first);
}
