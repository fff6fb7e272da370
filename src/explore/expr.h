/*
 * User-written properties: "always EXPR" / "never EXPR" over counts, ids,
 * flags, limits and task states, checked in every reachable state.
 *
 *   EXPR    := CONJ { or CONJ }          (and binds tighter; no parentheses)
 *   CONJ    := UNARY { and UNARY }
 *   UNARY   := not UNARY | ATOM
 *   ATOM    := VALUE CMP VALUE | TASK flag | TASK killed
 *   VALUE   := count USER | TASK ruid|euid|suid|fsuid|flag|killed|state|limit
 *            | NUMBER | USER | running|zombie|reaped|absent | set|clear | unlimited
 *   CMP     := == != < <= > >=
 *
 * TASK may name the base of a repeated fork ("session" for session.1 ...):
 * the expression is then checked for each of them in turn. At most one such
 * name per expression.
 */
#ifndef NPG_EXPLORE_EXPR_H
#define NPG_EXPLORE_EXPR_H

#include <stdbool.h>
#include <stdio.h>

#include "model/model.h"
#include "scenario/lexer.h"

struct npg_cprog;
struct npg_expr;

/* Parse tokens [from, ntok); NULL after printing file:line:col to @err. */
struct npg_expr *npg_expr_parse(const struct npg_cprog *cp, const char *file, int line,
				const struct npg_token *tok, int from, int ntok, FILE *err);
void npg_expr_free(struct npg_expr *e);
/* The repeated fork's family the expression ranges over, or -1 */
int npg_expr_family(const struct npg_expr *e);
/* Value in world @w, with @member standing for the family (ignored if none) */
bool npg_expr_eval(const struct npg_expr *e, const struct npg_world *w, int member);
/* Sets named[t] for each task the expression names by itself */
void npg_expr_mark_named(const struct npg_expr *e, bool *named);
/* Does the expression read a task's RLIMIT_NPROC ("limit")? */
bool npg_expr_reads_limit(const struct npg_expr *e);

#endif
