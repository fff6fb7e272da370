/*
 * One transition of the explorer: a task's next call run on the model
 * (npg_model_step(), the dispatch `run` uses), then the local calls that
 * follow it merged into it (reduce.h), the properties judged on the call,
 * what it read and wrote (footprint.h), and the successor's vector.
 *
 * The worlds are not copied per transition: base, work and mid hold the
 * state being expanded (decoded once, only the tasks that differ from the
 * last one decoded), a call runs on work, and afterwards only the tasks it
 * could have written are compared, encoded and restored -- the caller's
 * and a new child's for a task that leads its own process with no thread
 * and no child (footprint.h: "simple"), every task otherwise. A
 * transition that depends only on the caller's local and the counts is
 * remembered (cache.c) and the next one alike is not run at all.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/model_step.h"
#include "explore/explorer.h"
#include "explore/footprint.h"
#include "explore/reduce.h"
#include "explore/search.h"

/* a task's counters, as its local keeps them */
struct counters {
	uint32_t pc, pend, calls;
	bool failed;
	unsigned mon;
};

static bool internal(struct xp *x, const char *what, int task)
{
	snprintf(x->err, x->errlen, "internal error: %s (task %s, line %d)", what,
		 x->cp->sc->tasks[task].name, x->last_st ? x->last_st->line : 0);
	x->failed = true;
	return false;
}

/* Task @t runs @in on work; @pre is the world before it */
static bool call(struct xp *x, int t, const struct npg_instr *in, const struct npg_world *pre,
		 unsigned mon)
{
	x->ctx = (struct npg_step_ctx){ .cp = x->cp, .pre = pre, .post = &x->work, .actor = t,
					.op = &in->st.op, .mon = mon };
	x->last_st = &in->st;
	x->ctx.result = npg_model_step(&x->work, &in->st);
	if (x->work.ncounts != x->nuids)
		return internal(x, "a count for a uid the state does not hold", t);
	return true;
}

/* The built-in checks whose step property the last call breaks */
static uint64_t fired(struct xp *x)
{
	uint64_t f = 0;

	for (int c = 0; c < x->o->nprops; c++)
		if (npg_prop_step(&x->o->props[c], &x->ctx, x->msg, sizeof(x->msg)))
			f |= (uint64_t)1 << c;
	return f;
}

static bool failed_result(struct npg_result r)
{
	return r.kind == NPG_R_ERRNO || r.kind == NPG_R_KILLED;
}

static void copy_counts(struct npg_world *to, const struct npg_world *from)
{
	for (int k = 0; k < from->ncounts; k++)
		to->counts[k].count = from->counts[k].count;
}

/* Replay: the call just made, and whether it was merged as a local one */
static bool record(struct xp *x, int slot, bool local)
{
	struct call_rec *r;

	if (!x->recording)
		return true;
	if (x->nrec == x->rec_cap) {
		size_t cap = x->rec_cap ? x->rec_cap * 2 : 64;
		char *grown = realloc(x->rec, cap * x->rec_size);

		if (!grown)
			return npg_xp_oom(x);
		x->rec = grown;
		x->rec_cap = cap;
	}
	r = (struct call_rec *)(x->rec + x->nrec++ * x->rec_size);
	r->slot = slot;
	r->task = x->ctx.actor;
	r->local = local;
	r->st = x->last_st;
	r->result = x->ctx.result;
	r->after = x->work.tasks[x->ctx.actor];
	for (int u = 0; u < x->nuids; u++)
		r->counts[u] = x->work.counts[u].count;
	return true;
}

/*
 * NPG_EXPLORE_VERIFY: the call just made from @pre changed no task but
 * @a and @b, and when it claims to read no count, the same call from @pre
 * with every count at 0, then at a million, does the same
 */
