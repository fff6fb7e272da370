/*
 * `nprocguard identify`: which policy and rules a kernel follows, asked of
 * the kernel itself. Every probe (probes.h) runs once on the real backend;
 * the model of each configuration of the history (candidates.h) runs the
 * same probes; the one no probe contradicts is the answer, and each of its
 * dimensions -- the policy, every rule -- is decided by the probe where
 * the kernel did what it says and its neighbour with the other value says
 * something else.
 */
#ifndef NPG_IDENTIFY_IDENTIFY_H
#define NPG_IDENTIFY_IDENTIFY_H

#include <stdint.h>
#include <stdio.h>

#include "backend/backend.h"
#include "identify/candidates.h"
#include "identify/trace.h"

enum npg_decision {
	NPG_DECIDED,		/* a probe the kernel ran rules the other value out */
	NPG_UNDECIDED_HERE,	/* the probe that would tell was unreproducible here */
	NPG_NOT_TOLD,		/* no probe tells the values apart */
};

/* One other value of one dimension, and what ruled it out */
struct npg_ruled_out {
	struct npg_dimension dim;	/* the dimension and the other value */
	char other[64];			/* that value as said: "linux-3.1", "without", "1" */
	enum npg_decision decision;
	int probe;			/* NPG_DECIDED, NPG_UNDECIDED_HERE: which */
	struct npg_contradiction at;	/* NPG_DECIDED: where, what the kernel did and the other predicts */
	char reason[256];		/* NPG_UNDECIDED_HERE: why the kernel side could not tell */
};

struct npg_identified {
	struct npg_config config;	/* the answer */
	char spec[512];			/* npg_config_format() of it */
	bool fits;			/* no probe contradicts it */
	bool in_history;		/* some release of the history has it */
	char where[96];			/* those releases */
	int contradictions;		/* when it does not fit: how many statements */
	struct npg_contradiction first;	/* and the first, in probe @first_probe */
	int first_probe;
	/* every probe no configuration of the history agrees with, when none fits */
	int nagainst_all;
	int against_all[64];
	struct npg_config version;	/* what the release's version says */
	char version_spec[512];
	int nruled;
	struct npg_ruled_out ruled[96];
	int nprobes, nstatements, nunreproducible;
	double seconds;
};

struct npg_probes;

/*
 * Run every probe on this kernel (@host, uid window from @uid_base) and
 * decide. 0; -1 when the real backend could not run any probe (its reason
 * in @err: not root, the uid window taken) or out of memory.
 */
int npg_identify_kernel(const struct npg_host *host, uint32_t uid_base, struct npg_identified *out,
			char *err, size_t errlen);

/* The same from probe traces already run (@kernel[i] for probe i), for tests */
int npg_identify_decide(const struct npg_probes *probes, const struct npg_trace *kernel,
			const struct npg_host *host, struct npg_identified *out);

#endif
