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
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/model_step.h"
#include "explore/reduce.h"
#include "explore/search.h"

#define SELF_LEADER (-2)	/* a task's leader is itself: kept position-free */
#define NO_PARENT UINT32_MAX

struct local {
	struct npg_task task;
	uint32_t pc;
	uint32_t failed;
	uint32_t mon;
	uint32_t pend;	/* partial-order reduction: private steps since its last other one */
};

struct violation {
	bool found;
	bool initial;		/* the initial state breaks it */
	uint32_t pre;		/* the state before the last step */
	int via;		/* the slot that acted in it (-1: the sequential program) */
	int steps;		/* of the path found */
	int pend;		/* its trailing private steps, dropped from the counterexample */
};

struct xp {
	const struct npg_cprog *cp;
	const struct npg_explore_opts *o;
	int ntasks, nuids, nw;
	/* interned task locals */
	struct local *locals;
	uint32_t *lhash;		/* [lcap]: each local's hash, to compare and to rehash */
	uint32_t nlocals, lcap, *ltab, lmask;
	/* stored states, in breadth-first order: the queue itself */
	uint32_t *arena, *parent;

	int16_t *via;
	uint64_t nstates, scap;
	uint64_t *stab;		/* a slot: the state's hash << 32 | its index + 1; 0 is empty */
	uint64_t smask;
	/* scratch */
	struct npg_world base, work;
	struct npg_task *init_tasks;	/* the initial world, as the model backend starts it */
	struct npg_count *init_counts;
	uint32_t *vbase, *vnew;
	int *perm;
	/* symmetry classes: members by slot, ascending */
	int nclasses, *nmembers, **members;
	/* checks: the selected built-ins, then the file's always/never */
	int nchecks;
	struct violation viol[NPG_EXPLORE_MAX_CHECKS];
	/* partial-order reduction (reduce.h) */
	bool por;
	struct npg_reduce red;
	bool last_private;	/* the last step was a private one */
	char msg[320];		/* scratch for property messages */
	/* the last step */
	struct npg_step_ctx ctx;
	const struct npg_stmt *last_st;
	int child;
	char *err;
	size_t errlen;
	bool failed;
	struct npg_explore_stats *stats;
};

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/*
 * Word-at-a-time hashing (a multiply and a rotate a word, one final mix):
 * a state is a dozen words and a local a few hundred bytes, hashed on every
 * transition, so a byte-at-a-time hash was half the search's time.
 */
static uint32_t hash_words(const uint32_t *w, int n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)n;

	for (int i = 0; i < n; i++) {
		h = (h ^ w[i]) * 0xff51afd7ed558ccdULL;
		h = (h << 29) | (h >> 35);
	}
	return (uint32_t)(mix(h) >> 32);
}

/* a local is zeroed before it is filled, so its padding hashes alike */
static uint32_t hash_local(const struct local *l)
{
	_Static_assert(sizeof(struct local) % 8 == 0, "a local is whole 64-bit words");
	const unsigned char *b = (const unsigned char *)l;
	uint64_t h[4] = { 0xcbf29ce484222325ULL, 0x9e3779b97f4a7c15ULL, 1, 2 };
	size_t i = 0;

	/* four independent lanes: the multiplies overlap instead of queueing */
	for (; i + 32 <= sizeof(*l); i += 32)
		for (int k = 0; k < 4; k++) {
			uint64_t w;

			memcpy(&w, b + i + 8 * k, 8);
			h[k] = (h[k] ^ w) * 0xff51afd7ed558ccdULL;
			h[k] = (h[k] << 29) | (h[k] >> 35);
		}
	for (; i < sizeof(*l); i += 8) {
		uint64_t w;

		memcpy(&w, b + i, 8);
		h[0] = (h[0] ^ w) * 0xff51afd7ed558ccdULL;
		h[0] = (h[0] << 29) | (h[0] >> 35);
	}
	return (uint32_t)(mix(h[0] ^ mix(h[1]) ^ (h[2] * 31) ^ (h[3] << 17)) >> 32);
}

