/*
 * The parser's cursor: the tokens of the line being parsed, its errors as
 * file:line:col, and the statement it makes (added to the scenario only
 * once the whole line has parsed).
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <stdint.h>
#include <sys/mman.h>

#include "scenario/parse.h"

void npg_parse_error(struct parser *p, int col, const char *fmt, ...)
{
	va_list ap;

	p->nerrors++;
	if (!p->err || p->nerrors > MAX_ERRORS)
		return;
	fprintf(p->err, "%s:%d:%d: ", p->file, p->line, col);
	va_start(ap, fmt);
	vfprintf(p->err, fmt, ap);
	va_end(ap);
	fputc('\n', p->err);
}

/* Past the last token: the column just after the line's text */
int npg_parse_end_col(const struct parser *p)
{
	if (p->ntok == 0)
		return 1;
	return p->tok[p->ntok - 1].col + (int)p->tok[p->ntok - 1].len;
}

void *npg_parse_calloc(size_t n, size_t size)
{
	void *m = calloc(n ? n : 1, size);

	if (!m) {
		perror("nprocguard");
		exit(2);
	}
	return m;
}

char *npg_tok_dup(const struct npg_token *t)
{
	char *s = npg_parse_calloc(t->len + 1, 1);

	memcpy(s, t->start, t->len);
	return s;
}

bool npg_tok_is(const struct npg_token *t, const char *word)
{
	return t->kind == NPG_TOK_WORD && strlen(word) == t->len &&
	       memcmp(t->start, word, t->len) == 0;
}

bool npg_tok_copy(const struct npg_token *t, char *buf, size_t len)
{
	if (t->len >= len)
		return false;
	memcpy(buf, t->start, t->len);
	buf[t->len] = '\0';
	return true;
}

