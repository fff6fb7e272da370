/*
 * Partial-order reduction for the explorer's search (search.c): which steps
 * are "private" -- invisible to every checked property and independent of
 * every other task's step -- so that a state whose enabled steps include one
 * needs only that one expanded (an ample set of size one). The argument
 * that this keeps every verdict and every shortest counterexample is in
 * doc/scenario-language.md ("Partial-order reduction").
 */
#ifndef NPG_EXPLORE_REDUCE_H
#define NPG_EXPLORE_REDUCE_H

#include <stdbool.h>

#include "explore/program.h"
#include "explore/property.h"
#include "model/model.h"

struct npg_reduce {
	bool limits_visible;	/* limit-holds or an always/never reads "limit" */
	bool *named;		/* [ntasks]: another task's program names it (kill, wait, prlimit) */
	int pmax;		/* the most private steps that can be pending in one state */
};

/* 0, or -1 when out of memory */
int npg_reduce_init(struct npg_reduce *r, const struct npg_cprog *cp,
		    const struct npg_prop *props, int nprops);
void npg_reduce_free(struct npg_reduce *r);
/* Before the step: can task @actor's @op on @w be private? */
bool npg_reduce_private_pre(const struct npg_reduce *r, const struct npg_world *w, int actor,
			    const struct npg_op *op);
/* After it: did it change the actor's own group, capability or limit fields only? */
bool npg_reduce_private_post(const struct npg_reduce *r, const struct npg_world *pre,
			     const struct npg_world *post, int actor, const struct npg_op *op,
			     struct npg_result res);

#endif