static uint64_t table_bytes(const struct xp *x)
{
	return x->scap * ((uint64_t)x->nw * 4 + 4 + 2) + (x->smask + 1) * 8 +
	       (uint64_t)x->lcap * (sizeof(struct local) + 4) + ((uint64_t)x->lmask + 1) * 4;
}

static bool oom(struct xp *x)
{
	snprintf(x->err, x->errlen, "out of memory");
	x->failed = true;
	return false;
}

/* The local's id, interning it if new; UINT32_MAX when out of memory */
static uint32_t intern(struct xp *x, const struct local *l)
{
	uint32_t h = hash_local(l), i = h & x->lmask;

	while (x->ltab[i]) {
		uint32_t id = x->ltab[i] - 1;

		if (x->lhash[id] == h && memcmp(&x->locals[id], l, sizeof(*l)) == 0)
			return id;
		i = (i + 1) & x->lmask;
	}
	if (x->nlocals == x->lcap) {
		struct local *grown = realloc(x->locals, sizeof(*grown) * x->lcap * 2);
		uint32_t *gh;

		if (!grown)
			return oom(x), UINT32_MAX;
		x->locals = grown;
		gh = realloc(x->lhash, sizeof(*gh) * x->lcap * 2);
		if (!gh)
			return oom(x), UINT32_MAX;
		x->lhash = gh;
		x->lcap *= 2;
	}
	x->locals[x->nlocals] = *l;
	x->lhash[x->nlocals] = h;
	x->ltab[i] = ++x->nlocals;
	if ((uint64_t)x->nlocals * 2 > x->lmask) {
		uint32_t nmask = x->lmask * 2 + 1, *nt = calloc((size_t)nmask + 1, sizeof(*nt));

		if (!nt)
			return oom(x), UINT32_MAX;
		for (uint32_t k = 0; k < x->nlocals; k++) {
			uint32_t j = x->lhash[k] & nmask;

			while (nt[j])
				j = (j + 1) & nmask;
			nt[j] = k + 1;
		}
		free(x->ltab);
		x->ltab = nt;
		x->lmask = nmask;
	}
	return x->nlocals - 1;
}

static const struct npg_prog *prog_of(const struct xp *x, int slot)
{
	return slot < 0 ? &x->cp->seq : &x->cp->progs[slot];
}

static bool guard_false(const struct npg_instr *in, bool failed)
{
	return (in->guard == NPG_GUARD_FAILED && !failed) ||
	       (in->guard == NPG_GUARD_SUCCEEDED && failed);
}

/* Task @i of @w, with its program counter and bits, as an interned local */
static uint32_t encode_task(struct xp *x, const struct npg_world *w, int i, uint32_t pc,
			    bool failed, unsigned mon, uint32_t pend)
{
	struct local l;

	memset(&l, 0, sizeof(l));
	if (w->tasks[i].state == NPG_TASK_ABSENT) {
		/* a task never created: nothing of it is read (npg_sys_fork() copies
		 * the parent over it), so all absent tasks look the same */
		l.task.state = NPG_TASK_ABSENT;
		l.task.parent = NPG_HARNESS;
		l.task.leader = SELF_LEADER;
		return intern(x, &l);
	}
	l.task = w->tasks[i];
	if (l.task.leader == i)
		l.task.leader = SELF_LEADER;
	if (l.task.state == NPG_TASK_RUNNING && x->cp->concurrent) {
		const struct npg_prog *pg = prog_of(x, i);

		while (pc < (uint32_t)pg->ninstr && guard_false(&pg->instr[pc], failed))
			pc++;
		l.pc = pc;
		l.failed = failed;
		l.mon = mon;
		l.pend = pend;
	} else if (l.task.state == NPG_TASK_RUNNING) {
		l.mon = mon;	/* a sequential file's tasks have no counter of their own */
	}
	return intern(x, &l);
}

