/*
 * The built-in properties (doc/scenario-language.md, "Properties"): each
 * reads the world the model computed; none decides anything about the
 * kernel itself.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explore/expr.h"
#include "explore/property.h"
#include "model/policy.h"

const char *const npg_builtin_names[NPG_NBUILTIN] = {
	"no-root-after-failed-drop", "limit-holds", "no-collateral-execve-failure",
	"no-stale-failure", "setuid-never-fails",
};

int npg_prop_parse(const char *name, struct npg_prop *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < NPG_NBUILTIN; i++) {
		size_t n = strlen(npg_builtin_names[i]);

		if (strncmp(name, npg_builtin_names[i], n) != 0)
			continue;
		if (name[n] == '\0') {
			out->kind = (enum npg_prop_kind)i;
			snprintf(out->name, sizeof(out->name), "%s", name);
			return 0;
		}
		if (i == NPG_P_LIMIT_HOLDS && name[n] == '+') {
			char *end;
			long k = strtol(name + n + 1, &end, 10);

			if (*end || end == name + n + 1 || k < 0 || k > 1000000)
				return -1;
			out->kind = NPG_P_LIMIT_HOLDS;
			out->k = k;
			snprintf(out->name, sizeof(out->name), "%s", name);
			return 0;
		}
	}
	return -1;
}

static bool is_setxuid(enum npg_opcode c)
{
	return c == NPG_OP_SETUID || c == NPG_OP_SETEUID || c == NPG_OP_SETREUID ||
	       c == NPG_OP_SETRESUID;
}

static bool names_non_root(const struct npg_op *op)
{
	for (int k = 0; k < 3; k++)
		if (op->id[k] != NPG_ID_NONE && op->id[k] != 0)
			return true;
	return false;
}

static bool failed(struct npg_result r)
{
	return r.kind == NPG_R_ERRNO || r.kind == NPG_R_KILLED;
}

static bool eagain(struct npg_result r)
{
	return r.kind == NPG_R_ERRNO && r.value == EAGAIN;
}

/* The user's limit: the lowest soft RLIMIT_NPROC of its live or zombie tasks */
static uint64_t user_limit(const struct npg_world *w, npg_id uid)
{
	uint64_t l = NPG_RLIM_INFINITY;

	for (int i = 0; i < w->ntasks; i++) {
		const struct npg_task *t = &w->tasks[i];

		if ((t->state == NPG_TASK_RUNNING || t->state == NPG_TASK_ZOMBIE) &&
		    t->cred.charged_to == uid && npg_rlimit_nproc(w, t) < l)
			l = npg_rlimit_nproc(w, t);
	}
	return l;
}

void npg_monitor_step(const struct npg_step_ctx *c, unsigned *actor_mon, unsigned *child_mon)
{
	const struct npg_task *before = &c->pre->tasks[c->actor];
	const struct npg_task *after = &c->post->tasks[c->actor];

	*actor_mon = c->mon;
	*child_mon = 0;
	if (is_setxuid(c->op->code) && failed(c->result) && names_non_root(c->op))
		*actor_mon |= NPG_MON_FAILED_DROP;
	if (is_setxuid(c->op->code) && c->result.kind == NPG_R_OK &&
	    after->cred.charged_to != before->cred.charged_to &&
	    npg_count_over(npg_count_of(c->post, after->cred.charged_to), npg_rlimit_nproc(c->post, after)))
		*actor_mon |= NPG_MON_CROSSED;
	/* a child is a copy of a task that crossed: its flag came with it */
	if ((c->op->code == NPG_OP_FORK || c->op->code == NPG_OP_THREAD) &&
	    c->result.kind == NPG_R_OK)
		*child_mon = c->mon & NPG_MON_CROSSED;
}

static const char *task_name(const struct npg_step_ctx *c)
{
	return c->cp->sc->tasks[c->actor].name;
}

