/*
 * The explorer's own header, shared by search.c (the search in order of
 * depth, sleep sets, replay), state.c (states, their table, the symmetry),
 * transition.c (one call, one transition with its merged local calls, the
 * properties after it), footprint.c (what a transition reads and writes),
 * reduce.c (which calls are local) and cache.c (transitions already
 * computed), and by no one else. doc/explore-reduction.md is the argument.
 */
#ifndef NPG_EXPLORE_EXPLORER_H
#define NPG_EXPLORE_EXPLORER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/model_step.h"
#include "explore/footprint.h"
#include "explore/reduce.h"
#include "explore/search.h"

#define SELF_LEADER (-2)	/* a task's leader is itself: kept position-free */
#define NO_PARENT UINT32_MAX
#define NO_LOCAL UINT32_MAX
#define NPG_XP_CACHE_UIDS 6	/* the transition cache serves files with at most this many users */

/*
 * One task as a state holds it, interned once: the model's record, the
 * program counter, whether the last call failed, the monitor bits, the
 * local calls since its last other one (pend), and every call it has made
 * (calls): a state's depth is the sum, the same on every path to it.
 */
struct local {
	struct npg_task task;
	uint32_t pc;
	uint32_t failed;
	uint32_t mon;
	uint32_t pend;
	uint32_t calls;
	uint32_t pad;
};

struct violation {
	bool found;
	bool initial;		/* the initial state breaks it */
	uint32_t pre;		/* the state before the last transition */
	int via;		/* the slot that acted in it (-1: the sequential program) */
	int steps;		/* calls on the path found */
	int pend;		/* its trailing local calls, dropped from the counterexample */
};

/* One successor of the state being expanded */
struct succ {
	int slot;		/* the acting slot, in the expanded state's numbering */
	int weight;		/* calls: the transition's own and the local ones merged after it */
	uint64_t fired;		/* checks whose step property its own call breaks */
	uint64_t hash;		/* of its vector: invariant under the symmetry */
	uint64_t sleep;		/* slots asleep in it */
	struct npg_fp fp;	/* what it read and wrote */
	uint32_t *v;		/* its vector */
};

/* A call made while recording (replay) */
struct call_rec {
	int slot;		/* the concrete slot (-1: the sequential program) */
	int task;		/* the acting task */
	bool local;		/* merged: a local call */
	const struct npg_stmt *st;
	struct npg_result result;
	struct npg_task after;	/* the acting task after the call */
	long counts[];		/* per cp->uids */
};

/* The transition cache (cache.c): an entry per (slot, local, counts) */
struct centry {
	uint32_t key_local;	/* the actor's local id + 1; 0: empty */
	int32_t slot;
	uint32_t key_counts[NPG_XP_CACHE_UIDS];
	uint32_t out_local, out_child;
	int32_t dcount[NPG_XP_CACHE_UIDS];
	uint64_t fired;
	struct npg_fp fp;
	int32_t weight;
	int32_t pad;
};

/* What waits at one depth (queue.c) */
#define ARRIVAL ((uint64_t)1 << 32)
struct qchunk;
struct bucket {
	struct qchunk *first, *last;
};

struct arrival {
	uint32_t parent;	/* the state it leaves */
	int16_t slot;
	int16_t left;		/* levels still to go */
	uint32_t hash;		/* the low half: all the table uses */
	uint32_t sleep[];	/* x->sw words, then the state it reaches (x->nw) */
};

