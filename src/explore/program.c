/*
 * Compiling a concurrent scenario (program.h). The file is split once:
 * "TASK... runs:" headers with their indented blocks and always/never lines
 * are the explorer's; every other line goes, at its own line number, to the
 * scenario parser, which also parses each program operation
 * (npg_scenario_parse_op), so errors come out as file:line:col either way.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "explore/expr.h"
#include "explore/program.h"
#include "scenario/lexer.h"

#define MAX_HEADERS 256

enum line_kind { L_DECL, L_BLANK, L_HEADER, L_BODY, L_PROP };

struct header {
	int line;
	int ntask;
	struct npg_token names[NPG_MAX_TOKENS];
	int first_body, last_body;	/* line numbers, inclusive; 0 if none */
	bool used[NPG_MAX_TOKENS];
};

struct compiler {
	struct npg_cprog *cp;
	const char *file;
	FILE *err;
	int nerrors;
	int nlines;
	const char **line_start;
	size_t *line_len;
	enum line_kind *kind;
	int nheaders;
	struct header headers[MAX_HEADERS];
	int *queue, qhead, qtail;	/* tasks whose program is still to compile */
	int *header_of;			/* per task: the header that gives its program, -1 */
};

static void cerror(struct compiler *c, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void cerror(struct compiler *c, int line, int col, const char *fmt, ...)
{
	va_list ap;

	if (c->nerrors++ >= 20 || !c->err)
		return;
	fprintf(c->err, "%s:%d:%d: ", c->file, line, col);
	va_start(ap, fmt);
	vfprintf(c->err, fmt, ap);
	va_end(ap);
	fputc('\n', c->err);
}

static void *xcalloc(size_t n, size_t size)
{
	void *m = calloc(n ? n : 1, size);

	if (!m) {
		fputs("nprocguard: out of memory\n", stderr);
		exit(2);
	}
	return m;
}

static bool tok_is(const struct npg_token *t, const char *w)
{
	return t->kind == NPG_TOK_WORD && t->len == strlen(w) && memcmp(t->start, w, t->len) == 0;
}

/* "NAME... runs:" with nothing after the colon: the number of names, else 0 */
static int header_names(const struct npg_token *tok, int ntok)
{
	int i;

	for (i = 0; i < ntok && tok[i].kind == NPG_TOK_WORD && !tok_is(&tok[i], "runs"); i++)
		;
	if (i == 0 || i + 2 != ntok || !tok_is(&tok[i], "runs") || tok[i + 1].kind != NPG_TOK_COLON)
		return 0;
	return i;
}

static int lex(const struct compiler *c, int line, struct npg_token *tok)
{
	int err_col;
	const char *msg;

	return npg_lex_line(c->line_start[line], c->line_len[line], tok, NPG_MAX_TOKENS,
			    &err_col, &msg);
}

/* Split the text into lines and sort them out */
static void classify(struct compiler *c, char *text, size_t len)
{
	struct npg_token tok[NPG_MAX_TOKENS];
	bool in_block = false;
	size_t pos = 0;
	int n = 0;

	for (size_t i = 0; i < len; i++)
		n += text[i] == '\n';
	c->line_start = xcalloc((size_t)n + 2, sizeof(*c->line_start));
	c->line_len = xcalloc((size_t)n + 2, sizeof(*c->line_len));
	c->kind = xcalloc((size_t)n + 2, sizeof(*c->kind));
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - (text + pos)) : len - pos;
		int line = ++c->nlines, ntok;
		bool indented = l > 0 && (text[pos] == ' ' || text[pos] == '\t');

		c->line_start[line] = text + pos;
		c->line_len[line] = l;
		pos += l + (nl ? 1 : 0);
		ntok = memchr(c->line_start[line], '\0', l) ? -1 : lex(c, line, tok);
		if (ntok == 0) {
			c->kind[line] = L_BLANK;
		} else if (ntok > 0 && !indented && header_names(tok, ntok)) {
			c->kind[line] = L_HEADER;
			in_block = true;
			c->cp->concurrent = true;
		} else if (in_block && indented) {
			c->kind[line] = L_BODY;
		} else if (ntok > 0 && (tok_is(&tok[0], "always") || tok_is(&tok[0], "never"))) {
			c->kind[line] = L_PROP;
			in_block = false;
		} else {
			c->kind[line] = L_DECL;	/* the scenario parser reports what is wrong */
			in_block = false;
		}
	}
}