static bool verify_call(struct xp *x, const struct npg_world *pre, const struct npg_instr *in,
			int a, int b, bool reads_counts)
{
	static const long trial[] = { 0, 1000000 };

	for (int i = 0; i < x->ntasks; i++)
		if (i != a && i != b && memcmp(&pre->tasks[i], &x->work.tasks[i], sizeof(struct npg_task)))
			return internal(x, "a call wrote a task its footprint does not name", a);
	if (reads_counts)
		return true;
	for (int j = 0; j < 2; j++) {
		struct npg_result r;

		memcpy(x->check.tasks, pre->tasks, sizeof(*pre->tasks) * (size_t)x->ntasks);
		for (int k = 0; k < x->nuids; k++)
			x->check.counts[k].count = trial[j];
		r = npg_model_step(&x->check, &in->st);
		if (r.kind != x->ctx.result.kind || r.value != x->ctx.result.value ||
		    memcmp(&x->check.tasks[a], &x->work.tasks[a], sizeof(struct npg_task)) ||
		    (b >= 0 && memcmp(&x->check.tasks[b], &x->work.tasks[b], sizeof(struct npg_task))))
			return internal(x, "a call that reads no count depends on one", a);
		for (int k = 0; k < x->nuids; k++)
			if (x->check.counts[k].count - trial[j] !=
			    x->work.counts[k].count - pre->counts[k].count)
				return internal(x, "a call that reads no count depends on one", a);
	}
	return true;
}

/*
 * Task @t's local calls after its last call, merged into the transition:
 * each runs on work from mid, and stays (mid takes it) if it was local,
 * else it is undone and the chain ends. The number made, or -1.
 */
static int chain(struct xp *x, int t, struct counters *k)
{
	const struct npg_prog *pg = &x->cp->progs[t];
	int n = 0;

	if (!x->por || x->no_chain)
		return 0;
	for (;;) {
		const struct npg_instr *in;
		unsigned amon, cmon;
		bool local;

		k->pc = npg_xp_skip_guards(x, t, k->pc, k->failed);
		if (k->pc >= (uint32_t)pg->ninstr || x->work.tasks[t].state != NPG_TASK_RUNNING)
			break;
		in = &pg->instr[k->pc];
		if (!npg_reduce_local_op(&x->red, &x->mid, t, &in->st.op))
			break;
		if (!call(x, t, in, &x->mid, k->mon))
			return -1;
		/* a call a property judges is visible (no-root-after-failed-drop
		 * judges every call of a task whose drop failed while its euid is 0) */
		local = npg_reduce_local_after(&x->red, &x->mid, &x->work, t, &in->st.op,
					       x->ctx.result) && !fired(x);
		if (x->verify && !verify_call(x, &x->mid, in, t, -1, !local))
			return -1;
		if (!local) {
			x->work.tasks[t] = x->mid.tasks[t];
			copy_counts(&x->work, &x->mid);
			break;
		}
		if (!record(x, t, true))
			return -1;
		npg_monitor_step(&x->ctx, &amon, &cmon);
		k->mon = amon;
		k->failed = failed_result(x->ctx.result);
		k->pc++;
		k->pend++;
		k->calls++;
		n++;
		x->mid.tasks[t] = x->work.tasks[t];
	}
	return n;
}

/* Can @slot's transition from vbase be taken from the cache (cache.c)? */
static bool cacheable(const struct xp *x, int slot)
{
	const struct local *l = &x->locals[x->vbase[1 + slot]];

	if (!x->use_cache || x->recording || x->no_chain || !x->simple[slot])
		return false;
	switch (npg_fp_class_of(&npg_xp_next(x, x->vbase, slot)->st.op, slot)) {
	case NPG_FP_OWN:
	case NPG_FP_SETUID:
	case NPG_FP_EXECVE:
	case NPG_FP_FORK:
		return true;
	case NPG_FP_EXIT:
		/* reaped_by_harness() reads a parent task's state */
		return l->task.parent == NPG_HARNESS;
	default:
		return false;
	}
}