struct xp {
	const struct npg_cprog *cp;
	const struct npg_explore_opts *o;
	int ntasks, nuids, nw;
	int sw, rw;			/* sleep words per state (0-2), words per stored row */
	/* interned task locals */
	struct local *locals;
	uint32_t *lhash;		/* [lcap]: each local's hash, to compare and to rehash */
	uint32_t nlocals, lcap, *ltab, lmask;
	/* stored states: rows of rw words (the vector, then its sleep set) */
	uint32_t *arena, *parent;
	int16_t *via;
	uint64_t nstates, scap;
	uint64_t *stab;		/* a slot: the hash's low half << 32 | the state's index + 1; 0 is empty */
	uint64_t smask;
	uint64_t *hkey;			/* [nw]: the key each word is hashed with */
	/* the queue: states by depth */
	struct bucket *buckets;
	int nbuckets;			/* a power of two above the heaviest transition */
	uint64_t queued;		/* entries */
	struct qchunk *qfree;		/* chunks read, for reuse */
	uint64_t qchunks;		/* chunks allocated */
	size_t arr_words;		/* of an arrival record, in 64-bit words */
	/*
	 * Worlds: base is the state being expanded, work where a call runs,
	 * mid the world before a local call of the transition's chain; out
	 * of a transition all three hold the world of vdec
	 */
	struct npg_world base, work, mid;
	struct npg_world check;		/* NPG_EXPLORE_VERIFY's scratch */
	uint32_t *vdec;			/* the vector base and work hold */
	bool dec_valid;
	struct npg_task *init_tasks;	/* the initial world, as the model backend starts it */
	struct npg_count *init_counts;
	uint32_t *vbase, *vnew;
	uint64_t hbase;			/* vbase's hash */
	int *perm;
	bool *simple;			/* [ntasks] of the state expanded (footprint.h) */
	struct succ *succ;		/* [ntasks + 1] */
	uint32_t *sbuf;			/* their vectors */
	/* symmetry classes: members by slot, ascending */
	int nclasses, *nmembers, **members;
	/* checks: the selected built-ins, then the file's always/never */
	int nchecks;
	bool state_checks;		/* any check judged on states */
	struct violation viol[NPG_EXPLORE_MAX_CHECKS];
	/* partial-order reduction (reduce.h), sleep sets */
	bool por, sleep;
	struct npg_reduce red;
	/* the transition cache */
	struct centry *cache;
	uint64_t cmask, cmiss;
	bool use_cache;
	/* NPG_EXPLORE_VERIFY: check every claim the fast paths rely on */
	bool verify;
	/* recording calls (replay); one call a transition (no merging) */
	bool recording, no_chain;
	char *rec;
	size_t rec_size, nrec, rec_cap;
	char msg[320];			/* scratch for property messages */
	/* the last call */
	struct npg_step_ctx ctx;
	const struct npg_stmt *last_st;
	char *err;
	size_t errlen;
	bool failed;
	struct npg_explore_stats *stats;
};

/* --- state.c --- */

/* The state tables' memory: zeroed mappings that grow in place */
void *npg_xp_big_alloc(size_t len);
void *npg_xp_big_grow(void *p, size_t old, size_t len);
void npg_xp_big_free(void *p, size_t len);

/* The bytes of the states, their table and the locals */
uint64_t npg_xp_state_bytes(const struct xp *x);
bool npg_xp_oom(struct xp *x);
/* Task @i of @w, with its counters and bits, as an interned local */
uint32_t npg_xp_encode_task(struct xp *x, const struct npg_world *w, int i, uint32_t pc,
			    bool failed, unsigned mon, uint32_t pend, uint32_t calls);
/* Slot @slot's next instruction from @pc on, the guards its last call makes false skipped */
uint32_t npg_xp_skip_guards(const struct xp *x, int slot, uint32_t pc, bool failed);
/* Task @i's record from its local */
void npg_xp_decode_task(const struct xp *x, uint32_t id, int i, struct npg_task *t);
/* base and work hold the world of @v (only the tasks that differ are copied) */
void npg_xp_decode(struct xp *x, const uint32_t *v);
/* Sort each class's slots by local id (not-yet-created last); perm[canonical] = concrete */
void npg_xp_canonicalize(const struct xp *x, uint32_t *v, int *perm);
/* A set of concrete slots in the canonical numbering of perm */
uint64_t npg_xp_permute_set(const struct xp *x, uint64_t set, const int *perm);
/* Each word's hash key: a symmetry class's members share theirs */
void npg_xp_hash_keys(struct xp *x);
/* The hash of @v: the same for every permutation of a symmetry class */
uint64_t npg_xp_hash(const struct xp *x, const uint32_t *v);
/* The hash @h after word @i changes from @from to @to */
uint64_t npg_xp_rehash_word(const struct xp *x, uint64_t h, int i, uint32_t from, uint32_t to);
/* The hash of @v, which differs from @base (hashed @hbase) in a few words */
uint64_t npg_xp_rehash(const struct xp *x, uint64_t hbase, const uint32_t *base, const uint32_t *v);
/* Fetch ahead the table slot @hash probes first; then the row it names */
void npg_xp_prefetch(const struct xp *x, uint64_t hash);
void npg_xp_prefetch_row(const struct xp *x, uint64_t hash);
/*
 * Index of canonical state @v, inserting it if new (*fresh) with @sleep;
 * an old one keeps the intersection of its sleep set and @sleep.
 * UINT64_MAX when out of memory.
 */
