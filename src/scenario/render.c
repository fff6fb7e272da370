/* Canonical text for observed values; expectations are rendered the same way. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "scenario/scenario.h"

/*
 * snprintf(buf, len, "%s", s) and "%ld" without the format machinery: a
 * run renders a result for every statement and policy, and snprintf() of
 * a constant was most of what rendering cost. @s is never NULL here.
 */
static void render_text(char *buf, size_t len, const char *s)
{
	size_t n = strlen(s);

	if (len == 0)
		return;
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
}

static void render_long(char *buf, size_t len, long v)
{
	char digits[24], *p = digits + sizeof(digits);
	unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;

	*--p = '\0';
	do
		*--p = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		*--p = '-';
	render_text(buf, len, p);
}

/* uids by user name; gids by group name, else by the user of that number */
void npg_render_uid(const struct npg_scenario *sc, npg_id id, bool gid, char *buf, size_t len)
{
	const char *name = NULL;

	for (int i = 0; i < sc->nnames && !name; i++)
		if (sc->names[i].id == id && sc->names[i].group == gid)
			name = sc->names[i].name;
	for (int i = 0; i < sc->nnames && !name && gid; i++)
		if (sc->names[i].id == id)
			name = sc->names[i].name;
	if (name)
		render_text(buf, len, name);
	else if (id == NPG_ID_NONE)
		snprintf(buf, len, "-1");
	else
		snprintf(buf, len, "%" PRIu32, id);
}

void npg_render_limit(uint64_t v, char *buf, size_t len)
{
	if (v == NPG_RLIM_INFINITY)
		render_text(buf, len, "unlimited");
	else
		snprintf(buf, len, "%" PRIu64, v);
}

const char *npg_signal_name(int sig, char *buf, size_t len)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else
		snprintf(buf, len, "%d", sig);
	return buf;
}

static bool op_is_gid(enum npg_opcode op)
{
	return op >= NPG_OP_SETGID && op <= NPG_OP_SETGROUPS;
}

void npg_render_result(const struct npg_scenario *sc, const struct npg_stmt *st,
		       struct npg_result r, char *buf, size_t len)
{
	char sig[32];
	const char *name;

	switch (r.kind) {
	case NPG_R_OK:
		render_text(buf, len, "ok");
		break;
	case NPG_R_ERRNO:
		name = strerrorname_np((int)r.value);
		if (name)
			render_text(buf, len, name);
		else
			snprintf(buf, len, "errno %ld", r.value);
		break;
	case NPG_R_ID:
		npg_render_uid(sc, (npg_id)r.value, op_is_gid(st->op.code), buf, len);
		break;
	case NPG_R_KILLED:
		snprintf(buf, len, "killed %s", npg_signal_name((int)r.value, sig, sizeof(sig)));
		break;
	case NPG_R_RUNNING:
		render_text(buf, len, "running");
		break;
	case NPG_R_DEAD:
		render_text(buf, len, "dead");
		break;
	case NPG_R_UNREPRODUCIBLE:
		render_text(buf, len, "unreproducible");
		break;
	case NPG_R_SUSPENDED:
		render_text(buf, len, "suspended");
		break;
	}
}

static void render_ids(const struct npg_scenario *sc, const struct npg_ids *ids, bool gid,
		       char *buf, size_t len)
{
	char r[32], e[32], s[32];

	npg_render_uid(sc, ids->real, gid, r, sizeof(r));
	npg_render_uid(sc, ids->eff, gid, e, sizeof(e));
	npg_render_uid(sc, ids->saved, gid, s, sizeof(s));
	snprintf(buf, len, "%s %s %s", r, e, s);
}

static const char *const state_names[] = {
	[NPG_TASK_ABSENT] = "absent", [NPG_TASK_RUNNING] = "running",
	[NPG_TASK_ZOMBIE] = "zombie", [NPG_TASK_REAPED] = "reaped",
};

