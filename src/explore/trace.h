/*
 * A counterexample three ways: a readable trace, a plain sequential
 * scenario (which `nprocguard run` replays on the model and `run --real`
 * on the running kernel), and a Graphviz message-sequence chart.
 */
#ifndef NPG_EXPLORE_TRACE_H
#define NPG_EXPLORE_TRACE_H

#include <stdio.h>

#include "explore/program.h"
#include "explore/search.h"

/* 0, or -1 with errno set by a failed write */
int npg_trace_print(FILE *out, const struct npg_cprog *cp, const char *policy,
		    const struct npg_check_result *cr);
int npg_trace_write_scenario(FILE *out, const struct npg_cprog *cp, const char *policy,
			     const struct npg_check_result *cr);
int npg_trace_write_dot(FILE *out, const struct npg_cprog *cp, const char *policy,
			const struct npg_check_result *cr);

#endif