/* The transition of @slot from vbase, run on the model */
static bool run(struct xp *x, int slot, struct succ *s)
{
	const uint32_t *vb = x->vbase;
	const struct npg_instr *in;
	const struct npg_op *op;
	struct counters kp, kc = { 0 };
	int p, child = -1, cand[2], ncand = 0, n;
	uint32_t pc, calls;
	unsigned amon, cmon, mon;
	bool fast;

	npg_xp_decode(x, vb);
	in = npg_xp_next(x, vb, slot);
	op = &in->st.op;
	p = in->st.task;
	pc = slot < 0 ? vb[0] : x->locals[vb[1 + p]].pc;
	calls = x->locals[vb[1 + p]].calls;
	mon = x->locals[vb[1 + p]].mon;
	fast = slot >= 0 && !x->recording && x->simple[p] && npg_fp_class_of(op, p) != NPG_FP_ANY;
	cand[ncand++] = p;
	if ((op->code == NPG_OP_FORK || op->code == NPG_OP_THREAD) && op->target != p)
		cand[ncand++] = op->target;
	if (!call(x, p, in, &x->base, mon))
		return false;
	s->slot = slot;
	s->fired = fired(x);
	npg_monitor_step(&x->ctx, &amon, &cmon);
	if ((op->code == NPG_OP_FORK || op->code == NPG_OP_THREAD) && x->ctx.result.kind == NPG_R_OK)
		child = op->target;
	npg_fp_static(&x->base.tasks[p], fast, p, op, &s->fp);
	npg_fp_after(&s->fp, &x->base, &x->work, op, x->ctx.result, cand, ncand);
	if (x->verify && fast && !verify_call(x, &x->base, in, p, ncand > 1 ? cand[1] : -1,
					      s->fp.cread))
		return false;
	if (!record(x, slot, false))
		return false;
	kp = (struct counters){ .pc = slot < 0 ? 0 : pc + 1, .calls = slot < 0 ? 0 : calls + 1,
				.failed = slot >= 0 && failed_result(x->ctx.result), .mon = amon };
	kc.mon = cmon;
	/* mid takes the world after the call, for the local calls after it */
	if (fast) {
		for (int j = 0; j < ncand; j++)
			x->mid.tasks[cand[j]] = x->work.tasks[cand[j]];
	} else {
		memcpy(x->mid.tasks, x->work.tasks, sizeof(*x->work.tasks) * (size_t)x->ntasks);
	}
	copy_counts(&x->mid, &x->work);
	s->weight = 1;
	/* the lower slot's local calls first, as one at a time by task order would take them */
	for (int j = 0; slot >= 0 && j < 2; j++) {
		bool child_first = child >= 0 && child < p;
		int t = (j == 0) == child_first ? child : p;

		if (t < 0)
			continue;
		if ((n = chain(x, t, t == p ? &kp : &kc)) < 0)
			return false;
		s->weight += n;
	}
	memcpy(s->v, vb, (size_t)x->nw * 4);
	if (slot < 0)
		s->v[0] = pc + 1;	/* a sequential file has no guards */
	for (int i = 0; i < x->ntasks; i++) {
		const struct local *l = &x->locals[vb[1 + i]];
		uint32_t id;

		if (fast && i != p && (ncand < 2 || i != cand[1]))
			continue;
		if (i == p)
			id = npg_xp_encode_task(x, &x->work, i, kp.pc, kp.failed, kp.mon, kp.pend,
						kp.calls);
		else if (i == child)
			id = npg_xp_encode_task(x, &x->work, i, kc.pc, kc.failed, kc.mon, kc.pend,
						kc.calls);
		else if (memcmp(&x->work.tasks[i], &x->base.tasks[i], sizeof(struct npg_task)) != 0)
			id = npg_xp_encode_task(x, &x->work, i, l->pc, l->failed, l->mon, l->pend,
						l->calls);
		else
			continue;
		if (id == NO_LOCAL)
			return false;
		s->v[1 + i] = id;
	}
	for (int k = 0; k < x->nuids; k++)
		s->v[1 + x->ntasks + k] = (uint32_t)x->work.counts[k].count;
	/* back to the world of vb */
	if (fast) {
		for (int j = 0; j < ncand; j++)
			x->work.tasks[cand[j]] = x->mid.tasks[cand[j]] = x->base.tasks[cand[j]];
	} else {
		memcpy(x->work.tasks, x->base.tasks, sizeof(*x->work.tasks) * (size_t)x->ntasks);
		memcpy(x->mid.tasks, x->base.tasks, sizeof(*x->work.tasks) * (size_t)x->ntasks);
	}
	copy_counts(&x->work, &x->base);
	copy_counts(&x->mid, &x->base);
	s->hash = npg_xp_rehash(x, x->hbase, vb, s->v);
	return true;
}

