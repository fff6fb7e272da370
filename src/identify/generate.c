/*
 * identify's probes, found from the model: every configuration of the
 * history against each of its neighbours, a scenario that tells them
 * apart on two machines -- one with every capability in its bounding set,
 * one without CAP_SYS_RESOURCE, as this project's machines are -- shrunk
 * to the lines that still do.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "identify/candidates.h"
#include "identify/generate.h"
#include "identify/trace.h"
#include "model/policy.h"
#include "runner/random.h"

#define PROFILES 2
#define TEXT_MAX (256 * 1024)

struct target {
	int a, b;			/* indices into configs */
	struct npg_dimension dim;
	int probe;			/* 1 + the probe that separates them, 0 none yet */
};

struct gen {
	const struct npg_generate_opts *o;
	struct npg_candidates configs;	/* the history's first (nbase), then neighbours */
	int nbase;
	struct target *t;
	int nt;
	struct npg_host host[PROFILES];
	/* the current scenario's traces: [config * PROFILES + profile] */
	struct npg_trace *trace;
	bool *traced;
	int nprobes;
};

static void machines(struct gen *g)
{
	for (int p = 0; p < PROFILES; p++) {
		memset(&g->host[p], 0, sizeof(g->host[p]));
		g->host[p].root = true;
		g->host[p].yama_scope = -1;
		g->host[p].cap_bnd = NPG_CAP_ALL;
		g->host[p].cap_eff = NPG_CAP_ALL;
	}
	g->host[1].cap_bnd &= ~NPG_CAP(NPG_CAP_SYS_RESOURCE);
	g->host[1].cap_eff &= ~NPG_CAP(NPG_CAP_SYS_RESOURCE);
}

static int add_target(struct gen *g, int a, int b, const struct npg_dimension *dim)
{
	struct target *grown;

	if (a == b)
		return 0;
	for (int i = 0; i < g->nt; i++)
		if ((g->t[i].a == a && g->t[i].b == b) || (g->t[i].a == b && g->t[i].b == a))
			return 0;
	grown = realloc(g->t, (size_t)(g->nt + 1) * sizeof(*grown));
	if (!grown)
		return -1;
	g->t = grown;
	g->t[g->nt++] = (struct target){ a, b, *dim, 0 };
	return 0;
}

/* the history's configurations, and each against each of its neighbours */
static int targets(struct gen *g)
{
	struct npg_config nb[64];
	struct npg_dimension dims[64];

	if (npg_candidates_of_history(&g->configs) < 0)
		return -1;
	g->nbase = g->configs.n;
	for (int i = 0; i < g->nbase; i++) {
		int n = npg_neighbours(&g->configs.c[i].config, nb, dims, 64);

		for (int k = 0; k < n; k++) {
			int j = npg_candidates_add(&g->configs, &nb[k], NULL);

			if (j < 0 || add_target(g, i, j, &dims[k]) < 0)
				return -1;
		}
	}
	g->trace = calloc((size_t)g->configs.n * PROFILES, sizeof(*g->trace));
	g->traced = calloc((size_t)g->configs.n * PROFILES, sizeof(*g->traced));
	return g->trace && g->traced ? 0 : -1;
}

static void forget_traces(struct gen *g)
{
	for (int i = 0; i < g->configs.n * PROFILES; i++)
		if (g->traced[i]) {
			npg_trace_free(&g->trace[i]);
			g->traced[i] = false;
		}
}

static const struct npg_trace *trace_of(struct gen *g, const struct npg_scenario *sc, int config,
					int profile)
{
	int k = config * PROFILES + profile;

	if (!g->traced[k]) {
		if (npg_trace_model(&g->trace[k], sc, &g->configs.c[config].config, &g->host[profile],
				    NULL, 0, false) < 0)
			return NULL;
		g->traced[k] = true;
	}
	return &g->trace[k];
}

/* Do the two configurations of @t behave differently in @sc, on every machine? */
static bool separates(struct gen *g, const struct npg_scenario *sc, const struct target *t)
{
	for (int p = 0; p < PROFILES; p++) {
		const struct npg_trace *a = trace_of(g, sc, t->a, p), *b = trace_of(g, sc, t->b, p);

		if (!a || !b || npg_trace_differences(a, b, NULL) == 0)
			return false;
	}
	return true;
}

struct shrink_arg {
	struct gen *g;
	const struct target *t;
};

static bool still_separates(const char *text, void *arg)
{
	struct shrink_arg *s = arg;
	struct npg_scenario *sc = npg_scenario_parse("probe", text, strlen(text), NULL);
	bool yes;

	if (!sc)
		return false;
	forget_traces(s->g);
	yes = separates(s->g, sc, s->t);
	forget_traces(s->g);
	npg_scenario_free(sc);
	return yes;
}

