/*
 * Partial-order reduction for the explorer's search: which calls are
 * *local* -- they read and write only their own task's record, in fields
 * no other task's call and no checked property reads -- so that the search
 * makes them at once, merged into the transition before them with no state
 * stored between (an ample set of one call, as SPIN merges a process's
 * local statements). Whether a call is local is decided from its operation
 * before it runs (npg_reduce_local_op()) and from what it did after
 * (npg_reduce_local_after()): setuid(0) refused with EPERM is local, the
 * same call that succeeds is not. The argument that this keeps every
 * verdict and every shortest counterexample, condition by condition, is
 * doc/explore-reduction.md.
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
	int pmax;		/* the most local calls that can be pending in one state */
	int maxrun;		/* the most local calls one task can make in a row */
};

/* 0, or -1 when out of memory */
int npg_reduce_init(struct npg_reduce *r, const struct npg_cprog *cp,
		    const struct npg_prop *props, int nprops);
void npg_reduce_free(struct npg_reduce *r);
/* Before the call: can task @actor's @op on @w be local? */
bool npg_reduce_local_op(const struct npg_reduce *r, const struct npg_world *w, int actor,
			 const struct npg_op *op);
/*
 * After it: did it stay local -- no count read or moved, nothing changed
 * in the actor but its groups, capabilities, securebits, no_new_privs,
 * dumpability and (when no property reads limits) its RLIMIT_NPROC?
 */
bool npg_reduce_local_after(const struct npg_reduce *r, const struct npg_world *pre,
			    const struct npg_world *post, int actor, const struct npg_op *op,
			    struct npg_result res);

#endif
