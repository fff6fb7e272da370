/*
 * Which model policies predict what a kernel did: each candidate (a policy
 * with its own rules, or an era with the rules of one side's point release)
 * runs the scenario on the model, set up as that kernel's machine was
 * (bounding set, Yama, fs.suid_dumpable, no_new_privs of the harness), and
 * is held against the kernel's record statement by statement.
 */
#ifndef NPG_COMPARE_PREDICT_H
#define NPG_COMPARE_PREDICT_H

#include "compare/side.h"

#define NPG_CANDIDATES_MAX (NPG_NPOLICIES + 2)

struct npg_candidate {
	const struct npg_policy *policy;
	const struct npg_release *release;	/* NULL: the policy's own rules */
	char label[96];				/* "linux-6", "linux-3.1 as 5.10.223" */
};

/* Every policy, then the era of each side with that side's point release. */
int npg_candidates(const struct npg_side *sides, int nsides, struct npg_candidate *out);

/* How far a candidate's model agrees with a kernel's record of one scenario */
struct npg_agreement {
	bool ran;
	int first_mismatch;		/* the first statement on which they differ; INT_MAX: none */
};

/*
 * Run @sc on candidate @c's model as on machine @host and hold it against
 * @rs, every field of every statement the kernel ran faithfully. 0, or -1
 * out of memory.
 */
int npg_agreement_of(const struct npg_candidate *c, const struct npg_host *host,
		     const struct npg_scenario *sc, const struct npg_record_scenario *rs,
		     struct npg_agreement *out);

#endif
