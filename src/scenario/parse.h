/*
 * The scenario parser's own header, shared by its files and no one else:
 * the cursor (struct parser) and what each section of the language gives
 * the others.
 */
#ifndef NPG_SCENARIO_PARSE_H
#define NPG_SCENARIO_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "scenario/lexer.h"
#include "scenario/scenario.h"

#define MAX_ERRORS 20
/* A token is echoed in a message at most this long, then "..." (a 1 MB token is not) */
#define TOKEN_SHOWN 64
#define TOKLEN(len) ((int)((len) > TOKEN_SHOWN ? TOKEN_SHOWN : (len)))
#define TOKCUT(len) ((len) > TOKEN_SHOWN ? "..." : "")
#define MAX_TASKS NPG_MAX_TASKS
#define MAX_FILE (16u << 20)	/* bytes of one scenario file */
#define MAX_NAMES NPG_MAX_NAMES
#define MAX_NUMERIC NPG_MAX_NUMERIC_UIDS

struct parser {
	const char *file;
	FILE *err;
	int nerrors;
	int line;
	const char *text;	/* the current line */
	size_t textlen;
	struct npg_token tok[NPG_MAX_TOKENS];
	int ntok;
	struct npg_scenario *sc;
	/* uids given as numbers outside expectations, each once, with where it
	 * first stands: those no `user` line names are counted as users are */
	struct numeric_uid {
		npg_id id;
		int line, col;
	} *numeric;
	int nnumeric;
	bool expecting;		/* parsing an expected value: its ids name nothing */
	bool *dead;		/* per task: exited in the text (statically) */
	int *vfork_child;	/* per task: 1 + the vfork() child it waits for, 0: none */
	int stmt_cap;
};

struct npg_op_spec {
	const char *name;
	enum npg_opcode code;
	int nids;		/* set*id: how many ids */
	bool gid;
	bool allow_none;
};

/* --- cursor.c --- */

/* An error at column @col of the current line: file:line:col: message */
void npg_parse_error(struct parser *p, int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Past the last token: the column just after the line's text */
int npg_parse_end_col(const struct parser *p);
void *npg_parse_calloc(size_t n, size_t size);
char *npg_tok_dup(const struct npg_token *t);
bool npg_tok_is(const struct npg_token *t, const char *word);
bool npg_tok_copy(const struct npg_token *t, char *buf, size_t len);
/* Decimal, no sign, no overflow */
bool npg_tok_u64(const struct npg_token *t, uint64_t *out);
bool npg_parse_expect_word(struct parser *p, int i, const char *what);
bool npg_parse_expect_end(struct parser *p, int i, int end);
bool npg_parse_valid_identifier(const struct npg_token *t);
int npg_parse_find_arrow(const struct parser *p);
char *npg_parse_stmt_text(const struct parser *p, int from, int to);
/* @n bytes, aligned for any object, that live as long as the scenario */
void *npg_parse_keep(struct parser *p, size_t n);
/* Tokens [@from, @to) as written, kept as long as the scenario */
char *npg_parse_keep_text(struct parser *p, int from, int to);
void npg_scenario_free_blocks(struct npg_scenario *sc);
/* Room for a statement per line of @text, at once */
void npg_parse_reserve_stmts(struct parser *p, const char *text, size_t len);
struct npg_stmt *npg_parse_new_stmt(struct parser *p, enum npg_stmt_kind kind);
void npg_parse_commit_stmt(struct parser *p);

/* --- values.c --- */

int npg_parse_find_task(const struct npg_scenario *sc, const struct npg_token *t);
/* A uid or gid: a declared name or a number; "-1" only where the call allows it */
bool npg_parse_id(struct parser *p, int i, bool gid, bool allow_none, npg_id *out);
/* After the last line: each uid given as a number that no `user` line names
 * becomes a user named by its number (an error past MAX_NUMERIC of them) */
void npg_parse_name_numeric_uids(struct parser *p);
bool npg_parse_limit(struct parser *p, int i, uint64_t *out);
/* "nproc SOFT HARD" starting at token i */
bool npg_parse_nproc(struct parser *p, int i, uint64_t *cur, uint64_t *max);
bool npg_parse_cap_name(struct parser *p, const struct npg_token *t, int *cap);
/* "all", "none", or NAME[,NAME...] from token i to end; returns the index after */
int npg_parse_caps(struct parser *p, int i, int end, uint64_t *caps);
/* G[,G...] or "none" */
int npg_parse_groups(struct parser *p, int i, int end, int *n, npg_id *groups);
bool npg_parse_check_fresh_name(struct parser *p, const struct npg_token *t, const char *what);
int npg_parse_add_task(struct parser *p, const struct npg_token *name);
int npg_parse_leader_of(const struct npg_scenario *sc, int t);
int npg_parse_find_file(const struct npg_scenario *sc, const struct npg_token *t);
bool npg_parse_task_ref(struct parser *p, int i, int *idx);
int npg_parse_find_userns(const struct npg_scenario *sc, const struct npg_token *t);

/* --- declarations.c --- */

void npg_parse_string_decl(struct parser *p, char **field, const char *what);
void npg_parse_policies(struct parser *p);
void npg_parse_bounding(struct parser *p);
void npg_parse_yama(struct parser *p);
/* file PATH missing: what execve PATH finds there */
void npg_parse_file_decl(struct parser *p);
void npg_parse_name_decl(struct parser *p, bool group);
/* task NAME uid U [euid U] [suid U] [gid G] [egid G] [sgid G] [groups L] [nproc S H] [caps L] [keepcaps] */
void npg_parse_task_decl(struct parser *p);

/* --- expectations.c --- */

/* => VALUE | POLICY[,POLICY]: VALUE | ... */
bool npg_parse_expect(struct parser *p, struct npg_stmt *st, int arrow);

/* --- operations.c --- */

/* Every operation a step may name, ended by a NULL name */
extern const struct npg_op_spec npg_op_specs[];
/* The operation's arguments, tokens [i, end) */
bool npg_parse_op(struct parser *p, struct npg_stmt *st, const struct npg_op_spec *spec, int i,
		     int end);

/* --- steps.c --- */

void npg_parse_step(struct parser *p);

/* --- checks.c --- */

/* check count USER | check TASK PROPERTY [NAME] */
void npg_parse_check(struct parser *p);

#endif
