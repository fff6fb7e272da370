/*
 * The transition cache: a transition of a task that leads its own process
 * with no thread and no child, by an operation of the footprint classes
 * that reach only the caller, a new child and the counts (and an exit to
 * the harness, which reads no parent), is a function of the caller's
 * local and the counts alone -- the model reads nothing else of the world
 * for it (footprint.c), the local calls merged after it read only the
 * caller's and the child's records, and the properties judged on it read
 * the same. So its outcome (the caller's and the child's new locals, the
 * counts moved, the checks broken, the footprint, the calls made) is kept
 * under (slot, local, counts) and the next transition alike is not run.
 * The table is direct-mapped: a collision replaces the entry.
 * NPG_EXPLORE_VERIFY runs every transition the cache answers and compares.
 */
#include <stdlib.h>
#include <string.h>

#include "explore/explorer.h"

#define CACHE_MIN 1024
#define CACHE_MAX ((uint64_t)1 << 18)

bool npg_xp_cache_init(struct xp *x)
{
	x->use_cache = x->cp->concurrent && x->nuids <= NPG_XP_CACHE_UIDS;
	if (!x->use_cache)
		return true;
	x->cmask = CACHE_MIN - 1;
	x->cache = calloc(CACHE_MIN, sizeof(*x->cache));
	if (!x->cache)
		return npg_xp_oom(x);
	return true;
}

/*
 * A larger table once as many transitions missed as it has entries (the
 * entries are dropped): a search has few distinct (local, counts) pairs --
 * a few thousand for bench/explore-vs-spin's 196,608 states
 */
void npg_xp_cache_grow(struct xp *x)
{
	uint64_t n = x->cmask + 1;
	struct centry *c;

	/* and never above a 16th of the states: the tables stay states' */
	if (!x->use_cache || n >= CACHE_MAX || x->cmiss < n || x->nstates < n * 16)
		return;
	x->cmiss = 0;
	c = calloc(n * 4, sizeof(*c));
	if (!c)
		return;		/* the old one serves */
	free(x->cache);
	x->cache = c;
	x->cmask = n * 4 - 1;
}

uint64_t npg_xp_cache_bytes(const struct xp *x)
{
	return x->cache ? (x->cmask + 1) * sizeof(*x->cache) : 0;
}

static uint64_t key_hash(const struct xp *x, int slot, const uint32_t *v)
{
	uint64_t h = (uint64_t)v[1 + slot] * 0x9e3779b97f4a7c15ULL ^ (uint64_t)slot;

	for (int k = 0; k < x->nuids; k++)
		h = (h ^ v[1 + x->ntasks + k]) * 0xff51afd7ed558ccdULL;
	return h ^ h >> 29;
}

static bool same_key(const struct xp *x, const struct centry *e, int slot, const uint32_t *v)
{
	if (e->key_local != v[1 + slot] + 1 || e->slot != slot)
		return false;
	for (int k = 0; k < x->nuids; k++)
		if (e->key_counts[k] != v[1 + x->ntasks + k])
			return false;
	return true;
}

const struct centry *npg_xp_cache_find(const struct xp *x, int slot, const uint32_t *v)
{
	const struct centry *e = &x->cache[key_hash(x, slot, v) & x->cmask];

	return same_key(x, e, slot, v) ? e : NULL;
}

void npg_xp_cache_put(struct xp *x, int slot, const uint32_t *v, const struct succ *s)
{
	struct centry *e = &x->cache[key_hash(x, slot, v) & x->cmask];
	const struct npg_op *op = &npg_xp_next(x, v, slot)->st.op;

	x->cmiss++;
	memset(e, 0, sizeof(*e));
	e->key_local = v[1 + slot] + 1;
	e->slot = slot;
	for (int k = 0; k < x->nuids; k++) {
		e->key_counts[k] = v[1 + x->ntasks + k];
		e->dcount[k] = (int32_t)(s->v[1 + x->ntasks + k] - v[1 + x->ntasks + k]);
	}
	e->out_local = s->v[1 + slot];
	e->out_child = (op->code == NPG_OP_FORK || op->code == NPG_OP_THREAD) && op->target != slot ?
		       s->v[1 + op->target] : NO_LOCAL;
	e->fired = s->fired;
	e->fp = s->fp;
	e->weight = s->weight;
}
