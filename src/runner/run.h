/* Runs a scenario on one or more backends and records what each observed. */
#ifndef NPG_RUNNER_RUN_H
#define NPG_RUNNER_RUN_H

#include <limits.h>

#include "backend/backend.h"

#define NPG_TEXT 96
#define NPG_COUNT_UNKNOWN LONG_MIN	/* a count this backend cannot observe faithfully */

/* What one backend observed at one statement. */
struct npg_obs {
	char text[NPG_TEXT];	/* result or check value, canonical */
	const char *expected;	/* NULL: no expectation for this column */
	bool ok;		/* matches the expectation (or there is none) */
	bool unreproducible;
	char reason[256];
	struct npg_task actor;	/* the acting or checked task, after the statement */
	long *counts;		/* per scenario user (names[] order), after */
};

struct npg_column {
	struct npg_backend *backend;
	int policy_index;	/* whose expectations apply */
	bool started;
	char error[256];
	/* may be NULL: called after the last statement, before the backend stops */
	void (*before_stop)(struct npg_backend *b, void *arg);
	void *before_stop_arg;
};

struct npg_run {
	const struct npg_scenario *sc;
	int ncols;
	struct npg_column *cols;
	struct npg_obs *obs;	/* [stmt * ncols + col] */
	int expectations, held, failed, unreproducible;
};

/* Run @sc on each backend of @cols in turn. Returns 0, or -1 when a backend could not start. */
int npg_run_scenario(struct npg_run *run, const struct npg_scenario *sc,
		     struct npg_column *cols, int ncols);
void npg_run_free(struct npg_run *run);
/* "task: operation args" or "check ...", as written */
void npg_stmt_label(const struct npg_scenario *sc, const struct npg_stmt *st, char *buf,
		    size_t len);

static inline struct npg_obs *npg_run_obs(const struct npg_run *run, int stmt, int col)
{
	return &run->obs[stmt * run->ncols + col];
}

#endif
