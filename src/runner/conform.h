/* Where two backends disagree about the same scenario, statement by statement. */
#ifndef NPG_RUNNER_CONFORM_H
#define NPG_RUNNER_CONFORM_H

#include "runner/run.h"

struct npg_diff {
	int stmt;		/* index into the scenario's statements */
	const char *field;	/* "result", "uids", "flag", "count www", ... */
	char a[NPG_TEXT], b[NPG_TEXT];
};

struct npg_conform_stats {
	int statements, agree, differ, unreproducible;
};

/*
 * Compare columns @ca and @cb of statement @s (@obs: what each column
 * observed, from a runner sink): the result or value, and after a step the
 * acting task's state, ids, capabilities and flag, and every user's count
 * that both can observe. Calls @emit for each difference.
 */
void npg_conform_diff(const struct npg_run *run, int s, const struct npg_obs *obs, int ca,
		      int cb, void (*emit)(const struct npg_run *, const struct npg_diff *, void *),
		      void *arg, struct npg_conform_stats *stats);

#endif
