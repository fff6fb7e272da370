/*
 * `nprocguard compare`: the same scenarios on two kernels, and every
 * statement whose observable outcome differs between them -- the result,
 * the actor's ids, flag, capability sets, namespace, tracer, no_new_privs,
 * any user's count -- with the model policies that predict each side. A
 * random scenario that differs is shrunk on the models that predict the two
 * kernels, and the shrunk scenario is run on both kernels again: only a
 * difference they show is written out.
 */
#ifndef NPG_COMPARE_COMPARE_H
#define NPG_COMPARE_COMPARE_H

#include "compare/predict.h"

struct npg_compare {
	struct npg_side sides[2];
	struct npg_candidate cand[NPG_CANDIDATES_MAX];
	int ncand;
	const struct npg_guest_opts *guest;
	int jobs;
	uint32_t uid_base;
	bool quiet;		/* no line per scenario, no unreproducible reasons */
	bool counts_only;	/* not even the differences: counted only */
	struct npg_compare_totals {
		int scenarios, statements, agree, differ, unreproducible, unrep[2], not_started;
		int machines;	/* differences a policy predicts on both: the machines' */
	} t;
};

/* The two sides are open (npg_side_open()): name them apart, list the candidates. */
void npg_compare_init(struct npg_compare *c);

/*
 * @sc[0..n) against the sides' records (scenario i of each): print every
 * difference with its predictions, and per scenario a summary line unless
 * quiet. A difference that one policy predicts on both kernels comes from
 * their machines (Yama, fs.suid_dumpable, no_new_privs of the harness), not
 * their rules: counted apart. @first[i] (may be NULL): the first statement
 * of scenario i with another difference, or -1. 0, or -1 when the records
 * do not hold those scenarios, or out of memory (said).
 */
int npg_compare_records(struct npg_compare *c, struct npg_scenario *const *sc, int n, int *first);

/* A kind of difference: a statement of one operation, and one field */
struct npg_difference_kind {
	enum npg_stmt_kind kind;
	int what;		/* the step's opcode, or the check's kind */
	char field[176];	/* "result", "flag", "count", "count in a namespace", ... */
	char name[40];		/* "setuid", "check flag": for people; with field, the key */
};

/*
 * The kind of difference statement @stmt of scenario @index shows: its
 * first field that differs. -1 if none does.
 */
int npg_compare_divergence(const struct npg_compare *c, const struct npg_scenario *sc, int index,
			   int stmt, struct npg_difference_kind *k);

/*
 * Shrink @text, the text of random scenario @index (@sc parsed), on the
 * models that predict each side over all of it, keeping a difference of
 * @kind between them. 0: @text is the shrunk one and @why names the models;
 * -1: no model predicts one side, or they do not differ so (@why says
 * which), and @text is as it was.
 */
int npg_compare_shrink(struct npg_compare *c, const struct npg_scenario *sc, int index,
		       const struct npg_difference_kind *kind, char *text, char *why,
		       size_t whylen);

/* "compare: N scenarios, ..." */
void npg_compare_summary(const struct npg_compare *c, FILE *out);

#endif
