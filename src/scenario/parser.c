/* The scenario parser: one line at a time, errors as file:line:col. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/capability.h>

#include "model/policy.h"
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
	bool *dead;		/* per task: exited in the text (statically) */
	int *vfork_child;	/* per task: 1 + the vfork() child it waits for, 0: none */
	int stmt_cap;
};

static void error_at(struct parser *p, int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int find_userns(const struct npg_scenario *sc, const struct npg_token *t);

static void error_at(struct parser *p, int col, const char *fmt, ...)
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
static int end_col(const struct parser *p)
{
	if (p->ntok == 0)
		return 1;
	return p->tok[p->ntok - 1].col + (int)p->tok[p->ntok - 1].len;
}

static void *xcalloc(size_t n, size_t size)
{
	void *m = calloc(n ? n : 1, size);

	if (!m) {
		perror("nprocguard");
		exit(2);
	}
	return m;
}

static char *tok_dup(const struct npg_token *t)
{
	char *s = xcalloc(t->len + 1, 1);

	memcpy(s, t->start, t->len);
	return s;
}

static bool tok_is(const struct npg_token *t, const char *word)
{
	return t->kind == NPG_TOK_WORD && strlen(word) == t->len &&
	       memcmp(t->start, word, t->len) == 0;
}

static bool tok_copy(const struct npg_token *t, char *buf, size_t len)
{
	if (t->len >= len)
		return false;
	memcpy(buf, t->start, t->len);
	buf[t->len] = '\0';
	return true;
}

/* Decimal, no sign, no overflow */
static bool tok_u64(const struct npg_token *t, uint64_t *out)
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

static bool expect_word(struct parser *p, int i, const char *what)
{
	if (i >= p->ntok) {
		error_at(p, end_col(p), "missing %s", what);
		return false;
	}
	if (p->tok[i].kind != NPG_TOK_WORD) {
		error_at(p, p->tok[i].col, "expected %s", what);
		return false;
	}
	return true;
}

static bool expect_end(struct parser *p, int i, int end)
{
	if (i < end) {
		error_at(p, p->tok[i].col, "unexpected '%.*s%s'", TOKLEN(p->tok[i].len), p->tok[i].start, TOKCUT(p->tok[i].len));
		return false;
	}
	return true;
}

static bool valid_identifier(const struct npg_token *t)
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
		if (tok_is(t, reserved[i]))
			return false;
	return true;
}

static int find_task(const struct npg_scenario *sc, const struct npg_token *t)
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

/* A uid or gid: a declared name or a number; "-1" only where the call allows it */
static bool parse_id(struct parser *p, int i, bool gid, bool allow_none, npg_id *out)
{
	const struct npg_token *t;
	const struct npg_name *n;
	uint64_t v;

	if (!expect_word(p, i, gid ? "a gid" : "a uid"))
		return false;
	t = &p->tok[i];
	if (tok_is(t, "-1")) {
		if (!allow_none) {
			error_at(p, t->col, "-1 (unchanged) is not allowed here");
			return false;
		}
		*out = NPG_ID_NONE;
		return true;
	}
	if (tok_u64(t, &v)) {
		if (v >= NPG_ID_NONE) {
			error_at(p, t->col, "%s out of range: %.*s%s (0 to 4294967294)",
				 gid ? "gid" : "uid", TOKLEN(t->len), t->start, TOKCUT(t->len));
			return false;
		}
		*out = (npg_id)v;
		return true;
	}
	n = find_name(p->sc, t, gid);
	if (!n) {
		error_at(p, t->col, "unknown %s '%.*s%s'", gid ? "group" : "user",
			 TOKLEN(t->len), t->start, TOKCUT(t->len));
		return false;
	}
	*out = n->id;
	return true;
}

static bool parse_limit(struct parser *p, int i, uint64_t *out)
{
	if (!expect_word(p, i, "a limit (a number or 'unlimited')"))
		return false;
	if (tok_is(&p->tok[i], "unlimited") || tok_is(&p->tok[i], "infinity")) {
		*out = NPG_RLIM_INFINITY;
		return true;
	}
	if (!tok_u64(&p->tok[i], out) || *out == NPG_RLIM_INFINITY) {
		error_at(p, p->tok[i].col, "bad limit '%.*s%s'", TOKLEN(p->tok[i].len), p->tok[i].start, TOKCUT(p->tok[i].len));
		return false;
	}
	return true;
}

/* "nproc SOFT HARD" starting at token i */
static bool parse_nproc(struct parser *p, int i, uint64_t *cur, uint64_t *max)
{
	if (!expect_word(p, i, "'nproc'"))
		return false;
	if (!tok_is(&p->tok[i], "nproc")) {
		error_at(p, p->tok[i].col, "only the nproc limit (RLIMIT_NPROC) is modelled");
		return false;
	}
	return parse_limit(p, i + 1, cur) && parse_limit(p, i + 2, max);
}

static bool parse_cap_name(struct parser *p, const struct npg_token *t, int *cap)
{
	char name[64] = "cap_";
	cap_value_t v;

	if (t->kind != NPG_TOK_WORD || t->len > 40) {
		error_at(p, t->col, "expected a capability name");
		return false;
	}
	memcpy(name + 4, t->start, t->len);
	name[4 + t->len] = '\0';
	/* accept "sys_admin", "cap_sys_admin" and "CAP_SYS_ADMIN" alike */
	if (cap_from_name(name + 4, &v) != 0 && cap_from_name(name, &v) != 0) {
		error_at(p, t->col, "unknown capability '%.*s%s'", TOKLEN(t->len), t->start, TOKCUT(t->len));
		return false;
	}
	if (v < 0 || v > NPG_CAP_LAST) {
		error_at(p, t->col, "capability '%.*s%s' is beyond the modelled set", TOKLEN(t->len),
			 t->start, TOKCUT(t->len));
		return false;
	}
	*cap = v;
	return true;
}