/* Decimal, no sign, no overflow */
bool npg_tok_u64(const struct npg_token *t, uint64_t *out)
{
	uint64_t v = 0;

	if (t->kind != NPG_TOK_WORD || t->len == 0 || t->len > 20)
		return false;
	for (size_t i = 0; i < t->len; i++) {
		unsigned d;

		if (!isdigit((unsigned char)t->start[i]))
			return false;
		d = (unsigned)(t->start[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

bool npg_parse_expect_word(struct parser *p, int i, const char *what)
{
	if (i >= p->ntok) {
		npg_parse_error(p, npg_parse_end_col(p), "missing %s", what);
		return false;
	}
	if (p->tok[i].kind != NPG_TOK_WORD) {
		npg_parse_error(p, p->tok[i].col, "expected %s", what);
		return false;
	}
	return true;
}

bool npg_parse_expect_end(struct parser *p, int i, int end)
{
	if (i < end) {
		npg_parse_error(p, p->tok[i].col, "unexpected '%.*s%s'", TOKLEN(p->tok[i].len), p->tok[i].start, TOKCUT(p->tok[i].len));
		return false;
	}
	return true;
}

bool npg_parse_valid_identifier(const struct npg_token *t)
{
	static const char *const reserved[] = { "check", "user", "group", "task", "scenario",
						"source", "policies", "count", "all", NULL };

	if (t->kind != NPG_TOK_WORD || t->len == 0 || t->len > 31)
		return false;
	if (!isalpha((unsigned char)t->start[0]) && t->start[0] != '_')
		return false;
	for (size_t i = 1; i < t->len; i++) {
		char c = t->start[i];

		if (!isalnum((unsigned char)c) && c != '_' && c != '-' && c != '.')
			return false;
	}
	for (int i = 0; reserved[i]; i++)
		if (npg_tok_is(t, reserved[i]))
			return false;
	return true;
}

/* ---- statements ---- */

int npg_parse_find_arrow(const struct parser *p)
{
	for (int i = 0; i < p->ntok; i++)
		if (p->tok[i].kind == NPG_TOK_ARROW)
			return i;
	return p->ntok;
}

/* A block of the scenario's kept bytes; the first is the newest */
struct npg_scenario_block {
	struct npg_scenario_block *next;
	size_t used, size;
	max_align_t data[];
};

#define BLOCK_MIN (4u << 10)	/* a small scenario's texts, without a large block */
#define BLOCK_MAX (4u << 20)

/*
 * A statement's text and expectations were three allocations of a few
 * bytes each, freed one by one: a long file's malloc() calls and the
 * page faults of the heap they grew were a fifth of a run. They are
 * carved from blocks, each twice the last up to 4 MiB, freed with the
 * scenario.
 */
void *npg_parse_keep(struct parser *p, size_t n)
{
	struct npg_scenario_block *b = p->sc->blocks;
	void *m;

	n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	if (!b || b->size - b->used < n) {
		size_t size = b ? b->size * 2 : BLOCK_MIN;

		if (size > BLOCK_MAX)
			size = BLOCK_MAX;
		if (size < n)
			size = n;
		b = npg_parse_calloc(1, sizeof(*b) + size);
		b->size = size;
		b->next = p->sc->blocks;
		p->sc->blocks = b;
	}
	m = (char *)b->data + b->used;
	b->used += n;
	return m;
}

void npg_scenario_free_blocks(struct npg_scenario *sc)
{
	while (sc->blocks) {
		struct npg_scenario_block *next = sc->blocks->next;

		free(sc->blocks);
		sc->blocks = next;
	}
}

/* The span of tokens [@from, @to) as written, in *@start and its length */
static size_t stmt_span(const struct parser *p, int from, int to, const char **start)
{
	const struct npg_token *a = &p->tok[from], *b = &p->tok[to - 1];

	*start = a->start;
	return (size_t)(b->start + b->len + (b->kind == NPG_TOK_STRING ? 1 : 0) - a->start);
}

char *npg_parse_keep_text(struct parser *p, int from, int to)
{
	const char *start = "";
	size_t len = from < to ? stmt_span(p, from, to, &start) : 0;
	char *s = npg_parse_keep(p, len + 1);

	memcpy(s, start, len);
	s[len] = '\0';
	return s;
}

char *npg_parse_stmt_text(const struct parser *p, int from, int to)
{
	struct npg_token whole = { .start = "" };

	if (from < to)
		whole.len = stmt_span(p, from, to, &whole.start);
	return npg_tok_dup(&whole);
}

/*
 * A statement is 432 bytes, so a long file's array is tens of MB, touched
 * once page by page as it fills: with 4 KiB pages the faults were half of
 * the time a 100,000-statement file took to parse. It is allocated once,
 * for the lines that hold something other than blanks and a comment (a
 * line holds one statement at most), and asks for transparent huge pages,
 * which the kernel gives where THP is "madvise" or "always" and ignores
 * otherwise.
 */
void npg_parse_reserve_stmts(struct parser *p, const char *text, size_t len)
{
	const uintptr_t huge = 2u << 20;
	size_t lines = 0;
	bool blank = true;
	uintptr_t start, end;

	for (size_t i = 0; i < len; i++) {
		if (text[i] == '\n') {
			blank = true;
		} else if (blank && text[i] != ' ' && text[i] != '\t' && text[i] != '\r') {
			blank = false;
			lines += text[i] != '#';
		}
	}
	if (lines == 0 || lines > INT_MAX / 2)
		return;	/* npg_parse_new_stmt() grows it as it goes */
	p->sc->stmts = npg_parse_calloc(lines, sizeof(*p->sc->stmts));
	p->stmt_cap = (int)lines;
	start = ((uintptr_t)p->sc->stmts + huge - 1) & ~(huge - 1);
	end = ((uintptr_t)p->sc->stmts + lines * sizeof(*p->sc->stmts)) & ~(huge - 1);
	if (end > start)
		madvise((void *)start, end - start, MADV_HUGEPAGE);
}

struct npg_stmt *npg_parse_new_stmt(struct parser *p, enum npg_stmt_kind kind)
{
	struct npg_scenario *sc = p->sc;
	struct npg_stmt *st;

	if (sc->nstmts == p->stmt_cap) {
		int cap = p->stmt_cap ? p->stmt_cap * 2 : 16;
		struct npg_stmt *grown = realloc(sc->stmts, (size_t)cap * sizeof(*grown));

		if (!grown) {
			perror("nprocguard");
			exit(2);
		}
		sc->stmts = grown;
		p->stmt_cap = cap;
	}
	st = &sc->stmts[sc->nstmts];
	memset(st, 0, sizeof(*st));
	st->kind = kind;
	st->line = p->line;
	st->col = p->tok[0].col;
	st->task = -1;
	return st;
}

void npg_parse_commit_stmt(struct parser *p)
{
	p->sc->nstmts++;
}

