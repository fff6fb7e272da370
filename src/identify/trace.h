/*
 * What one backend did with a scenario, statement by statement, in the
 * fields identify compares: every field conform compares (runner/conform.c)
 * but the users' counts. A count is read from /proc on the real side and
 * keyed by the rules on the model side (which uid a task is charged to),
 * so it is evidence of nothing until the rules are known; what the kernel
 * decides by a count -- a fork's EAGAIN, the flag -- is compared instead.
 */
#ifndef NPG_IDENTIFY_TRACE_H
#define NPG_IDENTIFY_TRACE_H

#include "backend/backend.h"
#include "model/config.h"
#include "runner/conform.h"

struct npg_trace_stmt {
	bool unreproducible;		/* the real side could not make it faithfully */
	char reason[256];
	uint64_t digest;		/* of the fields, names and values */
	struct npg_fields fields;	/* the fields themselves, in a detailed trace */
};

struct npg_trace {
	bool detailed;			/* the fields kept, not only their digest */
	int n;				/* statements run */
	struct npg_trace_stmt *s;	/* [sc->nstmts] */
	bool not_started;		/* the backend could not start: error */
	char error[256];
	/* root's tasks a guest kept beyond the file's (npg_backend.root_raised): 0 none */
	long root_raised;
};

/*
 * Run @sc on backend @b (started and stopped here) into @t, @detailed or
 * with the fields' digests alone (what telling two models apart needs). 0,
 * or -1 out of memory.
 */
int npg_trace_run(struct npg_trace *t, const struct npg_scenario *sc, struct npg_backend *b,
		  bool detailed);
/*
 * The model of @c as it runs on machine @host (its bounding set, Yama,
 * fs.suid_dumpable, no_new_privs), for a kernel of release @rel (its
 * CAP_LAST_CAP; NULL: every capability), root starting with @root_procs
 * tasks when a guest kept that many (the kernel trace's root_raised; 0:
 * the file's count), as conform's model does
 */
int npg_trace_model(struct npg_trace *t, const struct npg_scenario *sc,
		    const struct npg_config *c, const struct npg_host *host,
		    const struct npg_release *rel, long root_procs, bool detailed);
void npg_trace_free(struct npg_trace *t);

/* Where @model contradicts @kernel: the first field, or none */
struct npg_contradiction {
	int stmt;			/* -1: none */
	char field[176];
	char kernel[NPG_TEXT], model[NPG_TEXT];
};

/*
 * Compare @model with @kernel statement by statement, skipping what the
 * kernel side could not reproduce: the number of statements that differ,
 * the first in @first (if not NULL; its stmt -1 when none).
 */
int npg_trace_contradictions(const struct npg_trace *model, const struct npg_trace *kernel,
			     struct npg_contradiction *first);
/*
 * Does statement @i differ between @a and @b (in a field both have)? The
 * first field in @c when both traces are detailed; from two traces of
 * digests alone, any field either has (two models observe the same fields
 * of a task in the same state)
 */
bool npg_trace_stmt_differs(const struct npg_trace *a, const struct npg_trace *b, int i,
			    struct npg_contradiction *c);
/* The number of statements (reproducible or not) where @a and @b differ; the first in @first */
int npg_trace_differences(const struct npg_trace *a, const struct npg_trace *b,
			  struct npg_contradiction *first);

#endif
