/* always/never expressions: a small recursive-descent parser and evaluator. */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "explore/expr.h"
#include "explore/program.h"

enum node_kind { N_OR, N_AND, N_NOT, N_CMP, N_TRUTH };
enum val_kind { V_CONST, V_COUNT, V_TASK };
enum task_prop { P_RUID, P_EUID, P_SUID, P_FSUID, P_FLAG, P_STATE, P_LIMIT, P_KILLED };
enum cmp { C_EQ, C_NE, C_LT, C_LE, C_GT, C_GE };

struct value {
	enum val_kind kind;
	int64_t constant;
	npg_id uid;		/* V_COUNT */
	int task;		/* V_TASK: a task, or -1 for the family's member */
	enum task_prop prop;
};

struct npg_expr {
	enum node_kind kind;
	struct npg_expr *a, *b;	/* N_OR, N_AND: both; N_NOT: a */
	enum cmp cmp;
	struct value l, r;	/* N_CMP: l CMP r; N_TRUTH: l != 0 */
	int family;		/* root only: -1 or the family */
};

struct eparser {
	const struct npg_cprog *cp;
	const char *file;
	int line;
	const struct npg_token *tok;
	int i, n;
	FILE *err;
	bool failed;
	int family;
};

static void eerror(struct eparser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void eerror(struct eparser *p, const char *fmt, ...)
{
	va_list ap;

	int col = p->i < p->n ? p->tok[p->i].col
			      : (p->n ? p->tok[p->n - 1].col + (int)p->tok[p->n - 1].len : 1);

	if (!p->failed && p->err) {
		fprintf(p->err, "%s:%d:%d: ", p->file, p->line, col);
		va_start(ap, fmt);
		vfprintf(p->err, fmt, ap);
		va_end(ap);
		fputc('\n', p->err);
	}
	p->failed = true;
}

static bool is(const struct npg_token *t, const char *w)
{
	return t->kind == NPG_TOK_WORD && t->len == strlen(w) && memcmp(t->start, w, t->len) == 0;
}

static bool peek(struct eparser *p, const char *w)
{
	return p->i < p->n && is(&p->tok[p->i], w);
}

static int find_task(const struct npg_scenario *sc, const struct npg_token *t)
{
	for (int k = 0; k < sc->ntasks; k++)
		if (strlen(sc->tasks[k].name) == t->len &&
		    memcmp(sc->tasks[k].name, t->start, t->len) == 0)
			return k;
	return -1;
}

static int find_family(const struct npg_cprog *cp, const struct npg_token *t)
{
	for (int f = 0; f < cp->nfamilies; f++)
		if (strlen(cp->families[f]) == t->len &&
		    memcmp(cp->families[f], t->start, t->len) == 0)
			return f;
	return -1;
}

static const struct npg_name *find_user(const struct npg_scenario *sc, const struct npg_token *t)
{
	for (int k = 0; k < sc->nnames; k++)
		if (!sc->names[k].group && strlen(sc->names[k].name) == t->len &&
		    memcmp(sc->names[k].name, t->start, t->len) == 0)
			return &sc->names[k];
	return NULL;
}

static bool parse_number(const struct npg_token *t, int64_t *out)
{
	int64_t v = 0;

	if (t->kind != NPG_TOK_WORD || t->len == 0 || t->len > 12)
		return false;
	for (size_t k = 0; k < t->len; k++) {
		if (t->start[k] < '0' || t->start[k] > '9')
			return false;
		v = v * 10 + (t->start[k] - '0');
	}
	*out = v;
	return true;
}

static const char *const prop_names[] = { "ruid", "euid", "suid", "fsuid", "flag", "state",
					  "limit", "killed", NULL };
static const char *const state_names[] = { "absent", "running", "zombie", "reaped", NULL };

static bool parse_value(struct eparser *p, struct value *v)
{
	const struct npg_token *t;
	const struct npg_name *u;
	int k;

	memset(v, 0, sizeof(*v));
	if (p->i >= p->n) {
		eerror(p, "missing a value");
		return false;
	}
	t = &p->tok[p->i];
	if (is(t, "count")) {
		p->i++;
		if (p->i >= p->n || !(u = find_user(p->cp->sc, &p->tok[p->i]))) {
			eerror(p, "expected a user name after 'count'");
			return false;
		}
		v->kind = V_COUNT;
		v->uid = u->id;
		p->i++;
		return true;
	}
	if (p->i + 1 < p->n) {
		int task = find_task(p->cp->sc, t);
		int fam = task < 0 ? find_family(p->cp, t) : -1;

		for (k = 0; prop_names[k] && !is(&p->tok[p->i + 1], prop_names[k]); k++)
			;
		if (prop_names[k] && (task >= 0 || fam >= 0)) {
			if (fam >= 0) {
				if (p->family >= 0 && p->family != fam) {
					eerror(p, "at most one repeated task per expression");
					return false;
				}
				p->family = fam;
			}
			v->kind = V_TASK;
			v->task = task;
			v->prop = (enum task_prop)k;
			p->i += 2;
			return true;
		}
		if (prop_names[k]) {
			eerror(p, "unknown task '%.*s'", (int)(t->len > 64 ? 64 : t->len), t->start);
			return false;
		}
	}
	v->kind = V_CONST;
	p->i++;
	if (parse_number(t, &v->constant))
		return true;
	for (k = 0; state_names[k]; k++)
		if (is(t, state_names[k])) {
			v->constant = k;
			return true;
		}
	if (is(t, "set") || is(t, "clear")) {
		v->constant = is(t, "set");
		return true;
	}
	if (is(t, "unlimited")) {
		v->constant = INT64_MAX;
		return true;
	}
	if ((u = find_user(p->cp->sc, t))) {
		v->constant = u->id;
		return true;
	}
	p->i--;
	eerror(p, "expected a value: count USER, TASK euid|ruid|suid|fsuid|flag|killed|state|limit, "
	       "a number, a user, a task state, set or clear");
	return false;
}

static struct npg_expr *node(enum node_kind kind)
{
	struct npg_expr *e = calloc(1, sizeof(*e));

	if (!e) {
		perror("nprocguard");
		exit(2);
	}
	e->kind = kind;
	e->family = -1;
	return e;
}

static struct npg_expr *parse_or(struct eparser *p);

static struct npg_expr *parse_atom(struct eparser *p)
{
	static const char *const cmps[] = { "==", "!=", "<", "<=", ">", ">=", NULL };
	struct npg_expr *e = node(N_CMP);
	int k;

	if (!parse_value(p, &e->l))
		goto bad;
	for (k = 0; cmps[k] && !peek(p, cmps[k]); k++)
		;
	if (!cmps[k]) {
		if (e->l.kind == V_TASK && (e->l.prop == P_FLAG || e->l.prop == P_KILLED)) {
			e->kind = N_TRUTH;
			return e;
		}
		eerror(p, "expected == != < <= > or >=");
		goto bad;
	}
	p->i++;
	e->cmp = (enum cmp)k;
	if (!parse_value(p, &e->r))
		goto bad;
	return e;
bad:
	free(e);
	return NULL;
}

static struct npg_expr *parse_unary(struct eparser *p)
{
	if (peek(p, "not")) {
		struct npg_expr *e = node(N_NOT);

		p->i++;
		e->a = parse_unary(p);
		if (!e->a) {
			free(e);
			return NULL;
		}
		return e;
	}
	return parse_atom(p);
}

static struct npg_expr *parse_binary(struct eparser *p, const char *word, enum node_kind kind,
				     struct npg_expr *(*sub)(struct eparser *))
{
	struct npg_expr *left = sub(p);

	while (left && peek(p, word)) {
		struct npg_expr *e = node(kind);

		p->i++;
		e->a = left;
		e->b = sub(p);
		if (!e->b) {
			npg_expr_free(e);
			return NULL;
		}
		left = e;
	}
	return left;
}

static struct npg_expr *parse_and(struct eparser *p)
{
	return parse_binary(p, "and", N_AND, parse_unary);
}

static struct npg_expr *parse_or(struct eparser *p)
{
	return parse_binary(p, "or", N_OR, parse_and);
}

struct npg_expr *npg_expr_parse(const struct npg_cprog *cp, const char *file, int line,
				const struct npg_token *tok, int from, int ntok, FILE *err)
{
	struct eparser p = { .cp = cp, .file = file, .line = line, .tok = tok, .i = from,
			     .n = ntok, .err = err, .family = -1 };
	struct npg_expr *e;

	if (from >= ntok) {
		eerror(&p, "missing an expression");
		return NULL;
	}
	e = parse_or(&p);
	if (e && p.i < p.n) {
		eerror(&p, "unexpected word (and, or, not join comparisons)");
		npg_expr_free(e);
		return NULL;
	}
	if (e)
		e->family = p.family;
	return e;
}

void npg_expr_free(struct npg_expr *e)
{
	if (!e)
		return;
	npg_expr_free(e->a);
	npg_expr_free(e->b);
	free(e);
}

int npg_expr_family(const struct npg_expr *e)
{
	return e->family;
}

static int64_t value_of(const struct value *v, const struct npg_world *w, int member)
{
	const struct npg_task *t;

	switch (v->kind) {
	case V_CONST:
		return v->constant;
	case V_COUNT:
		return npg_count_of(w, v->uid);
	case V_TASK:
		t = &w->tasks[v->task >= 0 ? v->task : member];
		switch (v->prop) {
		case P_RUID: return t->cred.uid.real;
		case P_EUID: return t->cred.uid.eff;
		case P_SUID: return t->cred.uid.saved;
		case P_FSUID: return t->cred.uid.fs;
		case P_FLAG: return t->nproc_exceeded;
		case P_KILLED: return w->tasks[t->leader].exit_signal != 0;
		case P_STATE: return t->state;
		case P_LIMIT: {
			uint64_t l = w->tasks[t->leader].nproc_cur;

			return l > INT64_MAX ? INT64_MAX : (int64_t)l;
		}
		}
	}
	return 0;
}

bool npg_expr_eval(const struct npg_expr *e, const struct npg_world *w, int member)
{
	int64_t l, r;

	switch (e->kind) {
	case N_OR: return npg_expr_eval(e->a, w, member) || npg_expr_eval(e->b, w, member);
	case N_AND: return npg_expr_eval(e->a, w, member) && npg_expr_eval(e->b, w, member);
	case N_NOT: return !npg_expr_eval(e->a, w, member);
	case N_TRUTH: return value_of(&e->l, w, member) != 0;
	case N_CMP:
		l = value_of(&e->l, w, member);
		r = value_of(&e->r, w, member);
		switch (e->cmp) {
		case C_EQ: return l == r;
		case C_NE: return l != r;
		case C_LT: return l < r;
		case C_LE: return l <= r;
		case C_GT: return l > r;
		case C_GE: return l >= r;
		}
	}
	return false;
}

void npg_expr_mark_named(const struct npg_expr *e, bool *named)
{
	if (!e)
		return;
	if (e->kind == N_CMP || e->kind == N_TRUTH) {
		if (e->l.kind == V_TASK && e->l.task >= 0)
			named[e->l.task] = true;
		if (e->r.kind == V_TASK && e->r.task >= 0)
			named[e->r.task] = true;
	}
	npg_expr_mark_named(e->a, named);
	npg_expr_mark_named(e->b, named);
}

bool npg_expr_reads_limit(const struct npg_expr *e)
{
	if (!e)
		return false;
	if ((e->kind == N_CMP || e->kind == N_TRUTH) &&
	    ((e->l.kind == V_TASK && e->l.prop == P_LIMIT) ||
	     (e->kind == N_CMP && e->r.kind == V_TASK && e->r.prop == P_LIMIT)))
		return true;
	return npg_expr_reads_limit(e->a) || npg_expr_reads_limit(e->b);
}
