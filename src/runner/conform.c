#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/conform.h"

static const char *const state_names[] = { "absent", "running", "zombie", "reaped" };

/* snprintf("%s") without the formatting: the identify generator adds millions of fields */
static void copy_text(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

int npg_fields_add(struct npg_fields *fs, const char *name, const char *value)
{
	if (fs->n == fs->cap) {
		int cap = fs->cap ? 2 * fs->cap : 32;
		struct npg_field *f = realloc(fs->f, (size_t)cap * sizeof(*f));

		if (!f)
			return -1;
		fs->f = f, fs->cap = cap;
	}
	copy_text(fs->f[fs->n].name, sizeof(fs->f[fs->n].name), name);
	copy_text(fs->f[fs->n].value, sizeof(fs->f[fs->n].value), value);
	fs->n++;
	return 0;
}

/* A capability set, shown as the kernel's /proc shows it (hex) */
static int add_caps(struct npg_fields *fs, const char *name, uint64_t caps)
{
	char x[24];

	snprintf(x, sizeof(x), "%#" PRIx64, caps);
	return npg_fields_add(fs, name, x);
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

/* The acting task after a step: its state, and the rest while it runs */
static int actor_fields(const struct npg_scenario *sc, const struct npg_task *t,
			struct npg_fields *fs)
{
	const struct npg_stmt ns_check = { .kind = NPG_STMT_CHECK, .check = NPG_CHECK_USERNS };
	const struct npg_stmt tracer = { .kind = NPG_STMT_CHECK, .check = NPG_CHECK_TRACER };
	char x[NPG_TEXT];
	int err = npg_fields_add(fs, "state", state_names[t->state]);

	if (t->state != NPG_TASK_RUNNING)
		return err;
	ids_text(sc, &t->cred.uid, false, x, sizeof(x));
	err |= npg_fields_add(fs, "uids", x);
	ids_text(sc, &t->cred.gid, true, x, sizeof(x));
	err |= npg_fields_add(fs, "gids", x);
	err |= npg_fields_add(fs, "flag", t->nproc_exceeded ? "set" : "clear");
	err |= add_caps(fs, "effective caps", t->cred.cap_effective);
	err |= add_caps(fs, "permitted caps", t->cred.cap_permitted);
	err |= add_caps(fs, "inheritable caps", t->cred.cap_inheritable);
	err |= add_caps(fs, "ambient caps", t->cred.cap_ambient);
	npg_render_check(sc, &ns_check, t, 0, x, sizeof(x));
	err |= npg_fields_add(fs, "userns", x);
	/* dumpability is asked of a puppet: only by `check TASK dumpable` */
	npg_render_check(sc, &tracer, t, 0, x, sizeof(x));
	err |= npg_fields_add(fs, "tracer", x);
	err |= npg_fields_add(fs, "no_new_privs", t->no_new_privs ? "yes" : "no");
	return err;
}

int npg_obs_fields(const struct npg_scenario *sc, int s, const struct npg_obs *o,
		   struct npg_fields *fs)
{
	const struct npg_stmt *st = &sc->stmts[s];
	int err;

	fs->n = 0;
	err = npg_fields_add(fs, st->kind == NPG_STMT_STEP ? "result" : "value", o->text);
	if (st->kind != NPG_STMT_STEP)
		return err;
	err |= actor_fields(sc, &o->actor, fs);
	for (int k = 0; k < npg_ncounts(sc); k++) {
		char name[160], field[170], x[24];

		if (!npg_count_label(sc, k, name, sizeof(name)) || o->counts[k] == NPG_COUNT_UNKNOWN)
			continue;
		snprintf(field, sizeof(field), "count %s", name);
		snprintf(x, sizeof(x), "%ld", o->counts[k]);
		err |= npg_fields_add(fs, field, x);
	}
	return err;
}

const struct npg_field *npg_field_find(const struct npg_fields *fs, const char *name)
{
	for (int i = 0; i < fs->n; i++)
		if (strcmp(fs->f[i].name, name) == 0)
			return &fs->f[i];
	return NULL;
}

int npg_fields_diff(const struct npg_fields *a, const struct npg_fields *b,
		    void (*emit)(const struct npg_field *a, const struct npg_field *b, void *arg),
		    void *arg)
{
	int n = 0;

	for (int i = 0; i < a->n; i++) {
		const struct npg_field *fb = npg_field_find(b, a->f[i].name);

		if (!fb || strcmp(a->f[i].value, fb->value) == 0)
			continue;
		if (emit)
			emit(&a->f[i], fb, arg);
		n++;
	}
	return n;
}

void npg_fields_free(struct npg_fields *fs)
{
	free(fs->f);
	*fs = (struct npg_fields){ 0 };
}

struct diff_emit {
	const struct npg_run *run;
	int stmt;
	void (*emit)(const struct npg_run *, const struct npg_diff *, void *);
	void *arg;
};

static void emit_field(const struct npg_field *a, const struct npg_field *b, void *arg)
{
	struct diff_emit *de = arg;
	struct npg_diff d = { .stmt = de->stmt, .field = a->name };

	snprintf(d.a, sizeof(d.a), "%s", a->value);
	snprintf(d.b, sizeof(d.b), "%s", b->value);
	de->emit(de->run, &d, de->arg);
}

int npg_conform_diff(const struct npg_run *run, int s, const struct npg_obs *obs, int ca,
		     int cb, void (*emit)(const struct npg_run *, const struct npg_diff *, void *),
		     void *arg, struct npg_conform_stats *stats)
{
	struct npg_fields fa = { 0 }, fb = { 0 };
	struct diff_emit de = { run, s, emit, arg };
	int n = -1;

	stats->statements++;
	if (obs[ca].unreproducible || obs[cb].unreproducible) {
		stats->unreproducible++;
		return 0;
	}
	if (npg_obs_fields(run->sc, s, &obs[ca], &fa) < 0 ||
	    npg_obs_fields(run->sc, s, &obs[cb], &fb) < 0)
		goto out;
	/* a field one side cannot observe (a count it does not know, the ids
	 * of a task that is not running) is not compared */
	n = npg_fields_diff(&fa, &fb, emit_field, &de);
	if (n)
		stats->differ++;
	else
		stats->agree++;
out:
	npg_fields_free(&fa);
	npg_fields_free(&fb);
	return n < 0 ? -1 : 0;
}