/* The successor a cache entry gives: the actor's and the child's words, the counts */
static void apply(struct xp *x, int slot, const struct centry *e, struct succ *s)
{
	const uint32_t *vb = x->vbase;
	uint64_t h = x->hbase;

	for (int i = 0; i < x->nw; i++)
		s->v[i] = vb[i];
	s->v[1 + slot] = e->out_local;
	h = npg_xp_rehash_word(x, h, 1 + slot, vb[1 + slot], e->out_local);
	if (e->out_child != NO_LOCAL) {
		int c = 1 + npg_xp_next(x, vb, slot)->st.op.target;

		s->v[c] = e->out_child;
		h = npg_xp_rehash_word(x, h, c, vb[c], e->out_child);
	}
	for (int k = 0, w = 1 + x->ntasks; k < x->nuids; k++, w++)
		if (e->dcount[k]) {
			s->v[w] = vb[w] + (uint32_t)e->dcount[k];
			h = npg_xp_rehash_word(x, h, w, vb[w], s->v[w]);
		}
	s->slot = slot;
	s->weight = e->weight;
	s->fired = e->fired;
	s->fp = e->fp;
	s->hash = h;
}

bool npg_xp_transition(struct xp *x, int slot, struct succ *s)
{
	/* an entry is made only for a transition that can be cached; of what
	 * makes one so, only the actor being simple depends on the other tasks */
	const struct centry *e = slot >= 0 && x->use_cache && !x->recording && !x->no_chain &&
				 x->simple[slot] ? npg_xp_cache_find(x, slot, x->vbase) : NULL;

	if (e && !x->verify) {
		apply(x, slot, e, s);
		return true;
	}
	if (!run(x, slot, s))
		return false;
	if (e) {
		struct succ c = { .v = x->vnew };

		apply(x, slot, e, &c);
		if (memcmp(c.v, s->v, (size_t)x->nw * 4) || c.weight != s->weight ||
		    c.fired != s->fired || memcmp(&c.fp, &s->fp, sizeof(c.fp)) || c.hash != s->hash)
			return internal(x, "a cached transition differs from the model's", slot);
	} else if (slot >= 0 && cacheable(x, slot)) {
		npg_xp_cache_put(x, slot, x->vbase, s);
	}
	return true;
}

bool npg_xp_initial(struct xp *x)
{
	memcpy(x->base.tasks, x->init_tasks, sizeof(*x->init_tasks) * (size_t)x->ntasks);
	memcpy(x->work.tasks, x->init_tasks, sizeof(*x->init_tasks) * (size_t)x->ntasks);
	memcpy(x->mid.tasks, x->init_tasks, sizeof(*x->init_tasks) * (size_t)x->ntasks);
	for (int k = 0; k < x->nuids; k++)
		x->base.counts[k].count = x->work.counts[k].count = x->mid.counts[k].count =
			x->init_counts[k].count;
	x->dec_valid = false;
	x->vnew[0] = 0;
	for (int i = 0; i < x->ntasks; i++) {
		struct counters k = { 0 };
		uint32_t id;

		/* the first local calls of every task, merged into the initial state */
		if (x->cp->concurrent && x->work.tasks[i].state == NPG_TASK_RUNNING && chain(x, i, &k) < 0)
			return false;
		id = npg_xp_encode_task(x, &x->work, i, k.pc, k.failed, k.mon, k.pend, k.calls);
		if (id == NO_LOCAL)
			return false;
		x->vnew[1 + i] = id;
	}
	for (int k = 0; k < x->nuids; k++)
		x->vnew[1 + x->ntasks + k] = (uint32_t)x->work.counts[k].count;
	npg_xp_decode(x, x->vnew);
	return true;
}

const struct npg_prop *npg_xp_builtin(const struct xp *x, int c)
{
	return c < x->o->nprops ? &x->o->props[c] : NULL;
}