/*
 * A scenario's statements and declarations only: no title, source,
 * policies line, expectation or comment, which a probe has of its own or
 * not at all
 */
static void normalize(const char *in, char *out, size_t len)
{
	size_t n = 0;

	for (const char *line = in; *line;) {
		size_t k = strcspn(line, "\n"), end = k;
		bool quoted = false;

		for (size_t i = 0; i < k; i++) {
			if (line[i] == '"')
				quoted = !quoted;
			if (!quoted && (line[i] == '#' || (line[i] == '=' && line[i + 1] == '>'))) {
				end = i;
				break;
			}
		}
		while (end > 0 && (line[end - 1] == ' ' || line[end - 1] == '\t'))
			end--;
		if (end && strncmp(line, "scenario ", 9) != 0 && strncmp(line, "source ", 7) != 0 &&
		    strncmp(line, "policies ", 9) != 0 && n + end + 2 < len) {
			memcpy(out + n, line, end);
			n += end;
			out[n++] = '\n';
		}
		line += k + (line[k] == '\n');
	}
	out[n] = '\0';
}

static FILE *open_out(const char *path)
{
	FILE *f = fopen(path, "we");

	if (!f)
		fprintf(stderr, "nprocguard identify: %s: %s\n", path, strerror(errno));
	return f;
}

/* 0, or -1 said: a write error on the way, or at the close */
static int close_out(FILE *f, const char *path)
{
	int bad = ferror(f);

	if (fclose(f) != 0 || bad) {
		fprintf(stderr, "nprocguard identify: writing %s failed\n", path);
		return -1;
	}
	return 0;
}

/* A pair as the probes write it: B as A's one change where it is a rule's */
static void pair_text(const struct gen *g, const struct target *t, char *a, size_t alen, char *b,
		      size_t blen)
{
	const struct npg_config *cb = &g->configs.c[t->b].config;

	npg_config_format(&g->configs.c[t->a].config, a, alen);
	if (!t->dim.rule)
		npg_config_format(cb, b, blen);
	else if (t->dim.rule->is_int)
		snprintf(b, blen, "%s=%d", t->dim.rule->name, t->dim.value);
	else
		snprintf(b, blen, "%c%s", t->dim.value ? '+' : '-', t->dim.rule->name);
}

static int write_probe(struct gen *g, const char *text, const char *source,
		       const struct target *first, const int *covered, int ncovered)
{
	char path[4096], a[512], b[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%02d-%s.npg", g->o->outdir, g->nprobes + 1,
		 npg_dimension_name(&first->dim));
	if (!(f = open_out(path)))
		return -1;
	fprintf(f, "# A probe of `nprocguard identify`, found by `make identify-probes` from\n"
		"# %s: the lines of it that still tell apart the configurations\n"
		"# below (policy, then the rules that differ from its own), on a machine\n"
		"# with every capability in its bounding set and on one without\n"
		"# CAP_SYS_RESOURCE. Regenerated, not edited; tests/unit/test-identify.c\n"
		"# holds it to each pair.\n", source);
	for (int i = 0; i < ncovered; i++) {
		pair_text(g, &g->t[covered[i]], a, sizeof(a), b, sizeof(b));
		fprintf(f, "# separates: %s | %s\n", a, b);
	}
	fprintf(f, "scenario \"identify: %s\"\n%s", npg_dimension_name(&first->dim), text);
	if (close_out(f, path) < 0)
		return -1;
	g->nprobes++;
	if (g->o->log)
		fprintf(g->o->log, "%s: %s, %d pairs (from %s)\n", path, npg_dimension_name(&first->dim),
			ncovered, source);
	return 0;
}

/* Every probe @text (from @source) still holds, shrunk: 0, or -1 on an error */
static int probes_of(struct gen *g, const char *text, const char *source, char *work,
		     int *covered)
{
	for (;;) {
		struct npg_scenario *sc = npg_scenario_parse(source, text, strlen(text), NULL);
		struct shrink_arg sa = { g, NULL };
		int n = 0;

		if (!sc)
			return 0;	/* a seed that does not parse alone: nothing to take */
		forget_traces(g);
		for (int i = 0; i < g->nt && !sa.t; i++)
			if (!g->t[i].probe && separates(g, sc, &g->t[i]))
				sa.t = &g->t[i];
		forget_traces(g);
		npg_scenario_free(sc);
		if (!sa.t)
			return 0;
		snprintf(work, TEXT_MAX, "%s", text);
		npg_shrink_lines(work, still_separates, &sa);
		if (!(sc = npg_scenario_parse(source, work, strlen(work), NULL)))
			return 0;
		forget_traces(g);
		for (int i = 0; i < g->nt; i++)
			if (!g->t[i].probe && separates(g, sc, &g->t[i]))
				covered[n++] = i;
		forget_traces(g);
		npg_scenario_free(sc);
		/* the shrunk text keeps what it was shrunk for */
		if (n == 0 || write_probe(g, work, source, sa.t, covered, n) < 0)
			return -1;
		for (int i = 0; i < n; i++)
			g->t[covered[i]].probe = g->nprobes;
	}
}

