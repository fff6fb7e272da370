/*
 * The explorer's search (search.h). Every transition is one call of the
 * model (npg_model_step(), the same dispatch `run` uses) on a world decoded
 * from a compact state, with the local calls after it merged in; nothing
 * here decides what the kernel does.
 *
 * Order. A state's depth is the number of calls made to reach it, the sum
 * of its tasks' call counters, so every path to it is as long. A
 * transition merges one call and the local calls after it, so it moves
 * 1 to a few levels down; the queue holds one list of states per depth
 * (Dial's buckets) and states are expanded in order of depth: the first
 * violation found of each property is a shortest one, in calls, and every
 * state is reached from all its parents before it is expanded (which the
 * sleep sets rely on).
 *
 * Symmetry reduction is exact for shortest paths: a permutation of
 * interchangeable tasks (program.h) maps every path to a path of the same
 * length that satisfies the same properties (each property reads a task
 * through its own record, never through its position, and always/never
 * over a repeated task is checked for each of them), so one representative
 * per orbit is enough. Within a class the tasks not yet forked are kept
 * last, so the creator's next fork finds its child's slot still empty.
 *
 * Sleep sets (doc/explore-reduction.md): a state keeps the set of slots
 * whose next transition need not be taken from it, because it was taken
 * from an earlier sibling and commutes with what came between
 * (footprint.h); a state reached several ways keeps the intersection.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/model_step.h"
#include "explore/explorer.h"
#include "explore/footprint.h"
#include "explore/reduce.h"
#include "explore/search.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Every table of the search: states, queue, cache */
static uint64_t table_bytes(const struct xp *x)
{
	return npg_xp_state_bytes(x) + npg_xp_queue_bytes(x) + npg_xp_cache_bytes(x);
}

static bool init_world(struct xp *x, struct npg_world *w, const struct npg_policy *policy,
		       const struct npg_world *w0)
{
	if (npg_world_init(w, policy, x->ntasks) < 0)
		return npg_xp_oom(x);
	w->counts = calloc((size_t)x->nuids + 1, sizeof(*w->counts));
	if (!w->counts)
		return npg_xp_oom(x);
	w->ncounts = x->nuids;
	for (int k = 0; k < x->nuids; k++)
		w->counts[k].uid = x->cp->uids[k];
	/* the release's rules and the machine's settings, as the scenario declares them */
	w->rules = w0->rules;
	w->cap_full_set = w0->cap_full_set;
	w->yama_scope = w0->yama_scope;
	w->suid_dumpable = w0->suid_dumpable;
	return true;
}