void npg_render_check(const struct npg_scenario *sc, const struct npg_stmt *st,
		      const struct npg_task *t, long count, char *buf, size_t len)
{
	char a[32], b[32];

	switch (st->check) {
	case NPG_CHECK_COUNT:
		render_long(buf, len, count);
		break;
	case NPG_CHECK_UIDS:
		render_ids(sc, &t->cred.uid, false, buf, len);
		break;
	case NPG_CHECK_GIDS:
		render_ids(sc, &t->cred.gid, true, buf, len);
		break;
	case NPG_CHECK_RUID:
		npg_render_uid(sc, t->cred.uid.real, false, buf, len);
		break;
	case NPG_CHECK_EUID:
		npg_render_uid(sc, t->cred.uid.eff, false, buf, len);
		break;
	case NPG_CHECK_SUID:
		npg_render_uid(sc, t->cred.uid.saved, false, buf, len);
		break;
	case NPG_CHECK_FSUID:
		npg_render_uid(sc, t->cred.uid.fs, false, buf, len);
		break;
	case NPG_CHECK_FLAG:
		render_text(buf, len, t->nproc_exceeded ? "set" : "clear");
		break;
	case NPG_CHECK_STATE:
		render_text(buf, len, state_names[t->state]);
		break;
	case NPG_CHECK_EXIT:
		if (t->state != NPG_TASK_ZOMBIE && t->state != NPG_TASK_REAPED)
			render_text(buf, len, "none");
		else if (t->exit_signal)
			snprintf(buf, len, "killed %s", npg_signal_name(t->exit_signal, a, sizeof(a)));
		else
			snprintf(buf, len, "exited %d", t->exit_code);
		break;
	case NPG_CHECK_CAP:
		render_text(buf, len, npg_cap_has(t->cred.cap_effective, st->cap) ? "yes" : "no");
		break;
	case NPG_CHECK_NPROC:
		npg_render_limit(t->nproc_cur, a, sizeof(a));
		npg_render_limit(t->nproc_max, b, sizeof(b));
		snprintf(buf, len, "%s %s", a, b);
		break;
	case NPG_CHECK_NO_NEW_PRIVS:
		render_text(buf, len, t->no_new_privs ? "yes" : "no");
		break;
	case NPG_CHECK_USERNS:
		if (t->cred.userns > 0 && t->cred.userns <= sc->nuserns)
			render_text(buf, len, sc->userns[t->cred.userns - 1].name);
		else
			render_text(buf, len, "initial");
		break;
	case NPG_CHECK_TRACER:
		/* the view's tracer is the link /proc shows (TracerPid) */
		if (t->tracer > 0 && t->tracer <= sc->ntasks)
			render_text(buf, len, sc->tasks[t->tracer - 1].name);
		else
			render_text(buf, len, "none");
		break;
	case NPG_CHECK_DUMPABLE:
		/* an exited task has no mm, so no dumpability */
		if (t->state == NPG_TASK_RUNNING)
			snprintf(buf, len, "%d", t->dumpable);
		else
			render_text(buf, len, "none");
		break;
	}
}

void npg_capset_compute(const struct npg_op *op, uint64_t cur_eff, uint64_t cur_prm,
			uint64_t cur_inh, uint64_t *eff, uint64_t *prm, uint64_t *inh)
{
	*eff = cur_eff;
	*prm = cur_prm;
	*inh = cur_inh;
	switch ((enum npg_capset_mode)op->value) {
	case NPG_CAPSET_DROP:
		*eff &= ~op->caps;
		*prm &= ~op->caps;
		break;
	case NPG_CAPSET_KEEP:
		*eff &= op->caps;
		*prm &= op->caps;
		break;
	case NPG_CAPSET_RAISE:
		*eff |= op->caps;
		break;
	case NPG_CAPSET_LOWER:
		*eff &= ~op->caps;
		break;
	case NPG_CAPSET_INHERITABLE:
		*inh = op->caps;
		break;
	}
}
