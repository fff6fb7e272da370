/*
 * Runs a scenario on one or more backends in step, statement by statement,
 * and hands what each observed to a sink as it happens. Nothing is kept per
 * statement: memory grows with the scenario's tasks and users, not with its
 * length; a report that needs the whole run (the text table) keeps its own.
 */
#ifndef NPG_RUNNER_RUN_H
#define NPG_RUNNER_RUN_H

#include <limits.h>

#include "backend/backend.h"

#define NPG_TEXT 96
#define NPG_COUNT_UNKNOWN LONG_MIN	/* a count this backend cannot observe faithfully */

/* What one backend observed at one statement; valid during the sink's call only. */
struct npg_obs {
	char text[NPG_TEXT];	/* result or check value, canonical */
	const char *expected;	/* NULL: no expectation for this column */
	bool ok;		/* matches the expectation (or there is none) */
	bool unreproducible;
	char reason[256];
	struct npg_task actor;	/* the acting or checked task, after the statement */
	/* per scenario user (names[] order) in the initial namespace, then
	 * again per user namespace of the scenario: npg_count_index() */
	long *counts;
};

struct npg_column {
	struct npg_backend *backend;
	int policy_index;	/* whose expectations apply; -1: none */
	bool started;
	char error[256];
	/* may be NULL: called after the last statement, before the backend stops */
	void (*before_stop)(struct npg_backend *b, void *arg);
	void *before_stop_arg;
};

struct npg_run;

/*
 * Where observations go. Each callback may be NULL; a non-zero return stops
 * the run (a write error, no memory), and npg_run_scenario() returns it.
 */
struct npg_sink {
	/* every backend has been started (or failed to: cols[c].started) */
	int (*begin)(void *arg, const struct npg_run *run);
	/* statement @stmt on every column: @obs[c]; meaningless where !cols[c].started */
	int (*statement)(void *arg, const struct npg_run *run, int stmt,
			 const struct npg_obs *obs);
	void *arg;
};

struct npg_run {
	const struct npg_scenario *sc;
	int ncols;
	struct npg_column *cols;
	int done;		/* statements run so far */
	int expectations, held, failed, unreproducible;
	struct npg_obs *obs;	/* [ncols], the current statement */
	long *counts;		/* [ncols * nnames], behind obs[c].counts */
};

/* npg_run_scenario() results other than 0 and a sink's own return value */
#define NPG_RUN_NOT_STARTED (-1)	/* a backend could not start; the others ran */
#define NPG_RUN_NO_MEMORY (-2)		/* nothing ran */

/*
 * Start every backend of @cols, run each statement of @sc on all of them in
 * turn, give each statement's observations to @sink, stop the backends.
 * Returns 0, NPG_RUN_NOT_STARTED, NPG_RUN_NO_MEMORY, or what the sink
 * returned to stop the run. Free with npg_run_free() in every case.
 */
int npg_run_scenario(struct npg_run *run, const struct npg_scenario *sc,
		     struct npg_column *cols, int ncols, const struct npg_sink *sink);
void npg_run_free(struct npg_run *run);
/*
 * Whose expectations of @sc a column for @policy checks: its own, or none
 * (-1) when the file's `policies` leave that era out ("policies linux-2.6"
 * says nothing of a 6.x kernel: its values are shown, not checked)
 */
int npg_expectations_of(const struct npg_scenario *sc, const struct npg_policy *policy);
/* Counts observed per statement: every user at every namespace's level */
static inline int npg_ncounts(const struct npg_scenario *sc)
{
	return sc->nnames * (1 + sc->nuserns);
}

/* "www", or "www in c" for a count at namespace c's level; false for a group */
bool npg_count_label(const struct npg_scenario *sc, int k, char *buf, size_t len);

/* "task: operation args" or "check ...", as written */
void npg_stmt_label(const struct npg_scenario *sc, const struct npg_stmt *st, char *buf,
		    size_t len);

#endif