static int undone(const struct gen *g)
{
	int n = 0;

	for (int i = 0; i < g->nt; i++)
		n += !g->t[i].probe;
	return n;
}

/* outdir/UNSEPARATED: the pairs no scenario searched told apart */
static int write_unseparated(struct gen *g, int searched)
{
	char path[4096], a[512], b[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/UNSEPARATED", g->o->outdir);
	if (!(f = open_out(path)))
		return -1;
	fprintf(f, "# Pairs of configurations no scenario searched by `make identify-probes`\n"
		"# told apart (%d scenarios): identify says of such a rule that no probe\n"
		"# decides it. Most are rules that mean nothing under the other rules\n"
		"# (set_user_capable once flag_nproc_exceeded holds), or whose effect the\n"
		"# scenario language cannot reach.\n", searched);
	for (int i = 0; i < g->nt; i++) {
		if (g->t[i].probe)
			continue;
		pair_text(g, &g->t[i], a, sizeof(a), b, sizeof(b));
		fprintf(f, "%s: %s | %s\n", npg_dimension_name(&g->t[i].dim), a, b);
	}
	return close_out(f, path);
}

/* outdir's old probes go: a probe regenerated under another number would stay twice */
static int empty_outdir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int err = 0;

	if (!d) {
		fprintf(stderr, "nprocguard identify: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		char path[4096];

		if (n < 4 || strcmp(e->d_name + n - 4, ".npg") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (unlink(path) < 0) {
			fprintf(stderr, "nprocguard identify: %s: %s\n", path, strerror(errno));
			err = -1;
		}
	}
	closedir(d);
	return err;
}

/* xorshift64*, as the random scenarios' */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static int pick(uint64_t *s, int n)
{
	return n > 0 ? (int)(next_rand(s) % (uint64_t)n) : 0;
}

/*
 * One step on the names of @sc: a capability dropped, a namespace made, a
 * trace, an execve of a declared file, a set*id call, a map written, the
 * dumpable bit -- what a rule may turn on that random scenarios seldom put
 * together with a seed's own steps
 */
static void mutation_line(const struct npg_scenario *sc, uint64_t *rng, int nth, char *buf,
			  size_t len)
{
	static const char *const caps[] = { "setfcap", "sys_ptrace", "setuid", "setgid",
					    "sys_admin", "net_raw", "sys_resource", "kill" };
	const char *t = sc->tasks[pick(rng, sc->ntasks)].name;
	const char *u = sc->tasks[pick(rng, sc->ntasks)].name;
	const char *who = sc->nnames ? sc->names[pick(rng, sc->nnames)].name : "root";

	switch (pick(rng, 8)) {
	case 0:
		snprintf(buf, len, "%s: capset drop %s\n", t, caps[pick(rng, 8)]);
		break;
	case 1:
		snprintf(buf, len, "%s: unshare user mut%d%s\n", t, nth,
			 pick(rng, 2) ? " uidmap 0 root 1" : "");
		break;
	case 2:
		snprintf(buf, len, "%s: ptrace %s%s\n", t, pick(rng, 2) ? "attach " : "", u);
		break;
	case 3:
		if (sc->nfiles)
			snprintf(buf, len, "%s: execve %s\n", t, sc->files[pick(rng, sc->nfiles)].path);
		else
			snprintf(buf, len, "%s: execve\n", t);
		break;
	case 4:
		snprintf(buf, len, "%s: setresuid %s %s %s\n", t, pick(rng, 2) ? who : "-1", who,
			 pick(rng, 2) ? who : "-1");
		break;
	case 5:
		snprintf(buf, len, "%s: write %s uid_map 0 %s 1\n", t, u, pick(rng, 2) ? "root" : who);
		break;
	case 6:
		snprintf(buf, len, "%s: prctl dumpable %d\n", t, pick(rng, 2));
		break;
	default:
		snprintf(buf, len, "%s: seteuid %s\n", t, who);
		break;
	}
}

/* @text with one or two mutation lines inserted after its declarations */
static void mutate(const struct npg_scenario *sc, const char *text, uint64_t *rng, char *out,
		   size_t len)
{
	const char *lines[4096];
	int n = 0, first_step = 0, inserts = 1 + pick(rng, 2), at[2];
	size_t used = 0;

	for (const char *p = text; *p && n < 4096; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
		lines[n] = p;
		/* a declaration: a step or check comes after the last one */
		if (!strncmp(p, "user ", 5) || !strncmp(p, "group ", 6) || !strncmp(p, "task ", 5) ||
		    !strncmp(p, "file ", 5) || !strncmp(p, "bounding ", 9) || !strncmp(p, "yama ", 5))
			first_step = n + 1;
		n++;
	}
	for (int k = 0; k < inserts; k++)
		at[k] = first_step + pick(rng, n - first_step + 1);
	for (int i = 0; i <= n; i++) {
		for (int k = 0; k < inserts; k++)
			if (at[k] == i && used + 128 < len) {
				mutation_line(sc, rng, k, out + used, len - used);
				used += strlen(out + used);
			}
		if (i < n) {
			size_t l = strcspn(lines[i], "\n");

			if (used + l + 2 >= len)
				break;
			memcpy(out + used, lines[i], l);
			used += l;
			out[used++] = '\n';
		}
	}
	out[used] = '\0';
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = malloc(TEXT_MAX);
	size_t n;

	if (!f || !buf) {
		if (f)
			fclose(f);
		free(buf);
		return NULL;
	}
	n = fread(buf, 1, TEXT_MAX - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

int npg_identify_generate(const struct npg_generate_opts *o)
{
	struct gen g = { .o = o };
	char *text = malloc(TEXT_MAX), *norm = malloc(TEXT_MAX), *work = malloc(TEXT_MAX);
	int *covered = NULL, searched = 0, rc = -1;

	machines(&g);
	if (!text || !norm || !work || targets(&g) < 0 ||
	    !(covered = calloc((size_t)g.nt + 1, sizeof(*covered)))) {
		fprintf(stderr, "nprocguard identify: out of memory\n");
		goto out;
	}
	if (empty_outdir(o->outdir) < 0)
		goto out;
	if (o->log)
		fprintf(o->log, "%d configurations (%d of the history), %d pairs\n", g.configs.n, g.nbase,
			g.nt);
	for (int i = 0; i < o->nseeds && undone(&g); i++) {
		char *file = read_file(o->seeds[i]);

		if (!file) {
			fprintf(stderr, "nprocguard identify: %s: %s\n", o->seeds[i], strerror(errno));
			goto out;
		}
		normalize(file, norm, TEXT_MAX);
		free(file);
		searched++;
		if (probes_of(&g, norm, o->seeds[i], work, covered) < 0)
			goto out;
	}
	for (int n = 0; n < o->random && undone(&g); n++) {
		char source[64];
		unsigned flags = (n % 3 == 2 ? NPG_RANDOM_USERNS_2_6_39 : 0) | (n % 2 ? NPG_RANDOM_WIDE : 0);

		if (npg_random_scenario(o->seed, n, flags, text, TEXT_MAX) < 0)
			continue;
		normalize(text, norm, TEXT_MAX);
		snprintf(source, sizeof(source), "random scenario %d of seed %llu", n,
			 (unsigned long long)o->seed);
		searched++;
		if (probes_of(&g, norm, source, work, covered) < 0)
			goto out;
	}
	/* the seeds again, each with a step or two of what the rest did not reach */
	for (int m = 0; m < o->mutations && undone(&g); m++) {
		uint64_t rng = o->seed * 0x9E3779B97F4A7C15ULL ^ ((uint64_t)m + 1) * 0xD1B54A32D192ED03ULL;
		int i = m % (o->nseeds ? o->nseeds : 1);
		char *file, source[4200];
		struct npg_scenario *sc;

		if (!o->nseeds)
			break;
		if (!(file = read_file(o->seeds[i])))
			continue;
		normalize(file, norm, TEXT_MAX);
		free(file);
		if (!(sc = npg_scenario_parse(o->seeds[i], norm, strlen(norm), NULL)))
			continue;
		if (sc->ntasks) {
			mutate(sc, norm, &rng, text, TEXT_MAX);
			snprintf(source, sizeof(source), "%s with a step added (mutation %d)", o->seeds[i], m);
			searched++;
			if (probes_of(&g, text, source, work, covered) < 0) {
				npg_scenario_free(sc);
				goto out;
			}
		}
		npg_scenario_free(sc);
	}
	rc = write_unseparated(&g, searched);
	if (o->log)
		fprintf(o->log, "%d probes; %d of %d pairs separated, %d not (%s/UNSEPARATED)\n",
			g.nprobes, g.nt - undone(&g), g.nt, undone(&g), o->outdir);
out:
	if (g.trace)
		forget_traces(&g);
	free(g.trace);
	free(g.traced);
	free(g.t);
	npg_candidates_free(&g.configs);
	free(covered);
	free(text);
	free(norm);
	free(work);
	return rc;
}
