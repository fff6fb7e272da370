/*
 * The values a statement names: uids and gids (a declared name or a number),
 * limits, capabilities and groups, and the names of the scenario's tasks,
 * files and user namespaces.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>

#include "scenario/parse.h"

int npg_parse_find_task(const struct npg_scenario *sc, const struct npg_token *t)
{
	for (int i = 0; i < sc->ntasks; i++)
		if (strlen(sc->tasks[i].name) == t->len &&
		    memcmp(sc->tasks[i].name, t->start, t->len) == 0)
			return i;
	return -1;
}

static const struct npg_name *find_name(const struct npg_scenario *sc,
					const struct npg_token *t, bool gid)
{
	const struct npg_name *fallback = NULL;

	for (int i = 0; i < sc->nnames; i++) {
		const struct npg_name *n = &sc->names[i];

		if (strlen(n->name) != t->len || memcmp(n->name, t->start, t->len) != 0)
			continue;
		if (n->group == gid)
			return n;
		if (gid)	/* a user's name also names the gid of the same number */
			fallback = n;
	}
	return fallback;
}

static void note_numeric_uid(struct parser *p, npg_id id, int col)
{
	/* a concurrent program's step (explore) collects its uids itself */
	if (!p->numeric)
		return;
	for (int i = 0; i < p->nnumeric; i++)
		if (p->numeric[i].id == id)
			return;
	/* one more than a scenario may have is enough to refuse it at the end */
	if (p->nnumeric > MAX_NUMERIC)
		return;
	p->numeric[p->nnumeric++] = (struct numeric_uid){ id, p->line, col };
}

/*
 * A uid given as a number that no `user` line names is a user all the
 * same: its tasks count, and the real backend maps it into the run's uid
 * window like any other. It gets a name of its own -- the number -- so
 * that `check count N` and every step's counts see it as they see a
 * declared user, on the model and on a kernel alike. After the last line:
 * a `user` line may come after the number's first use.
 */
void npg_parse_name_numeric_uids(struct parser *p)
{
	struct npg_scenario *sc = p->sc;
	int declared = sc->nnames;

	for (int i = 0; i < p->nnumeric; i++) {
		bool named = false;
		char num[16];

		for (int k = 0; k < declared && !named; k++)
			named = !sc->names[k].group && sc->names[k].id == p->numeric[i].id;
		if (named)
			continue;
		if (sc->nnames - declared == MAX_NUMERIC) {
			p->line = p->numeric[i].line;
			npg_parse_error(p, p->numeric[i].col, "more than %d uids given as numbers "
					"that no user line names", MAX_NUMERIC);
			return;
		}
		snprintf(num, sizeof(num), "%" PRIu32, p->numeric[i].id);
		sc->names[sc->nnames++] = (struct npg_name){ .name = strdup(num), .id = p->numeric[i].id };
		if (!sc->names[sc->nnames - 1].name) {
			perror("nprocguard");
			exit(2);
		}
	}
}

/* A uid or gid: a declared name or a number; "-1" only where the call allows it */
bool npg_parse_id(struct parser *p, int i, bool gid, bool allow_none, npg_id *out)
{
	const struct npg_token *t;
	const struct npg_name *n;
	uint64_t v;

	if (!npg_parse_expect_word(p, i, gid ? "a gid" : "a uid"))
		return false;
	t = &p->tok[i];
	if (npg_tok_is(t, "-1")) {
		if (!allow_none) {
			npg_parse_error(p, t->col, "-1 (unchanged) is not allowed here");
			return false;
		}
		*out = NPG_ID_NONE;
		return true;
	}
	if (npg_tok_u64(t, &v)) {
		if (v >= NPG_ID_NONE) {
			npg_parse_error(p, t->col, "%s out of range: %.*s%s (0 to 4294967294)",
					gid ? "gid" : "uid", TOKLEN(t->len), t->start, TOKCUT(t->len));
			return false;
		}
		*out = (npg_id)v;
		if (!gid && !p->expecting)
			note_numeric_uid(p, *out, t->col);
		return true;
	}
	n = find_name(p->sc, t, gid);
	if (!n) {
		npg_parse_error(p, t->col, "unknown %s '%.*s%s'", gid ? "group" : "user",
				TOKLEN(t->len), t->start, TOKCUT(t->len));
		return false;
	}
	*out = n->id;
	return true;
}

bool npg_parse_limit(struct parser *p, int i, uint64_t *out)
{
	if (!npg_parse_expect_word(p, i, "a limit (a number or 'unlimited')"))
		return false;
	if (npg_tok_is(&p->tok[i], "unlimited") || npg_tok_is(&p->tok[i], "infinity")) {
		*out = NPG_RLIM_INFINITY;
		return true;
	}
	if (!npg_tok_u64(&p->tok[i], out) || *out == NPG_RLIM_INFINITY) {
		npg_parse_error(p, p->tok[i].col, "bad limit '%.*s%s'", TOKLEN(p->tok[i].len), p->tok[i].start, TOKCUT(p->tok[i].len));
		return false;
	}
	return true;
}

/* "nproc SOFT HARD" starting at token i */
bool npg_parse_nproc(struct parser *p, int i, uint64_t *cur, uint64_t *max)
{
	if (!npg_parse_expect_word(p, i, "'nproc'"))
		return false;
	if (!npg_tok_is(&p->tok[i], "nproc")) {
		npg_parse_error(p, p->tok[i].col, "only the nproc limit (RLIMIT_NPROC) is modelled");
		return false;
	}
	return npg_parse_limit(p, i + 1, cur) && npg_parse_limit(p, i + 2, max);
}