/* The text the scenario parser sees: our lines blanked, line numbers kept */
static char *declarations_only(const struct compiler *c, size_t *len)
{
	size_t total = 0, pos = 0;
	char *out;

	for (int l = 1; l <= c->nlines; l++)
		total += c->line_len[l] + 1;
	out = xcalloc(total + 1, 1);
	for (int l = 1; l <= c->nlines; l++) {
		if (c->kind[l] == L_DECL) {
			memcpy(out + pos, c->line_start[l], c->line_len[l]);
			pos += c->line_len[l];
		}
		out[pos++] = '\n';
	}
	*len = pos;
	return out;
}

static void collect_headers(struct compiler *c)
{
	struct npg_token tok[NPG_MAX_TOKENS];

	for (int l = 1; l <= c->nlines; l++) {
		struct header *h;
		int ntok;

		if (c->kind[l] == L_BODY && c->nheaders > 0) {
			h = &c->headers[c->nheaders - 1];
			if (!h->first_body)
				h->first_body = l;
			h->last_body = l;
		}
		if (c->kind[l] != L_HEADER)
			continue;
		if (c->nheaders == MAX_HEADERS) {
			cerror(c, l, 1, "more than %d 'runs:' blocks", MAX_HEADERS);
			continue;
		}
		ntok = lex(c, l, tok);
		h = &c->headers[c->nheaders++];
		h->line = l;
		h->ntask = header_names(tok, ntok);
		memcpy(h->names, tok, sizeof(tok[0]) * (size_t)h->ntask);
	}
}

/* The header whose names include @name (a task's name or its family's), or -1 */
static int header_for(struct compiler *c, const char *name, size_t len, int *which)
{
	for (int i = 0; i < c->nheaders; i++)
		for (int k = 0; k < c->headers[i].ntask; k++) {
			const struct npg_token *t = &c->headers[i].names[k];

			if (t->len == len && memcmp(t->start, name, len) == 0) {
				*which = k;
				return i;
			}
		}
	return -1;
}

static void enqueue(struct compiler *c, int task, const char *base)
{
	int which, h = header_for(c, base, strlen(base), &which);

	if (h < 0)
		return;
	c->headers[h].used[which] = true;
	c->header_of[task] = h;
	c->queue[c->qtail++] = task;
}

static int add_family(struct npg_cprog *cp, const char *base)
{
	for (int f = 0; f < cp->nfamilies; f++)
		if (strcmp(cp->families[f], base) == 0)
			return f;
	cp->families = realloc(cp->families, sizeof(char *) * (size_t)(cp->nfamilies + 1));
	if (!cp->families) {
		fputs("nprocguard: out of memory\n", stderr);
		exit(2);
	}
	cp->families[cp->nfamilies] = strdup(base);
	return cp->nfamilies++;
}

static void push_instr(struct compiler *c, struct npg_prog *pg, enum npg_guard g,
		       const struct npg_stmt *st, int line)
{
	if (pg->ninstr == NPG_MAX_INSTR) {
		cerror(c, line, 1, "more than %d operations in one task's program (after repeat)",
		       NPG_MAX_INSTR);
		free(st->text);
		return;
	}
	if (pg->ninstr % 64 == 0) {
		pg->instr = realloc(pg->instr, sizeof(*pg->instr) * (size_t)(pg->ninstr + 64));
		if (!pg->instr) {
			fputs("nprocguard: out of memory\n", stderr);
			exit(2);
		}
	}
	pg->instr[pg->ninstr].guard = g;
	pg->instr[pg->ninstr].st = *st;
	pg->ninstr++;
}

