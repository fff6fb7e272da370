/*
 * Expectations: what follows a statement's '->', per policy -- a step's
 * result (ok, an errno, killed by a signal, ...) or a check's value.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/policy.h"
#include "scenario/parse.h"

/* ---- expectations ---- */

static int lookup_errno(const char *name)
{
	for (int e = 1; e < 4096; e++) {
		const char *n = strerrorname_np(e);

		if (n && strcmp(n, name) == 0)
			return e;
	}
	return 0;
}

static int lookup_signal(const char *name)
{
	if (strncmp(name, "SIG", 3) == 0)
		name += 3;
	for (int s = 1; s < NSIG; s++) {
		const char *n = sigabbrev_np(s);

		if (n && strcmp(n, name) == 0)
			return s;
	}
	return 0;
}

static bool value_words(struct parser *p, int from, int to, int want, const char *what)
{
	if (to - from != want) {
		npg_parse_error(p, from < to ? p->tok[from].col : npg_parse_end_col(p), "expected %s", what);
		return false;
	}
	for (int i = from; i < to; i++)
		if (p->tok[i].kind != NPG_TOK_WORD) {
			npg_parse_error(p, p->tok[i].col, "expected %s", what);
			return false;
		}
	return true;
}

/* "killed SIGNAL" */
static bool parse_killed(struct parser *p, int from, int to, char *buf, size_t len)
{
	char name[32], sig[32];
	int s;

	if (!value_words(p, from, to, 2, "'killed SIGNAL'") || !npg_tok_is(&p->tok[from], "killed"))
		return false;
	if (!npg_tok_copy(&p->tok[from + 1], name, sizeof(name)) || !(s = lookup_signal(name))) {
		npg_parse_error(p, p->tok[from + 1].col, "unknown signal '%.*s%s'",
				TOKLEN(p->tok[from + 1].len), p->tok[from + 1].start, TOKCUT(p->tok[from + 1].len));
		return false;
	}
	snprintf(buf, len, "killed %s", npg_signal_name(s, sig, sizeof(sig)));
	return true;
}

/* What a step may be expected to return: ok, an errno name, an id, killed SIG, running, dead */
static bool parse_step_value(struct parser *p, const struct npg_stmt *st, int from, int to,
			     char *buf, size_t len)
{
	const struct npg_token *t = &p->tok[from];
	char word[64];
	int e;

	if (from < to && npg_tok_is(t, "killed"))
		return parse_killed(p, from, to, buf, len);
	if (!value_words(p, from, to, 1, "a result (ok, an errno name, killed SIGNAL, running, dead)"))
		return false;
	if (npg_tok_is(t, "ok") || npg_tok_is(t, "running") || npg_tok_is(t, "dead") || npg_tok_is(t, "suspended")) {
		npg_tok_copy(t, buf, len);
		return true;
	}
	if (t->start[0] == 'E' && npg_tok_copy(t, word, sizeof(word))) {
		if (!(e = lookup_errno(word))) {
			npg_parse_error(p, t->col, "unknown errno name '%s'", word);
			return false;
		}
		snprintf(buf, len, "%s", word);
		return true;
	}
	if (st->op.code == NPG_OP_SETFSUID || st->op.code == NPG_OP_SETFSGID) {
		npg_id id;
		bool gid = st->op.code == NPG_OP_SETFSGID;

		if (!npg_parse_id(p, from, gid, false, &id))
			return false;
		npg_render_uid(p->sc, id, gid, buf, len);
		return true;
	}
	npg_parse_error(p, t->col, "expected a result (ok, an errno name, killed SIGNAL, running, dead)");
	return false;
}

static bool parse_word_choice(struct parser *p, int from, int to, const char *const *choices,
			      char *buf, size_t len)
{
	char what[128] = "one of:";

	for (int i = 0; choices[i]; i++) {
		strncat(what, " ", sizeof(what) - strlen(what) - 1);
		strncat(what, choices[i], sizeof(what) - strlen(what) - 1);
	}
	if (!value_words(p, from, to, 1, what))
		return false;
	for (int i = 0; choices[i]; i++)
		if (npg_tok_is(&p->tok[from], choices[i])) {
			snprintf(buf, len, "%s", choices[i]);
			return true;
		}
	npg_parse_error(p, p->tok[from].col, "expected %s", what);
	return false;
}