bool npg_parse_cap_name(struct parser *p, const struct npg_token *t, int *cap)
{
	char name[64] = "cap_";
	cap_value_t v;

	if (t->kind != NPG_TOK_WORD || t->len > 40) {
		npg_parse_error(p, t->col, "expected a capability name");
		return false;
	}
	memcpy(name + 4, t->start, t->len);
	name[4 + t->len] = '\0';
	/* accept "sys_admin", "cap_sys_admin" and "CAP_SYS_ADMIN" alike */
	if (cap_from_name(name + 4, &v) != 0 && cap_from_name(name, &v) != 0) {
		npg_parse_error(p, t->col, "unknown capability '%.*s%s'", TOKLEN(t->len), t->start, TOKCUT(t->len));
		return false;
	}
	if (v < 0 || v > NPG_CAP_LAST) {
		npg_parse_error(p, t->col, "capability '%.*s%s' is beyond the modelled set", TOKLEN(t->len),
				t->start, TOKCUT(t->len));
		return false;
	}
	*cap = v;
	return true;
}

/* "all", "none", or NAME[,NAME...] from token i to end; returns the index after */
int npg_parse_caps(struct parser *p, int i, int end, uint64_t *caps)
{
	*caps = 0;
	if (i >= end) {
		npg_parse_error(p, npg_parse_end_col(p), "missing capability list");
		return -1;
	}
	if (npg_tok_is(&p->tok[i], "all")) {
		*caps = NPG_CAP_ALL;
		return i + 1;
	}
	if (npg_tok_is(&p->tok[i], "none"))
		return i + 1;
	for (;;) {
		int cap;

		if (i >= end) {
			npg_parse_error(p, npg_parse_end_col(p), "missing capability name");
			return -1;
		}
		if (!npg_parse_cap_name(p, &p->tok[i], &cap))
			return -1;
		*caps |= NPG_CAP(cap);
		i++;
		if (i < end && p->tok[i].kind == NPG_TOK_COMMA) {
			i++;
			continue;
		}
		return i;
	}
}

/* G[,G...] or "none" */
int npg_parse_groups(struct parser *p, int i, int end, int *n, npg_id *groups)
{
	*n = 0;
	if (i < end && npg_tok_is(&p->tok[i], "none"))
		return i + 1;
	for (;;) {
		if (*n == NPG_NGROUPS) {
			npg_parse_error(p, p->tok[i < end ? i : end - 1].col,
					"more than %d supplementary groups", NPG_NGROUPS);
			return -1;
		}
		if (!npg_parse_id(p, i, true, false, &groups[*n]))
			return -1;
		(*n)++;
		i++;
		if (i < end && p->tok[i].kind == NPG_TOK_COMMA) {
			i++;
			continue;
		}
		return i;
	}
}

bool npg_parse_check_fresh_name(struct parser *p, const struct npg_token *t, const char *what)
{
	if (!npg_parse_valid_identifier(t)) {
		npg_parse_error(p, t->col, "bad %s name '%.*s%s'", what, TOKLEN(t->len), t->start, TOKCUT(t->len));
		return false;
	}
	if (npg_parse_find_task(p->sc, t) >= 0) {
		npg_parse_error(p, t->col, "duplicate task name '%.*s%s'", TOKLEN(t->len), t->start, TOKCUT(t->len));
		return false;
	}
	return true;
}

int npg_parse_add_task(struct parser *p, const struct npg_token *name)
{
	struct npg_scenario *sc = p->sc;
	int idx = sc->ntasks;

	if (idx == MAX_TASKS) {
		npg_parse_error(p, name->col, "more than %d tasks", MAX_TASKS);
		return -1;
	}
	sc->tasks[idx] = (struct npg_task_decl){ .name = npg_tok_dup(name), .line = p->line,
						 .creator = -1 };
	sc->ntasks++;
	return idx;
}

int npg_parse_leader_of(const struct npg_scenario *sc, int t)
{
	while (sc->tasks[t].thread)
		t = sc->tasks[t].creator;
	return t;
}

int npg_parse_find_file(const struct npg_scenario *sc, const struct npg_token *t)
{
	for (int i = 0; i < sc->nfiles; i++)
		if (strlen(sc->files[i].path) == t->len &&
		    memcmp(sc->files[i].path, t->start, t->len) == 0)
			return i;
	return -1;
}

bool npg_parse_task_ref(struct parser *p, int i, int *idx)
{
	if (!npg_parse_expect_word(p, i, "a task name"))
		return false;
	*idx = npg_parse_find_task(p->sc, &p->tok[i]);
	if (*idx < 0) {
		npg_parse_error(p, p->tok[i].col, "unknown task '%.*s%s'", TOKLEN(p->tok[i].len),
				p->tok[i].start, TOKCUT(p->tok[i].len));
		return false;
	}
	return true;
}

int npg_parse_find_userns(const struct npg_scenario *sc, const struct npg_token *t)
{
	for (int i = 0; i < sc->nuserns; i++)
		if (npg_tok_is(t, sc->userns[i].name))
			return i;
	return -1;
}
