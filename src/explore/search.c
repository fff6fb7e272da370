/*
 * The explorer's search (search.h). Every transition is one call of the
 * model (npg_model_step(), the same dispatch `run` uses) on a world decoded
 * from a compact state; nothing here decides what the kernel does.
 *
 * Symmetry reduction is exact for shortest paths: a permutation of
 * interchangeable tasks (program.h) maps every path to a path of the same
 * length that satisfies the same properties (each property reads a task
 * through its own record, never through its position, and always/never
 * over a repeated task is checked for each of them), so one representative
 * per orbit is enough and breadth-first order still finds shortest
 * counterexamples. Within a class the tasks not yet forked are kept last,
 * so the creator's next fork finds its child's slot still empty.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/model_step.h"
#include "explore/explorer.h"
#include "explore/reduce.h"
#include "explore/search.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool setup(struct xp *x, const struct npg_policy *policy)
{
	const struct npg_scenario *sc = x->cp->sc;
	struct npg_backend b;
	const struct npg_world *w0;

	x->ntasks = sc->ntasks;
	x->nuids = x->cp->nuids;
	x->nw = 1 + x->ntasks + x->nuids;
	x->lcap = 256;
	x->lmask = 1023;
	x->scap = 4096;
	x->smask = 16383;
	x->locals = malloc(sizeof(*x->locals) * x->lcap);
	x->lhash = malloc(sizeof(*x->lhash) * x->lcap);
	x->ltab = calloc((size_t)x->lmask + 1, sizeof(*x->ltab));
	x->arena = malloc(x->scap * (size_t)x->nw * 4);
	x->parent = malloc(x->scap * sizeof(*x->parent));
	x->via = malloc(x->scap * sizeof(*x->via));
	x->stab = calloc(x->smask + 1, sizeof(*x->stab));
	x->vbase = calloc((size_t)x->nw, 4);
	x->vnew = calloc((size_t)x->nw, 4);
	x->perm = calloc((size_t)x->ntasks + 1, sizeof(int));
	if (!x->locals || !x->lhash || !x->ltab || !x->arena || !x->parent || !x->via || !x->stab ||
	    !x->vbase || !x->vnew || !x->perm)
		return npg_xp_oom(x);
	for (int i = 0; i < 2; i++) {
		struct npg_world *w = i ? &x->work : &x->base;

		if (npg_world_init(w, policy, x->ntasks) < 0)
			return npg_xp_oom(x);
		w->counts = calloc((size_t)x->nuids, sizeof(*w->counts));
		if (!w->counts)
			return npg_xp_oom(x);
		w->ncounts = x->nuids;
		for (int k = 0; k < x->nuids; k++)
			w->counts[k].uid = x->cp->uids[k];
	}
	/* the initial world is the model backend's, as `run` starts it */
	npg_model_backend_init(&b, policy, NPG_CAP_ALL);
	if (b.ops->start(&b, sc) < 0) {
		snprintf(x->err, x->errlen, "%s", b.error);
		b.ops->stop(&b);
		x->failed = true;
		return false;
	}
	w0 = npg_model_world(&b);
	memcpy(x->base.tasks, w0->tasks, sizeof(*w0->tasks) * (size_t)x->ntasks);
	x->base.rules = x->work.rules = w0->rules;
	/* the machine's, as the scenario declares it (yama ptrace_scope) */
	x->base.yama_scope = x->work.yama_scope = w0->yama_scope;
	x->base.suid_dumpable = x->work.suid_dumpable = w0->suid_dumpable;
	for (int k = 0; k < x->nuids; k++)
		x->base.counts[k].count = npg_count_of(w0, x->cp->uids[k]);
	b.ops->stop(&b);
	x->init_tasks = malloc(sizeof(*x->init_tasks) * (size_t)(x->ntasks + 1));
	x->init_counts = malloc(sizeof(*x->init_counts) * (size_t)(x->nuids + 1));
	if (!x->init_tasks || !x->init_counts)
		return npg_xp_oom(x);
	memcpy(x->init_tasks, x->base.tasks, sizeof(*x->init_tasks) * (size_t)x->ntasks);
	memcpy(x->init_counts, x->base.counts, sizeof(*x->init_counts) * (size_t)x->nuids);
	x->por = x->o->por && x->cp->concurrent;
	if (x->por && npg_reduce_init(&x->red, x->cp, x->o->props, x->o->nprops) < 0)
		return npg_xp_oom(x);
	/* classes */
	x->nmembers = calloc((size_t)x->ntasks + 1, sizeof(int));
	x->members = calloc((size_t)x->ntasks + 1, sizeof(int *));
	if (!x->nmembers || !x->members)
		return npg_xp_oom(x);
	for (int t = 0; t < x->ntasks; t++) {
		int c = x->cp->klass[t];

		if (c < 0)
			continue;
		if (c >= x->nclasses)
			x->nclasses = c + 1;
		if (!x->members[c] && !(x->members[c] = calloc((size_t)x->ntasks, sizeof(int))))
			return npg_xp_oom(x);
		if (x->nmembers[c] < NPG_MAX_REPEAT * 4)
			x->members[c][x->nmembers[c]++] = t;
	}
	return true;
}