/* One body line of task @t's program: [repeat N:] [if it failed|succeeded:] OP ARGS */
static void compile_line(struct compiler *c, int t, int line)
{
	struct npg_cprog *cp = c->cp;
	struct npg_token tok[NPG_MAX_TOKENS];
	const char *nul = memchr(c->line_start[line], '\0', c->line_len[line]), *msg;
	int err_col, k = 0, ntok;
	long repeat = 1;
	enum npg_guard guard = NPG_GUARD_NONE;

	/* what the lexer says of the line, as the scenario parser says it of others */
	if (nul) {
		cerror(c, line, (int)(nul - c->line_start[line]) + 1, "NUL byte in scenario text");
		return;
	}
	ntok = npg_lex_line(c->line_start[line], c->line_len[line], tok, NPG_MAX_TOKENS, &err_col,
			    &msg);
	if (ntok < 0) {
		cerror(c, line, err_col, "%s", msg);
		return;
	}
	if (ntok == 0)	/* classify() makes such a line blank: never a body line */
		return;
	if (tok_is(&tok[0], "repeat")) {
		char *end;

		errno = 0;
		repeat = ntok > 1 ? strtol(tok[1].start, &end, 10) : 0;
		if (ntok < 3 || tok[1].kind != NPG_TOK_WORD || end != tok[1].start + tok[1].len ||
		    repeat < 1 || repeat > NPG_MAX_REPEAT || tok[2].kind != NPG_TOK_COLON) {
			cerror(c, line, ntok > 1 ? tok[1].col : tok[0].col,
			       "expected 'repeat N: OPERATION' with N from 1 to %d", NPG_MAX_REPEAT);
			return;
		}
		k = 3;
	}
	if (k < ntok && tok_is(&tok[k], "if")) {
		if (k + 3 >= ntok || !tok_is(&tok[k + 1], "it") ||
		    !(tok_is(&tok[k + 2], "failed") || tok_is(&tok[k + 2], "succeeded")) ||
		    tok[k + 3].kind != NPG_TOK_COLON) {
			cerror(c, line, tok[k].col,
			       "expected 'if it failed: OPERATION' or 'if it succeeded: OPERATION'");
			return;
		}
		guard = tok_is(&tok[k + 2], "failed") ? NPG_GUARD_FAILED : NPG_GUARD_SUCCEEDED;
		k += 4;
	}
	if (k >= ntok) {
		cerror(c, line, tok[ntok - 1].col + (int)tok[ntok - 1].len, "missing an operation");
		return;
	}
	for (long r = 1; r <= repeat; r++) {
		bool forks = tok_is(&tok[k], "fork") || tok_is(&tok[k], "thread");
		const char *text = c->line_start[line];
		size_t len = c->line_len[line];
		char *synth = NULL;
		char base[64] = "";
		struct npg_stmt st;
		int rc;

		if (forks && repeat > 1 && k + 1 < ntok) {
			/* the r-th child of a repeated fork is NAME.r: the same line with
			 * the name lengthened, so columns before it still hold */
			const struct npg_token *nm = &tok[k + 1];
			size_t off = (size_t)(nm->start - text), tail = len - off - nm->len;

			snprintf(base, sizeof(base), "%.*s", (int)(nm->len > 40 ? 40 : nm->len), nm->start);
			synth = xcalloc(len + 16, 1);
			memcpy(synth, text, off);
			len = off + (size_t)sprintf(synth + off, "%s.%ld", base, r);
			memcpy(synth + len, nm->start + nm->len, tail);
			len += tail;
			text = synth;
		}
		rc = npg_scenario_parse_op(cp->sc, c->file, line, text, len, k, t, &st, c->err);
		free(synth);
		if (rc < 0) {
			c->nerrors++;
			return;
		}
		push_instr(c, &cp->progs[t], guard, &st, line);
		if (forks && st.op.target >= 0) {
			int child = st.op.target;

			cp->sc->tasks[child].line = line;
			if (repeat > 1) {
				cp->family[child] = add_family(cp, base);
				enqueue(c, child, base);
			} else {
				enqueue(c, child, cp->sc->tasks[child].name);
			}
		}
	}
}