static const struct npg_user_prop *user(const struct xp *x, int c)
{
	return c >= x->o->nprops ? &x->cp->always[c - x->o->nprops] : NULL;
}

/* Does the state in @w break check @c? */
bool npg_xp_state_broken(const struct xp *x, int c, const struct npg_world *w, char *msg,
			 size_t len)
{
	if (npg_xp_builtin(x, c))
		return npg_prop_state(npg_xp_builtin(x, c), x->cp, w, msg, len);
	return npg_user_prop_broken(x->cp, user(x, c), w, msg, len);
}

bool npg_xp_message(struct xp *x, int c, int slot, char *msg, size_t len)
{
	const struct npg_instr *in = npg_xp_next(x, x->vbase, slot);
	const struct npg_prop *p = npg_xp_builtin(x, c);

	npg_xp_decode(x, x->vbase);
	if (!call(x, in->st.task, in, &x->base, x->locals[x->vbase[1 + in->st.task]].mon))
		return false;
	if (!(p && npg_prop_step(p, &x->ctx, msg, len)))
		npg_xp_state_broken(x, c, &x->work, msg, len);
	memcpy(x->work.tasks, x->base.tasks, sizeof(*x->work.tasks) * (size_t)x->ntasks);
	copy_counts(&x->work, &x->base);
	return true;
}

void npg_xp_check_state(struct xp *x, const struct succ *s, uint64_t pre, int depth)
{
	bool any = false;

	if (!x->state_checks)
		return;
	for (int c = 0; c < x->nchecks && !any; c++)
		any = npg_xp_wanted(x, c, depth);
	if (!any)
		return;
	/* work takes the successor's world: the tasks whose locals differ */
	npg_xp_decode(x, x->vbase);
	for (int i = 0; i < x->ntasks; i++)
		if (s->v[1 + i] != x->vbase[1 + i])
			npg_xp_decode_task(x, s->v[1 + i], i, &x->work.tasks[i]);
	for (int k = 0; k < x->nuids; k++)
		x->work.counts[k].count = (int32_t)s->v[1 + x->ntasks + k];
	for (int c = 0; c < x->nchecks; c++)
		if (npg_xp_wanted(x, c, depth) &&
		    npg_xp_state_broken(x, c, &x->work, x->msg, sizeof(x->msg)))
			npg_xp_record(x, c, (uint32_t)pre, s->slot, depth, npg_xp_pending(x, s->v));
	for (int i = 0; i < x->ntasks; i++)
		if (s->v[1 + i] != x->vbase[1 + i])
			x->work.tasks[i] = x->base.tasks[i];
	copy_counts(&x->work, &x->base);
}

/* The pending local calls of state @v: a counterexample ending there drops them */
int npg_xp_pending(const struct xp *x, const uint32_t *v)
{
	int n = 0;

	for (int i = 0; i < x->ntasks; i++)
		n += (int)x->locals[v[1 + i]].pend;
	return n;
}

/*
 * Is every check's shortest counterexample known, when the states left are
 * @depth calls deep or deeper? A path of d calls ending with p pending
 * local calls gives a counterexample of d - p, and p is at most pmax.
 */
bool npg_xp_all_settled(const struct xp *x, int depth)
{
	int pmax = x->por ? x->red.pmax : 0;

	for (int c = 0; c < x->nchecks; c++)
		if (!x->viol[c].found || x->viol[c].steps - x->viol[c].pend > depth - pmax)
			return false;
	return true;
}

/* Could a violation of check @c found @depth calls deep be a shorter counterexample? */
bool npg_xp_wanted(const struct xp *x, int c, int depth)
{
	return !x->viol[c].found ||
	       x->viol[c].steps - x->viol[c].pend > depth - (x->por ? x->red.pmax : 0);
}

void npg_xp_record(struct xp *x, int c, uint32_t pre, int via, int steps, int pend)
{
	const struct violation *v = &x->viol[c];

	if (v->found && v->steps - v->pend <= steps - pend)
		return;
	x->viol[c] = (struct violation){ .found = true, .pre = pre, .via = via, .steps = steps,
					 .pend = pend };
}
