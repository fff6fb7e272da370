#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "runner/conform.h"

static const char *const state_names[] = { "absent", "running", "zombie", "reaped" };

static bool differ(const struct npg_run *run, int s, const char *field, const char *a,
		   const char *b, void (*emit)(const struct npg_run *, const struct npg_diff *, void *),
		   void *arg)
{
	struct npg_diff d = { .stmt = s, .field = field };

	if (strcmp(a, b) == 0)
		return false;
	snprintf(d.a, sizeof(d.a), "%s", a);
	snprintf(d.b, sizeof(d.b), "%s", b);
	emit(run, &d, arg);
	return true;
}

/* A capability set, shown as the kernel's /proc shows it (hex) */
static bool differ_caps(const struct npg_run *run, int s, const char *field, uint64_t a,
			uint64_t b, void (*emit)(const struct npg_run *, const struct npg_diff *, void *),
			void *arg)
{
	char x[24], y[24];

	snprintf(x, sizeof(x), "%#" PRIx64, a);
	snprintf(y, sizeof(y), "%#" PRIx64, b);
	return differ(run, s, field, x, y, emit, arg);
}

static void ids_text(const struct npg_scenario *sc, const struct npg_ids *ids, bool gid, char *buf,
		     size_t len)
{
	char r[24], e[24], s[24], f[24];

	npg_render_uid(sc, ids->real, gid, r, sizeof(r));
	npg_render_uid(sc, ids->eff, gid, e, sizeof(e));
	npg_render_uid(sc, ids->saved, gid, s, sizeof(s));
	npg_render_uid(sc, ids->fs, gid, f, sizeof(f));
	snprintf(buf, len, "%s %s %s %s", r, e, s, f);
}

/* The acting task after a step, field by field */
static int diff_actor(const struct npg_run *run, int s, const struct npg_task *a,
		      const struct npg_task *b,
		      void (*emit)(const struct npg_run *, const struct npg_diff *, void *), void *arg)
{
	const struct npg_scenario *sc = run->sc;
	char x[NPG_TEXT], y[NPG_TEXT];
	int n = 0;

	n += differ(run, s, "state", state_names[a->state], state_names[b->state], emit, arg);
	if (a->state != NPG_TASK_RUNNING || b->state != NPG_TASK_RUNNING)
		return n;
	ids_text(sc, &a->cred.uid, false, x, sizeof(x));
	ids_text(sc, &b->cred.uid, false, y, sizeof(y));
	n += differ(run, s, "uids", x, y, emit, arg);
	ids_text(sc, &a->cred.gid, true, x, sizeof(x));
	ids_text(sc, &b->cred.gid, true, y, sizeof(y));
	n += differ(run, s, "gids", x, y, emit, arg);
	n += differ(run, s, "flag", a->nproc_exceeded ? "set" : "clear",
		    b->nproc_exceeded ? "set" : "clear", emit, arg);
	n += differ_caps(run, s, "effective caps", a->cred.cap_effective, b->cred.cap_effective,
			 emit, arg);
	n += differ_caps(run, s, "permitted caps", a->cred.cap_permitted, b->cred.cap_permitted,
			 emit, arg);
	n += differ_caps(run, s, "inheritable caps", a->cred.cap_inheritable,
			 b->cred.cap_inheritable, emit, arg);
	n += differ_caps(run, s, "ambient caps", a->cred.cap_ambient, b->cred.cap_ambient, emit,
			 arg);
	{
		const struct npg_stmt ns_check = { .kind = NPG_STMT_CHECK, .check = NPG_CHECK_USERNS };
		const struct npg_stmt tracer = { .kind = NPG_STMT_CHECK, .check = NPG_CHECK_TRACER };

		npg_render_check(sc, &ns_check, a, 0, x, sizeof(x));
		npg_render_check(sc, &ns_check, b, 0, y, sizeof(y));
		n += differ(run, s, "userns", x, y, emit, arg);
		/* dumpability is asked of a puppet: only by `check TASK dumpable` */
		npg_render_check(sc, &tracer, a, 0, x, sizeof(x));
		npg_render_check(sc, &tracer, b, 0, y, sizeof(y));
		n += differ(run, s, "tracer", x, y, emit, arg);
	}
	n += differ(run, s, "no_new_privs", a->no_new_privs ? "yes" : "no",
		    b->no_new_privs ? "yes" : "no", emit, arg);
	return n;
}

void npg_conform_diff(const struct npg_run *run, int s, const struct npg_obs *obs, int ca,
		      int cb, void (*emit)(const struct npg_run *, const struct npg_diff *, void *),
		      void *arg, struct npg_conform_stats *stats)
{
	const struct npg_scenario *sc = run->sc;
	const struct npg_stmt *st = &sc->stmts[s];
	const struct npg_obs *a = &obs[ca], *b = &obs[cb];
	int n = 0;

	stats->statements++;
	if (a->unreproducible || b->unreproducible) {
		stats->unreproducible++;
		return;
	}
	n += differ(run, s, st->kind == NPG_STMT_STEP ? "result" : "value", a->text, b->text,
		    emit, arg);
	if (st->kind == NPG_STMT_STEP) {
		n += diff_actor(run, s, &a->actor, &b->actor, emit, arg);
		for (int k = 0; k < npg_ncounts(sc); k++) {
			char name[160], field[170], x[24], y[24];

			if (!npg_count_label(sc, k, name, sizeof(name)) ||
			    a->counts[k] == NPG_COUNT_UNKNOWN || b->counts[k] == NPG_COUNT_UNKNOWN)
				continue;
			snprintf(field, sizeof(field), "count %s", name);
			snprintf(x, sizeof(x), "%ld", a->counts[k]);
			snprintf(y, sizeof(y), "%ld", b->counts[k]);
			n += differ(run, s, field, x, y, emit, arg);
		}
	}
	if (n)
		stats->differ++;
	else
		stats->agree++;
}