uint64_t npg_xp_lookup_insert(struct xp *x, const uint32_t *v, uint64_t hash, uint64_t sleep,
			      uint32_t parent, int via, bool *fresh);
static inline uint64_t npg_xp_sleep_of(const struct xp *x, uint64_t idx)
{
	const uint32_t *row = &x->arena[idx * x->rw];

	if (x->sw == 0)
		return 0;
	return row[x->nw] | (x->sw == 2 ? (uint64_t)row[x->nw + 1] << 32 : 0);
}
/* The depth of a state: the calls made to reach it */
int npg_xp_depth(const struct xp *x, const uint32_t *v);

bool npg_xp_enabled(const struct xp *x, const uint32_t *v, int slot);
/* The instruction slot @slot runs next in @v */
const struct npg_instr *npg_xp_next(const struct xp *x, const uint32_t *v, int slot);

/* --- transition.c --- */

/*
 * The transition of @slot from the state in vbase (decoded on demand):
 * its call, then the local calls merged after it; the successor into @s.
 */
bool npg_xp_transition(struct xp *x, int slot, struct succ *s);
/* The initial state: the initial world and every task's first local calls, into vnew */
bool npg_xp_initial(struct xp *x);
const struct npg_prop *npg_xp_builtin(const struct xp *x, int c);
/* Does the state in @w break check @c? */
bool npg_xp_state_broken(const struct xp *x, int c, const struct npg_world *w, char *msg,
			 size_t len);
/*
 * Replay: the message of check @c's violation by @slot's next call from
 * vbase (its step property, else the state after it)
 */
bool npg_xp_message(struct xp *x, int c, int slot, char *msg, size_t len);
/* Check the state of successor @s (fresh) against the state checks */
void npg_xp_check_state(struct xp *x, const struct succ *s, uint64_t pre, int depth);
/* The pending local calls of state @v: a counterexample ending there drops them */
int npg_xp_pending(const struct xp *x, const uint32_t *v);
bool npg_xp_all_settled(const struct xp *x, int depth);
/* Could a violation of check @c found @depth steps deep be a shorter counterexample? */
bool npg_xp_wanted(const struct xp *x, int c, int depth);
void npg_xp_record(struct xp *x, int c, uint32_t pre, int via, int steps, int pend);

/* --- queue.c --- */

bool npg_xp_queue_init(struct xp *x, int max_weight);
void npg_xp_queue_free(struct xp *x);
uint64_t npg_xp_queue_bytes(const struct xp *x);
bool npg_xp_queue_state(struct xp *x, uint64_t idx, int depth);
/* An arrival record to fill, at @depth; NULL when out of memory */
struct arrival *npg_xp_queue_arrival(struct xp *x, int depth);
bool npg_xp_queue_pop(struct xp *x, int depth, uint64_t *idx, const struct arrival **a);

/* --- cache.c --- */

bool npg_xp_cache_init(struct xp *x);
void npg_xp_cache_grow(struct xp *x);
const struct centry *npg_xp_cache_find(const struct xp *x, int slot, const uint32_t *v);
void npg_xp_cache_put(struct xp *x, int slot, const uint32_t *v, const struct succ *s);
uint64_t npg_xp_cache_bytes(const struct xp *x);

#endif
