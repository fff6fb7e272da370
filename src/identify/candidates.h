/*
 * The configurations identify chooses among: every one a release of the
 * model's history gives (model/history.c, each branch before and after
 * each of its changes), each policy under its own rules, and the seed
 * kernels' policies on 3.0.8; then, around the one that fits, its
 * neighbours: the same with other hooks, or with one rule otherwise.
 */
#ifndef NPG_IDENTIFY_CANDIDATES_H
#define NPG_IDENTIFY_CANDIDATES_H

#include "model/config.h"

struct npg_candidate {
	struct npg_config config;
	char where[96];		/* the releases it stands for: "5.15.25, 5.16.11" */
};

struct npg_candidates {
	int n, cap;
	struct npg_candidate *c;
};

/* The history's configurations, oldest first. -1 out of memory. */
int npg_candidates_of_history(struct npg_candidates *out);
/* Add @c (standing for @where) unless it is there; its index, or -1 out of memory */
int npg_candidates_add(struct npg_candidates *cs, const struct npg_config *c, const char *where);
void npg_candidates_free(struct npg_candidates *cs);

/* One way a configuration can differ from its neighbour */
struct npg_dimension {
	const struct npg_rule_info *rule;	/* NULL: the policy (its hooks) */
	int value;				/* the rule's value, or the policy's index */
};

/* "policy" or the rule's name */
const char *npg_dimension_name(const struct npg_dimension *d);

/*
 * The neighbours of @a, each with the dimension it differs in: the other
 * hooks (linux-5.14 and linux-6 are one: the same hooks under other
 * rules) keeping @a's credential rules, and each rule that means something
 * under @a's hooks (the RLIMIT_NPROC rules only under ucounts) with each
 * other value. Up to @max; their number.
 */
int npg_neighbours(const struct npg_config *a, struct npg_config *out,
		   struct npg_dimension *dims, int max);

#endif