static bool parse_check_value(struct parser *p, const struct npg_stmt *st, int from, int to,
			      char *buf, size_t len)
{
	static const char *const flag_values[] = { "set", "clear", NULL };
	static const char *const state_values[] = { "running", "zombie", "reaped", "absent", NULL };
	static const char *const yes_no[] = { "yes", "no", NULL };
	uint64_t v, cur, max;
	npg_id ids[3];
	char a[32], b[32], c[32];
	bool gid = st->check == NPG_CHECK_GIDS;

	switch (st->check) {
	case NPG_CHECK_COUNT:
		if (!value_words(p, from, to, 1, "a count"))
			return false;
		if (!npg_tok_u64(&p->tok[from], &v) || v > 1000000) {
			npg_parse_error(p, p->tok[from].col, "bad count '%.*s%s'", TOKLEN(p->tok[from].len),
					p->tok[from].start, TOKCUT(p->tok[from].len));
			return false;
		}
		snprintf(buf, len, "%" PRIu64, v);
		return true;
	case NPG_CHECK_UIDS:
	case NPG_CHECK_GIDS:
		if (!value_words(p, from, to, 3, gid ? "real, effective and saved gids"
						    : "real, effective and saved uids"))
			return false;
		for (int i = 0; i < 3; i++)
			if (!npg_parse_id(p, from + i, gid, false, &ids[i]))
				return false;
		npg_render_uid(p->sc, ids[0], gid, a, sizeof(a));
		npg_render_uid(p->sc, ids[1], gid, b, sizeof(b));
		npg_render_uid(p->sc, ids[2], gid, c, sizeof(c));
		snprintf(buf, len, "%s %s %s", a, b, c);
		return true;
	case NPG_CHECK_RUID:
	case NPG_CHECK_EUID:
	case NPG_CHECK_SUID:
	case NPG_CHECK_FSUID:
		if (!value_words(p, from, to, 1, "a uid") || !npg_parse_id(p, from, false, false, ids))
			return false;
		npg_render_uid(p->sc, ids[0], false, buf, len);
		return true;
	case NPG_CHECK_FLAG:
		return parse_word_choice(p, from, to, flag_values, buf, len);
	case NPG_CHECK_STATE:
		return parse_word_choice(p, from, to, state_values, buf, len);
	case NPG_CHECK_CAP:
	case NPG_CHECK_NO_NEW_PRIVS:
		return parse_word_choice(p, from, to, yes_no, buf, len);
	case NPG_CHECK_EXIT:
		if (from < to && npg_tok_is(&p->tok[from], "killed"))
			return parse_killed(p, from, to, buf, len);
		if (from < to && npg_tok_is(&p->tok[from], "exited")) {
			if (!value_words(p, from, to, 2, "'exited CODE'"))
				return false;
			if (!npg_tok_u64(&p->tok[from + 1], &v) || v > 255) {
				npg_parse_error(p, p->tok[from + 1].col, "bad exit code (0 to 255)");
				return false;
			}
			snprintf(buf, len, "exited %" PRIu64, v);
			return true;
		}
		if (!value_words(p, from, to, 1, "none, exited CODE or killed SIGNAL") ||
		    !npg_tok_is(&p->tok[from], "none")) {
			npg_parse_error(p, p->tok[from < to ? from : to - 1].col,
					"expected none, exited CODE or killed SIGNAL");
			return false;
		}
		snprintf(buf, len, "none");
		return true;
	case NPG_CHECK_NPROC:
		if (to - from != 2) {
			npg_parse_error(p, from < to ? p->tok[from].col : npg_parse_end_col(p),
					"expected SOFT HARD limits");
			return false;
		}
		if (!npg_parse_limit(p, from, &cur) || !npg_parse_limit(p, from + 1, &max))
			return false;
		npg_render_limit(cur, a, sizeof(a));
		npg_render_limit(max, b, sizeof(b));
		snprintf(buf, len, "%s %s", a, b);
		return true;
	case NPG_CHECK_USERNS:
		if (!value_words(p, from, to, 1, "'initial' or a namespace name"))
			return false;
		if (!npg_tok_is(&p->tok[from], "initial") && npg_parse_find_userns(p->sc, &p->tok[from]) < 0) {
			npg_parse_error(p, p->tok[from].col, "unknown namespace '%.*s%s'",
					TOKLEN(p->tok[from].len), p->tok[from].start, TOKCUT(p->tok[from].len));
			return false;
		}
		snprintf(buf, len, "%.*s", (int)p->tok[from].len, p->tok[from].start);
		return true;
	case NPG_CHECK_TRACER:
		if (!value_words(p, from, to, 1, "'none' or a task name"))
			return false;
		if (!npg_tok_is(&p->tok[from], "none") && npg_parse_find_task(p->sc, &p->tok[from]) < 0) {
			npg_parse_error(p, p->tok[from].col, "unknown task '%.*s%s'",
					TOKLEN(p->tok[from].len), p->tok[from].start, TOKCUT(p->tok[from].len));
			return false;
		}
		snprintf(buf, len, "%.*s", (int)p->tok[from].len, p->tok[from].start);
		return true;
	case NPG_CHECK_DUMPABLE:
		/* SUID_DUMP_DISABLE 0, SUID_DUMP_USER 1, SUID_DUMP_ROOT 2; none: exited */
		if (!value_words(p, from, to, 1, "0, 1, 2 or none"))
			return false;
		if (npg_tok_is(&p->tok[from], "none")) {
			snprintf(buf, len, "none");
			return true;
		}
		if (!npg_tok_u64(&p->tok[from], &v) || v > 2) {
			npg_parse_error(p, p->tok[from].col, "dumpable is 0, 1, 2 or none");
			return false;
		}
		snprintf(buf, len, "%" PRIu64, v);
		return true;
	}
	return false;
}