static void compile_programs(struct compiler *c)
{
	struct npg_cprog *cp = c->cp;
	struct npg_scenario *sc = cp->sc;

	c->queue = xcalloc(NPG_MAX_TASKS + 1, sizeof(int));
	c->header_of = xcalloc(NPG_MAX_TASKS + 1, sizeof(int));
	for (int t = 0; t < NPG_MAX_TASKS; t++)
		c->header_of[t] = -1;
	for (int t = 0; t < sc->ntasks; t++)
		if (sc->tasks[t].initial)
			enqueue(c, t, sc->tasks[t].name);
	while (c->qhead < c->qtail) {
		int t = c->queue[c->qhead++];
		const struct header *h = &c->headers[c->header_of[t]];
		int before = sc->ntasks;

		for (int l = h->first_body; l && l <= h->last_body; l++)
			if (c->kind[l] == L_BODY)
				compile_line(c, t, l);
		if (cp->family[t] >= 0 && sc->ntasks != before)
			cerror(c, h->line, 1, "'%s' is forked by 'repeat': its program cannot fork or "
			       "make threads (the new tasks would have no names of their own)",
			       sc->tasks[t].name);
	}
	for (int i = 0; i < c->nheaders; i++) {
		const struct header *h = &c->headers[i];

		if (!h->first_body)
			cerror(c, h->line, 1, "an empty 'runs:' block (indent the program's lines)");
		for (int k = 0; k < h->ntask; k++)
			if (!h->used[k])
				cerror(c, h->line, h->names[k].col,
				       "no task '%.*s' is declared or forked by a program",
				       (int)(h->names[k].len > 64 ? 64 : h->names[k].len), h->names[k].start);
	}
	/* a task named twice: its first block wins in enqueue order; say so */
	for (int i = 0; i < c->nheaders; i++)
		for (int k = 0; k < c->headers[i].ntask; k++)
			for (int j = i; j < c->nheaders; j++)
				for (int m = (j == i ? k + 1 : 0); m < c->headers[j].ntask; m++)
					if (c->headers[i].names[k].len == c->headers[j].names[m].len &&
					    !memcmp(c->headers[i].names[k].start, c->headers[j].names[m].start,
						    c->headers[i].names[k].len))
						cerror(c, c->headers[j].line, c->headers[j].names[m].col,
						       "task '%.*s' already has a program (line %d)",
						       (int)c->headers[j].names[m].len,
						       c->headers[j].names[m].start, c->headers[i].line);
}

static void compile_properties(struct compiler *c)
{
	struct npg_cprog *cp = c->cp;
	struct npg_token tok[NPG_MAX_TOKENS];

	for (int l = 1; l <= c->nlines; l++) {
		struct npg_user_prop *p;
		int ntok;

		if (c->kind[l] != L_PROP)
			continue;
		if (cp->nalways == NPG_MAX_ALWAYS) {
			cerror(c, l, 1, "more than %d always/never properties", NPG_MAX_ALWAYS);
			return;
		}
		ntok = lex(c, l, tok);
		p = &cp->always[cp->nalways];
		p->never = tok_is(&tok[0], "never");
		p->line = l;
		p->expr = npg_expr_parse(cp, c->file, l, tok, 1, ntok, c->err);
		if (!p->expr) {
			c->nerrors++;
			continue;
		}
		p->text = xcalloc(c->line_len[l] + 1, 1);
		memcpy(p->text, c->line_start[l] + (tok[0].start - c->line_start[l]),
		       c->line_len[l] - (size_t)(tok[0].start - c->line_start[l]));
		/* drop a trailing comment */
		if (strchr(p->text, '#'))
			*strchr(p->text, '#') = '\0';
		for (size_t n = strlen(p->text); n && (p->text[n - 1] == ' ' || p->text[n - 1] == '\t'); n--)
			p->text[n - 1] = '\0';
		cp->nalways++;
	}
}

static bool same_decl(const struct npg_task_decl *a, const struct npg_task_decl *b)
{
	return a->initial && b->initial && !a->thread && !b->thread &&
	       a->caps_explicit == b->caps_explicit && a->nproc_cur == b->nproc_cur &&
	       a->nproc_max == b->nproc_max && memcmp(&a->cred, &b->cred, sizeof(a->cred)) == 0;
}

static bool program_forks(const struct npg_prog *pg)
{
	for (int i = 0; i < pg->ninstr; i++)
		if (pg->instr[i].st.op.code == NPG_OP_FORK || pg->instr[i].st.op.code == NPG_OP_THREAD)
			return true;
	return false;
}