static void decode(const struct xp *x, const uint32_t *v, struct npg_world *w)
{
	for (int i = 0; i < x->ntasks; i++) {
		w->tasks[i] = x->locals[v[1 + i]].task;
		if (w->tasks[i].leader == SELF_LEADER)
			w->tasks[i].leader = i;
	}
	for (int k = 0; k < x->nuids; k++)
		w->counts[k].count = (int32_t)v[1 + x->ntasks + k];
}

/* Sort each class's slots by local id (not-yet-created last); perm[canonical] = concrete */
static void canonicalize(const struct xp *x, uint32_t *v, int *perm)
{
	for (int i = 0; i < x->ntasks; i++)
		perm[i] = i;
	if (!x->o->symmetry)
		return;
	for (int c = 0; c < x->nclasses; c++) {
		int n = x->nmembers[c], *m = x->members[c];
		uint32_t key[NPG_MAX_REPEAT * 4], id[NPG_MAX_REPEAT * 4];
		int from[NPG_MAX_REPEAT * 4];

		for (int j = 0; j < n; j++) {
			id[j] = v[1 + m[j]];
			key[j] = x->locals[id[j]].task.state == NPG_TASK_ABSENT ? UINT32_MAX : id[j];
			from[j] = m[j];
		}
		for (int j = 1; j < n; j++) {
			uint32_t k = key[j], d = id[j];
			int f = from[j], q = j - 1;

			for (; q >= 0 && key[q] > k; q--) {
				key[q + 1] = key[q];
				id[q + 1] = id[q];
				from[q + 1] = from[q];
			}
			key[q + 1] = k;
			id[q + 1] = d;
			from[q + 1] = f;
		}
		for (int j = 0; j < n; j++) {
			v[1 + m[j]] = id[j];
			perm[m[j]] = from[j];
		}
	}
}

static bool enabled(const struct xp *x, const uint32_t *v, int slot)
{
	const struct local *l;

	if (slot < 0)
		return v[0] < (uint32_t)x->cp->seq.ninstr;
	l = &x->locals[v[1 + slot]];
	return l->task.state == NPG_TASK_RUNNING && l->pc < (uint32_t)x->cp->progs[slot].ninstr;
}

/*
 * Slot @slot (or the sequential program, -1) takes its next step from
 * vbase/base: the successor goes to vnew (not canonical), the world after
 * it to work, the step to ctx. false if out of memory or a uid escaped.
 */
static bool step(struct xp *x, int slot)
{
	const struct local *al;
	const struct npg_instr *in;
	unsigned amon, cmon;
	uint32_t pc, apend;
	bool failed;
	int actor;

	memcpy(x->work.tasks, x->base.tasks, sizeof(*x->work.tasks) * (size_t)x->ntasks);
	memcpy(x->work.counts, x->base.counts, sizeof(*x->work.counts) * (size_t)x->nuids);
	if (slot < 0) {
		pc = x->vbase[0];
		in = &x->cp->seq.instr[pc];
	} else {
		pc = x->locals[x->vbase[1 + slot]].pc;
		in = &x->cp->progs[slot].instr[pc];
	}
	actor = in->st.task;
	al = &x->locals[x->vbase[1 + actor]];
	apend = al->pend;	/* interning below may move the locals */
	x->ctx = (struct npg_step_ctx){ .cp = x->cp, .pre = &x->base, .post = &x->work,
					.actor = actor, .op = &in->st.op, .mon = al->mon };
	x->last_st = &in->st;
	x->last_private = x->por && npg_reduce_private_pre(&x->red, &x->base, actor, &in->st.op);
	x->ctx.result = npg_model_step(&x->work, &in->st);
	x->last_private = x->last_private &&
		npg_reduce_private_post(&x->red, &x->base, &x->work, actor, &in->st.op, x->ctx.result);
	/* a step a property judges is visible (no-root-after-failed-drop judges
	 * every call of a task whose drop failed while its euid is 0) */
	for (int c = 0; x->last_private && c < x->o->nprops; c++)
		x->last_private = !npg_prop_step(&x->o->props[c], &x->ctx, x->msg, sizeof(x->msg));
	if (x->work.ncounts != x->nuids) {
		snprintf(x->err, x->errlen, "internal error: a count for a uid the state does not hold");
		x->failed = true;
		return false;
	}
	failed = x->ctx.result.kind == NPG_R_ERRNO || x->ctx.result.kind == NPG_R_KILLED;
	npg_monitor_step(&x->ctx, &amon, &cmon);
	x->child = -1;
	if ((in->st.op.code == NPG_OP_FORK || in->st.op.code == NPG_OP_THREAD) &&
	    x->ctx.result.kind == NPG_R_OK)
		x->child = in->st.op.target;
	x->vnew[0] = slot < 0 ? pc + 1 : x->vbase[0];	/* a sequential file has no guards */
	for (int i = 0; i < x->ntasks; i++) {
		const struct local *l = &x->locals[x->vbase[1 + i]];
		uint32_t id;

		if (i == actor)
			id = encode_task(x, &x->work, i, slot < 0 ? 0 : pc + 1, slot < 0 ? false : failed,
					 amon, x->last_private ? apend + 1 : 0);
		else if (i == x->child)
			id = encode_task(x, &x->work, i, 0, false, cmon, 0);
		else if (memcmp(&x->work.tasks[i], &x->base.tasks[i], sizeof(struct npg_task)) != 0)
			id = encode_task(x, &x->work, i, l->pc, l->failed, l->mon, l->pend);
		else
			id = x->vbase[1 + i];
		if (id == UINT32_MAX)
			return false;
		x->vnew[1 + i] = id;
	}
	for (int k = 0; k < x->nuids; k++)
		x->vnew[1 + x->ntasks + k] = (uint32_t)x->work.counts[k].count;
	return true;
}

