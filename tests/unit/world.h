/*
 * The unit tests' model world: one per test program, made afresh for each
 * case, and the errno of a result.
 */
#ifndef NPG_TESTS_WORLD_H
#define NPG_TESTS_WORLD_H

#include "model/policy.h"

static struct npg_world w;

/* A new world of @ntasks tasks, none made yet, under @policy */
static inline void fresh(const char *policy, int ntasks)
{
	npg_world_free(&w);
	npg_world_init(&w, npg_policy_find(policy), ntasks);
}

/* The errno a system call failed with, or 0 */
static inline int err(struct npg_result r)
{
	return r.kind == NPG_R_ERRNO ? (int)r.value : 0;
}

#endif