/* "all", "none", or NAME[,NAME...] from token i to end; returns the index after */
static int parse_caps(struct parser *p, int i, int end, uint64_t *caps)
{
	*caps = 0;
	if (i >= end) {
		error_at(p, end_col(p), "missing capability list");
		return -1;
	}
	if (tok_is(&p->tok[i], "all")) {
		*caps = NPG_CAP_ALL;
		return i + 1;
	}
	if (tok_is(&p->tok[i], "none"))
		return i + 1;
	for (;;) {
		int cap;

		if (i >= end) {
			error_at(p, end_col(p), "missing capability name");
			return -1;
		}
		if (!parse_cap_name(p, &p->tok[i], &cap))
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
static int parse_groups(struct parser *p, int i, int end, int *n, npg_id *groups)
{
	*n = 0;
	if (i < end && tok_is(&p->tok[i], "none"))
		return i + 1;
	for (;;) {
		if (*n == NPG_NGROUPS) {
			error_at(p, p->tok[i < end ? i : end - 1].col,
				 "more than %d supplementary groups", NPG_NGROUPS);
			return -1;
		}
		if (!parse_id(p, i, true, false, &groups[*n]))
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

static bool check_fresh_name(struct parser *p, const struct npg_token *t, const char *what)
{
	if (!valid_identifier(t)) {
		error_at(p, t->col, "bad %s name '%.*s%s'", what, TOKLEN(t->len), t->start, TOKCUT(t->len));
		return false;
	}
	if (find_task(p->sc, t) >= 0) {
		error_at(p, t->col, "duplicate task name '%.*s%s'", TOKLEN(t->len), t->start, TOKCUT(t->len));
		return false;
	}
	return true;
}

static int add_task(struct parser *p, const struct npg_token *name)
{
	struct npg_scenario *sc = p->sc;
	int idx = sc->ntasks;

	if (idx == MAX_TASKS) {
		error_at(p, name->col, "more than %d tasks", MAX_TASKS);
		return -1;
	}
	sc->tasks[idx] = (struct npg_task_decl){ .name = tok_dup(name), .line = p->line,
						 .creator = -1 };
	sc->ntasks++;
	return idx;
}

static int leader_of(const struct npg_scenario *sc, int t)
{
	while (sc->tasks[t].thread)
		t = sc->tasks[t].creator;
	return t;
}

/* ---- declarations ---- */

static void parse_string_decl(struct parser *p, char **field, const char *what)
{
	if (p->ntok != 2 || p->tok[1].kind != NPG_TOK_STRING) {
		error_at(p, p->ntok > 1 ? p->tok[1].col : end_col(p),
			 "expected: %s \"TEXT\"", what);
		return;
	}
	if (*field) {
		error_at(p, p->tok[0].col, "%s given twice", what);
		return;
	}
	*field = tok_dup(&p->tok[1]);
}

static void parse_policies(struct parser *p)
{
	uint32_t mask = 0;

	if (p->ntok < 2) {
		error_at(p, end_col(p), "expected policy names or 'all'");
		return;
	}
	for (int i = 1; i < p->ntok; i++) {
		const struct npg_token *t = &p->tok[i];
		char name[64];
		const struct npg_policy *pol;

		if (t->kind == NPG_TOK_COMMA)
			continue;
		if (tok_is(t, "all")) {
			mask = (1u << NPG_NPOLICIES) - 1;
			continue;
		}
		pol = (t->kind == NPG_TOK_WORD && tok_copy(t, name, sizeof(name)))
			      ? npg_policy_find(name) : NULL;
		if (!pol) {
			error_at(p, t->col, "unknown policy '%.*s%s' (see 'nprocguard policies')",
				 TOKLEN(t->len), t->start, TOKCUT(t->len));
			return;
		}
		mask |= 1u << npg_policy_index(pol);
	}
	p->sc->policies = mask;
}

/*
 * bounding LIST: the capability bounding set of the machine the scenario
 * is about (a container, a host without CAP_SYS_RESOURCE). What root's
 * tasks start with and what execve() grants (cap_bprm_creds_from_file()).
 */
static void parse_bounding(struct parser *p)
{
	uint64_t caps;
	int next;

	if (p->sc->nstmts > 0 || p->sc->ntasks > 0) {
		error_at(p, p->tok[0].col, "declare 'bounding' before the tasks and steps");
		return;
	}
	if (p->sc->has_bounding) {
		error_at(p, p->tok[0].col, "bounding given twice");
		return;
	}
	next = parse_caps(p, 1, p->ntok, &caps);
	if (next < 0)
		return;
	/* "all but LIST": a host that lacks a few (CapBnd 000001fffeffffff) */
	if (next < p->ntok && tok_is(&p->tok[next], "but") && caps == NPG_CAP_ALL) {
		uint64_t without;

		next = parse_caps(p, next + 1, p->ntok, &without);
		if (next < 0)
			return;
		caps &= ~without;
	}
	if (!expect_end(p, next, p->ntok))
		return;
	p->sc->has_bounding = true;
	p->sc->bounding = caps;
}

/*
 * yama ptrace_scope N: the machine has Yama (3.4+) with
 * kernel.yama.ptrace_scope N, 0 (classic) to 3 (no attach); without the
 * declaration it has no Yama, and PR_SET_PTRACER is EINVAL
 */
static void parse_yama(struct parser *p)
{
	uint64_t v;

	if (p->sc->nstmts > 0 || p->sc->ntasks > 0) {
		error_at(p, p->tok[0].col, "declare 'yama' before the tasks and steps");
		return;
	}
	if (p->sc->yama_scope >= 0) {
		error_at(p, p->tok[0].col, "yama given twice");
		return;
	}
	if (!expect_word(p, 1, "'ptrace_scope'"))
		return;
	if (!tok_is(&p->tok[1], "ptrace_scope")) {
		error_at(p, p->tok[1].col, "expected 'ptrace_scope'");
		return;
	}
	if (!expect_word(p, 2, "0, 1, 2 or 3"))
		return;
	if (!tok_u64(&p->tok[2], &v) || v > 3) {
		error_at(p, p->tok[2].col, "ptrace_scope is 0, 1, 2 or 3");
		return;
	}
	if (!expect_end(p, 3, p->ntok))
		return;
	p->sc->yama_scope = (int)v;
}

static int find_file(const struct npg_scenario *sc, const struct npg_token *t)
{
	for (int i = 0; i < sc->nfiles; i++)
		if (strlen(sc->files[i].path) == t->len &&
		    memcmp(sc->files[i].path, t->start, t->len) == 0)
			return i;
	return -1;
}

/* file PATH missing: what execve PATH finds there */
static void parse_file_decl(struct parser *p)
{
	struct npg_scenario *sc = p->sc;
	struct npg_file f = { 0 };
	int i = 2;

	if (p->sc->nstmts > 0) {
		error_at(p, p->tok[0].col, "declare files before the first step");
		return;
	}
	if (!expect_word(p, 1, "a path"))
		return;
	if (p->tok[1].start[0] != '/' || p->tok[1].len > 200) {
		error_at(p, p->tok[1].col, "a file is an absolute path of at most 200 bytes");
		return;
	}
	if (find_file(sc, &p->tok[1]) >= 0) {
		error_at(p, p->tok[1].col, "file '%.*s%s' declared twice", TOKLEN(p->tok[1].len),
			 p->tok[1].start, TOKCUT(p->tok[1].len));
		return;
	}
	if (i < p->ntok && tok_is(&p->tok[i], "missing")) {
		f.exec.missing = true;
		i++;
	}
	/* setuid U, setgid G, caps LIST (fP), inheritable LIST (fI), effective (fE) */
	while (!f.exec.missing && i < p->ntok) {
		const struct npg_token *k = &p->tok[i];

		if (tok_is(k, "setuid") || tok_is(k, "setgid")) {
			bool gid = tok_is(k, "setgid");

			if (!parse_id(p, i + 1, gid, false, gid ? &f.exec.gid : &f.exec.uid))
				return;
			*(gid ? &f.exec.setgid : &f.exec.setuid) = true;
			i += 2;
		} else if (tok_is(k, "caps") || tok_is(k, "inheritable")) {
			bool inh = tok_is(k, "inheritable");

			i = parse_caps(p, i + 1, p->ntok, inh ? &f.exec.fcap_inheritable :
				       &f.exec.fcap_permitted);
			if (i < 0)
				return;
			f.exec.has_fcaps = true;
		} else if (tok_is(k, "effective")) {
			f.exec.fcap_effective = f.exec.has_fcaps = true;
			i++;
		} else if (tok_is(k, "nosuid")) {
			f.exec.nosuid = true;
			i++;
		} else if (tok_is(k, "rootid")) {
			/* v3 capabilities, as written inside a namespace whose root is USER */
			if (!parse_id(p, i + 1, false, false, &f.exec.fcap_rootid))
				return;
			f.exec.fcap_v3 = true;
			i += 2;
		} else {
			break;
		}
	}
	if (!f.exec.missing && !f.exec.setuid && !f.exec.setgid && !f.exec.has_fcaps) {
		error_at(p, i < p->ntok ? p->tok[i].col : end_col(p),
			 "expected 'missing', or setuid USER, setgid GROUP, caps LIST, "
			 "inheritable LIST, effective, rootid USER, nosuid");
		return;
	}
	if (f.exec.fcap_v3 && !f.exec.has_fcaps) {
		error_at(p, p->tok[1].col, "'rootid' is of file capabilities: give caps, "
			 "inheritable or effective too");
		return;
	}
	if (!expect_end(p, i, p->ntok))
		return;
	if (sc->nfiles == NPG_MAX_FILES) {
		error_at(p, p->tok[0].col, "more than %d files", NPG_MAX_FILES);
		return;
	}
	f.path = tok_dup(&p->tok[1]);
	sc->files[sc->nfiles++] = f;
}

static void parse_name_decl(struct parser *p, bool group)
{
	struct npg_scenario *sc = p->sc;
	struct npg_name n = { .group = group };
	uint64_t v;
	int i = 3;

	if (!expect_word(p, 1, group ? "a group name" : "a user name"))
		return;
	if (!valid_identifier(&p->tok[1])) {
		error_at(p, p->tok[1].col, "bad name '%.*s%s'", TOKLEN(p->tok[1].len), p->tok[1].start, TOKCUT(p->tok[1].len));
		return;
	}
	for (int k = 0; k < sc->nnames; k++)
		if (sc->names[k].group == group && strlen(sc->names[k].name) == p->tok[1].len &&
		    memcmp(sc->names[k].name, p->tok[1].start, p->tok[1].len) == 0) {
			error_at(p, p->tok[1].col, "duplicate %s '%s'", group ? "group" : "user",
				 sc->names[k].name);
			return;
		}
	if (!expect_word(p, 2, group ? "a gid" : "a uid"))
		return;
	if (!tok_u64(&p->tok[2], &v) || v >= NPG_ID_NONE) {
		error_at(p, p->tok[2].col, "%s out of range or not a number: '%.*s%s'",
			 group ? "gid" : "uid", TOKLEN(p->tok[2].len), p->tok[2].start, TOKCUT(p->tok[2].len));
		return;
	}
	n.id = (npg_id)v;
	for (int k = 0; k < sc->nnames; k++)
		if (sc->names[k].group == group && sc->names[k].id == n.id) {
			error_at(p, p->tok[2].col, "%s %" PRIu32 " is already named '%s'",
				 group ? "gid" : "uid", n.id, sc->names[k].name);
			return;
		}
	if (!group && i < p->ntok && tok_is(&p->tok[i], "procs")) {
		if (!expect_word(p, i + 1, "a process count"))
			return;
		if (!tok_u64(&p->tok[i + 1], &v) || v > 100000) {
			error_at(p, p->tok[i + 1].col, "bad process count (0 to 100000)");
			return;
		}
		n.procs = (long)v;
		i += 2;
	}
	if (!expect_end(p, i, p->ntok))
		return;
	if (sc->nnames == MAX_NAMES) {
		error_at(p, p->tok[0].col, "more than %d users and groups", MAX_NAMES);
		return;
	}
	n.name = tok_dup(&p->tok[1]);
	sc->names[sc->nnames++] = n;
}

/* task NAME uid U [euid U] [suid U] [gid G] [egid G] [sgid G] [groups L] [nproc S H] [caps L] [keepcaps] */
static void parse_task_decl(struct parser *p)
{
	struct npg_task_decl d = { .creator = -1, .initial = true, .line = p->line,
				   .nproc_cur = NPG_RLIM_INFINITY, .nproc_max = NPG_RLIM_INFINITY };
	bool have_uid = false, have_euid = false, have_suid = false;
	bool have_gid = false, have_egid = false, have_sgid = false;
	uint64_t caps = 0;
	int idx;

	if (!expect_word(p, 1, "a task name") || !check_fresh_name(p, &p->tok[1], "task"))
		return;
	for (int i = 2; i < p->ntok;) {
		const struct npg_token *k = &p->tok[i];
		int next;

		if (tok_is(k, "uid") || tok_is(k, "euid") || tok_is(k, "suid")) {
			npg_id *dst = tok_is(k, "uid") ? &d.cred.uid.real
				      : tok_is(k, "euid") ? &d.cred.uid.eff : &d.cred.uid.saved;

			if (!parse_id(p, i + 1, false, false, dst))
				return;
			have_uid |= tok_is(k, "uid");
			have_euid |= tok_is(k, "euid");
			have_suid |= tok_is(k, "suid");
			i += 2;
		} else if (tok_is(k, "gid") || tok_is(k, "egid") || tok_is(k, "sgid")) {
			npg_id *dst = tok_is(k, "gid") ? &d.cred.gid.real
				      : tok_is(k, "egid") ? &d.cred.gid.eff : &d.cred.gid.saved;

			if (!parse_id(p, i + 1, true, false, dst))
				return;
			have_gid |= tok_is(k, "gid");
			have_egid |= tok_is(k, "egid");
			have_sgid |= tok_is(k, "sgid");
			i += 2;
		} else if (tok_is(k, "groups")) {
			next = parse_groups(p, i + 1, p->ntok, &d.cred.ngroups, d.cred.groups);
			if (next < 0)
				return;
			i = next;
		} else if (tok_is(k, "nproc")) {
			if (!parse_nproc(p, i, &d.nproc_cur, &d.nproc_max))
				return;
			if (d.nproc_cur > d.nproc_max) {
				error_at(p, p->tok[i + 1].col, "soft limit above hard limit");
				return;
			}
			i += 3;
		} else if (tok_is(k, "caps")) {
			next = parse_caps(p, i + 1, p->ntok, &caps);
			if (next < 0)
				return;
			d.caps_explicit = true;
			i = next;
		} else if (tok_is(k, "keepcaps")) {
			d.cred.keepcaps = true;
			i++;
		} else {
			error_at(p, k->col, "unknown task attribute '%.*s%s'", TOKLEN(k->len), k->start, TOKCUT(k->len));
			return;
		}
	}
	if (!have_uid) {
		error_at(p, end_col(p), "task needs 'uid USER'");
		return;
	}
	if (!have_euid)
		d.cred.uid.eff = d.cred.uid.real;
	if (!have_suid)
		d.cred.uid.saved = d.cred.uid.eff;
	d.cred.uid.fs = d.cred.uid.eff;
	if (!have_gid)
		d.cred.gid.real = d.cred.uid.real;	/* a user's primary group, by number */
	if (!have_egid)
		d.cred.gid.eff = d.cred.gid.real;
	if (!have_sgid)
		d.cred.gid.saved = d.cred.gid.eff;
	d.cred.gid.fs = d.cred.gid.eff;
	d.cred.cap_bset = p->sc->has_bounding ? p->sc->bounding : NPG_CAP_ALL;
	if (d.caps_explicit) {
		d.cred.cap_permitted = d.cred.cap_effective = caps;
	} else if (d.cred.uid.real == 0 || d.cred.uid.eff == 0) {
		/* as a freshly exec'd program (cap_bprm_creds_from_file()): root
		 * gets the bounding set, effective only with euid 0 */
		d.cred.cap_permitted = d.cred.cap_bset;
		d.cred.cap_effective = d.cred.uid.eff == 0 ? d.cred.cap_bset : 0;
	}
	d.cred.charged_to = d.cred.uid.real;
	idx = add_task(p, &p->tok[1]);
	if (idx < 0)
		return;
	d.name = p->sc->tasks[idx].name;
	p->sc->tasks[idx] = d;
}

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
		error_at(p, from < to ? p->tok[from].col : end_col(p), "expected %s", what);
		return false;
	}
	for (int i = from; i < to; i++)
		if (p->tok[i].kind != NPG_TOK_WORD) {
			error_at(p, p->tok[i].col, "expected %s", what);
			return false;
		}
	return true;
}

/* "killed SIGNAL" */
static bool parse_killed(struct parser *p, int from, int to, char *buf, size_t len)
{
	char name[32], sig[32];
	int s;

	if (!value_words(p, from, to, 2, "'killed SIGNAL'") || !tok_is(&p->tok[from], "killed"))
		return false;
	if (!tok_copy(&p->tok[from + 1], name, sizeof(name)) || !(s = lookup_signal(name))) {
		error_at(p, p->tok[from + 1].col, "unknown signal '%.*s%s'",
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

	if (from < to && tok_is(t, "killed"))
		return parse_killed(p, from, to, buf, len);
	if (!value_words(p, from, to, 1, "a result (ok, an errno name, killed SIGNAL, running, dead)"))
		return false;
	if (tok_is(t, "ok") || tok_is(t, "running") || tok_is(t, "dead") || tok_is(t, "suspended")) {
		tok_copy(t, buf, len);
		return true;
	}
	if (t->start[0] == 'E' && tok_copy(t, word, sizeof(word))) {
		if (!(e = lookup_errno(word))) {
			error_at(p, t->col, "unknown errno name '%s'", word);
			return false;
		}
		snprintf(buf, len, "%s", word);
		return true;
	}
	if (st->op.code == NPG_OP_SETFSUID || st->op.code == NPG_OP_SETFSGID) {
		npg_id id;
		bool gid = st->op.code == NPG_OP_SETFSGID;

		if (!parse_id(p, from, gid, false, &id))
			return false;
		npg_render_uid(p->sc, id, gid, buf, len);
		return true;
	}
	error_at(p, t->col, "expected a result (ok, an errno name, killed SIGNAL, running, dead)");
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
		if (tok_is(&p->tok[from], choices[i])) {
			snprintf(buf, len, "%s", choices[i]);
			return true;
		}
	error_at(p, p->tok[from].col, "expected %s", what);
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
		if (!tok_u64(&p->tok[from], &v) || v > 1000000) {
			error_at(p, p->tok[from].col, "bad count '%.*s%s'", TOKLEN(p->tok[from].len),
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
			if (!parse_id(p, from + i, gid, false, &ids[i]))
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
		if (!value_words(p, from, to, 1, "a uid") || !parse_id(p, from, false, false, ids))
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
		if (from < to && tok_is(&p->tok[from], "killed"))
			return parse_killed(p, from, to, buf, len);
		if (from < to && tok_is(&p->tok[from], "exited")) {
			if (!value_words(p, from, to, 2, "'exited CODE'"))
				return false;
			if (!tok_u64(&p->tok[from + 1], &v) || v > 255) {
				error_at(p, p->tok[from + 1].col, "bad exit code (0 to 255)");
				return false;
			}
			snprintf(buf, len, "exited %" PRIu64, v);
			return true;
		}
		if (!value_words(p, from, to, 1, "none, exited CODE or killed SIGNAL") ||
		    !tok_is(&p->tok[from], "none")) {
			error_at(p, p->tok[from < to ? from : to - 1].col,
				 "expected none, exited CODE or killed SIGNAL");
			return false;
		}
		snprintf(buf, len, "none");
		return true;
	case NPG_CHECK_NPROC:
		if (to - from != 2) {
			error_at(p, from < to ? p->tok[from].col : end_col(p),
				 "expected SOFT HARD limits");
			return false;
		}
		if (!parse_limit(p, from, &cur) || !parse_limit(p, from + 1, &max))
			return false;
		npg_render_limit(cur, a, sizeof(a));
		npg_render_limit(max, b, sizeof(b));
		snprintf(buf, len, "%s %s", a, b);
		return true;
	case NPG_CHECK_USERNS:
		if (!value_words(p, from, to, 1, "'initial' or a namespace name"))
			return false;
		if (!tok_is(&p->tok[from], "initial") && find_userns(p->sc, &p->tok[from]) < 0) {
			error_at(p, p->tok[from].col, "unknown namespace '%.*s%s'",
				 TOKLEN(p->tok[from].len), p->tok[from].start, TOKCUT(p->tok[from].len));
			return false;
		}
		snprintf(buf, len, "%.*s", (int)p->tok[from].len, p->tok[from].start);
		return true;
	case NPG_CHECK_TRACER:
		if (!value_words(p, from, to, 1, "'none' or a task name"))
			return false;
		if (!tok_is(&p->tok[from], "none") && find_task(p->sc, &p->tok[from]) < 0) {
			error_at(p, p->tok[from].col, "unknown task '%.*s%s'",
				 TOKLEN(p->tok[from].len), p->tok[from].start, TOKCUT(p->tok[from].len));
			return false;
		}
		snprintf(buf, len, "%.*s", (int)p->tok[from].len, p->tok[from].start);
		return true;
	case NPG_CHECK_DUMPABLE:
		/* SUID_DUMP_DISABLE 0, SUID_DUMP_USER 1, SUID_DUMP_ROOT 2; none: exited */
		if (!value_words(p, from, to, 1, "0, 1, 2 or none"))
			return false;
		if (tok_is(&p->tok[from], "none")) {
			snprintf(buf, len, "none");
			return true;
		}
		if (!tok_u64(&p->tok[from], &v) || v > 2) {
			error_at(p, p->tok[from].col, "dumpable is 0, 1, 2 or none");
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
		if (tok_is(t, "all")) {
			error_at(p, t->col, "'all:' is the default: write the value without a prefix");
			return false;
		}
		pol = (t->kind == NPG_TOK_WORD && tok_copy(t, name, sizeof(name)))
			      ? npg_policy_find(name) : NULL;
		if (!pol) {
			error_at(p, t->col, "unknown policy '%.*s%s' (see 'nprocguard policies')",
				 TOKLEN(t->len), t->start, TOKCUT(t->len));
			return false;
		}
		*mask |= 1u << npg_policy_index(pol);
	}
	if (*mask == 0) {
		error_at(p, p->tok[from < to ? from : from - 1].col, "missing policy name before ':'");
		return false;
	}
	return true;
}

/* => VALUE | POLICY[,POLICY]: VALUE | ... */
static bool parse_expect(struct parser *p, struct npg_stmt *st, int arrow)
{
	int i = arrow + 1;
	uint32_t seen = 0;
	bool have_default = false;

	if (i >= p->ntok) {
		error_at(p, end_col(p), "missing expected value after '=>'");
		return false;
	}
	st->expect.alt = xcalloc(NPG_NPOLICIES + 1, sizeof(*st->expect.alt));
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
			error_at(p, p->tok[i].col, "a policy has two expectations");
			return false;
		}
		if (!mask && have_default) {
			error_at(p, p->tok[i].col, "two default expectations (prefix one with POLICY:)");
			return false;
		}
		int vfrom = colon >= 0 ? colon + 1 : i;

		if (vfrom >= end) {
			error_at(p, vfrom < p->ntok ? p->tok[vfrom].col : end_col(p),
				 "missing expected value");
			return false;
		}
		good = st->kind == NPG_STMT_STEP ? parse_step_value(p, st, vfrom, end, buf, sizeof(buf))
						 : parse_check_value(p, st, vfrom, end, buf, sizeof(buf));
		if (!good)
			return false;
		st->expect.alt[st->expect.nalt++] = (struct npg_expect_alt){
			.mask = mask, .text = strdup(buf), .line = p->line, .col = p->tok[i].col };
		if (!st->expect.alt[st->expect.nalt - 1].text) {
			perror("nprocguard");
			exit(2);
		}
		seen |= mask;
		have_default |= !mask;
		if (end < p->ntok && end + 1 >= p->ntok) {
			error_at(p, p->tok[end].col, "nothing after '|'");
			return false;
		}
		i = end + 1;
	}
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

/* ---- statements ---- */

static int find_arrow(const struct parser *p)
{
	for (int i = 0; i < p->ntok; i++)
		if (p->tok[i].kind == NPG_TOK_ARROW)
			return i;
	return p->ntok;
}

static char *stmt_text(const struct parser *p, int from, int to)
{
	const struct npg_token *a, *b;
	struct npg_token whole = { 0 };

	if (from >= to)
		return strdup("");
	a = &p->tok[from];
	b = &p->tok[to - 1];
	whole.start = a->start;
	whole.len = (size_t)(b->start + b->len + (b->kind == NPG_TOK_STRING ? 1 : 0) - a->start);
	return tok_dup(&whole);
}

static bool task_ref(struct parser *p, int i, int *idx)
{
	if (!expect_word(p, i, "a task name"))
		return false;
	*idx = find_task(p->sc, &p->tok[i]);
	if (*idx < 0) {
		error_at(p, p->tok[i].col, "unknown task '%.*s%s'", TOKLEN(p->tok[i].len),
			 p->tok[i].start, TOKCUT(p->tok[i].len));
		return false;
	}
	return true;
}

struct op_spec {
	const char *name;
	enum npg_opcode code;
	int nids;		/* set*id: how many ids */
	bool gid;
	bool allow_none;
};

static const struct op_spec op_specs[] = {
	{ "setuid", NPG_OP_SETUID, 1, false, false },
	{ "seteuid", NPG_OP_SETEUID, 1, false, false },
	{ "setreuid", NPG_OP_SETREUID, 2, false, true },
	{ "setresuid", NPG_OP_SETRESUID, 3, false, true },
	{ "setfsuid", NPG_OP_SETFSUID, 1, false, false },
	{ "setgid", NPG_OP_SETGID, 1, true, false },
	{ "setegid", NPG_OP_SETEGID, 1, true, false },
	{ "setregid", NPG_OP_SETREGID, 2, true, true },
	{ "setresgid", NPG_OP_SETRESGID, 3, true, true },
	{ "setfsgid", NPG_OP_SETFSGID, 1, true, false },
	{ "fork", NPG_OP_FORK, 0, false, false },
	{ "thread", NPG_OP_THREAD, 0, false, false },
	{ "vfork", NPG_OP_VFORK, 0, false, false },
	{ "securebits", NPG_OP_SECUREBITS, 0, false, false },
	{ "ambient", NPG_OP_AMBIENT, 0, false, false },
	{ "exit", NPG_OP_EXIT, 0, false, false },
	{ "wait", NPG_OP_WAIT, 0, false, false },
	{ "setgroups", NPG_OP_SETGROUPS, 0, false, false },
	{ "setrlimit", NPG_OP_SETRLIMIT, 0, false, false },
	{ "prlimit", NPG_OP_PRLIMIT, 0, false, false },
	{ "prctl", NPG_OP_KEEPCAPS, 0, false, false },
	{ "capset", NPG_OP_CAPSET, 0, false, false },
	{ "execve", NPG_OP_EXECVE, 0, false, false },
	{ "kill", NPG_OP_KILL, 0, false, false },
	{ "unshare", NPG_OP_UNSHARE_USER, 0, false, false },
	{ "ptrace", NPG_OP_PTRACE, 0, false, false },
	{ "clone", NPG_OP_CLONE_USER, 0, false, false },
	{ "setns", NPG_OP_SETNS_USER, 0, false, false },
	{ "write", NPG_OP_WRITE_IDMAP, 0, false, false },
	{ "sysctl", NPG_OP_MAX_USERNS, 0, false, false },
	{ NULL, 0, 0, false, false },
};

/*
 * The signals kill may send: 0 (the permission check alone) and those
 * whose default action terminates the process without a core dump, so
 * that what happens is the same on every machine.
 */
static bool parse_kill_signal(struct parser *p, const struct npg_token *t, int *sig)
{
	static const int fatal[] = { SIGKILL, SIGTERM, SIGHUP, SIGINT, SIGUSR1, SIGUSR2, SIGALRM };
	char name[16];
	const char *n;

	if (tok_is(t, "0")) {
		*sig = 0;
		return true;
	}
	if (t->kind == NPG_TOK_WORD && tok_copy(t, name, sizeof(name))) {
		n = strncmp(name, "SIG", 3) == 0 ? name + 3 : name;
		for (size_t k = 0; k < sizeof(fatal) / sizeof(fatal[0]); k++)
			if (strcmp(n, sigabbrev_np(fatal[k])) == 0) {
				*sig = fatal[k];
				return true;
			}
	}
	error_at(p, t->col, "kill sends 0, KILL, TERM, HUP, INT, USR1, USR2 or ALRM, not '%.*s%s'",
		 TOKLEN(t->len), t->start, TOKCUT(t->len));
	return false;
}

/* NAME[,NAME...] or none: the securebits prctl(PR_SET_SECUREBITS) is given */
static int parse_securebits(struct parser *p, int i, int end, int *bits)
{
	static const char *const names[] = { "noroot", "noroot-locked", "no-setuid-fixup",
					      "no-setuid-fixup-locked", "keep-caps",
					      "keep-caps-locked", "no-cap-ambient-raise",
					      "no-cap-ambient-raise-locked" };

	*bits = 0;
	if (i < end && tok_is(&p->tok[i], "none"))
		return i + 1;
	for (;;) {
		int b;

		if (i >= end) {
			error_at(p, end_col(p), "missing securebit (noroot, no-setuid-fixup, keep-caps, "
				 "no-cap-ambient-raise, each with or without -locked, or none)");
			return -1;
		}
		for (b = 0; b < 8 && !tok_is(&p->tok[i], names[b]); b++)
			;
		if (b == 8) {
			error_at(p, p->tok[i].col, "unknown securebit '%.*s%s'", TOKLEN(p->tok[i].len),
				 p->tok[i].start, TOKCUT(p->tok[i].len));
			return -1;
		}
		*bits |= 1 << b;
		if (++i < end && p->tok[i].kind == NPG_TOK_COMMA) {
			i++;
			continue;
		}
		return i;
	}
}

static int find_userns(const struct npg_scenario *sc, const struct npg_token *t)
{
	for (int i = 0; i < sc->nuserns; i++)
		if (tok_is(t, sc->userns[i].name))
			return i;
	return -1;
}

/* "uidmap INSIDE OUTSIDE COUNT[, INSIDE OUTSIDE COUNT ...]": tokens from @i */
static int parse_idmap(struct parser *p, int i, int end, bool gid, struct npg_idmap *m)
{
	if (m->nr) {
		error_at(p, p->tok[i - 1].col, "%s given twice", gid ? "gidmap" : "uidmap");
		return -1;
	}
	for (;;) {
		struct npg_idmap_extent *e;
		uint64_t count;

		if (m->nr == NPG_IDMAP_MAX) {
			error_at(p, p->tok[i < end ? i : end - 1].col,
				 "more than %d lines in one map", NPG_IDMAP_MAX);
			return -1;
		}
		e = &m->extent[m->nr];
		if (!parse_id(p, i, gid, false, &e->first) ||
		    !parse_id(p, i + 1, gid, false, &e->lower_first))
			return -1;
		if (i + 2 >= end || !tok_u64(&p->tok[i + 2], &count) || count == 0 ||
		    count > UINT32_MAX) {
			error_at(p, p->tok[i + 2 < end ? i + 2 : end - 1].col,
				 "expected a count of ids (1 to 4294967295)");
			return -1;
		}
		e->count = (npg_id)count;
		m->nr++;
		i += 3;
		if (i < end && p->tok[i].kind == NPG_TOK_COMMA) {
			i++;
			continue;
		}
		return i;
	}
}

/*
 * unshare user NAME [uidmap ...] [gidmap ...], and the same after
 * "clone CHILD": the new namespace NAME, made by @creator, is 1 + its
 * index in *@ns
 */
static bool parse_new_userns(struct parser *p, struct npg_op *op, int creator, int i, int end,
			     const char *what, int *ns)
{
	struct npg_scenario *sc = p->sc;
	struct npg_userns_decl *grown;
	int name = i + 1;

	if (!expect_word(p, i, "'user'") || !tok_is(&p->tok[i], "user")) {
		if (i < end)
			error_at(p, p->tok[i].col, "only '%s user' is modelled", what);
		return false;
	}
	if (!expect_word(p, i + 1, "the new namespace's name"))
		return false;
	if (!valid_identifier(&p->tok[i + 1]) || tok_is(&p->tok[i + 1], "initial") ||
	    find_userns(sc, &p->tok[i + 1]) >= 0) {
		error_at(p, p->tok[i + 1].col, "%s namespace name '%.*s%s'",
			 valid_identifier(&p->tok[i + 1]) ? "duplicate" : "bad",
			 TOKLEN(p->tok[i + 1].len), p->tok[i + 1].start, TOKCUT(p->tok[i + 1].len));
		return false;
	}
	if (sc->nuserns == NPG_MAX_USERNS) {
		error_at(p, p->tok[i + 1].col, "more than %d user namespaces", NPG_MAX_USERNS);
		return false;
	}
	for (i += 2; i < end;) {
		bool gid = tok_is(&p->tok[i], "gidmap");

		if (!gid && !tok_is(&p->tok[i], "uidmap")) {
			error_at(p, p->tok[i].col, "expected 'uidmap' or 'gidmap'");
			return false;
		}
		i = parse_idmap(p, i + 1, end, gid, gid ? &op->gid_map : &op->uid_map);
		if (i < 0)
			return false;
	}
	grown = realloc(sc->userns, (size_t)(sc->nuserns + 1) * sizeof(*grown));
	if (!grown) {
		perror("nprocguard");
		exit(2);
	}
	sc->userns = grown;
	grown[sc->nuserns] = (struct npg_userns_decl){
		.name = tok_dup(&p->tok[name]),
		.line = p->line, .creator = creator };
	*ns = ++sc->nuserns;
	return true;
}

/* "user NS": a namespace an earlier unshare or clone named */
static bool userns_ref(struct parser *p, int i, int *ns)
{
	if (!expect_word(p, i, "'user'") || !tok_is(&p->tok[i], "user")) {
		if (i < p->ntok)
			error_at(p, p->tok[i].col, "only user namespaces are modelled: 'user NS'");
		return false;
	}
	if (!expect_word(p, i + 1, "a namespace name"))
		return false;
	*ns = find_userns(p->sc, &p->tok[i + 1]) + 1;
	if (*ns == 0) {
		error_at(p, p->tok[i + 1].col, "unknown namespace '%.*s%s' (one an earlier 'unshare "
			 "user' or 'clone' names)", TOKLEN(p->tok[i + 1].len), p->tok[i + 1].start,
			 TOKCUT(p->tok[i + 1].len));
		return false;
	}
	return true;
}

/* write TASK uid_map LINES | gid_map LINES | setgroups allow|deny */
static bool parse_write(struct parser *p, struct npg_op *op, int i, int end)
{
	if (!task_ref(p, i, &op->target) || !expect_word(p, i + 1, "uid_map, gid_map or setgroups"))
		return false;
	if (tok_is(&p->tok[i + 1], "setgroups")) {
		op->code = NPG_OP_WRITE_SETGROUPS;
		if (!expect_word(p, i + 2, "allow or deny"))
			return false;
		if (!tok_is(&p->tok[i + 2], "allow") && !tok_is(&p->tok[i + 2], "deny")) {
			error_at(p, p->tok[i + 2].col, "expected allow or deny");
			return false;
		}
		op->value = tok_is(&p->tok[i + 2], "allow");
		return expect_end(p, i + 3, end);
	}
	if (!tok_is(&p->tok[i + 1], "uid_map") && !tok_is(&p->tok[i + 1], "gid_map")) {
		error_at(p, p->tok[i + 1].col, "expected uid_map, gid_map or setgroups");
		return false;
	}
	op->value = tok_is(&p->tok[i + 1], "gid_map");
	if (!expect_word(p, i + 2, "a map line: INSIDE OUTSIDE COUNT"))
		return false;
	i = parse_idmap(p, i + 2, end, op->value, op->value ? &op->gid_map : &op->uid_map);
	return i >= 0 && expect_end(p, i, end);
}

/* prctl ptracer TASK | any | none: Yama's PR_SET_PTRACER */
static bool parse_ptracer(struct parser *p, struct npg_op *op, int i, int end)
{
	op->code = NPG_OP_PTRACER;
	if (!expect_word(p, i, "a task name, 'any' or 'none'"))
		return false;
	if (tok_is(&p->tok[i], "any"))
		op->value = NPG_PTRACER_ANY;
	else if (tok_is(&p->tok[i], "none"))
		op->value = NPG_PTRACER_NONE;
	else if (task_ref(p, i, &op->target))
		op->value = NPG_PTRACER_TASK;
	else
		return false;
	return expect_end(p, i + 1, end);
}

/* The operation's arguments, tokens [i, end) */
static bool parse_op(struct parser *p, struct npg_stmt *st, const struct op_spec *spec, int i,
		     int end)
{
	struct npg_op *op = &st->op;
	uint64_t v;
	int next, idx;

	op->code = spec->code;
	op->target = -1;
	if (spec->nids) {
		for (int k = 0; k < spec->nids; k++)
			if (!parse_id(p, i + k, spec->gid, spec->allow_none, &op->id[k]))
				return false;
		return expect_end(p, i + spec->nids, end);
	}
	switch (spec->code) {
	case NPG_OP_FORK:
	case NPG_OP_VFORK:
	case NPG_OP_THREAD:
		if (!expect_word(p, i, "the new task's name") ||
		    !check_fresh_name(p, &p->tok[i], "task"))
			return false;
		if (!expect_end(p, i + 1, end))
			return false;
		idx = add_task(p, &p->tok[i]);
		if (idx < 0)
			return false;
		p->sc->tasks[idx].thread = spec->code == NPG_OP_THREAD;
		p->sc->tasks[idx].creator = st->task;
		op->target = idx;
		return true;
	case NPG_OP_EXIT:
		if (i < end) {
			if (!tok_u64(&p->tok[i], &v) || v > 255) {
				error_at(p, p->tok[i].col, "bad exit code (0 to 255)");
				return false;
			}
			op->value = (int)v;
			i++;
		}
		return expect_end(p, i, end);
	case NPG_OP_WAIT:
		return task_ref(p, i, &op->target) && expect_end(p, i + 1, end);
	case NPG_OP_SETGROUPS:
		next = parse_groups(p, i, end, &op->ngroups, op->groups);
		return next >= 0 && expect_end(p, next, end);
	case NPG_OP_PRLIMIT:
		if (!task_ref(p, i, &op->target))
			return false;
		i++;
		/* fall through */
	case NPG_OP_SETRLIMIT:
		if (spec->code == NPG_OP_SETRLIMIT)
			op->target = st->task;
		if (!parse_nproc(p, i, &op->lim_cur, &op->lim_max))
			return false;
		return expect_end(p, i + 3, end);
	case NPG_OP_KEEPCAPS:
		/* prctl no_new_privs 1: PR_SET_NO_NEW_PRIVS (0 is EINVAL, as the
		 * kernel says); prctl dumpable 0|1 (2 is EINVAL) */
		if (i < end && tok_is(&p->tok[i], "ptracer"))
			return parse_ptracer(p, op, i + 1, end);
		if (i < end && tok_is(&p->tok[i], "no_new_privs"))
			op->code = NPG_OP_NO_NEW_PRIVS;
		else if (i < end && tok_is(&p->tok[i], "dumpable"))
			op->code = NPG_OP_DUMPABLE;
		else if (!expect_word(p, i, "'keepcaps'") || !tok_is(&p->tok[i], "keepcaps")) {
			if (i < end)
				error_at(p, p->tok[i].col, "only 'prctl keepcaps 0|1', 'prctl "
					 "no_new_privs 0|1', 'prctl dumpable 0|1|2' and 'prctl ptracer "
					 "TASK|any|none' are modelled");
			return false;
		}
		if (!expect_word(p, i + 1, op->code == NPG_OP_DUMPABLE ? "0, 1 or 2" : "0 or 1"))
			return false;
		if (!tok_u64(&p->tok[i + 1], &v) || v > (op->code == NPG_OP_DUMPABLE ? 2u : 1u)) {
			error_at(p, p->tok[i + 1].col, op->code == NPG_OP_DUMPABLE ?
				 "expected 0, 1 or 2" : "expected 0 or 1");
			return false;
		}
		op->value = (int)v;
		return expect_end(p, i + 2, end);
	case NPG_OP_PTRACE:
		/* ptrace TASK (PTRACE_SEIZE) | ptrace attach TASK | ptrace detach
		 * TASK; a lone word is a task's name, even 'attach' or 'detach' */
		op->value = NPG_PTRACE_SEIZE;
		if (i + 1 < end && tok_is(&p->tok[i], "detach")) {
			op->value = NPG_PTRACE_DETACH;
			i++;
		} else if (i + 1 < end && tok_is(&p->tok[i], "attach")) {
			op->value = NPG_PTRACE_ATTACH;
			i++;
		}
		if (!expect_word(p, i, "a task name") || !task_ref(p, i, &op->target))
			return false;
		return expect_end(p, i + 1, end);
	case NPG_OP_CAPSET: {
		static const char *const modes[] = { [NPG_CAPSET_DROP] = "drop", [NPG_CAPSET_KEEP] = "keep",
						     [NPG_CAPSET_RAISE] = "raise", [NPG_CAPSET_LOWER] = "lower",
						     [NPG_CAPSET_INHERITABLE] = "inheritable" };
		int m;

		if (!expect_word(p, i, "drop, keep, raise, lower or inheritable"))
			return false;
		for (m = 0; m < 5 && !tok_is(&p->tok[i], modes[m]); m++)
			;
		if (m == 5) {
			error_at(p, p->tok[i].col, "expected drop, keep, raise, lower or inheritable");
			return false;
		}
		op->value = m;
		next = parse_caps(p, i + 1, end, &op->caps);
		return next >= 0 && expect_end(p, next, end);
	}
	case NPG_OP_SECUREBITS:
		/* securebits none | NAME[,NAME...]: prctl(PR_SET_SECUREBITS) */
		next = parse_securebits(p, i, end, &op->value);
		return next >= 0 && expect_end(p, next, end);
	case NPG_OP_AMBIENT:
		/* ambient raise CAP | lower CAP | clear: prctl(PR_CAP_AMBIENT) */
		if (i < end && tok_is(&p->tok[i], "clear")) {
			op->value = PR_CAP_AMBIENT_CLEAR_ALL;
			return expect_end(p, i + 1, end);
		}
		if (i >= end || !(tok_is(&p->tok[i], "raise") || tok_is(&p->tok[i], "lower"))) {
			error_at(p, i < end ? p->tok[i].col : end_col(p), "expected raise CAP, lower CAP or clear");
			return false;
		}
		op->value = tok_is(&p->tok[i], "raise") ? PR_CAP_AMBIENT_RAISE : PR_CAP_AMBIENT_LOWER;
		if (!expect_word(p, i + 1, "a capability") || !parse_cap_name(p, &p->tok[i + 1], &idx))
			return false;
		op->caps = (uint64_t)idx;
		return expect_end(p, i + 2, end);
	case NPG_OP_KILL:
		/* kill PROCESS [SIGNAL]: SIGTERM as kill(1) */
		if (!task_ref(p, i, &op->target))
			return false;
		if (p->sc->tasks[op->target].thread) {
			error_at(p, p->tok[i].col, "kill takes a process, not the thread '%s'",
				 p->sc->tasks[op->target].name);
			return false;
		}
		op->value = SIGTERM;
		if (++i < end && !parse_kill_signal(p, &p->tok[i++], &op->value))
			return false;
		return expect_end(p, i, end);
	case NPG_OP_UNSHARE_USER:
		return parse_new_userns(p, op, st->task, i, end, "unshare", &op->target);
	case NPG_OP_CLONE_USER:
		/* clone CHILD user NS [maps]: clone(CLONE_NEWUSER | SIGCHLD) */
		if (!expect_word(p, i, "the new task's name") ||
		    !check_fresh_name(p, &p->tok[i], "task"))
			return false;
		idx = add_task(p, &p->tok[i]);
		if (idx < 0)
			return false;
		p->sc->tasks[idx].creator = st->task;
		op->target = idx;
		return parse_new_userns(p, op, idx, i + 1, end, "clone CHILD", &op->value);
	case NPG_OP_SETNS_USER:
		return userns_ref(p, i, &op->target) && expect_end(p, i + 2, end);
	case NPG_OP_WRITE_IDMAP:
		return parse_write(p, op, i, end);
	case NPG_OP_MAX_USERNS:
		/* sysctl user.max_user_namespaces N (0 to INT_MAX, or more: EINVAL) */
		if (!expect_word(p, i, "'user.max_user_namespaces'"))
			return false;
		if (!tok_is(&p->tok[i], "user.max_user_namespaces")) {
			error_at(p, p->tok[i].col, "only 'sysctl user.max_user_namespaces N' is modelled");
			return false;
		}
		if (!expect_word(p, i + 1, "a number") || !tok_u64(&p->tok[i + 1], &v) ||
		    v > UINT32_MAX) {
			if (i + 1 < end)
				error_at(p, p->tok[i + 1].col, "expected a number (0 to 4294967295)");
			return false;
		}
		op->lim_cur = v;
		return expect_end(p, i + 2, end);
	case NPG_OP_EXECVE:
		/* from a thread too: de_thread() makes it the process's leader */
		if (i < end) {	/* a declared file, or a plain program named for the reader */
			op->file = find_file(p->sc, &p->tok[i]) + 1;
			if (op->file)
				op->exec = p->sc->files[op->file - 1].exec;
			i++;
		}
		return expect_end(p, i, end);
	default:
		return false;
	}
}

static struct npg_stmt *new_stmt(struct parser *p, enum npg_stmt_kind kind)
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

static void commit_stmt(struct parser *p)
{
	p->sc->nstmts++;
}

static void discard_stmt(struct parser *p, struct npg_stmt *st)
{
	free(st->text);
	for (int i = 0; i < st->expect.nalt; i++)
		free(st->expect.alt[i].text);
	free(st->expect.alt);
	(void)p;
}

static void mark_dead(struct parser *p, int t)
{
	const struct npg_scenario *sc = p->sc;

	if (sc->tasks[t].thread) {
		p->dead[t] = true;
		return;
	}
	for (int i = 0; i < sc->ntasks; i++)
		if (leader_of(sc, i) == t)
			p->dead[i] = true;
}

/* The task whose vfork() child @c is, statically, or -1 */
static int vfork_waiter(const struct parser *p, int c)
{
	for (int i = 0; i < p->sc->ntasks; i++)
		if (p->vfork_child[i] == c + 1)
			return i;
	return -1;
}

/*
 * vfork(): the parent makes no call until the child has execve'd or
 * exited (wait_for_vfork_done()); until then the child shares its
 * parent's memory, where a puppet cannot create tasks (fork, vfork and
 * thread would run glibc's bookkeeping in the parent's memory) nor take
 * part in glibc's set*id broadcast. Both are decided here, on the text;
 * what only the run decides (the execve failed) yields 'suspended'.
 */
static bool vfork_allows(struct parser *p, int task, enum npg_opcode code, bool glibc)
{
	const struct npg_scenario *sc = p->sc;
	int waiter;

	if (p->vfork_child[task]) {
		error_at(p, p->tok[0].col, "task '%s' waits in vfork() until '%s' execs or exits",
			 sc->tasks[task].name, sc->tasks[p->vfork_child[task] - 1].name);
		return false;
	}
	waiter = vfork_waiter(p, task);
	if (waiter >= 0 && (glibc || code == NPG_OP_FORK || code == NPG_OP_VFORK ||
			    code == NPG_OP_THREAD || code == NPG_OP_CLONE_USER)) {
		error_at(p, p->tok[2].col, "'%s' shares the memory of '%s' (vfork) until it execs "
			 "or exits: fork, vfork, clone, thread and glibc are not modelled there",
			 sc->tasks[task].name, sc->tasks[waiter].name);
		return false;
	}
	return true;
}

/* A vfork starts the wait; the child's execve or exit, or a fatal signal to it, ends it */
static void vfork_track(struct parser *p, const struct npg_stmt *st)
{
	int waiter;

	if (st->op.code == NPG_OP_VFORK) {
		p->vfork_child[st->task] = st->op.target + 1;
		return;
	}
	if (st->op.code == NPG_OP_EXIT || st->op.code == NPG_OP_EXECVE)
		waiter = vfork_waiter(p, st->task);
	else if (st->op.code == NPG_OP_KILL && st->op.value != 0)
		waiter = vfork_waiter(p, st->op.target);
	else
		return;
	if (waiter >= 0)
		p->vfork_child[waiter] = 0;
}

/* glibc's INLINE_SETXID_SYSCALL wrappers (nptl/nptl_setxid.c); setfsuid is per thread */
static bool glibc_broadcasts(enum npg_opcode code)
{
	return (code >= NPG_OP_SETUID && code <= NPG_OP_SETRESUID) ||
	       (code >= NPG_OP_SETGID && code <= NPG_OP_SETRESGID) || code == NPG_OP_SETGROUPS;
}

static void parse_step(struct parser *p)
{
	struct npg_stmt *st = new_stmt(p, NPG_STMT_STEP);
	int arrow = find_arrow(p), opi;
	const struct op_spec *spec;

	if (!task_ref(p, 0, &st->task))
		goto bad;
	if (p->dead[st->task]) {
		error_at(p, p->tok[0].col, "task '%s' has already exited",
			 p->sc->tasks[st->task].name);
		goto bad;
	}
	if (!expect_word(p, 2, "an operation"))
		goto bad;
	/* "glibc OP": the set*id wrapper that applies OP to every thread */
	opi = tok_is(&p->tok[2], "glibc") ? 3 : 2;
	if (opi == 3 && !expect_word(p, 3, "a set*id operation after 'glibc'"))
		goto bad;
	for (spec = op_specs; spec->name && !tok_is(&p->tok[opi], spec->name); spec++)
		;
	if (!spec->name) {
		error_at(p, p->tok[opi].col, "unknown operation '%.*s%s'", TOKLEN(p->tok[opi].len),
			 p->tok[opi].start, TOKCUT(p->tok[opi].len));
		goto bad;
	}
	if (opi == 3 && !glibc_broadcasts(spec->code)) {
		error_at(p, p->tok[3].col, "glibc applies set*uid, set*gid and setgroups to every "
			 "thread; not '%s'", spec->name);
		goto bad;
	}
	st->op.glibc = opi == 3;
	if (!vfork_allows(p, st->task, spec->code, st->op.glibc))
		goto bad;
	st->text = stmt_text(p, 2, arrow);
	if (!parse_op(p, st, spec, opi + 1, arrow))
		goto bad;
	if (arrow < p->ntok && !parse_expect(p, st, arrow))
		goto bad;
	vfork_track(p, st);
	if (st->op.code == NPG_OP_EXIT)
		mark_dead(p, st->task);
	commit_stmt(p);
	return;
bad:
	discard_stmt(p, st);
}

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
static void parse_check(struct parser *p)
{
	struct npg_stmt *st = new_stmt(p, NPG_STMT_CHECK);
	int arrow = find_arrow(p), i;

	if (!expect_word(p, 1, "'count' or a task name"))
		goto bad;
	if (tok_is(&p->tok[1], "count")) {
		st->check = NPG_CHECK_COUNT;
		if (!parse_id(p, 2, false, false, &st->user))
			goto bad;
		i = 3;
		if (i < arrow && tok_is(&p->tok[i], "in")) {
			int ns;

			if (!expect_word(p, i + 1, "a namespace name"))
				goto bad;
			ns = find_userns(p->sc, &p->tok[i + 1]);
			if (ns < 0 && !tok_is(&p->tok[i + 1], "initial")) {
				error_at(p, p->tok[i + 1].col, "unknown namespace '%.*s%s' (one an "
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

		if (!task_ref(p, 1, &st->task) || !expect_word(p, 2, "a property"))
			goto bad;
		for (k = 0; check_props[k].name && !tok_is(&p->tok[2], check_props[k].name); k++)
			;
		if (!check_props[k].name) {
			error_at(p, p->tok[2].col,
				 "unknown property '%.*s%s' (uids gids ruid euid suid fsuid flag state exit cap nproc userns no_new_privs tracer dumpable)",
				 TOKLEN(p->tok[2].len), p->tok[2].start, TOKCUT(p->tok[2].len));
			goto bad;
		}
		st->check = check_props[k].kind;
		i = 3;
		if (st->check == NPG_CHECK_CAP) {
			if (!expect_word(p, 3, "a capability name") ||
			    !parse_cap_name(p, &p->tok[3], &st->cap))
				goto bad;
			i = 4;
		}
	}
	if (!expect_end(p, i, arrow))
		goto bad;
	st->text = stmt_text(p, 1, arrow);
	if (arrow < p->ntok && !parse_expect(p, st, arrow))
		goto bad;
	commit_stmt(p);
	return;
bad:
	discard_stmt(p, st);
}

/* "TASK... runs:" opens a concurrent program, which only explore reads */
static bool opens_program(const struct parser *p)
{
	for (int i = 1; i + 1 < p->ntok && p->tok[i].kind == NPG_TOK_WORD; i++)
		if (tok_is(&p->tok[i], "runs") && p->tok[i + 1].kind == NPG_TOK_COLON)
			return true;
	return false;
}

static void parse_line(struct parser *p)
{
	const struct npg_token *t0 = &p->tok[0];

	if (t0->kind == NPG_TOK_WORD && opens_program(p)) {
		error_at(p, t0->col, "a concurrent program ('runs:'): this file is for "
			 "'nprocguard explore' (doc/scenario-language.md)");
		p->err = NULL;	/* one message says it: the program lines would only repeat it */
	} else if (p->ntok >= 2 && t0->kind == NPG_TOK_WORD && p->tok[1].kind == NPG_TOK_COLON) {
		parse_step(p);
	} else if (tok_is(t0, "check")) {
		parse_check(p);
	} else if (tok_is(t0, "scenario")) {
		parse_string_decl(p, &p->sc->title, "scenario");
	} else if (tok_is(t0, "source")) {
		parse_string_decl(p, &p->sc->source, "source");
	} else if (tok_is(t0, "policies")) {
		parse_policies(p);
	} else if (tok_is(t0, "bounding")) {
		parse_bounding(p);
	} else if (tok_is(t0, "yama")) {
		parse_yama(p);
	} else if (tok_is(t0, "file")) {
		parse_file_decl(p);
	} else if (tok_is(t0, "user") || tok_is(t0, "group") || tok_is(t0, "task")) {
		if (p->sc->nstmts > 0) {
			error_at(p, t0->col, "declare users, groups and tasks before the first step");
			return;
		}
		if (tok_is(t0, "task"))
			parse_task_decl(p);
		else
			parse_name_decl(p, tok_is(t0, "group"));
	} else {
		error_at(p, t0->col, "unknown statement '%.*s%s' (expected TASK: OPERATION, check, "
			 "user, group, task, scenario, source or policies)", TOKLEN(t0->len), t0->start, TOKCUT(t0->len));
	}
}

struct npg_scenario *npg_scenario_parse(const char *file, const char *text, size_t len,
					FILE *err)
{
	struct parser p = { .file = file, .err = err };
	size_t pos = 0;

	p.sc = xcalloc(1, sizeof(*p.sc));
	p.sc->yama_scope = -1;
	p.sc->file = strdup(file);
	p.sc->tasks = xcalloc(MAX_TASKS, sizeof(*p.sc->tasks));
	p.sc->names = xcalloc(MAX_NAMES, sizeof(*p.sc->names));
	p.sc->files = xcalloc(NPG_MAX_FILES, sizeof(*p.sc->files));
	p.dead = xcalloc(MAX_TASKS, sizeof(*p.dead));
	p.vfork_child = xcalloc(MAX_TASKS, sizeof(*p.vfork_child));
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t linelen = nl ? (size_t)(nl - (text + pos)) : len - pos;
		int err_col;
		const char *msg;

		p.line++;
		p.text = text + pos;
		p.textlen = linelen;
		if (memchr(p.text, '\0', linelen)) {
			error_at(&p, (int)((const char *)memchr(p.text, '\0', linelen) - p.text) + 1,
				 "NUL byte in scenario text");
		} else {
			p.ntok = npg_lex_line(p.text, linelen, p.tok, NPG_MAX_TOKENS, &err_col, &msg);
			if (p.ntok < 0)
				error_at(&p, err_col, "%s", msg);
			else if (p.ntok > 0)
				parse_line(&p);
		}
		pos += linelen + (nl ? 1 : 0);
	}
	free(p.dead);
	free(p.vfork_child);
	if (p.sc->policies == 0)
		p.sc->policies = (1u << NPG_NPOLICIES) - 1;
	if (p.nerrors == 0 && p.sc->ntasks == 0) {
		p.line = 1;
		error_at(&p, 1, "scenario declares no task");
	}
	if (p.nerrors > MAX_ERRORS && err)
		fprintf(err, "%s: %d more errors\n", file, p.nerrors - MAX_ERRORS);
	if (p.nerrors) {
		npg_scenario_free(p.sc);
		return NULL;
	}
	return p.sc;
}

struct npg_scenario *npg_scenario_load(const char *path, FILE *err)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	struct npg_scenario *sc;

	if (!f) {
		if (err)
			fprintf(err, "%s: %s\n", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		if (len == cap) {
			/* room for one byte past the limit: that byte is what tells */
			size_t want = cap ? cap * 2 : 8192;
			char *grown;

			if (want > MAX_FILE + 1)
				want = MAX_FILE + 1;
			if (want == cap)
				break;
			cap = want;
			grown = realloc(buf, cap);
			if (!grown) {
				perror("nprocguard");
				exit(2);
			}
			buf = grown;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		if (err)
			fprintf(err, "%s: read error\n", path);
		free(buf);
		fclose(f);
		return NULL;
	}
	if (len > MAX_FILE) {
		if (err)
			fprintf(err, "%s: scenario larger than 16 MiB (%u bytes)\n", path, MAX_FILE);
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	sc = npg_scenario_parse(path, buf ? buf : "", len, err);
	free(buf);
	return sc;
}

void npg_scenario_free(struct npg_scenario *sc)
{
	if (!sc)
		return;
	for (int i = 0; i < sc->nstmts; i++) {
		free(sc->stmts[i].text);
		for (int k = 0; k < sc->stmts[i].expect.nalt; k++)
			free(sc->stmts[i].expect.alt[k].text);
		free(sc->stmts[i].expect.alt);
	}
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

/*
 * For the explorer's programs (src/explore/program.c): the operation in
 * tokens [first, end of line) of line @line_no, performed by task @task,
 * parsed exactly as a step's operation is (a fork or thread adds its task
 * to @sc). Returns 0, or -1 with file:line:col errors written to @err.
 */
int npg_scenario_parse_op(struct npg_scenario *sc, const char *file, int line_no,
			  const char *line, size_t len, int first, int task,
			  struct npg_stmt *out, FILE *err)
{
	struct parser p = { .file = file, .err = err, .line = line_no, .text = line,
			    .textlen = len, .sc = sc };
	const struct op_spec *spec;
	const char *msg;
	int err_col;

	memset(out, 0, sizeof(*out));
	out->kind = NPG_STMT_STEP;
	out->line = line_no;
	out->task = task;
	p.ntok = npg_lex_line(line, len, p.tok, NPG_MAX_TOKENS, &err_col, &msg);
	if (p.ntok < 0) {
		error_at(&p, err_col, "%s", msg);
		return -1;
	}
	if (!expect_word(&p, first, "an operation"))
		return -1;
	out->col = p.tok[first].col;
	for (spec = op_specs; spec->name && !tok_is(&p.tok[first], spec->name); spec++)
		;
	if (!spec->name) {
		error_at(&p, p.tok[first].col, "unknown operation '%.*s%s'",
			 TOKLEN(p.tok[first].len), p.tok[first].start, TOKCUT(p.tok[first].len));
		return -1;
	}
	if (spec->code == NPG_OP_VFORK) {
		error_at(&p, p.tok[first].col, "vfork is not modelled in a concurrent program: its "
			 "parent would block until the child execs or exits");
		return -1;
	}
	if (spec->code == NPG_OP_UNSHARE_USER || spec->code == NPG_OP_CLONE_USER ||
	    spec->code == NPG_OP_SETNS_USER || spec->code == NPG_OP_WRITE_IDMAP ||
	    spec->code == NPG_OP_MAX_USERNS) {
		/* a program's statements may run many times, or in any order:
		 * a namespace is named by the one step that creates it */
		error_at(&p, p.tok[first].col, "%s is not modelled in a concurrent program: "
			 "each namespace is created by one step of a scenario", spec->name);
		return -1;
	}
	if (spec->code == NPG_OP_PTRACE ||
	    (spec->code == NPG_OP_KEEPCAPS && first + 1 < p.ntok &&
	     tok_is(&p.tok[first + 1], "ptracer"))) {
		/* the explorer's symmetry swaps the tasks of a class: a link
		 * from one task to another would not follow */
		error_at(&p, p.tok[first].col, "ptrace and prctl ptracer are not modelled in a "
			 "concurrent program: they link one task to another");
		return -1;
	}
	p.dead = xcalloc(MAX_TASKS, sizeof(*p.dead));
	if (!parse_op(&p, out, spec, first + 1, p.ntok)) {
		free(p.dead);
		return -1;
	}
	free(p.dead);
	out->text = stmt_text(&p, first, p.ntok);
	return p.nerrors ? -1 : 0;
}