/* The initial state, as a vector in vnew (not canonical) and a world in work */
static bool initial(struct xp *x)
{
	memcpy(x->base.tasks, x->init_tasks, sizeof(*x->init_tasks) * (size_t)x->ntasks);
	memcpy(x->base.counts, x->init_counts, sizeof(*x->init_counts) * (size_t)x->nuids);
	x->vnew[0] = 0;
	for (int i = 0; i < x->ntasks; i++) {
		uint32_t id = npg_xp_encode_task(x, &x->base, i, 0, false, 0, 0);

		if (id == UINT32_MAX)
			return false;
		x->vnew[1 + i] = id;
	}
	for (int k = 0; k < x->nuids; k++)
		x->vnew[1 + x->ntasks + k] = (uint32_t)x->base.counts[k].count;
	npg_xp_decode(x, x->vnew, &x->work);
	return true;
}

static void progress(struct xp *x, double t0, double *last, int depth, bool final)
{
	double t = now();

	if (!x->o->progress || (!final && t - *last < 1.0) || t - t0 < 1.0)
		return;
	*last = t;
	fprintf(stderr, "\rexplore: %s: %llu states, depth %d, %.0f states/s%s",
		x->o->label ? x->o->label : "", (unsigned long long)x->nstates, depth,
		(double)x->nstates / (t - t0), final ? "\n" : "   ");
}

/* The successor of state @i just computed by step(): check it and store it */
static bool take(struct xp *x, uint64_t i, int slot, int depth)
{
	struct npg_explore_stats *s = x->stats;
	char msg[320];
	bool fresh;
	uint64_t idx;

	s->transitions++;
	for (int c = 0; c < x->nchecks; c++)
		if (npg_xp_wanted(x, c, depth + 1) && npg_xp_builtin(x, c) &&
		    npg_prop_step(npg_xp_builtin(x, c), &x->ctx, msg, sizeof(msg)))
			npg_xp_record(x, c, (uint32_t)i, slot, depth + 1, npg_xp_pending(x, x->vnew));
	npg_xp_canonicalize(x, x->vnew, x->perm);
	idx = npg_xp_lookup_insert(x, x->vnew, (uint32_t)i, slot, &fresh);
	if (idx == UINT64_MAX)
		return false;
	if (!fresh) {
		s->matched++;
		return true;
	}
	for (int c = 0; c < x->nchecks; c++)
		if (npg_xp_wanted(x, c, depth + 1) && npg_xp_state_broken(x, c, &x->work, msg, sizeof(msg)))
			npg_xp_record(x, c, (uint32_t)i, slot, depth + 1, npg_xp_pending(x, x->vnew));
	return true;
}

/*
 * Expand state @i (in vbase and base). With partial-order reduction, the
 * first enabled private step is the state's only successor (its ample set);
 * a state without one is expanded fully.
 */
static bool expand(struct xp *x, uint64_t i, int depth)
{
	struct npg_explore_stats *s = x->stats;
	int first = x->cp->concurrent ? 0 : -1, end = x->cp->concurrent ? x->ntasks : 0;

	for (int slot = first; slot < end; slot++) {
		if (!npg_xp_enabled(x, x->vbase, slot))
			continue;
		if (x->o->max_depth >= 0 && depth >= x->o->max_depth) {
			s->bounded = true;
			snprintf(s->bound, sizeof(s->bound), "--max-depth %d reached: "
				 "states at that depth still have steps to take", x->o->max_depth);
			return true;
		}
		break;
	}
	for (int slot = 0; x->por && slot < end; slot++) {
		const struct npg_instr *in;

		if (!npg_xp_enabled(x, x->vbase, slot))
			continue;
		in = &x->cp->progs[slot].instr[x->locals[x->vbase[1 + slot]].pc];
		if (!npg_reduce_private_pre(&x->red, &x->base, in->st.task, &in->st.op))
			continue;
		if (!npg_xp_step(x, slot))
			return false;
		if (x->last_private)
			return take(x, i, slot, depth);
	}
	for (int slot = first; slot < end; slot++) {
		if (!npg_xp_enabled(x, x->vbase, slot))
			continue;
		if (!npg_xp_step(x, slot) || !take(x, i, slot, depth))
			return false;
	}
	return true;
}

