/* Deciding which configuration a kernel follows from what it did with the probes. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "identify/identify.h"
#include "identify/probes.h"
#include "model/policy.h"
#include "model/release.h"

#define CLIMB_STEPS 8

/* What configuration @c predicts against what the kernel did, over every probe */
struct fit {
	int contradictions;		/* statements */
	int probe;			/* the first one's probe, or -1 */
	struct npg_contradiction first;
};

struct ctx {
	const struct npg_probes *probes;
	const struct npg_trace *kernel;
	const struct npg_host *host;
};

/*
 * The fields of the first contradiction of @c in probe @p, statement
 * @at->stmt: the traces compared before hold their digests alone, and
 * only what is said needs the fields -- the probe runs again, detailed
 */
static int detail(const struct ctx *x, const struct npg_config *c, int p,
		  struct npg_contradiction *at)
{
	struct npg_trace t;
	int stmt = at->stmt;

	if (npg_trace_model(&t, x->probes->p[p].sc, c, x->host, &x->host->rel,
			    x->kernel[p].root_raised, true) < 0)
		return -1;
	if (!npg_trace_stmt_differs(&t, &x->kernel[p], stmt, at))
		at->stmt = stmt;	/* a field one side lacks: the statement still differs */
	npg_trace_free(&t);
	return 0;
}

/*
 * @c's fit, from traces of the fields' digests (equal digests, equal
 * fields); its traces kept in @keep[probe] when not NULL. -1 out of memory.
 */
static int fit_of(const struct ctx *x, const struct npg_config *c, struct fit *f,
		  int *per_probe, struct npg_trace *keep)
{
	memset(f, 0, sizeof(*f));
	f->probe = -1;
	f->first.stmt = -1;
	for (int p = 0; p < x->probes->n; p++) {
		struct npg_trace t;
		struct npg_contradiction first;
		int n;

		if (npg_trace_model(&t, x->probes->p[p].sc, c, x->host, &x->host->rel,
				    x->kernel[p].root_raised, false) < 0)
			return -1;
		n = npg_trace_contradictions(&t, &x->kernel[p], &first);
		if (n && f->probe < 0) {
			f->probe = p;
			f->first = first;
		}
		f->contradictions += n;
		if (per_probe)
			per_probe[p] = n;
		if (keep)
			keep[p] = t;
		else
			npg_trace_free(&t);
	}
	return 0;
}

static int rules_apart(const struct npg_config *a, const struct npg_config *b)
{
	int n = a->policy != b->policy;

	for (int i = 0; i < npg_nrules; i++)
		n += npg_rule_get(&a->rules, &npg_rule_infos[i]) != npg_rule_get(&b->rules, &npg_rule_infos[i]);
	return n;
}

/*
 * The candidate that fits best: fewest contradictions; among equals the
 * version's own, then the nearest to it
 */
static int best_candidate(const struct ctx *x, const struct npg_candidates *cs,
			  const struct npg_config *version, struct fit *fits, int *per_probe)
{
	int best = -1;

	for (int i = 0; i < cs->n; i++) {
		if (fit_of(x, &cs->c[i].config, &fits[i], per_probe + (size_t)i * (size_t)x->probes->n,
			   NULL) < 0)
			return -1;
		if (best < 0 || fits[i].contradictions < fits[best].contradictions ||
		    (fits[i].contradictions == fits[best].contradictions &&
		     rules_apart(&cs->c[i].config, version) < rules_apart(&cs->c[best].config, version)))
			best = i;
	}
	return best;
}

/* From @a, one neighbour at a time while that fits better: a combination no release has */
static int climb(const struct ctx *x, struct npg_config *a, struct fit *fa)
{
	struct npg_config nb[96];
	struct npg_dimension dims[96];

	for (int step = 0; step < CLIMB_STEPS && fa->contradictions; step++) {
		int n = npg_neighbours(a, nb, dims, 96), best = -1;
		struct fit fb = { 0 }, f;

		for (int k = 0; k < n; k++) {
			if (fit_of(x, &nb[k], &f, NULL, NULL) < 0)
				return -1;
			if (f.contradictions < fa->contradictions &&
			    (best < 0 || f.contradictions < fb.contradictions)) {
				best = k;
				fb = f;
			}
		}
		if (best < 0)
			break;
		*a = nb[best];
		*fa = fb;
	}
	return 0;
}