/* Which tasks are interchangeable (program.h, klass) */
static void symmetry_classes(struct compiler *c)
{
	struct npg_cprog *cp = c->cp;
	const struct npg_scenario *sc = cp->sc;
	bool *named = xcalloc((size_t)sc->ntasks, sizeof(bool));
	int nclass = 0;

	for (int t = 0; t < sc->ntasks; t++) {
		const struct npg_prog *pg = &cp->progs[t];

		for (int i = 0; i < pg->ninstr; i++) {
			const struct npg_op *op = &pg->instr[i].st.op;

			if (op->code != NPG_OP_FORK && op->code != NPG_OP_THREAD &&
			    op->code != NPG_OP_UNSHARE_USER && op->target >= 0 && op->target != t)
				named[op->target] = true;
		}
	}
	for (int i = 0; i < cp->nalways; i++)
		npg_expr_mark_named(cp->always[i].expr, named);
	for (int t = 0; t < sc->ntasks; t++)
		cp->klass[t] = -1;
	for (int t = 0; t < sc->ntasks; t++) {
		if (named[t] || cp->klass[t] >= 0 || program_forks(&cp->progs[t]))
			continue;
		for (int u = t + 1; u < sc->ntasks; u++) {
			bool alike;

			if (named[u] || cp->klass[u] >= 0 || c->header_of[u] != c->header_of[t])
				continue;
			alike = cp->family[t] >= 0 ? cp->family[u] == cp->family[t]
						   : cp->family[u] < 0 &&
						     same_decl(&sc->tasks[t], &sc->tasks[u]);
			if (!alike)
				continue;
			if (cp->klass[t] < 0)
				cp->klass[t] = nclass++;
			cp->klass[u] = cp->klass[t];
		}
	}
	free(named);
}

static void add_uid(struct npg_cprog *cp, npg_id id)
{
	if (id == NPG_ID_NONE)
		return;
	for (int i = 0; i < cp->nuids; i++)
		if (cp->uids[i] == id)
			return;
	cp->uids = realloc(cp->uids, sizeof(*cp->uids) * (size_t)(cp->nuids + 1));
	if (!cp->uids) {
		fputs("nprocguard: out of memory\n", stderr);
		exit(2);
	}
	cp->uids[cp->nuids++] = id;
}

static void add_prog_uids(struct npg_cprog *cp, const struct npg_prog *pg)
{
	for (int i = 0; i < pg->ninstr; i++) {
		const struct npg_op *op = &pg->instr[i].st.op;

		if (op->code >= NPG_OP_SETUID && op->code <= NPG_OP_SETFSUID)
			for (int k = 0; k < 3; k++)
				add_uid(cp, op->id[k]);
	}
}

static void collect_uids(struct npg_cprog *cp)
{
	const struct npg_scenario *sc = cp->sc;

	add_uid(cp, 0);
	for (int i = 0; i < sc->nnames; i++)
		if (!sc->names[i].group)
			add_uid(cp, sc->names[i].id);
	for (int t = 0; t < sc->ntasks; t++) {
		add_uid(cp, sc->tasks[t].cred.uid.real);
		add_uid(cp, sc->tasks[t].cred.uid.eff);
		add_uid(cp, sc->tasks[t].cred.uid.saved);
		add_prog_uids(cp, &cp->progs[t]);
	}
	add_prog_uids(cp, &cp->seq);
}

/* A sequential file: its steps, in order, are one program; checks are for `run` */
static void sequential_program(struct npg_cprog *cp)
{
	const struct npg_scenario *sc = cp->sc;

	for (int i = 0; i < sc->nstmts; i++) {
		struct npg_stmt st;

		if (sc->stmts[i].kind != NPG_STMT_STEP)
			continue;
		st = sc->stmts[i];
		st.text = strdup(sc->stmts[i].text ? sc->stmts[i].text : "");
		memset(&st.expect, 0, sizeof(st.expect));
		if (cp->seq.ninstr % 64 == 0) {
			cp->seq.instr = realloc(cp->seq.instr, sizeof(*cp->seq.instr) *
						(size_t)(cp->seq.ninstr + 64));
			if (!cp->seq.instr) {
				fputs("nprocguard: out of memory\n", stderr);
				exit(2);
			}
		}
		cp->seq.instr[cp->seq.ninstr++] = (struct npg_instr){ .guard = NPG_GUARD_NONE, .st = st };
	}
}

static void declaration_lines(struct compiler *c)
{
	struct npg_cprog *cp = c->cp;
	struct npg_token tok[NPG_MAX_TOKENS];

	cp->decl_lines = xcalloc((size_t)c->nlines + 1, sizeof(int));
	for (int l = 1; l <= c->nlines; l++) {
		int ntok;

		if (c->kind[l] != L_DECL)
			continue;
		ntok = lex(c, l, tok);
		if (ntok <= 0 || tok_is(&tok[0], "policies") || tok_is(&tok[0], "check") ||
		    (ntok >= 2 && tok[1].kind == NPG_TOK_COLON))
			continue;
		cp->decl_lines[cp->ndecl++] = l;
	}
}

