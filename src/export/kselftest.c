/*
 * nprocguard export --format kselftest: one C program per scenario file,
 * which performs the file's steps with plain system calls and checks one
 * policy's expectations (or each policy's, the running kernel's era
 * picked at run time), printing TAP as kselftest does. Beside them: the
 * runtime they share (every file of kselftest/, written as it is), a
 * Makefile that builds them alone (static, so that they run in any guest)
 * or as tools/testing/selftests/DIR of a kernel tree, and kselftest's
 * settings file. The generated files are data: tables of the scenario's
 * ids, users, tasks and statements, each statement with its expectations.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/export.h"
#include "model/history.h"
#include "model/policy.h"
#include "model/release.h"
#include "runner/run.h"

/* A file of the runtime, as runtime-blob.S links it in */
struct npg_kst_runtime_file {
	const char *name;
	const char *start, *end;
};

/* every file of src/export/kselftest/; the last entry's name is NULL */
extern const struct npg_kst_runtime_file npg_kst_runtime[];

/* the runtime's public header: what a generated program includes */
#define RUNTIME_H "npg_kselftest.h"
#define PROGRAM_MAX 128
/* the test's own timeout is 120 s (NPG_KSELFTEST_TIMEOUT): kselftest's runner waits longer */
#define SETTINGS "timeout=180\n"

