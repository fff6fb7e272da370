/*
 * The scenario parser: one line at a time, each to its section of the
 * language (declarations.c, steps.c, checks.c), over one cursor (cursor.c),
 * errors as file:line:col.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/policy.h"
#include "scenario/parse.h"

/* "TASK... runs:" opens a concurrent program, which only explore reads */
static bool opens_program(const struct parser *p)
{
	for (int i = 1; i + 1 < p->ntok && p->tok[i].kind == NPG_TOK_WORD; i++)
		if (npg_tok_is(&p->tok[i], "runs") && p->tok[i + 1].kind == NPG_TOK_COLON)
			return true;
	return false;
}

static void parse_line(struct parser *p)
{
	const struct npg_token *t0 = &p->tok[0];

	if (t0->kind == NPG_TOK_WORD && opens_program(p)) {
		npg_parse_error(p, t0->col, "a concurrent program ('runs:'): this file is for "
				"'nprocguard explore' (doc/scenario-language.md)");
		p->err = NULL;	/* one message says it: the program lines would only repeat it */
	} else if (p->ntok >= 2 && t0->kind == NPG_TOK_WORD && p->tok[1].kind == NPG_TOK_COLON) {
		npg_parse_step(p);
	} else if (npg_tok_is(t0, "check")) {
		npg_parse_check(p);
	} else if (npg_tok_is(t0, "scenario")) {
		npg_parse_string_decl(p, &p->sc->title, "scenario");
	} else if (npg_tok_is(t0, "source")) {
		npg_parse_string_decl(p, &p->sc->source, "source");
	} else if (npg_tok_is(t0, "policies")) {
		npg_parse_policies(p);
	} else if (npg_tok_is(t0, "bounding")) {
		npg_parse_bounding(p);
	} else if (npg_tok_is(t0, "yama")) {
		npg_parse_yama(p);
	} else if (npg_tok_is(t0, "file")) {
		npg_parse_file_decl(p);
	} else if (npg_tok_is(t0, "user") || npg_tok_is(t0, "group") || npg_tok_is(t0, "task")) {
		if (p->sc->nstmts > 0) {
			npg_parse_error(p, t0->col, "declare users, groups and tasks before the first step");
			return;
		}
		if (npg_tok_is(t0, "task"))
			npg_parse_task_decl(p);
		else
			npg_parse_name_decl(p, npg_tok_is(t0, "group"));
	} else {
		npg_parse_error(p, t0->col, "unknown statement '%.*s%s' (expected TASK: OPERATION, check, "
				"user, group, task, scenario, source or policies)", TOKLEN(t0->len), t0->start, TOKCUT(t0->len));
	}
}

struct npg_scenario *npg_scenario_parse(const char *file, const char *text, size_t len,
					FILE *err)
{
	struct parser p = { .file = file, .err = err };
	size_t pos = 0;

	p.sc = npg_parse_calloc(1, sizeof(*p.sc));
	p.sc->yama_scope = -1;
	p.sc->file = strdup(file);
	p.sc->tasks = npg_parse_calloc(MAX_TASKS, sizeof(*p.sc->tasks));
	p.sc->names = npg_parse_calloc(MAX_NAMES + MAX_NUMERIC, sizeof(*p.sc->names));
	p.sc->files = npg_parse_calloc(NPG_MAX_FILES, sizeof(*p.sc->files));
	p.numeric = npg_parse_calloc(MAX_NUMERIC + 1, sizeof(*p.numeric));
	p.dead = npg_parse_calloc(MAX_TASKS, sizeof(*p.dead));
	p.vfork_child = npg_parse_calloc(MAX_TASKS, sizeof(*p.vfork_child));
	npg_parse_reserve_stmts(&p, text, len);
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t linelen = nl ? (size_t)(nl - (text + pos)) : len - pos;
		int err_col;
		const char *msg;

		p.line++;
		p.text = text + pos;
		p.textlen = linelen;
		if (memchr(p.text, '\0', linelen)) {
			npg_parse_error(&p, (int)((const char *)memchr(p.text, '\0', linelen) - p.text) + 1,
					"NUL byte in scenario text");
		} else {
			p.ntok = npg_lex_line(p.text, linelen, p.tok, NPG_MAX_TOKENS, &err_col, &msg);
			if (p.ntok < 0)
				npg_parse_error(&p, err_col, "%s", msg);
			else if (p.ntok > 0)
				parse_line(&p);
		}
		pos += linelen + (nl ? 1 : 0);
	}
	if (p.nerrors == 0)
		npg_parse_name_numeric_uids(&p);
	free(p.numeric);
	free(p.dead);
	free(p.vfork_child);
	if (p.sc->policies == 0)
		p.sc->policies = (1u << NPG_NPOLICIES) - 1;
	if (p.nerrors == 0 && p.sc->ntasks == 0) {
		p.line = 1;
		npg_parse_error(&p, 1, "scenario declares no task");
	}
	if (p.nerrors > MAX_ERRORS && err)
		fprintf(err, "%s: %d more errors\n", file, p.nerrors - MAX_ERRORS);
	if (p.nerrors) {
		npg_scenario_free(p.sc);
		return NULL;
	}
	return p.sc;
}

void npg_scenario_free(struct npg_scenario *sc)
{
	if (!sc)
		return;
	npg_scenario_free_blocks(sc);	/* the statements' texts and expectations */
	for (int i = 0; i < sc->ntasks; i++)
		free(sc->tasks[i].name);
	for (int i = 0; i < sc->nnames; i++)
		free(sc->names[i].name);
	for (int i = 0; i < sc->nfiles; i++)
		free(sc->files[i].path);
	for (int i = 0; i < sc->nuserns; i++)
		free(sc->userns[i].name);
	free(sc->userns);
	free(sc->files);
	free(sc->stmts);
	free(sc->tasks);
	free(sc->names);
	free(sc->file);
	free(sc->title);
	free(sc->source);
	free(sc);
}