static bool same_words(const uint32_t *a, const uint32_t *b, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* Index of state @v, inserting it if new (*fresh); UINT64_MAX when out of memory */
static uint64_t lookup_insert(struct xp *x, const uint32_t *v, uint32_t parent, int via, bool *fresh)
{
	uint32_t h = hash_words(v, x->nw);
	uint64_t i = h & x->smask;

	*fresh = false;
	while (x->stab[i]) {
		uint64_t k = (x->stab[i] & UINT32_MAX) - 1;

		if ((x->stab[i] >> 32) == h && same_words(&x->arena[k * x->nw], v, x->nw))
			return k;
		i = (i + 1) & x->smask;
	}
	if (x->nstates == x->scap) {
		uint64_t ncap = x->scap * 2;
		uint32_t *a = realloc(x->arena, ncap * (size_t)x->nw * 4);
		uint32_t *p;
		int16_t *vi;

		if (!a)
			return oom(x), UINT64_MAX;
		x->arena = a;
		p = realloc(x->parent, ncap * sizeof(*p));
		if (!p)
			return oom(x), UINT64_MAX;
		x->parent = p;
		vi = realloc(x->via, ncap * sizeof(*vi));
		if (!vi)
			return oom(x), UINT64_MAX;
		x->via = vi;
		x->scap = ncap;
	}
	memcpy(&x->arena[x->nstates * (uint64_t)x->nw], v, (size_t)x->nw * 4);
	x->parent[x->nstates] = parent;
	x->via[x->nstates] = (int16_t)via;
	x->stab[i] = (uint64_t)h << 32 | (uint32_t)++x->nstates;
	*fresh = true;
	if (x->nstates * 2 > x->smask) {
		uint64_t nmask = x->smask * 2 + 1;
		uint64_t *nt = calloc(nmask + 1, sizeof(*nt));

		if (!nt)
			return oom(x), UINT64_MAX;
		for (uint64_t k = 0; k <= x->smask; k++) {
			uint64_t j;

			if (!x->stab[k])
				continue;
			for (j = (x->stab[k] >> 32) & nmask; nt[j]; j = (j + 1) & nmask)
				;
			nt[j] = x->stab[k];
		}
		free(x->stab);
		x->stab = nt;
		x->smask = nmask;
	}
	return x->nstates - 1;
}

static const struct npg_prop *builtin(const struct xp *x, int c)
{
	return c < x->o->nprops ? &x->o->props[c] : NULL;
}

static const struct npg_user_prop *user(const struct xp *x, int c)
{
	return c >= x->o->nprops ? &x->cp->always[c - x->o->nprops] : NULL;
}

/* Does the state in @w break check @c? */
static bool state_broken(const struct xp *x, int c, const struct npg_world *w, char *msg,
			 size_t len)
{
	if (builtin(x, c))
		return npg_prop_state(builtin(x, c), x->cp, w, msg, len);
	return npg_user_prop_broken(x->cp, user(x, c), w, msg, len);
}

/* The pending private steps of state @v: a counterexample ending there drops them */
static int pending(const struct xp *x, const uint32_t *v)
{
	int n = 0;

	for (int i = 0; i < x->ntasks; i++)
		n += (int)x->locals[v[1 + i]].pend;
	return n;
}

/*
 * Is every check's shortest counterexample known, when the states left are
 * @depth steps deep or deeper? A path of d steps ending with p pending
 * private steps gives a counterexample of d - p, and p is at most pmax.
 */
static bool all_settled(const struct xp *x, int depth)
{
	int pmax = x->por ? x->red.pmax : 0;

	for (int c = 0; c < x->nchecks; c++)
		if (!x->viol[c].found || x->viol[c].steps - x->viol[c].pend > depth - pmax)
			return false;
	return true;
}

/* Could a violation of check @c found @depth steps deep be a shorter counterexample? */
static bool wanted(const struct xp *x, int c, int depth)
{
	return !x->viol[c].found ||
	       x->viol[c].steps - x->viol[c].pend > depth - (x->por ? x->red.pmax : 0);
}

static void record(struct xp *x, int c, uint32_t pre, int via, int steps, int pend)
{
	const struct violation *v = &x->viol[c];

	if (v->found && v->steps - v->pend <= steps - pend)
		return;
	x->viol[c] = (struct violation){ .found = true, .pre = pre, .via = via, .steps = steps,
					 .pend = pend };
}

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
		return oom(x);
	for (int i = 0; i < 2; i++) {
		struct npg_world *w = i ? &x->work : &x->base;

		if (npg_world_init(w, policy, x->ntasks) < 0)
			return oom(x);
		w->counts = calloc((size_t)x->nuids, sizeof(*w->counts));
		if (!w->counts)
			return oom(x);
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
	x->base.rules.setresuid_noop_fastpath = x->work.rules.setresuid_noop_fastpath = w0->rules.setresuid_noop_fastpath;
	/* the machine's, as the scenario declares it (yama ptrace_scope) */
	x->base.yama_scope = x->work.yama_scope = w0->yama_scope;
	x->base.suid_dumpable = x->work.suid_dumpable = w0->suid_dumpable;
	for (int k = 0; k < x->nuids; k++)
		x->base.counts[k].count = npg_count_of(w0, x->cp->uids[k]);
	b.ops->stop(&b);
	x->init_tasks = malloc(sizeof(*x->init_tasks) * (size_t)(x->ntasks + 1));
	x->init_counts = malloc(sizeof(*x->init_counts) * (size_t)(x->nuids + 1));
	if (!x->init_tasks || !x->init_counts)
		return oom(x);
	memcpy(x->init_tasks, x->base.tasks, sizeof(*x->init_tasks) * (size_t)x->ntasks);
	memcpy(x->init_counts, x->base.counts, sizeof(*x->init_counts) * (size_t)x->nuids);
	x->por = x->o->por && x->cp->concurrent;
	if (x->por && npg_reduce_init(&x->red, x->cp, x->o->props, x->o->nprops) < 0)
		return oom(x);
	/* classes */
	x->nmembers = calloc((size_t)x->ntasks + 1, sizeof(int));
	x->members = calloc((size_t)x->ntasks + 1, sizeof(int *));
	if (!x->nmembers || !x->members)
		return oom(x);
	for (int t = 0; t < x->ntasks; t++) {
		int c = x->cp->klass[t];

		if (c < 0)
			continue;
		if (c >= x->nclasses)
			x->nclasses = c + 1;
		if (!x->members[c] && !(x->members[c] = calloc((size_t)x->ntasks, sizeof(int))))
			return oom(x);
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
		uint32_t id = encode_task(x, &x->base, i, 0, false, 0, 0);

		if (id == UINT32_MAX)
			return false;
		x->vnew[1 + i] = id;
	}
	for (int k = 0; k < x->nuids; k++)
		x->vnew[1 + x->ntasks + k] = (uint32_t)x->base.counts[k].count;
	decode(x, x->vnew, &x->work);
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
		if (wanted(x, c, depth + 1) && builtin(x, c) &&
		    npg_prop_step(builtin(x, c), &x->ctx, msg, sizeof(msg)))
			record(x, c, (uint32_t)i, slot, depth + 1, pending(x, x->vnew));
	canonicalize(x, x->vnew, x->perm);
	idx = lookup_insert(x, x->vnew, (uint32_t)i, slot, &fresh);
	if (idx == UINT64_MAX)
		return false;
	if (!fresh) {
		s->matched++;
		return true;
	}
	for (int c = 0; c < x->nchecks; c++)
		if (wanted(x, c, depth + 1) && state_broken(x, c, &x->work, msg, sizeof(msg)))
			record(x, c, (uint32_t)i, slot, depth + 1, pending(x, x->vnew));
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
		if (!enabled(x, x->vbase, slot))
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

		if (!enabled(x, x->vbase, slot))
			continue;
		in = &x->cp->progs[slot].instr[x->locals[x->vbase[1 + slot]].pc];
		if (!npg_reduce_private_pre(&x->red, &x->base, in->st.task, &in->st.op))
			continue;
		if (!step(x, slot))
			return false;
		if (x->last_private)
			return take(x, i, slot, depth);
	}
	for (int slot = first; slot < end; slot++) {
		if (!enabled(x, x->vbase, slot))
			continue;
		if (!step(x, slot) || !take(x, i, slot, depth))
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
		if (state_broken(x, c, &x->work, msg, sizeof(msg))) {
			record(x, c, NO_PARENT, -1, 0, 0);
			x->viol[c].initial = true;
		}
	memcpy(x->vbase, x->vnew, (size_t)x->nw * 4);
	canonicalize(x, x->vnew, x->perm);
	if (lookup_insert(x, x->vnew, NO_PARENT, -1, &fresh) == UINT64_MAX)
		return false;
	for (uint64_t i = 0; i < x->nstates; i++) {
		if (i == level_end) {
			depth++;
			level_end = x->nstates;
		}
		if (all_settled(x, depth + 1))
			break;
		if ((i & 1023) == 0) {
			progress(x, t0, &last, depth, false);
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
		memcpy(x->vbase, &x->arena[i * x->nw], (size_t)x->nw * 4);
		decode(x, x->vbase, &x->base);
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
		state_broken(x, c, &x->base, tr->message, sizeof(tr->message));
	for (int i = 0; i < n; i++) {
		uint32_t canon[x->nw];
		int slot = slots[i];

		memcpy(x->vbase, x->vnew, (size_t)x->nw * 4);
		decode(x, x->vbase, &x->base);
		if (canonical) {
			memcpy(canon, x->vbase, sizeof(canon));
			canonicalize(x, canon, x->perm);
			if (slot >= 0)
				slot = x->perm[slot];
		}
		if (!step(x, slot))
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
			return oom(x);
		for (int u = 0; u < x->nuids; u++)
			ts->counts[u] = x->work.counts[u].count;
		tr->n = i + 1;
		if (i == n - 1) {
			const struct npg_prop *p = builtin(x, c);

			if (!(p && npg_prop_step(p, &x->ctx, tr->message, sizeof(tr->message))))
				state_broken(x, c, &x->work, tr->message, sizeof(tr->message));
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
		oom(x);
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
		oom(x);
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