static void other_value(const struct npg_dimension *d, char *buf, size_t len)
{
	if (!d->rule)
		snprintf(buf, len, "%s", npg_policies[d->value]->name);
	else if (d->rule->is_int)
		snprintf(buf, len, "%d", d->value);
	else
		snprintf(buf, len, "%s", d->value ? "with" : "without");
}

/* What tells @a's value of each dimension from the neighbour's */
static int rule_out(const struct ctx *x, struct npg_identified *out, const struct npg_trace *ta)
{
	struct npg_config nb[96];
	struct npg_dimension dims[96];
	int n = npg_neighbours(&out->config, nb, dims, 96);

	for (int k = 0; k < n && out->nruled < (int)(sizeof(out->ruled) / sizeof(out->ruled[0])); k++) {
		struct npg_ruled_out *r = &out->ruled[out->nruled++];

		memset(r, 0, sizeof(*r));
		r->dim = dims[k];
		r->probe = -1;
		r->decision = NPG_NOT_TOLD;
		other_value(&dims[k], r->other, sizeof(r->other));
		for (int p = 0; p < x->probes->n && r->decision != NPG_DECIDED; p++) {
			struct npg_trace t;
			struct npg_contradiction c, d;

			if (npg_trace_model(&t, x->probes->p[p].sc, &nb[k], x->host, &x->host->rel,
					    x->kernel[p].root_raised, false) < 0)
				return -1;
			/* the other value contradicts the kernel where the answer does not */
			if (npg_trace_differences(&t, &ta[p], &d) &&
			    npg_trace_contradictions(&t, &x->kernel[p], &c)) {
				for (int s = 0; s < t.n && s < x->kernel[p].n; s++) {
					if (x->kernel[p].s[s].unreproducible ||
					    !npg_trace_stmt_differs(&t, &x->kernel[p], s, &c) ||
					    npg_trace_stmt_differs(&ta[p], &x->kernel[p], s, NULL))
						continue;
					r->decision = NPG_DECIDED;
					r->probe = p;
					r->at = c;
					if (detail(x, &nb[k], p, &r->at) < 0) {
						npg_trace_free(&t);
						return -1;
					}
					break;
				}
			}
			if (r->decision == NPG_NOT_TOLD && d.stmt >= 0 && d.stmt < x->kernel[p].n &&
			    x->kernel[p].s[d.stmt].unreproducible) {
				r->decision = NPG_UNDECIDED_HERE;
				r->probe = p;
				r->at = d;
				snprintf(r->reason, sizeof(r->reason), "%s", x->kernel[p].s[d.stmt].reason);
			}
			npg_trace_free(&t);
		}
	}
	return 0;
}

