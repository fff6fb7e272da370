/* Where two backends disagree about the same scenario, statement by statement. */
#ifndef NPG_RUNNER_CONFORM_H
#define NPG_RUNNER_CONFORM_H

#include "runner/run.h"

/*
 * What is compared of one statement, field by field: the result (a step) or
 * value (a check); after a step the acting task's state and, while it runs,
 * its ids, flag, capability sets, namespace, tracer and no_new_privs; then
 * every user's count the backend can observe.
 */
struct npg_field {
	char name[176];		/* "result", "uids", "flag", "count www in c", ... */
	char value[NPG_TEXT];
};

struct npg_fields {
	int n, cap;
	struct npg_field *f;
};

/* The fields of @o, an observation of statement @s, in that order; -1 out of memory. */
int npg_obs_fields(const struct npg_scenario *sc, int s, const struct npg_obs *o,
		   struct npg_fields *out);
/* Append a field; -1 out of memory */
int npg_fields_add(struct npg_fields *fs, const char *name, const char *value);
const struct npg_field *npg_field_find(const struct npg_fields *fs, const char *name);
/*
 * Each field of @a whose value differs from @b's field of that name (one
 * missing from @b is not compared), in @a's order, given to @emit (may be
 * NULL); returns how many.
 */
int npg_fields_diff(const struct npg_fields *a, const struct npg_fields *b,
		    void (*emit)(const struct npg_field *a, const struct npg_field *b, void *arg),
		    void *arg);
void npg_fields_free(struct npg_fields *fs);

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
 * observed, from a runner sink), field by field (npg_obs_fields()): calls
 * @emit for each difference. 0, or -1 out of memory.
 */
int npg_conform_diff(const struct npg_run *run, int s, const struct npg_obs *obs, int ca,
		     int cb, void (*emit)(const struct npg_run *, const struct npg_diff *, void *),
		     void *arg, struct npg_conform_stats *stats);

#endif
