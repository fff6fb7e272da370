/*
 * Concurrent programs: a scenario whose tasks run at the same time, each a
 * small program ("TASK runs:" and an indented block), explored over every
 * interleaving by `nprocguard explore`. The declarations (users, groups,
 * tasks) and every operation are parsed by the scenario parser itself, so a
 * program's `setuid www` means exactly what a step's does.
 *
 * Programs are compiled to straight-line code: `repeat N: OP` is unrolled
 * (a repeated `fork X` makes X.1 ... X.N, each running X's program), and
 * `if it failed: OP` / `if it succeeded: OP` guard one operation on the
 * task's previous call. A sequential file is one program over its steps.
 */
#ifndef NPG_EXPLORE_PROGRAM_H
#define NPG_EXPLORE_PROGRAM_H

#include <stdbool.h>
#include <stdio.h>

#include "scenario/scenario.h"

#define NPG_MAX_REPEAT 64	/* repeat N: 1 <= N <= 64 */
#define NPG_MAX_INSTR 4096	/* instructions of one task, once unrolled */
#define NPG_MAX_ALWAYS 32	/* always/never lines in one file */

enum npg_guard { NPG_GUARD_NONE, NPG_GUARD_FAILED, NPG_GUARD_SUCCEEDED };

struct npg_instr {
	enum npg_guard guard;
	struct npg_stmt st;	/* st.task is the acting task */
};

struct npg_prog {
	int ninstr;
	struct npg_instr *instr;
};

struct npg_expr;

/* A user-written property: "always EXPR" or "never EXPR" */
struct npg_user_prop {
	bool never;
	struct npg_expr *expr;
	char *text;		/* as written, for reports */
	int line;
};

struct npg_cprog {
	struct npg_scenario *sc;
	char *text;		/* the file as read */
	bool concurrent;	/* has "runs:" blocks; else one sequential program */
	struct npg_prog seq;	/* a sequential file's steps */
	struct npg_prog *progs;	/* [sc->ntasks]: each task's program (may be empty) */
	/*
	 * [sc->ntasks]: symmetry class, or -1. Tasks of one class run the same
	 * program from the same start (declared alike, or forked by one
	 * repeated fork), never fork themselves, and are named by no other
	 * step or property: any permutation of them is an automorphism.
	 */
	int *klass;
	int *family;		/* [sc->ntasks]: forked by a repeated fork: its index in families[], else -1 */
	int nfamilies;
	char **families;	/* base names of repeated forks ("session" for session.1...) */
	int nalways;
	struct npg_user_prop always[NPG_MAX_ALWAYS];
	/* the uids whose counts a state holds: every uid the file can name */
	int nuids;
	npg_id *uids;
	/* declaration lines (1-based line numbers), copied into counterexamples */
	int ndecl;
	int *decl_lines;
};

/* Load and compile @path; NULL after printing file:line:col errors to @err. */
struct npg_cprog *npg_cprog_load(const char *path, FILE *err);
void npg_cprog_free(struct npg_cprog *cp);
/* Does @path hold "runs:" blocks? (directory scans take only those) */
bool npg_cprog_is_concurrent_file(const char *path);
/* The text of line @line (1-based) of the file, and its length */
const char *npg_cprog_line(const struct npg_cprog *cp, int line, size_t *len);

#endif