bool npg_prop_step(const struct npg_prop *p, const struct npg_step_ctx *c, char *msg, size_t len)
{
	const struct npg_task *before = &c->pre->tasks[c->actor];
	long n = npg_count_of(c->pre, before->cred.charged_to);
	uint64_t l = npg_rlimit_nproc(c->pre, before);

	switch (p->kind) {
	case NPG_P_NO_ROOT_AFTER_FAILED_DROP:
		if ((c->mon & NPG_MON_FAILED_DROP) && c->op->code != NPG_OP_EXIT &&
		    before->cred.uid.eff == 0) {
			snprintf(msg, len, "%s's drop to a non-root user failed, and it went on to "
				 "'%s' with effective uid 0", task_name(c), c->op->code == NPG_OP_EXECVE ?
				 "execve" : "a later call");
			return true;
		}
		return false;
	case NPG_P_NO_COLLATERAL_EXECVE_FAILURE:
		if (c->op->code == NPG_OP_EXECVE && eagain(c->result) && !(c->mon & NPG_MON_CROSSED)) {
			snprintf(msg, len, "%s's execve failed with EAGAIN, yet %s never crossed the "
				 "limit through set*uid (its user has %ld tasks)", task_name(c),
				 task_name(c), n);
			return true;
		}
		return false;
	case NPG_P_NO_STALE_FAILURE:
		if (c->op->code == NPG_OP_EXECVE && eagain(c->result) && !npg_count_over(n, l)) {
			snprintf(msg, len, "%s's execve failed with EAGAIN while its user has %ld "
				 "tasks, at or below its limit %llu", task_name(c), n,
				 (unsigned long long)l);
			return true;
		}
		return false;
	case NPG_P_SETUID_NEVER_FAILS:
		if (is_setxuid(c->op->code) && (eagain(c->result) || c->result.kind == NPG_R_KILLED)) {
			snprintf(msg, len, "%s's %s %s because of RLIMIT_NPROC", task_name(c),
				 c->op->code == NPG_OP_SETUID ? "setuid" : "set*uid",
				 c->result.kind == NPG_R_KILLED ? "was killed (SIGSEGV)" : "failed with EAGAIN");
			return true;
		}
		return false;
	case NPG_P_LIMIT_HOLDS:
	case NPG_P_USER:
		return false;
	}
	return false;
}

static const char *uid_name(const struct npg_scenario *sc, npg_id id, char *buf, size_t len)
{
	npg_render_uid(sc, id, false, buf, len);
	return buf;
}

bool npg_prop_state(const struct npg_prop *p, const struct npg_cprog *cp,
		    const struct npg_world *w, char *msg, size_t len)
{
	char name[64];

	if (p->kind != NPG_P_LIMIT_HOLDS)
		return false;
	for (int i = 0; i < w->ncounts; i++) {
		npg_id uid = w->counts[i].uid;
		uint64_t l;

		if (uid == NPG_INIT_USER)
			continue;
		l = user_limit(w, uid);
		if (l == NPG_RLIM_INFINITY || l > (uint64_t)1 << 40)
			continue;
		if (npg_count_over(w->counts[i].count, l + (uint64_t)p->k)) {
			if (p->k)
				snprintf(msg, len, "%s has %ld tasks, over its limit %llu + %ld",
					 uid_name(cp->sc, uid, name, sizeof(name)), w->counts[i].count,
					 (unsigned long long)l, p->k);
			else
				snprintf(msg, len, "%s has %ld tasks, over its limit %llu",
					 uid_name(cp->sc, uid, name, sizeof(name)), w->counts[i].count,
					 (unsigned long long)l);
			return true;
		}
	}
	return false;
}

bool npg_user_prop_broken(const struct npg_cprog *cp, const struct npg_user_prop *u,
			  const struct npg_world *w, char *msg, size_t len)
{
	int fam = npg_expr_family(u->expr);

	for (int t = 0; t < (fam >= 0 ? cp->sc->ntasks : 1); t++) {
		bool v;

		if (fam >= 0 && cp->family[t] != fam)
			continue;
		v = npg_expr_eval(u->expr, w, t);
		if (v == u->never) {
			if (fam >= 0)
				snprintf(msg, len, "'%s' does not hold for %s (line %d)", u->text,
					 cp->sc->tasks[t].name, u->line);
			else
				snprintf(msg, len, "'%s' does not hold (line %d)", u->text, u->line);
			return true;
		}
	}
	return false;
}