/* The program's name: the file's base name without ".npg", in [A-Za-z0-9_-] */
static void program_name(const char *path, char *buf, size_t len)
{
	const char *b = strrchr(path, '/');
	size_t n;

	b = b ? b + 1 : strcmp(path, "<stdin>") == 0 ? "stdin" : path;	/* export - */
	n = strlen(b);
	if (n > 4 && strcmp(b + n - 4, ".npg") == 0)
		n -= 4;
	if (n >= len)
		n = len - 1;
	for (size_t i = 0; i < n; i++) {
		char c = b[i];

		buf[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			 c == '_' || c == '-' ? c : '_';
	}
	buf[n] = '\0';
	if (n == 0)
		snprintf(buf, len, "scenario");
}

/* A C string literal of @s: quotes, backslashes, '?' (trigraphs) and controls escaped */
static void put_string(FILE *f, const char *s)
{
	if (!s) {
		fputs("NULL", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\' || c == '?')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\%03o", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* @s inside a comment: no end of it, no control character */
static void put_comment(FILE *f, const char *s)
{
	for (char prev = 0; *s; prev = *s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f || (prev == '*' && *s == '/') ? '?' : *s, f);
}

/* --- the scenario's ids: each one named, and where it goes in the window --- */

static void put_ids(FILE *f, const struct npg_scenario *sc, const npg_id *ids, int n)
{
	uint32_t offset = 0;

	fprintf(f, "/* every id the scenario names: kernel id NPG_UID_BASE + offset (0 stays 0) */\n"
		"static const struct kst_id ids[] = {\n");
	for (int i = 0; i < n; i++) {
		char uname[64], gname[64];

		npg_render_uid(sc, ids[i], false, uname, sizeof(uname));
		npg_render_uid(sc, ids[i], true, gname, sizeof(gname));
		fprintf(f, "\t{ %" PRIu32 ", %" PRIu32 ", ", ids[i], ids[i] ? ++offset : 0);
		put_string(f, strspn(uname, "0123456789") == strlen(uname) ? NULL : uname);
		fputs(", ", f);
		put_string(f, strspn(gname, "0123456789") == strlen(gname) ? NULL : gname);
		fputs(" },\n", f);
	}
	fputs("};\n\n", f);
}

static void put_users(FILE *f, const struct npg_scenario *sc)
{
	fputs("/* user NAME ID [procs N], group NAME ID */\nstatic const struct kst_user users[] = {\n",
	      f);
	for (int i = 0; i < sc->nnames; i++) {
		const struct npg_name *u = &sc->names[i];

		fputs("\t{ ", f);
		put_string(f, u->name);
		fprintf(f, ", %" PRIu32 ", %ld, %s },\n", u->id, u->procs, u->group ? "true" : "false");
	}
	fputs("};\n\n", f);
}

static void put_id_list(FILE *f, const npg_id *ids, int n)
{
	fputs("{ ", f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%" PRIu32, i ? ", " : "", ids[i]);
	fputs(" }", f);
}

static void put_limit(FILE *f, uint64_t v)
{
	if (v == NPG_RLIM_INFINITY)
		fputs("KST_UNLIMITED", f);
	else
		fprintf(f, "%" PRIu64, v);
}

static void put_tasks(FILE *f, const struct npg_scenario *sc)
{
	fputs("/* task NAME ... as declared, and every task a step makes */\n"
	      "static const struct kst_task tasks[] = {\n", f);
	for (int i = 0; i < sc->ntasks; i++) {
		const struct npg_task_decl *d = &sc->tasks[i];
		const struct npg_cred *c = &d->cred;

		fprintf(f, "\t[%d] = { ", i);
		put_string(f, d->name);
		fprintf(f, ", %d", d->line);
		if (!d->initial) {
			fprintf(f, ", .thread = %s },\n", d->thread ? "true" : "false");
			continue;
		}
		fprintf(f, ", .initial = true,\n\t\t.uid = { %" PRIu32 ", %" PRIu32 ", %" PRIu32 " }, "
			".gid = { %" PRIu32 ", %" PRIu32 ", %" PRIu32 " },", c->uid.real, c->uid.eff,
			c->uid.saved, c->gid.real, c->gid.eff, c->gid.saved);
		if (c->ngroups) {
			fprintf(f, " .ngroups = %d, .groups = ", c->ngroups);
			put_id_list(f, c->groups, c->ngroups);
			fputc(',', f);
		}
		fputs("\n\t\t.nproc_cur = ", f);
		put_limit(f, d->nproc_cur);
		fputs(", .nproc_max = ", f);
		put_limit(f, d->nproc_max);
		fprintf(f, ",\n\t\t.cap_eff = %#" PRIx64 ", .cap_prm = %#" PRIx64 ", .caps_explicit = %s, "
			".keepcaps = %s },\n", c->cap_effective, c->cap_permitted,
			d->caps_explicit ? "true" : "false", c->keepcaps ? "true" : "false");
	}
	fputs("};\n\n", f);
}

static const char *const op_names[] = {
	[NPG_OP_FORK] = "KST_FORK", [NPG_OP_THREAD] = "KST_THREAD", [NPG_OP_EXIT] = "KST_EXIT",
	[NPG_OP_WAIT] = "KST_WAIT", [NPG_OP_SETUID] = "KST_SETUID",
	[NPG_OP_SETEUID] = "KST_SETEUID", [NPG_OP_SETREUID] = "KST_SETREUID",
	[NPG_OP_SETRESUID] = "KST_SETRESUID", [NPG_OP_SETFSUID] = "KST_SETFSUID",
	[NPG_OP_SETGID] = "KST_SETGID", [NPG_OP_SETEGID] = "KST_SETEGID",
	[NPG_OP_SETREGID] = "KST_SETREGID", [NPG_OP_SETRESGID] = "KST_SETRESGID",
	[NPG_OP_SETFSGID] = "KST_SETFSGID", [NPG_OP_SETGROUPS] = "KST_SETGROUPS",
	[NPG_OP_SETRLIMIT] = "KST_SETRLIMIT", [NPG_OP_PRLIMIT] = "KST_PRLIMIT",
	[NPG_OP_KEEPCAPS] = "KST_KEEPCAPS", [NPG_OP_CAPSET] = "KST_CAPSET",
	[NPG_OP_EXECVE] = "KST_EXECVE", [NPG_OP_KILL] = "KST_KILL",
	[NPG_OP_SECUREBITS] = "KST_SECUREBITS", [NPG_OP_AMBIENT] = "KST_AMBIENT",
	[NPG_OP_NO_NEW_PRIVS] = "KST_NO_NEW_PRIVS", [NPG_OP_DUMPABLE] = "KST_DUMPABLE",
	[NPG_OP_VFORK] = "KST_VFORK",
};

static const char *const check_names[] = {
	[NPG_CHECK_COUNT] = "KST_COUNT", [NPG_CHECK_UIDS] = "KST_UIDS",
	[NPG_CHECK_RUID] = "KST_RUID", [NPG_CHECK_EUID] = "KST_EUID",
	[NPG_CHECK_SUID] = "KST_SUID", [NPG_CHECK_FSUID] = "KST_FSUID",
	[NPG_CHECK_GIDS] = "KST_GIDS", [NPG_CHECK_FLAG] = "KST_FLAG",
	[NPG_CHECK_STATE] = "KST_STATE", [NPG_CHECK_EXIT] = "KST_EXIT_STATUS",
	[NPG_CHECK_CAP] = "KST_CAP", [NPG_CHECK_NPROC] = "KST_NPROC",
	[NPG_CHECK_NO_NEW_PRIVS] = "KST_NNP", [NPG_CHECK_DUMPABLE] = "KST_DUMPABLE_CHECK",
};

static bool op_has_ids(enum npg_opcode code)
{
	return code >= NPG_OP_SETUID && code <= NPG_OP_SETFSGID;
}

static void put_step(FILE *f, const struct npg_stmt *st)
{
	const struct npg_op *op = &st->op;

	fprintf(f, ".task = %d, .op = %s, .target = %d", st->task, op_names[op->code], op->target);
	if (op_has_ids(op->code))
		fprintf(f, ", .id = { %" PRIu32 ", %" PRIu32 ", %" PRIu32 " }", op->id[0], op->id[1],
			op->id[2]);
	if (op->code == NPG_OP_SETGROUPS) {
		fprintf(f, ", .ngroups = %d, .groups = ", op->ngroups);
		put_id_list(f, op->groups, op->ngroups);
	}
	if (op->code == NPG_OP_SETRLIMIT || op->code == NPG_OP_PRLIMIT) {
		fputs(", .lim_cur = ", f);
		put_limit(f, op->lim_cur);
		fputs(", .lim_max = ", f);
		put_limit(f, op->lim_max);
	}
	if (op->value)
		fprintf(f, ", .value = %d", op->value);
	if (op->caps)
		fprintf(f, ", .caps = %#" PRIx64, op->caps);
	if (op->file)
		fprintf(f, ", .file = %d", op->file);
	if (op->glibc)
		fputs(", .glibc = true", f);
}

static void put_check(FILE *f, const struct npg_stmt *st)
{
	fprintf(f, ".check = true, .task = %d, .what = %s", st->task, check_names[st->check]);
	if (st->check == NPG_CHECK_COUNT)
		fprintf(f, ", .user = %" PRIu32, st->user);
	if (st->check == NPG_CHECK_CAP)
		fprintf(f, ", .cap = %d", st->cap);
}

/* The policies a test carries: the one of --policy, or each */
struct carried {
	int n;
	int index[NPG_NPOLICIES];	/* into npg_policies */
};

static void put_stmts(FILE *f, const struct npg_scenario *sc, const struct carried *p)
{
	fputs("/* the statements, each with what each carried policy expects (NULL: nothing) */\n"
	      "static const struct kst_stmt stmts[] = {\n", f);
	for (int i = 0; i < sc->nstmts; i++) {
		const struct npg_stmt *st = &sc->stmts[i];
		char label[160];

		npg_stmt_label(sc, st, label, sizeof(label));
		fprintf(f, "\t{ %d, ", st->line);
		put_string(f, label);
		fputs(", ", f);
		if (st->kind == NPG_STMT_STEP)
			put_step(f, st);
		else
			put_check(f, st);
		fputs(",\n\t  .expect = { ", f);
		for (int k = 0; k < p->n; k++) {
			const char *e = npg_expectations_of(sc, npg_policies[p->index[k]]) >= 0 ?
					npg_expect_for(&st->expect, p->index[k]) : NULL;

			if (k)
				fputs(", ", f);
			put_string(f, e);
		}
		fputs(" } },\n", f);
	}
	fputs("};\n\n", f);
}

/* one release of put_eras(): the era it begins, if any */
struct era_point {
	int major, minor, patch;
};

static int point_cmp(const void *a, const void *b)
{
	const struct era_point *x = a, *y = b;

	if (x->major != y->major)
		return x->major - y->major;
	if (x->minor != y->minor)
		return x->minor - y->minor;
	return x->patch - y->patch;
}

/*
 * Which policy models a running kernel, as `nprocguard conform` picks it
 * (npg_release_parse()): its answer for every release from 0.0 to 9.99
 * and at every stable backport of model/history.c, as the releases where
 * it changes, in release order
 */
static void put_eras(FILE *f)
{
	struct era_point pts[1200];
	int n = 0;
	const struct npg_policy *last = NULL;
	bool last_euid = false;

	for (int major = 0; major <= 9; major++)
		for (int minor = 0; minor <= 99; minor++)
			pts[n++] = (struct era_point){ major, minor, 0 };
	for (int id = 0; id < NPG_NCHANGES; id++)
		for (const struct npg_backport *b = npg_changes[id].backports; b->major; b++)
			if (n < (int)(sizeof(pts) / sizeof(pts[0])))
				pts[n++] = (struct era_point){ b->major, b->minor, b->patch };
	qsort(pts, (size_t)n, sizeof(pts[0]), point_cmp);
	fputs("/* the policy of a running kernel's release, as nprocguard conform picks it */\n"
	      "static const struct kst_era eras[] = {\n", f);
	for (int i = 0; i < n; i++) {
		char rel[48];
		struct npg_release r;
		bool euid;

		snprintf(rel, sizeof(rel), "%d.%d.%d", pts[i].major, pts[i].minor, pts[i].patch);
		if (npg_release_parse(&r, rel, NULL) < 0)
			continue;
		euid = npg_charges_euid(r.policy, &r.rules);
		if (r.policy == last && euid == last_euid)
			continue;
		fprintf(f, "\t{ %d, %d, %d, \"%s\", %s },\n", pts[i].major, pts[i].minor, pts[i].patch,
			r.policy->name, euid ? "true" : "false");
		last = r.policy;
		last_euid = euid;
	}
	fputs("};\n\n", f);
}

static void put_scenario(FILE *f, const struct npg_scenario *sc, const struct carried *p,
			 bool fixed)
{
	fputs("static const struct kst_scenario scenario = {\n\t.file = ", f);
	put_string(f, sc->file);
	fputs(",\n\t.title = ", f);
	put_string(f, sc->title);
	fputs(",\n\t.source = ", f);
	put_string(f, sc->source);
	fprintf(f, ",\n\t.npolicies = %d,\n\t.policies = { ", p->n);
	for (int k = 0; k < p->n; k++)
		fprintf(f, "%s\"%s\"", k ? ", " : "", npg_policies[p->index[k]]->name);
	fputs(" },\n\t.in_file = { ", f);
	for (int k = 0; k < p->n; k++)
		fprintf(f, "%s%s", k ? ", " : "",
			npg_expectations_of(sc, npg_policies[p->index[k]]) >= 0 ? "true" : "false");
	fprintf(f, " },\n\t.fixed = %s,\n", fixed ? "true" : "false");
	fputs("\t.neras = sizeof(eras) / sizeof(eras[0]), .eras = eras,\n", f);
	if (sc->has_bounding)
		fprintf(f, "\t.has_bounding = true, .bounding = %#" PRIx64 ",\n", sc->bounding);
	fputs("\t.nids = sizeof(ids) / sizeof(ids[0]), .ids = ids,\n", f);
	fprintf(f, "\t.nusers = %d, .users = %s,\n", sc->nnames, sc->nnames ? "users" : "NULL");
	fputs("\t.ntasks = sizeof(tasks) / sizeof(tasks[0]), .tasks = tasks,\n", f);
	fprintf(f, "\t.nfiles = %d, .files = %s,\n", sc->nfiles, sc->nfiles ? "files" : "NULL");
	fprintf(f, "\t.nstmts = %d, .stmts = %s,\n};\n\n", sc->nstmts, sc->nstmts ? "stmts" : "NULL");
	fputs("int main(int argc, char **argv)\n{\n\treturn kst_main(&scenario, argc, argv);\n}\n", f);
}

static void put_files(FILE *f, const struct npg_scenario *sc)
{
	if (sc->nfiles == 0)
		return;
	fputs("/* file PATH ...: what execve() finds there, made in the test's private directory */\n"
	      "static const struct kst_file files[] = {\n", f);
	for (int i = 0; i < sc->nfiles; i++) {
		const struct npg_exec_file *e = &sc->files[i].exec;

		fputs("\t{ ", f);
		put_string(f, sc->files[i].path);
		if (e->missing)
			fputs(", .missing = true", f);
		if (e->setuid)
			fprintf(f, ", .setuid = true, .uid = %" PRIu32, e->uid);
		if (e->setgid)
			fprintf(f, ", .setgid = true, .gid = %" PRIu32, e->gid);
		if (e->has_fcaps)
			fprintf(f, ",\n\t  .has_fcaps = true, .fcap_permitted = %#" PRIx64 ", "
				".fcap_inheritable = %#" PRIx64 ", .fcap_effective = %s", e->fcap_permitted,
				e->fcap_inheritable, e->fcap_effective ? "true" : "false");
		if (e->nosuid)
			fputs(", .nosuid = true", f);
		fputs(" },\n", f);
	}
	fputs("};\n\n", f);
}

/* The generated program of @sc into @f: 0, or -1 (out of memory) */
static int put_program(FILE *f, const struct npg_scenario *sc, const struct carried *p,
		       bool fixed)
{
	npg_id *ids;
	int nids = npg_scenario_ids(sc, &ids);

	if (nids < 0)
		return -1;
	fputs("/*\n * ", f);
	put_comment(f, sc->file);
	fputs(" as a kernel selftest,\n * written by nprocguard export " NPG_VERSION
	      ": do not edit, export again.\n", f);
	if (fixed)
		fprintf(f, " * It checks the expectations of policy %s, whatever the kernel.\n",
			npg_policies[p->index[0]]->name);
	else
		fputs(" * It checks the expectations of the policy of the running kernel's era.\n", f);
	fputs(" * Build: make; run as root: ./PROGRAM (TAP; exit 0 pass, 1 fail, 4 skip).\n"
	      " */\n#include \"" RUNTIME_H "\"\n\n", f);
	put_ids(f, sc, ids, nids);
	free(ids);
	if (sc->nnames)
		put_users(f, sc);
	put_tasks(f, sc);
	put_files(f, sc);
	if (sc->nstmts)
		put_stmts(f, sc, p);
	put_eras(f);
	put_scenario(f, sc, p, fixed);
	return 0;
}

/* --- the Makefile: standalone, or in a kernel tree's tools/testing/selftests --- */

/* What the files beside the programs are written from: the programs' names */
struct export_ctx {
	char (*names)[PROGRAM_MAX];
	int n;
};

/* The names of the runtime's files that end in @suffix (".c", ".h"), each after a space */
static void put_runtime_files(FILE *f, const char *suffix)
{
	for (const struct npg_kst_runtime_file *r = npg_kst_runtime; r->name; r++) {
		size_t n = strlen(r->name), k = strlen(suffix);

		if (n > k && strcmp(r->name + n - k, suffix) == 0)
			fprintf(f, " %s", r->name);
	}
}

/*
 * The standalone Makefile's own targets, each with its rule (the first is
 * the default goal): its .PHONY line, and the names no program may take,
 * are made of this table.
 */
static const struct {
	const char *name, *rule;
} make_targets[] = {
	{ "all", "all: $(PROGS)\n\n" },
	{ "run_tests",
	  "# each program in turn; the summary says how many passed, failed, skipped\n"
	  "run_tests: all\n"
	  "\t@pass=0; fail=0; skip=0; for t in $(PROGS); do \\\n"
	  "\t\t$$t; rc=$$?; \\\n"
	  "\t\tif [ $$rc -eq 0 ]; then pass=$$((pass + 1)); \\\n"
	  "\t\telif [ $$rc -eq 4 ]; then skip=$$((skip + 1)); \\\n"
	  "\t\telse fail=$$((fail + 1)); echo \"# $$t: exit status $$rc\"; fi; \\\n"
	  "\tdone; echo \"# $$pass passed, $$fail failed, $$skip skipped\"; [ $$fail -eq 0 ]\n\n" },
	{ "clean", "clean:\n\trm -f $(PROGS) $(RUNTIME_OBJS)\n\n" },
};

#define NTARGETS (sizeof(make_targets) / sizeof(make_targets[0]))

/* The files besides the programs that kselftest installs with them (TEST_FILES) */
static void put_test_files(FILE *f);

static int put_makefile(FILE *f, const struct export_ctx *x)
{
	fputs("# SPDX-License-Identifier: GPL-2.0\n"
	      "# Kernel selftests of nprocguard scenario files, written by nprocguard export\n"
	      "# " NPG_VERSION ". Each program performs its scenario's steps with plain system\n"
	      "# calls as root, in uids NPG_UID_BASE+1... (default 3000000001), and prints TAP.\n"
	      "#\n"
	      "# Here:          make && make run_tests      (static unless STATIC=0)\n"
	      "# In a kernel:   copy this directory to tools/testing/selftests/NAME, then\n"
	      "#                make -C tools/testing/selftests TARGETS=NAME run_tests\n\n"
	      "# the runtime, linked into each program\n"
	      "RUNTIME_SRCS :=", f);
	put_runtime_files(f, ".c");
	fputs("\nRUNTIME_HDRS :=", f);
	put_runtime_files(f, ".h");
	fputs("\n\nTEST_GEN_PROGS :=", f);
	for (int i = 0; i < x->n; i++)
		fprintf(f, " %s", x->names[i]);
	fputs("\nTEST_FILES :=", f);
	put_test_files(f);
	fputs("\nLOCAL_HDRS += $(RUNTIME_HDRS)\n\n"
	      "STATIC ?= 1\n"
	      "CFLAGS += -O2 -Wall -D_GNU_SOURCE -pthread\n"
	      "LDLIBS += -pthread\n"
	      "ifeq ($(STATIC),1)\n"
	      "LDFLAGS += -static\n"
	      "endif\n\n"
	      "ifneq ($(wildcard ../lib.mk),)\n"
	      "# kselftest: lib.mk builds $(OUTPUT)/PROG from PROG.c and the runtime\n"
	      "include ../lib.mk\n\n"
	      "$(TEST_GEN_PROGS): $(RUNTIME_SRCS)\n"
	      "else\n"
	      "OUTPUT ?= .\n"
	      "PROGS := $(addprefix $(OUTPUT)/,$(TEST_GEN_PROGS))\n"
	      "RUNTIME_OBJS := $(RUNTIME_SRCS:%.c=$(OUTPUT)/%.o)\n\n", f);
	fputs(make_targets[0].rule, f);
	fputs("$(RUNTIME_OBJS): $(OUTPUT)/%.o: %.c $(RUNTIME_HDRS)\n"
	      "\t$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<\n\n"
	      "$(OUTPUT)/%: %.c $(RUNTIME_HDRS) $(RUNTIME_OBJS)\n"
	      "\t$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(RUNTIME_OBJS) $(LDLIBS)\n\n", f);
	for (size_t i = 1; i < NTARGETS; i++)
		fputs(make_targets[i].rule, f);
	fputs(".PHONY:", f);
	for (size_t i = 0; i < NTARGETS; i++)
		fprintf(f, " %s", make_targets[i].name);
	fputs("\nendif\n", f);
	return 0;
}

static int put_settings(FILE *f, const struct export_ctx *x)
{
	(void)x;
	fputs(SETTINGS, f);
	return 0;
}

/*
 * The files the export writes besides the runtime's and the programs',
 * after the programs (a run cut short leaves no Makefile that names a
 * program not written). The names no program may take come from here.
 */
static const struct {
	const char *name;
	const char *what;	/* for a clash */
	bool test_file;		/* installed with the programs (TEST_FILES) */
	int (*put)(FILE *f, const struct export_ctx *x);
} written[] = {
	{ "settings", "kselftest's settings file", true, put_settings },
	{ "Makefile", "the tests' Makefile", false, put_makefile },
};

#define NWRITTEN (sizeof(written) / sizeof(written[0]))

static void put_test_files(FILE *f)
{
	for (size_t i = 0; i < NWRITTEN; i++)
		if (written[i].test_file)
			fprintf(f, " %s", written[i].name);
}

/* --- the names a program may not take --- */

/*
 * kselftest's lib.mk, which the Makefile includes in a kernel tree: the
 * targets of its .PHONY line (tools/testing/selftests/lib.mk of 6.12;
 * 6.1's lacks the last two), and the files of the test's directory its
 * install rule copies ($(wildcard config settings)): kselftest-merge also
 * reads a directory's config as a kernel configuration fragment.
 */
static const char *const libmk_targets[] = {
	"run_tests", "all", "clean", "install", "emit_tests", "gen_mods_dir", "clean_mods_dir",
};
static const char *const libmk_files[] = { "config", "settings" };
/* What make(1) reads as the makefile, the first it finds (GNU make's manual, 3.2) */
static const char *const makefile_names[] = { "GNUmakefile", "makefile", "Makefile" };

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Whether program @prog clashes with something of the directory: the
 * program or its source PROG.c would be written over a file the export
 * writes, or its name is a make target or a file kselftest or make reads.
 * Why goes into @why. (Program names hold no '.': the runtime's objects,
 * STEM.o, never clash.)
 */
static bool name_clash(const char *prog, char *why, size_t len)
{
	size_t n = strlen(prog);

	for (size_t i = 0; i < NWRITTEN; i++)
		if (strcmp(written[i].name, prog) == 0) {
			snprintf(why, len, "it would be built over '%s', %s, which the export writes",
				 prog, written[i].what);
			return true;
		}
	for (const struct npg_kst_runtime_file *r = npg_kst_runtime; r->name; r++)
		if (strncmp(r->name, prog, n) == 0 && strcmp(r->name + n, ".c") == 0) {
			snprintf(why, len, "its source '%s' would be written over the runtime's file "
				 "of that name", r->name);
			return true;
		}
	for (size_t i = 0; i < NTARGETS; i++)
		if (strcmp(prog, make_targets[i].name) == 0) {
			snprintf(why, len, "'%s' is a target of the Makefile the export writes", prog);
			return true;
		}
	for (size_t i = 0; i < NELEMS(libmk_targets); i++)
		if (strcmp(prog, libmk_targets[i]) == 0) {
			snprintf(why, len, "'%s' is a target of kselftest's lib.mk, which the Makefile "
				 "includes in a kernel tree", prog);
			return true;
		}
	for (size_t i = 0; i < NELEMS(libmk_files); i++)
		if (strcmp(prog, libmk_files[i]) == 0) {
			snprintf(why, len, "'%s' is a file that kselftest's lib.mk installs from a "
				 "test's directory and kselftest-merge reads as a kernel configuration",
				 prog);
			return true;
		}
	for (size_t i = 0; i < NELEMS(makefile_names); i++)
		if (strcmp(prog, makefile_names[i]) == 0) {
			snprintf(why, len, "make(1) would read a file named '%s' as the makefile", prog);
			return true;
		}
	if (prog[0] == '-') {
		snprintf(why, len, "it begins with '-': cc and make would take it for an option");
		return true;
	}
	return false;
}

/* --- writing: each file whole, under a temporary name first --- */

/* What a new file's mode is: 0666 less the umask, as open(2) would make it */
static mode_t file_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0666 & ~mask;
}

/*
 * DIR/NAME, written whole under a temporary name first and renamed over
 * it. The temporary file is a new one (mkostemp(): O_EXCL), so that a
 * link planted under its name in a directory others can write -- -o /tmp
 * -- is never followed; rename() replaces a link at NAME itself.
 */
static int write_file(const char *dir, const char *name, const char *data, size_t len,
		      FILE *err)
{
	char path[4096], tmp[4096];
	FILE *f;
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path) ||
	    snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, name) >= (int)sizeof(tmp)) {
		fprintf(err, "nprocguard export: %s/%s: path too long\n", dir, name);
		return -1;
	}
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0) {
		fprintf(err, "nprocguard export: %s: cannot make a file there: %s\n", dir,
			strerror(errno));
		return -1;
	}
	if (fchmod(fd, file_mode()) < 0 || !(f = fdopen(fd, "w"))) {
		fprintf(err, "nprocguard export: %s: %s\n", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		return -1;
	}
	if (fwrite(data, 1, len, f) != len || fflush(f) != 0 || ferror(f)) {
		fprintf(err, "nprocguard export: writing %s: %s\n", tmp, strerror(errno));
		fclose(f);
		unlink(tmp);
		return -1;
	}
	if (fclose(f) != 0 || rename(tmp, path) < 0) {
		fprintf(err, "nprocguard export: writing %s: %s\n", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* -o DIR: made if missing; what is there must be a directory (a link to one too) */
static int open_dir(const char *dir, FILE *err)
{
	struct stat st;

	if (!dir[0]) {
		fprintf(err, "nprocguard export: -o '': an empty name is no directory\n");
		return -1;
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		fprintf(err, "nprocguard export: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	if (stat(dir, &st) < 0) {
		int e = errno;

		fprintf(err, "nprocguard export: %s: %s%s\n", dir, strerror(e),
			e == ENOENT && lstat(dir, &st) == 0 && S_ISLNK(st.st_mode) ?
			" (a symbolic link to nothing)" : "");
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(err, "nprocguard export: %s: %s\n", dir, strerror(ENOTDIR));
		return -1;
	}
	return 0;
}

/* What @put writes, as one file */
static int write_generated(const char *dir, const char *name, FILE *err,
			   int (*put)(FILE *f, const void *arg), const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f || put(f, arg) < 0 || fclose(f) != 0) {
		fprintf(err, "nprocguard export: out of memory\n");
		free(buf);
		return -1;
	}
	rc = write_file(dir, name, buf, len, err);
	free(buf);
	return rc;
}

struct program_arg {
	const struct npg_scenario *sc;
	const struct carried *p;
	bool fixed;
};

static int put_program_arg(FILE *f, const void *arg)
{
	const struct program_arg *a = arg;

	return put_program(f, a->sc, a->p, a->fixed);
}

struct written_arg {
	const struct export_ctx *x;
	int (*put)(FILE *f, const struct export_ctx *x);
};

static int put_written(FILE *f, const void *arg)
{
	const struct written_arg *a = arg;

	return a->put(f, a->x);
}

int npg_export_kselftest(const struct npg_export_options *o, struct npg_scenario *const *scs,
			 int n, FILE *err)
{
	char (*names)[PROGRAM_MAX] = calloc((size_t)n + 1, sizeof(*names));
	struct carried p = { 0 };
	struct export_ctx x = { names, n };
	int rc = -1, bad = 0;

	if (!names) {
		fprintf(err, "nprocguard export: out of memory\n");
		return -1;
	}
	if (o->policy)
		p.index[p.n++] = npg_policy_index(o->policy);
	else
		for (int i = 0; i < NPG_NPOLICIES; i++)
			p.index[p.n++] = i;
	/* every file is checked, so that one run says every refusal */
	for (int i = 0; i < n; i++) {
		char why[200];

		program_name(scs[i]->file, names[i], sizeof(names[i]));
		if (name_clash(names[i], why, sizeof(why))) {
			fprintf(err, "nprocguard export: %s: program '%s': %s; rename the file\n",
				scs[i]->file, names[i], why);
			bad++;
		}
		for (int j = 0; j < i; j++)
			if (strcmp(names[i], names[j]) == 0) {
				fprintf(err, "nprocguard export: %s and %s would both be program '%s'\n",
					scs[j]->file, scs[i]->file, names[i]);
				bad++;
				break;
			}
		if (o->policy && npg_expectations_of(scs[i], o->policy) < 0) {
			fprintf(err, "nprocguard export: %s: its 'policies' leave out %s: the test "
				"would check nothing\n", scs[i]->file, o->policy->name);
			bad++;
		}
	}
	if (bad) {
		fprintf(err, "nprocguard export: nothing was written\n");
		goto out;
	}
	if (open_dir(o->dir, err) < 0)
		goto out;
	for (const struct npg_kst_runtime_file *r = npg_kst_runtime; r->name; r++)
		if (write_file(o->dir, r->name, r->start, (size_t)(r->end - r->start), err) < 0)
			goto out;
	for (int i = 0; i < n; i++) {
		struct program_arg a = { scs[i], &p, o->policy != NULL };
		char file[PROGRAM_MAX + 4];

		snprintf(file, sizeof(file), "%s.c", names[i]);
		if (write_generated(o->dir, file, err, put_program_arg, &a) < 0)
			goto out;
	}
	for (size_t i = 0; i < NWRITTEN; i++)
		if (write_generated(o->dir, written[i].name, err, put_written,
				    &(struct written_arg){ &x, written[i].put }) < 0)
			goto out;
	rc = 0;
out:
	free(names);
	return rc;
}