struct npg_cprog *npg_cprog_load(const char *path, FILE *err)
{
	const char *name = npg_scenario_name(path);	/* "-": <stdin> */
	struct compiler c = { .file = name, .err = err };
	struct npg_cprog *cp = xcalloc(1, sizeof(*cp));
	size_t len, dlen;
	char *decl;

	c.cp = cp;
	cp->text = npg_scenario_read(path, name, &len, err);
	if (!cp->text) {
		free(cp);
		return NULL;
	}
	classify(&c, cp->text, len);
	decl = declarations_only(&c, &dlen);
	cp->sc = npg_scenario_parse(name, decl, dlen, err);
	free(decl);
	if (!cp->sc)
		goto fail;
	/* room for every task the parser may add (its limit is NPG_MAX_TASKS) */
	cp->progs = xcalloc(NPG_MAX_TASKS + 1, sizeof(*cp->progs));
	cp->family = xcalloc(NPG_MAX_TASKS + 1, sizeof(int));
	cp->klass = xcalloc(NPG_MAX_TASKS + 1, sizeof(int));
	for (int t = 0; t <= NPG_MAX_TASKS; t++)
		cp->family[t] = -1;
	if (cp->concurrent) {
		for (int i = 0; i < cp->sc->nstmts; i++) {
			cerror(&c, cp->sc->stmts[i].line, cp->sc->stmts[i].col,
			       "a step or check outside a 'runs:' block: in a concurrent scenario "
			       "every step belongs to a task's program");
			break;
		}
		collect_headers(&c);
		compile_programs(&c);
	} else {
		sequential_program(cp);
		c.header_of = xcalloc(NPG_MAX_TASKS + 1, sizeof(int));
	}
	compile_properties(&c);
	if (cp->concurrent)
		symmetry_classes(&c);
	else
		for (int t = 0; t < cp->sc->ntasks; t++)
			cp->klass[t] = -1;
	collect_uids(cp);
	declaration_lines(&c);
	if (c.nerrors > 20 && err)
		fprintf(err, "%s: %d more errors\n", name, c.nerrors - 20);
fail:
	free(c.line_start);
	free(c.line_len);
	free(c.kind);
	free(c.queue);
	free(c.header_of);
	if (c.nerrors || !cp->sc) {
		npg_cprog_free(cp);
		return NULL;
	}
	return cp;
}

static void free_prog(struct npg_prog *pg)
{
	for (int i = 0; i < pg->ninstr; i++)
		free(pg->instr[i].st.text);
	free(pg->instr);
}

void npg_cprog_free(struct npg_cprog *cp)
{
	if (!cp)
		return;
	if (cp->progs)
		for (int t = 0; t <= NPG_MAX_TASKS; t++)
			free_prog(&cp->progs[t]);
	free_prog(&cp->seq);
	for (int i = 0; i < cp->nalways; i++) {
		npg_expr_free(cp->always[i].expr);
		free(cp->always[i].text);
	}
	for (int f = 0; f < cp->nfamilies; f++)
		free(cp->families[f]);
	free(cp->families);
	free(cp->progs);
	free(cp->family);
	free(cp->klass);
	free(cp->uids);
	free(cp->decl_lines);
	npg_scenario_free(cp->sc);
	free(cp->text);
	free(cp);
}

const char *npg_cprog_line(const struct npg_cprog *cp, int line, size_t *len)
{
	const char *p = cp->text;

	for (int l = 1; l < line && p; l++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!p) {
		*len = 0;
		return "";
	}
	*len = strchrnul(p, '\n') - p;
	return p;
}

bool npg_cprog_is_concurrent_file(const char *path)
{
	struct compiler c = { .file = path };
	struct npg_cprog cp = { 0 };
	size_t len;
	char *text = npg_scenario_read(path, path, &len, NULL);

	if (!text)
		return false;
	c.cp = &cp;
	classify(&c, text, len);
	free(c.line_start);
	free(c.line_len);
	free(c.kind);
	free(text);
	return cp.concurrent;
}
