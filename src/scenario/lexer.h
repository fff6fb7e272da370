/* Splits one line of a scenario into tokens. */
#ifndef NPG_SCENARIO_LEXER_H
#define NPG_SCENARIO_LEXER_H

#include <stddef.h>

enum npg_tok_kind { NPG_TOK_WORD, NPG_TOK_STRING, NPG_TOK_ARROW, NPG_TOK_PIPE,
		    NPG_TOK_COLON, NPG_TOK_COMMA };

struct npg_token {
	enum npg_tok_kind kind;
	const char *start;	/* into the line; a STRING excludes its quotes */
	size_t len;
	int col;		/* 1-based */
};

#define NPG_MAX_TOKENS 64

/*
 * Tokenize @line (@len bytes, no newline). Returns the number of tokens,
 * or -1 with *err_col and *err_msg set.
 */
int npg_lex_line(const char *line, size_t len, struct npg_token *toks, int max,
		 int *err_col, const char **err_msg);

#endif
