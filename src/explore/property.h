/*
 * The properties explore checks: five built in by name, and the file's own
 * always/never lines. Step properties are judged on a transition (the world
 * before and after one task's call), state properties on each state.
 */
#ifndef NPG_EXPLORE_PROPERTY_H
#define NPG_EXPLORE_PROPERTY_H

#include <stdbool.h>
#include <stddef.h>

#include "explore/program.h"
#include "model/model.h"

enum npg_prop_kind {
	NPG_P_NO_ROOT_AFTER_FAILED_DROP,
	NPG_P_LIMIT_HOLDS,
	NPG_P_NO_COLLATERAL_EXECVE_FAILURE,
	NPG_P_NO_STALE_FAILURE,
	NPG_P_SETUID_NEVER_FAILS,
	NPG_P_USER,		/* always/never of the file */
};

#define NPG_NBUILTIN 5
#define NPG_MAX_PROPS 16	/* --property given at most this many times */

struct npg_prop {
	enum npg_prop_kind kind;
	long k;			/* limit-holds+k */
	char name[48];		/* as the table prints it */
};

/* Per-task monitor bits, kept in the explorer's state */
#define NPG_MON_FAILED_DROP 1	/* a set*uid call naming a non-root uid failed */
#define NPG_MON_CROSSED 2	/* crossed its user's limit through set*uid (or its parent did) */

/* One transition, for step properties and monitors */
struct npg_step_ctx {
	const struct npg_cprog *cp;
	const struct npg_world *pre, *post;
	int actor;
	const struct npg_op *op;
	struct npg_result result;
	unsigned mon;		/* the actor's monitor bits before the step */
};

/* "limit-holds", "limit-holds+2", ...: 0, or -1 if @name is none of the five */
int npg_prop_parse(const char *name, struct npg_prop *out);
extern const char *const npg_builtin_names[NPG_NBUILTIN];

/* Does the step break @p? A message for the trace goes to @msg. */
bool npg_prop_step(const struct npg_prop *p, const struct npg_step_ctx *c, char *msg, size_t len);
/* Does state @w break @p (built-in state properties only)? */
bool npg_prop_state(const struct npg_prop *p, const struct npg_cprog *cp,
		    const struct npg_world *w, char *msg, size_t len);
/* Does state @w break always/never line @u? */
bool npg_user_prop_broken(const struct npg_cprog *cp, const struct npg_user_prop *u,
			  const struct npg_world *w, char *msg, size_t len);
/* The monitor bits after the step: the actor's, and a new child's */
void npg_monitor_step(const struct npg_step_ctx *c, unsigned *actor_mon, unsigned *child_mon);

#endif
