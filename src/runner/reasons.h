/*
 * Why statements were unreproducible, tallied over many scenarios (conform
 * --random): a run of thousands says which of the machine's limits kept
 * how much from being compared, not one line per statement.
 */
#ifndef NPG_RUNNER_REASONS_H
#define NPG_RUNNER_REASONS_H

struct npg_reason_count {
	char *reason;		/* numbers and line references taken out */
	long statements;
	long scenarios;
	int last_scenario;	/* the scenario that last added to it */
};

struct npg_reasons {
	struct npg_reason_count *r;
	int n, cap;
};

/* One unreproducible statement of scenario @scenario. 0, or -1 out of memory. */
int npg_reasons_add(struct npg_reasons *rs, int scenario, const char *reason);
/*
 * @statements statements in @scenarios scenarios for @reason as another
 * tally counted it (already normalized: npg_reasons_add()'s key); scenarios
 * are another tally's, never the same ones. 0, or -1 out of memory.
 */
int npg_reasons_merge(struct npg_reasons *rs, const char *reason, long statements, long scenarios);
/* Most statements first (then by reason) */
void npg_reasons_sort(struct npg_reasons *rs);
void npg_reasons_free(struct npg_reasons *rs);

#endif
