/* A kernel's record held against the model of each policy (predict.h). */
#include <limits.h>
#include <stdio.h>

#include "compare/predict.h"

int npg_candidates(const struct npg_side *sides, int nsides, struct npg_candidate *out)
{
	int n = 0;

	for (int i = 0; npg_policies[i]; i++) {
		out[n] = (struct npg_candidate){ .policy = npg_policies[i] };
		snprintf(out[n].label, sizeof(out[n].label), "%s", npg_policies[i]->name);
		n++;
	}
	for (int i = 0; i < nsides; i++) {
		const struct npg_release *r = &sides[i].rel;

		if (!sides[i].has_rel || !r->policy)
			continue;
		out[n] = (struct npg_candidate){ .policy = r->policy, .release = r };
		snprintf(out[n].label, sizeof(out[n].label), "%s as %d.%d.%d", r->policy->name,
			 r->major, r->minor, r->patch);
		n++;
	}
	return n;
}

struct held {
	const struct npg_record_scenario *rs;
	struct npg_agreement *a;
	int error;
};

enum { STOP_MISMATCH = 1 };

/* the guest kept root's own tasks: the model starts from them, as conform's does */
static int held_begin(void *arg, const struct npg_run *run)
{
	struct held *h = arg;

	if (run->cols[0].started && h->rs->root_procs > 0)
		npg_model_backend_root_procs(run->cols[0].backend, run->sc, h->rs->root_procs);
	return 0;
}

static int held_statement(void *arg, const struct npg_run *run, int s, const struct npg_obs *obs)
{
	struct held *h = arg;
	const struct npg_record_stmt *k;
	struct npg_fields model = { 0 };
	int n;

	if (!run->cols[0].started || s >= h->rs->nstmts)
		return 0;
	k = &h->rs->stmts[s];
	if (k->reason)
		return 0;	/* not run faithfully there: says nothing */
	if (npg_obs_fields(run->sc, s, &obs[0], &model) < 0) {
		npg_fields_free(&model);
		h->error = -1;
		return STOP_MISMATCH;
	}
	n = npg_fields_diff(&model, &k->fields, NULL, NULL);
	npg_fields_free(&model);
	if (!n)
		return 0;
	h->a->first_mismatch = s;
	return STOP_MISMATCH;
}

int npg_agreement_of(const struct npg_candidate *c, const struct npg_host *host,
		     const struct npg_scenario *sc, const struct npg_record_scenario *rs,
		     struct npg_agreement *out)
{
	struct npg_backend be;
	struct npg_column col;
	struct npg_run run;
	struct held h = { rs, out, 0 };
	struct npg_sink sink = { .begin = held_begin, .statement = held_statement, .arg = &h };
	int rc;

	*out = (struct npg_agreement){ .first_mismatch = INT_MAX };
	npg_model_backend_as_machine(&be, c->policy, c->release, host);
	col = (struct npg_column){ .backend = &be, .policy_index = -1 };
	rc = npg_run_scenario(&run, sc, &col, 1, &sink);
	out->ran = run.ncols == 1 && run.cols[0].started;
	npg_run_free(&run);
	if (rc == NPG_RUN_NO_MEMORY || h.error)
		return -1;
	return 0;
}
