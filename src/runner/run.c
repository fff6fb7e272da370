#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/policy.h"
#include "runner/run.h"

/*
 * A count that a backend which may not observe everything (the real one)
 * is asked for, or NPG_COUNT_UNKNOWN; its reason for the statement stays
 * as it was. Apart from the loop of every count, where the model (which
 * observes everything and never sets a reason) is asked directly: a probe
 * statement and two copies of the reason per count, user and column were
 * most of a run's time outside the model.
 */
static long count_if_reproducible(struct npg_backend *b, npg_id user, int ns)
{
	struct npg_stmt probe = { .kind = NPG_STMT_CHECK, .check = NPG_CHECK_COUNT,
				  .user = user, .ns = ns, .task = -1 };
	char keep[sizeof(b->reason)];
	long count = NPG_COUNT_UNKNOWN;

	memcpy(keep, b->reason, sizeof(keep));
	if (b->ops->check_reproducible(b, &probe))
		count = b->ops->count(b, ns, user);
	memcpy(b->reason, keep, sizeof(keep));
	return count;
}

static void observe(struct npg_run *run, struct npg_column *col, int si, struct npg_obs *o)
{
	const struct npg_scenario *sc = run->sc;
	const struct npg_stmt *st = &sc->stmts[si];
	struct npg_backend *b = col->backend;

	b->reason[0] = '\0';
	if (st->kind == NPG_STMT_STEP) {
		struct npg_result r;


		r = b->ops->step(b, st);
		npg_render_result(sc, st, r, o->text, sizeof(o->text));
		if (r.kind == NPG_R_UNREPRODUCIBLE) {
			o->unreproducible = true;
			snprintf(o->reason, sizeof(o->reason), "%s", b->reason);
		}
	} else if (b->ops->check_reproducible && !b->ops->check_reproducible(b, st)) {
		snprintf(o->text, sizeof(o->text), "unreproducible");
		o->unreproducible = true;
		snprintf(o->reason, sizeof(o->reason), "%s", b->reason);
	} else {
		long count = st->check == NPG_CHECK_COUNT ? b->ops->count(b, st->ns, st->user) : 0;

		if (st->check != NPG_CHECK_COUNT)
			b->ops->view(b, st->task, &o->actor);
		npg_render_check(sc, st, &o->actor, count, o->text, sizeof(o->text));
	}
	if (st->task >= 0)
		b->ops->view(b, st->task, &o->actor);
	for (int k = 0; k < npg_ncounts(sc); k++) {
		int u = k % sc->nnames, ns = k / sc->nnames;

		if (sc->names[u].group)
			o->counts[k] = 0;
		else if (b->ops->check_reproducible)
			o->counts[k] = count_if_reproducible(b, sc->names[u].id, ns);
		else
			o->counts[k] = b->ops->count(b, ns, sc->names[u].id);
	}
	o->expected = npg_expect_for(&st->expect, col->policy_index);
	o->ok = !o->expected || strcmp(o->expected, o->text) == 0;
	if (o->unreproducible) {
		run->unreproducible++;
		o->ok = true;	/* counted apart: neither held nor failed */
		return;
	}
	if (o->expected) {
		run->expectations++;
		if (o->ok)
			run->held++;
		else
			run->failed++;
	}
}

/* Each column's observation buffers, reused for every statement */
static int alloc_obs(struct npg_run *run)
{
	size_t nnames = npg_ncounts(run->sc) ? (size_t)npg_ncounts(run->sc) : 1;

	run->obs = calloc((size_t)run->ncols, sizeof(*run->obs));
	run->counts = calloc((size_t)run->ncols * nnames, sizeof(long));
	if (!run->obs || !run->counts)
		return NPG_RUN_NO_MEMORY;
	for (int c = 0; c < run->ncols; c++)
		run->obs[c].counts = run->counts + (size_t)c * nnames;
	return 0;
}

/* Start the columns' backends; a column that fails keeps its error and is left out */
static int start_all(struct npg_run *run)
{
	int rc = 0;

	for (int c = 0; c < run->ncols; c++) {
		struct npg_column *col = &run->cols[c];
		struct npg_backend *b = col->backend;

		if (b->ops->start(b, run->sc) < 0) {
			snprintf(col->error, sizeof(col->error), "%s", b->error);
			b->ops->stop(b);
			rc = NPG_RUN_NOT_STARTED;
			continue;
		}
		col->started = true;
	}
	return rc;
}

int npg_run_scenario(struct npg_run *run, const struct npg_scenario *sc,
		     struct npg_column *cols, int ncols, const struct npg_sink *sink)
{
	int rc, stop = 0;

	memset(run, 0, sizeof(*run));
	run->sc = sc;
	run->cols = cols;
	run->ncols = ncols;
	for (int c = 0; c < ncols; c++)
		cols[c].started = false;
	if (alloc_obs(run) < 0)
		return NPG_RUN_NO_MEMORY;
	/* in step, so that a statement's observations on every column are at hand together */
	rc = start_all(run);
	if (sink->begin)
		stop = sink->begin(sink->arg, run);
	for (int s = 0; !stop && s < sc->nstmts; s++) {
		for (int c = 0; c < ncols; c++) {
			struct npg_obs *o = &run->obs[c];
			long *counts = o->counts;

			memset(o, 0, sizeof(*o));
			o->counts = counts;
			if (cols[c].started)
				observe(run, &cols[c], s, o);
		}
		run->done = s + 1;
		if (sink->statement)
			stop = sink->statement(sink->arg, run, s, run->obs);
	}
	for (int c = 0; c < ncols; c++) {
		if (!cols[c].started)
			continue;
		if (!stop && cols[c].before_stop)
			cols[c].before_stop(cols[c].backend, cols[c].before_stop_arg);
		cols[c].backend->ops->stop(cols[c].backend);
	}
	return stop ? stop : rc;
}

void npg_run_free(struct npg_run *run)
{
	free(run->obs);
	free(run->counts);
	run->obs = NULL;
	run->counts = NULL;
}

bool npg_count_label(const struct npg_scenario *sc, int k, char *buf, size_t len)
{
	int u = k % sc->nnames, ns = k / sc->nnames;

	if (ns)
		snprintf(buf, len, "%s in %s", sc->names[u].name, sc->userns[ns - 1].name);
	else
		snprintf(buf, len, "%s", sc->names[u].name);
	return !sc->names[u].group;
}

void npg_stmt_label(const struct npg_scenario *sc, const struct npg_stmt *st, char *buf,
		    size_t len)
{
	if (st->kind == NPG_STMT_STEP)
		snprintf(buf, len, "%s: %s", sc->tasks[st->task].name, st->text);
	else
		snprintf(buf, len, "check %s", st->text);
}

int npg_expectations_of(const struct npg_scenario *sc, const struct npg_policy *policy)
{
	int pi = npg_policy_index(policy);

	return pi >= 0 && (sc->policies & (1u << pi)) ? pi : -1;
}