int npg_identify_decide(const struct npg_probes *probes, const struct npg_trace *kernel,
			const struct npg_host *host, struct npg_identified *out)
{
	struct ctx x = { probes, kernel, host };
	struct npg_candidates cs;
	struct fit *fits = NULL, fa;
	int *per_probe = NULL, best, rc = -1;
	struct npg_trace *ta = NULL;

	memset(out, 0, sizeof(*out));
	out->version.policy = host->rel.policy ? host->rel.policy : &npg_policy_linux_6;
	out->version.rules = host->rel.rules;
	npg_config_format(&out->version, out->version_spec, sizeof(out->version_spec));
	out->nprobes = probes->n;
	for (int p = 0; p < probes->n; p++)
		for (int s = 0; s < kernel[p].n; s++) {
			out->nstatements++;
			out->nunreproducible += kernel[p].s[s].unreproducible;
		}
	if (npg_candidates_of_history(&cs) < 0)
		return -1;
	fits = calloc((size_t)cs.n, sizeof(*fits));
	per_probe = calloc((size_t)cs.n * (size_t)(probes->n + 1), sizeof(*per_probe));
	ta = calloc((size_t)probes->n + 1, sizeof(*ta));
	if (!fits || !per_probe || !ta || (best = best_candidate(&x, &cs, &out->version, fits,
								 per_probe)) < 0)
		goto out;
	out->config = cs.c[best].config;
	fa = fits[best];
	if (fa.contradictions) {
		/* which probes no configuration of the history agrees with */
		for (int p = 0; p < probes->n; p++) {
			bool all = true;

			for (int i = 0; i < cs.n && all; i++)
				all = per_probe[(size_t)i * (size_t)probes->n + (size_t)p] > 0;
			if (all && out->nagainst_all < (int)(sizeof(out->against_all) / sizeof(int)))
				out->against_all[out->nagainst_all++] = p;
		}
		if (climb(&x, &out->config, &fa) < 0)
			goto out;
	}
	out->fits = fa.contradictions == 0;
	out->contradictions = fa.contradictions;
	out->first = fa.first;
	out->first_probe = fa.probe;
	if (!out->fits && detail(&x, &out->config, fa.probe, &out->first) < 0)
		goto out;
	for (int i = 0; i < cs.n; i++)
		if (npg_config_equal(&cs.c[i].config, &out->config)) {
			out->in_history = true;
			snprintf(out->where, sizeof(out->where), "%s", cs.c[i].where);
		}
	npg_config_format(&out->config, out->spec, sizeof(out->spec));
	if (fit_of(&x, &out->config, &fa, NULL, ta) < 0 || rule_out(&x, out, ta) < 0)
		goto out;
	rc = 0;
out:
	if (ta)
		for (int p = 0; p < probes->n; p++)
			npg_trace_free(&ta[p]);
	free(ta);
	free(fits);
	free(per_probe);
	npg_candidates_free(&cs);
	return rc;
}

int npg_identify_kernel(const struct npg_host *host, uint32_t uid_base, struct npg_identified *out,
			char *err, size_t errlen)
{
	struct npg_probes probes;
	struct npg_trace *kernel;
	struct timespec t0, t1;
	int started = 0, rc = -1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (npg_probes_load(&probes, stderr) < 0) {
		snprintf(err, errlen, "the probes linked in do not parse");
		npg_probes_free(&probes);
		return -1;
	}
	if (probes.n == 0) {
		snprintf(err, errlen, "no probes are linked in (make identify-probes)");
		npg_probes_free(&probes);
		return -1;
	}
	kernel = calloc((size_t)probes.n, sizeof(*kernel));
	if (!kernel) {
		snprintf(err, errlen, "out of memory");
		npg_probes_free(&probes);
		return -1;
	}
	for (int p = 0; p < probes.n; p++) {
		struct npg_backend b;

		npg_real_backend_init(&b, host, uid_base);
		if (npg_trace_run(&kernel[p], probes.p[p].sc, &b, true) < 0) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		if (kernel[p].not_started) {
			/* the same refusal for every probe (not root, the window taken): stop */
			if (!started) {
				snprintf(err, errlen, "%s", kernel[p].error);
				goto out;
			}
			/* this probe alone: its every statement is unreproducible */
			for (int s = 0; s < probes.p[p].sc->nstmts; s++) {
				/* as snprintf() into the reason would truncate it, without
				 * -Wformat-truncation's error at -O1 (make check's build) */
				char why[sizeof(kernel[p].error) + 32];
				size_t n;

				kernel[p].s[s].unreproducible = true;
				snprintf(why, sizeof(why), "the probe could not start: %s", kernel[p].error);
				n = strnlen(why, sizeof(kernel[p].s[s].reason) - 1);
				memcpy(kernel[p].s[s].reason, why, n);
				kernel[p].s[s].reason[n] = '\0';
			}
			kernel[p].n = probes.p[p].sc->nstmts;
		}
		started++;
	}
	if (npg_identify_decide(&probes, kernel, host, out) < 0) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	out->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	rc = 0;
out:
	for (int p = 0; p < probes.n; p++)
		npg_trace_free(&kernel[p]);
	free(kernel);
	npg_probes_free(&probes);
	return rc;
}
