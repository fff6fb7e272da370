/*
 * The explorer's own header, shared by search.c (the breadth-first search),
 * state.c (states, their table, the symmetry) and transition.c (one step
 * and the properties after it), and by no one else.
 */
#ifndef NPG_EXPLORE_EXPLORER_H
#define NPG_EXPLORE_EXPLORER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* --- state.c --- */

uint64_t npg_xp_table_bytes(const struct xp *x);
bool npg_xp_oom(struct xp *x);
/* Task @i of @w, with its program counter and bits, as an interned local */
uint32_t npg_xp_encode_task(struct xp *x, const struct npg_world *w, int i, uint32_t pc,
			    bool failed, unsigned mon, uint32_t pend);
void npg_xp_decode(const struct xp *x, const uint32_t *v, struct npg_world *w);
/* Sort each class's slots by local id (not-yet-created last); perm[canonical] = concrete */
void npg_xp_canonicalize(const struct xp *x, uint32_t *v, int *perm);
/* Index of state @v, inserting it if new (*fresh); UINT64_MAX when out of memory */
uint64_t npg_xp_lookup_insert(struct xp *x, const uint32_t *v, uint32_t parent, int via, bool *fresh);

/* --- transition.c --- */

bool npg_xp_enabled(const struct xp *x, const uint32_t *v, int slot);
bool npg_xp_step(struct xp *x, int slot);
const struct npg_prop *npg_xp_builtin(const struct xp *x, int c);
/* Does the state in @w break check @c? */
bool npg_xp_state_broken(const struct xp *x, int c, const struct npg_world *w, char *msg,
			 size_t len);
/* The pending private steps of state @v: a counterexample ending there drops them */
int npg_xp_pending(const struct xp *x, const uint32_t *v);
bool npg_xp_all_settled(const struct xp *x, int depth);
/* Could a violation of check @c found @depth steps deep be a shorter counterexample? */
bool npg_xp_wanted(const struct xp *x, int c, int depth);
void npg_xp_record(struct xp *x, int c, uint32_t pre, int via, int steps, int pend);

#endif
