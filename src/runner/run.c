#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/run.h"

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
		long count = st->check == NPG_CHECK_COUNT ? b->ops->count(b, st->user) : 0;

		if (st->check != NPG_CHECK_COUNT)
			b->ops->view(b, st->task, &o->actor);
		npg_render_check(sc, st, &o->actor, count, o->text, sizeof(o->text));
	}
	if (st->task >= 0)
		b->ops->view(b, st->task, &o->actor);
	for (int u = 0; u < sc->nnames; u++) {
		struct npg_stmt probe = { .kind = NPG_STMT_CHECK, .check = NPG_CHECK_COUNT,
					  .user = sc->names[u].id, .task = -1 };
		char keep[sizeof(b->reason)];

		memcpy(keep, b->reason, sizeof(keep));
		if (sc->names[u].group)
			o->counts[u] = 0;
		else if (b->ops->check_reproducible && !b->ops->check_reproducible(b, &probe))
			o->counts[u] = NPG_COUNT_UNKNOWN;
		else
			o->counts[u] = b->ops->count(b, sc->names[u].id);
		memcpy(b->reason, keep, sizeof(keep));
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

int npg_run_scenario(struct npg_run *run, const struct npg_scenario *sc,
		     struct npg_column *cols, int ncols)
{
	int rc = 0;
	size_t nobs = (size_t)sc->nstmts * (size_t)ncols;

	memset(run, 0, sizeof(*run));
	run->sc = sc;
	run->cols = cols;
	run->ncols = ncols;
	run->obs = calloc(nobs ? nobs : 1, sizeof(*run->obs));
	if (!run->obs)
		return -1;
	for (size_t i = 0; i < nobs; i++) {
		run->obs[i].counts = calloc(sc->nnames ? (size_t)sc->nnames : 1, sizeof(long));
		if (!run->obs[i].counts)
			return -1;
	}
	for (int c = 0; c < ncols; c++) {
		struct npg_backend *b = cols[c].backend;

		if (b->ops->start(b, sc) < 0) {
			snprintf(cols[c].error, sizeof(cols[c].error), "%s", b->error);
			b->ops->stop(b);
			rc = -1;
			continue;
		}
		cols[c].started = true;
		for (int s = 0; s < sc->nstmts; s++)
			observe(run, &cols[c], s, npg_run_obs(run, s, c));
		if (cols[c].before_stop)
			cols[c].before_stop(b, cols[c].before_stop_arg);
		b->ops->stop(b);
	}
	return rc;
}

void npg_run_free(struct npg_run *run)
{
	size_t nobs = (size_t)run->sc->nstmts * (size_t)run->ncols;

	if (run->obs)
		for (size_t i = 0; i < nobs; i++)
			free(run->obs[i].counts);
	free(run->obs);
	run->obs = NULL;
}

void npg_stmt_label(const struct npg_scenario *sc, const struct npg_stmt *st, char *buf,
		    size_t len)
{
	if (st->kind == NPG_STMT_STEP)
		snprintf(buf, len, "%s: %s", sc->tasks[st->task].name, st->text);
	else
		snprintf(buf, len, "check %s", st->text);
}