/* POLICY[,POLICY...] before a ':' */
static bool parse_policy_list(struct parser *p, int from, int to, uint32_t *mask)
{
	*mask = 0;
	for (int i = from; i < to; i++) {
		const struct npg_token *t = &p->tok[i];
		const struct npg_policy *pol;
		char name[64];

		if (t->kind == NPG_TOK_COMMA && i > from && i + 1 < to)
			continue;
		if (npg_tok_is(t, "all")) {
			npg_parse_error(p, t->col, "'all:' is the default: write the value without a prefix");
			return false;
		}
		pol = (t->kind == NPG_TOK_WORD && npg_tok_copy(t, name, sizeof(name)))
			      ? npg_policy_find(name) : NULL;
		if (!pol) {
			npg_parse_error(p, t->col, "unknown policy '%.*s%s' (see 'nprocguard policies')",
					TOKLEN(t->len), t->start, TOKCUT(t->len));
			return false;
		}
		*mask |= 1u << npg_policy_index(pol);
	}
	if (*mask == 0) {
		npg_parse_error(p, p->tok[from < to ? from : from - 1].col, "missing policy name before ':'");
		return false;
	}
	return true;
}

/* => VALUE | POLICY[,POLICY]: VALUE | ... */
bool npg_parse_expect(struct parser *p, struct npg_stmt *st, int arrow)
{
	/* gathered here, and only as many as there are kept: a statement's
	 * room for every policy was most of a long file's memory */
	struct npg_expect_alt alt[NPG_NPOLICIES + 1];
	int i = arrow + 1, nalt = 0;
	uint32_t seen = 0;
	bool have_default = false;

	if (i >= p->ntok) {
		npg_parse_error(p, npg_parse_end_col(p), "missing expected value after '=>'");
		return false;
	}
	while (i < p->ntok) {
		int end = i, colon = -1;
		uint32_t mask = 0;
		char buf[128];
		bool good;

		while (end < p->ntok && p->tok[end].kind != NPG_TOK_PIPE) {
			if (p->tok[end].kind == NPG_TOK_COLON && colon < 0)
				colon = end;
			end++;
		}
		if (colon >= 0 && !parse_policy_list(p, i, colon, &mask))
			return false;
		if (mask & seen) {
			npg_parse_error(p, p->tok[i].col, "a policy has two expectations");
			return false;
		}
		if (!mask && have_default) {
			npg_parse_error(p, p->tok[i].col, "two default expectations (prefix one with POLICY:)");
			return false;
		}
		int vfrom = colon >= 0 ? colon + 1 : i;

		if (vfrom >= end) {
			npg_parse_error(p, vfrom < p->ntok ? p->tok[vfrom].col : npg_parse_end_col(p),
					"missing expected value");
			return false;
		}
		p->expecting = true;
		good = st->kind == NPG_STMT_STEP ? parse_step_value(p, st, vfrom, end, buf, sizeof(buf))
						 : parse_check_value(p, st, vfrom, end, buf, sizeof(buf));
		p->expecting = false;
		if (!good)
			return false;
		/* each policy once, and one default: NPG_NPOLICIES + 1 at most */
		alt[nalt] = (struct npg_expect_alt){
			.mask = mask, .text = npg_parse_keep(p, strlen(buf) + 1), .line = p->line,
			.col = p->tok[i].col };
		strcpy(alt[nalt++].text, buf);
		seen |= mask;
		have_default |= !mask;
		if (end < p->ntok && end + 1 >= p->ntok) {
			npg_parse_error(p, p->tok[end].col, "nothing after '|'");
			return false;
		}
		i = end + 1;
	}
	st->expect.alt = npg_parse_keep(p, (size_t)nalt * sizeof(*st->expect.alt));
	memcpy(st->expect.alt, alt, (size_t)nalt * sizeof(*alt));
	st->expect.nalt = nalt;
	return true;
}

const char *npg_expect_for(const struct npg_expect *e, int pi)
{
	const char *def = NULL;

	if (pi < 0)
		return NULL;
	for (int i = 0; i < e->nalt; i++) {
		if (e->alt[i].mask & (1u << pi))
			return e->alt[i].text;
		if (!e->alt[i].mask)
			def = e->alt[i].text;
	}
	return def;
}
