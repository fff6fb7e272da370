/*
 * What a transition of the explorer reads and writes: which tasks' records
 * (by slot), whether it reads the users' counts, which counts it moves.
 * Two transitions whose footprints do not conflict commute: each reads
 * nothing the other writes, so either order gives the same results, the
 * same state and the same property verdicts (doc/explore-reduction.md).
 * The sleep sets of search.c are built on that.
 *
 * A footprint is known before the call from its operation and the state
 * (npg_fp_static(): what the model's code for that operation can touch),
 * and after it more precisely from what the call did (npg_fp_after()).
 * Slots from 64 up are not named one by one: a transition touching one of
 * them conflicts with every other.
 */
#ifndef NPG_EXPLORE_FOOTPRINT_H
#define NPG_EXPLORE_FOOTPRINT_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"
#include "scenario/scenario.h"

struct npg_fp {
	uint64_t rd, wr;	/* task records read, written (by slot) */
	uint64_t cadd;		/* counts moved (by uid index) */
	bool all;		/* may touch anything: conflicts with every transition */
	bool cread;		/* reads counts (any) */
	bool cadd_all;		/* may move any count */
};

/* How far an operation's effects reach, by the model's code for it */
enum npg_fp_class {
	NPG_FP_ANY,		/* another task, a namespace, glibc's broadcast: anything */
	NPG_FP_OWN,		/* the caller's record alone, when it has no threads */
	NPG_FP_SETUID,		/* the caller's record; reads counts, may move its charge */
	NPG_FP_EXECVE,		/* the caller's record; reads counts (the policy's test) */
	NPG_FP_FORK,		/* the caller's and the child's records; reads and moves counts */
	NPG_FP_EXIT,		/* the caller's record, its parent's state; moves counts */
};

enum npg_fp_class npg_fp_class_of(const struct npg_op *op, int actor);

/*
 * simple[i]: task i (of @t, n tasks; a leader of -2 is the task itself)
 * leads its own process, has no thread and no child (no other created
 * task names it as leader or parent). Such a task's calls of the classes
 * above touch its own record, a new child's and the counts, nothing else
 * (doc/explore-reduction.md, "What a call touches").
 */
void npg_fp_simple(const struct npg_task *const *t, int n, bool *simple);

/* Before the call: what @op of task @actor (its record @at, simple or not) may touch */
void npg_fp_static(const struct npg_task *at, bool simple, int actor, const struct npg_op *op,
		   struct npg_fp *f);
/*
 * After it, with @pre and @post the worlds around it: the counts that
 * moved, the tasks that changed among @cand (the others being unchanged
 * by the model's code), and the count reads a refused set*uid never made.
 */
void npg_fp_after(struct npg_fp *f, const struct npg_world *pre, const struct npg_world *post,
		  const struct npg_op *op, struct npg_result res, const int *cand, int ncand);
void npg_fp_add_task(struct npg_fp *f, int slot);
bool npg_fp_independent(const struct npg_fp *a, const struct npg_fp *b);

#endif