static bool search(struct xp *x)
{
	struct npg_explore_stats *s = x->stats;
	uint64_t level_end = 1;
	double t0 = now(), last = t0;
	char msg[320];
	bool fresh;
	int depth = 0;

	if (!initial(x))
		return false;
	for (int c = 0; c < x->nchecks; c++)
		if (npg_xp_state_broken(x, c, &x->work, msg, sizeof(msg))) {
			npg_xp_record(x, c, NO_PARENT, -1, 0, 0);
			x->viol[c].initial = true;
		}
	memcpy(x->vbase, x->vnew, (size_t)x->nw * 4);
	npg_xp_canonicalize(x, x->vnew, x->perm);
	if (npg_xp_lookup_insert(x, x->vnew, NO_PARENT, -1, &fresh) == UINT64_MAX)
		return false;
	for (uint64_t i = 0; i < x->nstates; i++) {
		if (i == level_end) {
			depth++;
			level_end = x->nstates;
		}
		if (npg_xp_all_settled(x, depth + 1))
			break;
		if ((i & 1023) == 0) {
			progress(x, t0, &last, depth, false);
			if (npg_xp_table_bytes(x) > s->table_bytes)
				s->table_bytes = npg_xp_table_bytes(x);
		}
		if (x->o->max_states && x->nstates >= x->o->max_states) {
			s->bounded = true;
			snprintf(s->bound, sizeof(s->bound), "--max-states %llu reached at depth %d",
				 (unsigned long long)x->o->max_states, depth);
			break;
		}
		if (x->o->max_memory && npg_xp_table_bytes(x) > x->o->max_memory) {
			s->bounded = true;
			snprintf(s->bound, sizeof(s->bound), "--max-memory %llu MiB reached (%llu states, depth %d)",
				 (unsigned long long)(x->o->max_memory >> 20),
				 (unsigned long long)x->nstates, depth);
			break;
		}
		memcpy(x->vbase, &x->arena[i * x->nw], (size_t)x->nw * 4);
		npg_xp_decode(x, x->vbase, &x->base);
		s->depth = depth;
		if (!expand(x, i, depth))
			return false;
	}
	s->stored = x->nstates;
	s->seconds = now() - t0;
	if (npg_xp_table_bytes(x) > s->table_bytes)
		s->table_bytes = npg_xp_table_bytes(x);
	progress(x, t0, &last, depth, true);
	return true;
}

/*
 * Replay @n steps from the initial state into @tr (NULL: record nothing).
 * @slots are canonical slots of the stored states when @canonical, else
 * concrete ones; the concrete slots and whether each step was private go
 * to @cslots and @priv.
 */
static bool replay_path(struct xp *x, int c, const int *slots, int n, bool canonical,
			int *cslots, bool *priv, struct npg_trace *tr)
{
	if (!initial(x))
		return false;
	memcpy(x->base.tasks, x->work.tasks, sizeof(*x->base.tasks) * (size_t)x->ntasks);
	if (n == 0 && tr)
		npg_xp_state_broken(x, c, &x->base, tr->message, sizeof(tr->message));
	for (int i = 0; i < n; i++) {
		uint32_t canon[x->nw];
		int slot = slots[i];

		memcpy(x->vbase, x->vnew, (size_t)x->nw * 4);
		npg_xp_decode(x, x->vbase, &x->base);
		if (canonical) {
			memcpy(canon, x->vbase, sizeof(canon));
			npg_xp_canonicalize(x, canon, x->perm);
			if (slot >= 0)
				slot = x->perm[slot];
		}
		if (!npg_xp_step(x, slot))
			return false;
		if (cslots)
			cslots[i] = slot;
		if (priv)
			priv[i] = x->last_private;
		if (!tr)
			continue;
		struct npg_trace_step *ts = &tr->steps[i];

		ts->task = x->ctx.actor;
		ts->st = x->last_st;
		ts->result = x->ctx.result;
		ts->after = x->work.tasks[x->ctx.actor];
		ts->counts = calloc((size_t)x->nuids, sizeof(long));
		if (!ts->counts)
			return npg_xp_oom(x);
		for (int u = 0; u < x->nuids; u++)
			ts->counts[u] = x->work.counts[u].count;
		tr->n = i + 1;
		if (i == n - 1) {
			const struct npg_prop *p = npg_xp_builtin(x, c);

			if (!(p && npg_prop_step(p, &x->ctx, tr->message, sizeof(tr->message))))
				npg_xp_state_broken(x, c, &x->work, tr->message, sizeof(tr->message));
		}
	}
	return true;
}

