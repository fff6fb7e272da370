/*
 * Search over every interleaving of a concurrent scenario on the model of
 * one policy, in order of depth (the calls made), so that the first
 * violation of each property found is a shortest one. A state is a vector
 * of 32-bit words: the sequential program's counter, one interned "local"
 * per task (the model's task record, its program counter, whether its
 * last call failed, its monitor bits, its calls) and one count per user;
 * tasks of one symmetry class are sorted (program.h), so permuted states
 * are stored once. Partial-order reduction merges local calls into the
 * transition before them and sleep sets skip transitions already taken
 * from a sibling: doc/explore-reduction.md.
 */
#ifndef NPG_EXPLORE_SEARCH_H
#define NPG_EXPLORE_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "explore/program.h"
#include "explore/property.h"
#include "model/policy.h"

#define NPG_EXPLORE_MAX_CHECKS (NPG_MAX_PROPS + NPG_MAX_ALWAYS)

struct npg_explore_opts {
	uint64_t max_states;	/* 0: no bound */
	int max_depth;		/* -1: no bound */
	uint64_t max_memory;	/* bytes of the explorer's tables */
	bool symmetry;
	bool por;		/* partial-order reduction: local calls merged (reduce.h), sleep sets */
	bool sleep_sets;	/* sleep sets (with por) */
	bool progress;		/* a line on stderr for searches over a second */
	const char *label;	/* for the progress line */
	int nprops;
	struct npg_prop props[NPG_MAX_PROPS];
};

enum npg_verdict { NPG_HOLDS, NPG_VIOLATED, NPG_UNKNOWN };

/* One step of a counterexample, replayed on concrete task indices */
struct npg_trace_step {
	int task;
	const struct npg_stmt *st;
	struct npg_result result;
	struct npg_task after;		/* the acting task after the step */
	long *counts;			/* per cp->uids, after the step */
};

struct npg_trace {
	int n;
	struct npg_trace_step *steps;
	char message[320];
};

/* What one check (a built-in property or an always/never line) came to */
struct npg_check_result {
	char name[64];
	enum npg_verdict verdict;
	int steps;			/* violated: the counterexample's length */
	struct npg_trace trace;		/* violated: the counterexample */
};

struct npg_explore_stats {
	uint64_t stored, matched, transitions;
	uint64_t slept;			/* transitions a sleep set skipped */
	uint64_t merged;		/* local calls made inside transitions */
	int depth;			/* deepest level expanded */
	uint64_t table_bytes;		/* the explorer's own tables at their peak */
	double seconds;
	bool bounded;			/* a bound stopped the search */
	char bound[160];		/* which, and where */
};

struct npg_explore_result {
	int nchecks;
	struct npg_check_result checks[NPG_EXPLORE_MAX_CHECKS];
	struct npg_explore_stats stats;
};

/*
 * Explore @cp under @policy. Returns 0 (result filled in; free it with
 * npg_explore_result_free) or -1 with a message in @err (out of memory, a
 * uid the state does not hold).
 */
int npg_explore(const struct npg_cprog *cp, const struct npg_policy *policy,
		const struct npg_explore_opts *o, struct npg_explore_result *res,
		char *err, size_t errlen);
void npg_explore_result_free(struct npg_explore_result *res);

#endif
