/*
 * Checks: 'check TASK PROPERTY -> VALUE' and 'check count USER -> N'.
 */
#include "scenario/parse.h"

static const struct {
	const char *name;
	enum npg_check_kind kind;
} check_props[] = {
	{ "uids", NPG_CHECK_UIDS }, { "gids", NPG_CHECK_GIDS }, { "ruid", NPG_CHECK_RUID },
	{ "euid", NPG_CHECK_EUID }, { "suid", NPG_CHECK_SUID }, { "fsuid", NPG_CHECK_FSUID },
	{ "flag", NPG_CHECK_FLAG }, { "state", NPG_CHECK_STATE }, { "exit", NPG_CHECK_EXIT },
	{ "cap", NPG_CHECK_CAP }, { "nproc", NPG_CHECK_NPROC }, { "userns", NPG_CHECK_USERNS },
	{ "no_new_privs", NPG_CHECK_NO_NEW_PRIVS }, { "tracer", NPG_CHECK_TRACER },
	{ "dumpable", NPG_CHECK_DUMPABLE },
	{ NULL, 0 },
};

/* check count USER | check TASK PROPERTY [NAME] */
void npg_parse_check(struct parser *p)
{
	struct npg_stmt *st = npg_parse_new_stmt(p, NPG_STMT_CHECK);
	int arrow = npg_parse_find_arrow(p), i;

	if (!npg_parse_expect_word(p, 1, "'count' or a task name"))
		goto bad;
	if (npg_tok_is(&p->tok[1], "count")) {
		st->check = NPG_CHECK_COUNT;
		if (!npg_parse_id(p, 2, false, false, &st->user))
			goto bad;
		i = 3;
		if (i < arrow && npg_tok_is(&p->tok[i], "in")) {
			int ns;

			if (!npg_parse_expect_word(p, i + 1, "a namespace name"))
				goto bad;
			ns = npg_parse_find_userns(p->sc, &p->tok[i + 1]);
			if (ns < 0 && !npg_tok_is(&p->tok[i + 1], "initial")) {
				npg_parse_error(p, p->tok[i + 1].col, "unknown namespace '%.*s%s' (one an "
						"earlier 'unshare user' names, or 'initial')",
						TOKLEN(p->tok[i + 1].len), p->tok[i + 1].start,
						TOKCUT(p->tok[i + 1].len));
				goto bad;
			}
			st->ns = ns + 1;
			i += 2;
		}
	} else {
		int k;

		if (!npg_parse_task_ref(p, 1, &st->task) || !npg_parse_expect_word(p, 2, "a property"))
			goto bad;
		for (k = 0; check_props[k].name && !npg_tok_is(&p->tok[2], check_props[k].name); k++)
			;
		if (!check_props[k].name) {
			npg_parse_error(p, p->tok[2].col,
					"unknown property '%.*s%s' (uids gids ruid euid suid fsuid flag state exit cap nproc userns no_new_privs tracer dumpable)",
					TOKLEN(p->tok[2].len), p->tok[2].start, TOKCUT(p->tok[2].len));
			goto bad;
		}
		st->check = check_props[k].kind;
		i = 3;
		if (st->check == NPG_CHECK_CAP) {
			if (!npg_parse_expect_word(p, 3, "a capability name") ||
			    !npg_parse_cap_name(p, &p->tok[3], &st->cap))
				goto bad;
			i = 4;
		}
	}
	if (!npg_parse_expect_end(p, i, arrow))
		goto bad;
	st->text = npg_parse_keep_text(p, 1, arrow);
	if (arrow < p->ntok && !npg_parse_expect(p, st, arrow))
		goto bad;
	npg_parse_commit_stmt(p);
bad:
	return;	/* what the statement kept goes with the scenario */
}