static bool setup(struct xp *x, const struct npg_policy *policy)
{
	const struct npg_scenario *sc = x->cp->sc;
	struct npg_backend b;
	const struct npg_world *w0;
	const char *verify = getenv("NPG_EXPLORE_VERIFY");

	x->ntasks = sc->ntasks;
	x->nuids = x->cp->nuids;
	x->nw = 1 + x->ntasks + x->nuids;
	x->por = x->o->por && x->cp->concurrent;
	x->sleep = x->por && x->o->sleep_sets;
	x->sw = !x->sleep ? 0 : x->ntasks <= 32 ? 1 : 2;
	x->rw = x->nw + x->sw;
	x->verify = verify && *verify && strcmp(verify, "0") != 0;
	x->lcap = 256;
	x->lmask = 1023;
	x->scap = 4096;
	x->smask = 16383;
	x->locals = malloc(sizeof(*x->locals) * x->lcap);
	x->lhash = malloc(sizeof(*x->lhash) * x->lcap);
	x->ltab = calloc((size_t)x->lmask + 1, sizeof(*x->ltab));
	x->arena = npg_xp_big_alloc(x->scap * (size_t)x->rw * 4);
	x->parent = npg_xp_big_alloc(x->scap * sizeof(*x->parent));
	x->via = npg_xp_big_alloc(x->scap * sizeof(*x->via));
	x->stab = npg_xp_big_alloc((x->smask + 1) * sizeof(*x->stab));
	x->vbase = calloc((size_t)x->nw, 4);
	x->vnew = calloc((size_t)x->nw, 4);
	x->vdec = calloc((size_t)x->nw, 4);
	x->hkey = calloc((size_t)x->nw, sizeof(*x->hkey));
	x->perm = calloc((size_t)x->ntasks + 1, sizeof(int));
	x->simple = calloc((size_t)x->ntasks + 1, sizeof(bool));
	x->succ = calloc((size_t)x->ntasks + 1, sizeof(*x->succ));
	x->sbuf = calloc(((size_t)x->ntasks + 1) * (size_t)x->nw, 4);
	x->rec_size = (sizeof(struct call_rec) + sizeof(long) * (size_t)x->nuids + 15) / 16 * 16;
	if (!x->locals || !x->lhash || !x->ltab || !x->arena || !x->parent || !x->via || !x->stab ||
	    !x->vbase || !x->vnew || !x->vdec || !x->hkey || !x->perm || !x->simple || !x->succ ||
	    !x->sbuf)
		return npg_xp_oom(x);
	/* the initial world is the model backend's, as `run` starts it */
	npg_model_backend_init(&b, policy, NPG_CAP_ALL);
	if (b.ops->start(&b, sc) < 0) {
		snprintf(x->err, x->errlen, "%s", b.error);
		b.ops->stop(&b);
		x->failed = true;
		return false;
	}
	w0 = npg_model_world(&b);
	if (!init_world(x, &x->base, policy, w0) || !init_world(x, &x->work, policy, w0) ||
	    !init_world(x, &x->mid, policy, w0) || (x->verify && !init_world(x, &x->check, policy, w0))) {
		b.ops->stop(&b);
		return false;
	}
	x->init_tasks = malloc(sizeof(*x->init_tasks) * (size_t)(x->ntasks + 1));
	x->init_counts = malloc(sizeof(*x->init_counts) * (size_t)(x->nuids + 1));
	if (!x->init_tasks || !x->init_counts) {
		b.ops->stop(&b);
		return npg_xp_oom(x);
	}
	memcpy(x->init_tasks, w0->tasks, sizeof(*x->init_tasks) * (size_t)x->ntasks);
	memcpy(x->init_counts, x->base.counts, sizeof(*x->init_counts) * (size_t)x->nuids);
	for (int k = 0; k < x->nuids; k++)
		x->init_counts[k].count = npg_count_of(w0, x->cp->uids[k]);
	b.ops->stop(&b);
	if (npg_reduce_init(&x->red, x->cp, x->o->props, x->o->nprops) < 0)
		return npg_xp_oom(x);
	if (!x->por)
		x->red.pmax = x->red.maxrun = 0;
	/* the queue: a transition moves at most 1 + two runs of local calls down */
	if (!npg_xp_queue_init(x, 2 * x->red.maxrun + 1) || !npg_xp_cache_init(x))
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
	npg_xp_hash_keys(x);
	for (int c = 0; c < x->nchecks; c++)
		x->state_checks |= !npg_xp_builtin(x, c) ||
				   npg_xp_builtin(x, c)->kind == NPG_P_LIMIT_HOLDS;
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

/* An arrival @depth calls deep, @left levels from its state */
static bool push_arrival(struct xp *x, uint32_t parent, int slot, int left, uint64_t hash,
			 uint64_t sleep, const uint32_t *v, int depth)
{
	struct arrival *a = npg_xp_queue_arrival(x, depth);

	if (!a)
		return false;
	*a = (struct arrival){ .parent = parent, .slot = (int16_t)slot, .left = (int16_t)left,
			       .hash = (uint32_t)hash };
	for (int i = 0; i < x->sw; i++)
		a->sleep[i] = (uint32_t)(sleep >> (32 * i));
	memcpy(a->sleep + x->sw, v, (size_t)x->nw * 4);
	return true;
}

/* State @v (not canonical), @depth calls deep, reached from @parent: stored if new */
static bool arrive(struct xp *x, const uint32_t *v, uint64_t hash, uint64_t sleep,
		   uint32_t parent, int slot, int depth, bool *fresh)
{
	uint64_t idx;

	memcpy(x->vnew, v, (size_t)x->nw * 4);
	npg_xp_canonicalize(x, x->vnew, x->perm);
	idx = npg_xp_lookup_insert(x, x->vnew, hash, npg_xp_permute_set(x, sleep, x->perm),
				   parent, slot, fresh);
	if (idx == UINT64_MAX)
		return false;
	if (!*fresh) {
		x->stats->matched++;
		return true;
	}
	return npg_xp_queue_state(x, idx, depth);
}

/*
 * Successor @s of state @i, @depth calls deep: its checks, and stored if
 * new. A transition of several calls reaches its state as a search taking
 * one call at a time would: one level down a turn, so that of two equally
 * short counterexamples the same one is found with merging as without
 * (and its state is judged when its first call is made).
 */
static bool take(struct xp *x, uint64_t i, const struct succ *s, int depth)
{
	struct npg_explore_stats *st = x->stats;
	int d = depth + s->weight;
	bool fresh;

	st->transitions++;
	st->merged += (uint64_t)s->weight - 1;
	if (s->weight >= x->nbuckets) {
		snprintf(x->err, x->errlen, "internal error: a transition of %d calls", s->weight);
		x->failed = true;
		return false;
	}
	for (uint64_t f = s->fired; f; f &= f - 1) {
		int c = __builtin_ctzll(f);

		if (npg_xp_wanted(x, c, d))
			npg_xp_record(x, c, (uint32_t)i, s->slot, d, npg_xp_pending(x, s->v));
	}
	if (s->weight > 1) {
		npg_xp_check_state(x, s, i, d);
		return push_arrival(x, (uint32_t)i, s->slot, s->weight - 1, s->hash, s->sleep, s->v,
				    depth + 1);
	}
	if (!arrive(x, s->v, s->hash, s->sleep, (uint32_t)i, s->slot, d, &fresh))
		return false;
	if (fresh)
		npg_xp_check_state(x, s, i, d);
	return true;
}

/* The footprint of @slot's next transition from vbase, without taking it */
static void footprint_of(struct xp *x, int slot, struct npg_fp *f)
{
	const struct local *l = &x->locals[x->vbase[1 + slot]];

	npg_fp_static(&l->task, x->simple[slot], slot, &npg_xp_next(x, x->vbase, slot)->st.op, f);
}

/*
 * Expand state @i (canonical, @depth calls deep): every enabled transition
 * not asleep, then the sleep set of each successor -- the slots asleep
 * here and those taken before it, that commute with it -- then every
 * successor's table slot probed, together.
 */
static bool expand(struct xp *x, uint64_t i, int depth)
{
	struct npg_explore_stats *st = x->stats;
	int first = x->cp->concurrent ? 0 : -1, end = x->cp->concurrent ? x->ntasks : 0, ns = 0;
	uint64_t sleep = npg_xp_sleep_of(x, i), asleep = 0;
	struct npg_fp zfp[64];
	bool any = false;

	memcpy(x->vbase, &x->arena[i * x->rw], (size_t)x->nw * 4);
	for (int slot = first; slot < end && !any; slot++)
		any = npg_xp_enabled(x, x->vbase, slot);
	if (!any)
		return true;
	if (x->o->max_depth >= 0 && depth >= x->o->max_depth) {
		st->bounded = true;
		snprintf(st->bound, sizeof(st->bound), "--max-depth %d reached: "
			 "states at that depth still have steps to take", x->o->max_depth);
		return true;
	}
	x->hbase = npg_xp_hash(x, x->vbase);
	if (x->cp->concurrent) {
		const struct npg_task *t[x->ntasks];

		for (int k = 0; k < x->ntasks; k++)
			t[k] = &x->locals[x->vbase[1 + k]].task;
		npg_fp_simple(t, x->ntasks, x->simple);
	}
	for (int slot = first; slot < end; slot++) {
		struct succ *s = &x->succ[ns];

		if (!npg_xp_enabled(x, x->vbase, slot))
			continue;
		if (slot >= 0 && slot < 64 && (sleep >> slot & 1)) {
			footprint_of(x, slot, &zfp[slot]);
			asleep |= (uint64_t)1 << slot;
			st->slept++;
			continue;
		}
		s->v = &x->sbuf[(size_t)ns * x->nw];
		if (!npg_xp_transition(x, slot, s))
			return false;
		ns++;
	}
	for (int k = 0; x->sleep && k < ns; k++) {
		struct succ *s = &x->succ[k];

		s->sleep = 0;
		for (uint64_t z = asleep; z; z &= z - 1) {
			int u = __builtin_ctzll(z);

			if (npg_fp_independent(&zfp[u], &s->fp))
				s->sleep |= (uint64_t)1 << u;
		}
		for (int j = 0; j < k; j++)
			if (x->succ[j].slot < 64 && npg_fp_independent(&x->succ[j].fp, &s->fp))
				s->sleep |= (uint64_t)1 << x->succ[j].slot;
	}
	for (int k = 0; k < ns; k++)
		npg_xp_prefetch(x, x->succ[k].hash);
	for (int k = 0; k < ns; k++)
		npg_xp_prefetch_row(x, x->succ[k].hash);
	for (int k = 0; k < ns; k++)
		if (!take(x, i, &x->succ[k], depth))
			return false;
	return true;
}

static bool search(struct xp *x)
{
	struct npg_explore_stats *s = x->stats;
	double t0 = now(), last = t0;
	uint64_t expanded = 0;
	char msg[320];
	bool fresh;
	int depth;

	if (!npg_xp_initial(x))
		return false;
	depth = npg_xp_depth(x, x->vnew);
	for (int c = 0; c < x->nchecks; c++)
		if (npg_xp_state_broken(x, c, &x->base, msg, sizeof(msg))) {
			npg_xp_record(x, c, NO_PARENT, -1, depth, npg_xp_pending(x, x->vnew));
			x->viol[c].initial = true;
		}
	npg_xp_canonicalize(x, x->vnew, x->perm);
	if (npg_xp_lookup_insert(x, x->vnew, npg_xp_hash(x, x->vnew), 0, NO_PARENT, -1, &fresh) ==
	    UINT64_MAX || !npg_xp_queue_state(x, 0, depth))
		return false;
	while (x->queued) {
		const struct arrival *a;
		uint64_t i;

		if (!npg_xp_queue_pop(x, depth, &i, &a)) {
			depth++;
			continue;
		}
		if (a) {
			/* the record stays valid until the next pop */
			uint64_t sleep = x->sw ? a->sleep[0] | (x->sw > 1 ? (uint64_t)a->sleep[1] << 32 : 0)
					       : 0;
			const uint32_t *v = a->sleep + x->sw;

			if (!(a->left > 1 ? push_arrival(x, a->parent, a->slot, a->left - 1, a->hash,
							  sleep, v, depth + 1)
					  : arrive(x, v, a->hash, sleep, a->parent, a->slot, depth + 1,
						   &fresh)))
				return false;
			continue;
		}
		if (npg_xp_all_settled(x, depth + 1))
			break;
		if ((expanded++ & 1023) == 0) {
			progress(x, t0, &last, depth, false);
			npg_xp_cache_grow(x);
			if (table_bytes(x) > s->table_bytes)
				s->table_bytes = table_bytes(x);
		}
		if (x->o->max_states && x->nstates >= x->o->max_states) {
			s->bounded = true;
			snprintf(s->bound, sizeof(s->bound), "--max-states %llu reached at depth %d",
				 (unsigned long long)x->o->max_states, depth);
			break;
		}
		if (x->o->max_memory && table_bytes(x) > x->o->max_memory) {
			s->bounded = true;
			snprintf(s->bound, sizeof(s->bound), "--max-memory %llu MiB reached (%llu states, depth %d)",
				 (unsigned long long)(x->o->max_memory >> 20),
				 (unsigned long long)x->nstates, depth);
			break;
		}
		s->depth = depth;
		if (!expand(x, i, depth))
			return false;
	}
	s->stored = x->nstates;
	s->seconds = now() - t0;
	if (table_bytes(x) > s->table_bytes)
		s->table_bytes = table_bytes(x);
	progress(x, t0, &last, depth, true);
	return true;
}

/* Replay from the initial state, recording every call (x->rec), merging local ones or not */
static bool replay_start(struct xp *x, bool merge)
{
	x->no_chain = !merge;
	x->recording = true;
	x->nrec = 0;
	if (!npg_xp_initial(x))
		return false;
	memcpy(x->vbase, x->vnew, (size_t)x->nw * 4);
	return true;
}

/* Replay: the transition of concrete slot @slot from vbase, its successor into vbase */
static bool replay_step(struct xp *x, int slot)
{
	struct succ s = { .v = x->sbuf };

	x->hbase = npg_xp_hash(x, x->vbase);
	if (!npg_xp_transition(x, slot, &s))
		return false;
	memcpy(x->vbase, s.v, (size_t)x->nw * 4);
	return true;
}

/*
 * Replay @n transitions (@slots: canonical slots of the stored states)
 * from the initial state, recording every call made: the first local calls
 * of the initial state, then each transition's call and the local calls
 * merged after it.
 */
static bool replay_transitions(struct xp *x, const int *slots, int n)
{
	if (!replay_start(x, true))
		return false;
	for (int i = 0; i < n; i++) {
		uint32_t canon[x->nw];
		int slot = slots[i];

		memcpy(canon, x->vbase, sizeof(canon));
		npg_xp_canonicalize(x, canon, x->perm);
		if (slot >= 0)
			slot = x->perm[slot];
		if (!replay_step(x, slot))
			return false;
	}
	x->recording = false;
	return true;
}

static const struct call_rec *rec_at(const struct xp *x, size_t i)
{
	return (const struct call_rec *)(x->rec + i * x->rec_size);
}

/*
 * Replay the calls of concrete slots @slots one by one (no merging) into
 * @tr, and the violation of check @c at the end into its message.
 */
static bool replay_calls(struct xp *x, int c, const int *slots, int n, struct npg_trace *tr)
{
	if (!replay_start(x, false))
		return false;
	for (int i = 0; i < n; i++) {
		if (i == n - 1 && !npg_xp_message(x, c, slots[i], tr->message, sizeof(tr->message)))
			return false;
		if (!replay_step(x, slots[i]))
			return false;
	}
	if (n == 0)
		npg_xp_state_broken(x, c, &x->base, tr->message, sizeof(tr->message));
	x->no_chain = false;
	x->recording = false;
	tr->steps = calloc((size_t)x->nrec + 1, sizeof(*tr->steps));
	if (!tr->steps)
		return npg_xp_oom(x);
	for (size_t i = 0; i < x->nrec; i++) {
		const struct call_rec *r = rec_at(x, i);
		struct npg_trace_step *ts = &tr->steps[i];

		ts->task = r->task;
		ts->st = r->st;
		ts->result = r->result;
		ts->after = r->after;
		ts->counts = calloc((size_t)x->nuids + 1, sizeof(long));
		if (!ts->counts)
			return npg_xp_oom(x);
		memcpy(ts->counts, r->counts, sizeof(long) * (size_t)x->nuids);
		tr->n = (int)i + 1;
	}
	return true;
}

/*
 * Replay violation @c on concrete task indices into @tr. The path found
 * may end with local calls of tasks that make no other call after them
 * (merged into a transition, or made first for reduction); they commute
 * to the end and change no property, so they are dropped, and the rest is
 * replayed again, one call at a time.
 */
static bool replay(struct xp *x, int c, struct npg_trace *tr)
{
	const struct violation *v = &x->viol[c];
	int n = 0, k, kept = 0;
	int *path = NULL, *calls = NULL;
	bool *tail = calloc((size_t)x->ntasks + 1, sizeof(bool));
	bool ok = false;

	if (!v->initial)
		for (uint32_t s = v->pre, m = 1; ; s = x->parent[s], m++) {
			n = (int)m;
			if (x->parent[s] == NO_PARENT)
				break;
		}
	path = calloc((size_t)n + 1, sizeof(int));
	if (!path || !tail) {
		npg_xp_oom(x);
		goto out;
	}
	if (n > 0) {
		k = n;
		path[--k] = v->via;
		for (uint32_t s = v->pre; x->parent[s] != NO_PARENT; s = x->parent[s])
			path[--k] = x->via[s];
	}
	if (!replay_transitions(x, path, n))
		goto out;
	calls = calloc(x->nrec + 1, sizeof(int));
	if (!calls) {
		npg_xp_oom(x);
		goto out;
	}
	/* keep a call unless it is local and its task makes no other kind later */
	for (int t = 0; t < x->ntasks; t++)
		tail[t] = true;
	for (size_t i = x->nrec; i-- > 0;) {
		const struct call_rec *r = rec_at(x, i);

		calls[i] = r->slot;
		if (r->local && tail[r->task])
			calls[i] = INT32_MIN;
		else if (!r->local)
			tail[r->task] = false;
	}
	for (size_t i = 0; i < x->nrec; i++)
		if (calls[i] != INT32_MIN)
			calls[kept++] = calls[i];
	ok = replay_calls(x, c, calls, kept, tr);
out:
	x->recording = x->no_chain = false;
	free(path);
	free(calls);
	free(tail);
	return ok;
}

static void teardown(struct xp *x)
{
	free(x->locals);
	free(x->lhash);
	free(x->ltab);
	npg_xp_big_free(x->arena, x->scap * (size_t)x->rw * 4);
	npg_xp_big_free(x->parent, x->scap * sizeof(*x->parent));
	npg_xp_big_free(x->via, x->scap * sizeof(*x->via));
	npg_xp_big_free(x->stab, (x->smask + 1) * sizeof(*x->stab));
	free(x->vbase);
	free(x->vnew);
	free(x->vdec);
	free(x->hkey);
	free(x->perm);
	free(x->simple);
	free(x->succ);
	free(x->sbuf);
	free(x->rec);
	free(x->cache);
	npg_xp_queue_free(x);
	for (int c = 0; x->members && c < x->ntasks; c++)
		free(x->members[c]);
	free(x->members);
	free(x->nmembers);
	free(x->init_tasks);
	free(x->init_counts);
	npg_world_free(&x->base);
	npg_world_free(&x->work);
	npg_world_free(&x->mid);
	npg_world_free(&x->check);
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