/*
 * Replay violation @c on concrete task indices into @tr. The path found
 * may end with private steps of tasks that act no more (partial-order
 * reduction took them first); they commute to the end and change no
 * property, so they are dropped, and the rest is replayed again.
 */
static bool replay(struct xp *x, int c, struct npg_trace *tr)
{
	const struct violation *v = &x->viol[c];
	int n = v->steps, k = n, kept = 0;
	int *path = calloc((size_t)n + 1, sizeof(int));
	int *cslots = calloc((size_t)n + 1, sizeof(int));
	bool *priv = calloc((size_t)n + 1, sizeof(bool));
	bool *tail = calloc((size_t)x->ntasks + 1, sizeof(bool));
	bool ok = false;

	if (!path || !cslots || !priv || !tail) {
		npg_xp_oom(x);
		goto out;
	}
	if (n > 0) {
		path[--k] = v->via;
		for (uint32_t s = v->pre; x->parent[s] != NO_PARENT; s = x->parent[s])
			path[--k] = x->via[s];
	}
	if (!replay_path(x, c, path, n, true, cslots, priv, NULL))
		goto out;
	/* keep a step unless it is private and its task takes no other kind later */
	for (int t = 0; t < x->ntasks; t++)
		tail[t] = true;
	for (int i = n - 1; i >= 0; i--) {
		int t = cslots[i] < 0 ? 0 : cslots[i];

		path[i] = cslots[i];
		if (priv[i] && tail[t])
			path[i] = INT32_MIN;
		else if (!priv[i])
			tail[t] = false;
	}
	for (int i = 0; i < n; i++)
		if (path[i] != INT32_MIN)
			path[kept++] = path[i];
	tr->steps = calloc((size_t)kept + 1, sizeof(*tr->steps));
	if (!tr->steps) {
		npg_xp_oom(x);
		goto out;
	}
	ok = replay_path(x, c, path, kept, false, NULL, NULL, tr);
out:
	free(path);
	free(cslots);
	free(priv);
	free(tail);
	return ok;
}

static void teardown(struct xp *x)
{
	free(x->locals);
	free(x->lhash);
	free(x->ltab);
	free(x->arena);
	free(x->parent);
	free(x->via);
	free(x->stab);
	free(x->vbase);
	free(x->vnew);
	free(x->perm);
	for (int c = 0; x->members && c < x->ntasks; c++)
		free(x->members[c]);
	free(x->members);
	free(x->nmembers);
	free(x->init_tasks);
	free(x->init_counts);
	free(x->base.tasks);
	free(x->base.counts);
	free(x->work.tasks);
	free(x->work.counts);
	npg_reduce_free(&x->red);
}

int npg_explore(const struct npg_cprog *cp, const struct npg_policy *policy,
		const struct npg_explore_opts *o, struct npg_explore_result *res,
		char *err, size_t errlen)
{
	struct xp x = { .cp = cp, .o = o, .err = err, .errlen = errlen };
	int rc = -1;

	memset(res, 0, sizeof(*res));
	x.stats = &res->stats;
	x.nchecks = o->nprops + cp->nalways;
	res->nchecks = x.nchecks;
	for (int c = 0; c < x.nchecks; c++)
		snprintf(res->checks[c].name, sizeof(res->checks[c].name), "%s",
			 c < o->nprops ? o->props[c].name : cp->always[c - o->nprops].text);
	if (!setup(&x, policy) || !search(&x))
		goto out;
	for (int c = 0; c < x.nchecks; c++) {
		struct npg_check_result *cr = &res->checks[c];

		if (x.viol[c].found) {
			cr->verdict = NPG_VIOLATED;
			cr->steps = x.viol[c].steps - x.viol[c].pend;
			if (!replay(&x, c, &cr->trace))
				goto out;
		} else {
			cr->verdict = res->stats.bounded ? NPG_UNKNOWN : NPG_HOLDS;
		}
	}
	rc = 0;
out:
	teardown(&x);
	return rc;
}

void npg_explore_result_free(struct npg_explore_result *res)
{
	for (int c = 0; c < res->nchecks; c++) {
		struct npg_trace *tr = &res->checks[c].trace;

		for (int i = 0; i < tr->n; i++)
			free(tr->steps[i].counts);
		free(tr->steps);
		tr->steps = NULL;
		tr->n = 0;
	}
}
