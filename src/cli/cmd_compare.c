/*
 * nprocguard compare KERNEL KERNEL: the same scenarios on two kernels (each
 * an image under QEMU, or this machine), every outcome that differs, and the
 * model policies that predict each side (src/compare/).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include <limits.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/closeout.h"
#include "cli/conform_report.h"
#include "cli/scenario_files.h"
#include "compare/compare.h"
#include "report/report.h"
#include "runner/random.h"

#define COMPARE_EXIT_NO_RESULT 3	/* a kernel gave no record: as run --real and conform */
#define RANDOM_TEXT_MAX 8192
#define BATCH_MAX 1000			/* scenario files per guest run (/init's argv) */

static void usage(void)
{
	printf("Usage:\n nprocguard compare [options] KERNEL KERNEL FILE...\n"
	       " nprocguard compare [options] KERNEL KERNEL --random N [--seed S]\n\n"
	       "Run the same scenarios on two kernels -- each KERNEL a kernel image, booted\n"
	       "under QEMU as conform --kernel does, or 'host', this machine (root) -- and\n"
	       "report every step whose outcome differs between them (result, ids, flag,\n"
	       "capability sets, namespace, tracer, no_new_privs, any user's count), with\n"
	       "what each kernel did and the model policies that predict each side. A\n"
	       "random scenario that differs is shrunk on those models, run on both kernels\n"
	       "again, and written to --out when they still differ. FILE '-' is standard\n"
	       "input (once); a directory stands for the sequential *.npg files under it,\n"
	       "sorted, symbolic links not followed.\n\n"
	       "Options:\n"
	       " -r, --random N       generate N random scenarios instead of reading files\n"
	       "                      (1 to 1000000)\n"
	       " -s, --seed S         seed for --random (0 to 2^64-1, default 1)\n"
	       " -o, --out DIR        where minimal differing scenarios go (default .; made if\n"
	       "                      missing)\n"
	       " -j, --jobs N         guests at once, 1 to 64 (default: the online CPUs,\n"
	       "                      fewer if memory is short; TCG takes a host core per\n"
	       "                      guest): both kernels at once, then each kernel's\n"
	       "                      scenarios split among several guests\n"
	       " -u, --uid-base UID   real uids for scenario users start above UID\n"
	       "                      (default 3000000000; 0 to 4294963198)\n"
	       " -q, --quiet          print only differences and the summary\n"
	       "     --accel auto|tcg|kvm  QEMU's accelerator (default auto: KVM when it\n"
	       "                      works, else TCG, said in one line)\n"
	       "     --guest-timeout S  give up on a guest after S seconds\n"
	       "                        (1 to 604800, default 3600)\n"
	       "     --record         run the scenarios here and print this kernel's record\n"
	       "                      (what compare reads back from each kernel)\n"
	       " -h, --help           display this help\n\n"
	       "A difference that one policy predicts on both kernels comes from their\n"
	       "machines (Yama, fs.suid_dumpable, the harness's no_new_privs), not their\n"
	       "rules: it is shown and counted apart. Both kernels run under this\n"
	       "machine's capability bounding set when one of them is 'host'.\n\n"
	       "Exit status: 0 no difference but the machines', 1 a difference between the\n"
	       "kernels, 2 usage error or bad input, 3 a kernel gave no result (said on\n"
	       "stderr) or the run was refused.\n");
}

struct opts {
	long random_n;
	unsigned long long seed;
	unsigned random_flags;
	bool random_flags_given;
	const char *outdir;
	uint32_t uid_base;
	bool quiet;
	bool has_bounding;
	uint64_t bounding;	/* --record --bounding: the set the run here keeps */
	const char *stdin_file;	/* --record --stdin-file: the copy of compare's stdin */
	struct npg_shard shard;	/* --record --shard K/N: scenario I when I mod N = K */
};

/* --- compare --record: this kernel's side --- */

static void free_all(struct npg_scenario **sc, int n)
{
	for (int i = 0; i < n; i++)
		npg_scenario_free(sc[i]);
	free(sc);
}

/* The random scenarios, as every side and the host generate them */
static struct npg_scenario **generate(const struct opts *o, char ***texts)
{
	struct npg_scenario **sc = calloc((size_t)o->random_n, sizeof(*sc));
	char **t = texts ? calloc((size_t)o->random_n, sizeof(*t)) : NULL;

	if (!sc || (texts && !t))
		goto nomem;
	for (long n = 0; n < o->random_n; n++) {
		char name[64], *text = malloc(RANDOM_TEXT_MAX);

		if (!text)
			goto nomem;
		if (npg_random_scenario(o->seed, (int)n, o->random_flags, text, RANDOM_TEXT_MAX) < 0)
			text[0] = '\0';
		snprintf(name, sizeof(name), "random-%llu-%ld", o->seed, n);
		sc[n] = npg_scenario_parse(name, text, strlen(text), stderr);
		if (!sc[n]) {
			fprintf(stderr, "nprocguard compare: internal error: generated scenario %ld does "
				"not parse\n", n);
			free(text);
			free_all(sc, (int)n);
			free(t);
			return NULL;
		}
		if (t)
			t[n] = text;
		else
			free(text);
	}
	if (texts)
		*texts = t;
	return sc;
nomem:
	fprintf(stderr, "nprocguard compare: out of memory\n");
	free(sc);
	free(t);
	return NULL;
}

static int record_here(const struct opts *o, int argc, char **argv)
{
	struct npg_host host;
	struct npg_scenario **sc;
	struct npg_scenario_files files;
	int n = argc - optind, bad = 0, rc;

	if ((n == 0) == (o->random_n < 0)) {
		fprintf(stderr, "nprocguard compare: --record takes scenario files or --random N\n");
		npg_usage_error("compare");
	}
	/*
	 * The other kernel's machine may hold fewer capabilities (this one's
	 * root lacks CAP_SYS_RESOURCE, a guest's has them all): both run under
	 * the same bounding set, or every step would differ in its sets
	 */
	for (int cap = 0; o->has_bounding && cap < 64; cap++)
		if (!(o->bounding & (1ull << cap)) && CAP_IS_SUPPORTED(cap) &&
		    cap_drop_bound((cap_value_t)cap) < 0) {
			fprintf(stderr, "nprocguard compare: cannot drop capability %d from the bounding "
				"set: %s\n", cap, strerror(errno));
			return COMPARE_EXIT_NO_RESULT;
		}
	if (npg_real_preflight(&host) < 0 || npg_real_claim_window("compare", o->uid_base, false) < 0)
		return COMPARE_EXIT_NO_RESULT;
	if (o->random_n > 0) {
		if (!(sc = generate(o, NULL)))
			return NPG_EXIT_USAGE;
		n = (int)o->random_n;
	} else {
		if (npg_scenario_files("compare", argv + optind, n, false, &files) < 0)
			return NPG_EXIT_USAGE;
		n = files.n;
		if (!(sc = calloc((size_t)n, sizeof(*sc)))) {
			npg_scenario_files_free(&files);
			return NPG_EXIT_USAGE;
		}
		for (int i = 0; i < n; i++)
			if (!(sc[i] = npg_scenario_files_load(&files, i, o->stdin_file)))
				bad++;
		npg_scenario_files_free(&files);
		if (bad) {
			free_all(sc, n);
			return NPG_EXIT_USAGE;
		}
	}
	/* this shard's scenarios, in order (npg_record_merge() puts them back) */
	{
		struct npg_scenario **mine = calloc((size_t)n + 1, sizeof(*mine));
		int m = 0;

		if (!mine) {
			free_all(sc, n);
			return COMPARE_EXIT_NO_RESULT;
		}
		for (int i = 0; i < n; i++)
			if (npg_shard_mine(&o->shard, i))
				mine[m++] = sc[i];
		rc = npg_record_write(&host, o->uid_base, mine, m, stdout);
		free(mine);
	}
	free_all(sc, n);
	return rc < 0 ? COMPARE_EXIT_NO_RESULT : NPG_EXIT_OK;
}

/* --- the two kernels --- */

/* A minimal scenario: shrunk for one or more kinds of difference */
struct minimal {
	char *text;
	int from;		/* the random scenario it was shrunk from */
	char why[400];		/* the models it was shrunk on */
	char kinds[600];	/* "setuid: result, check flag: value" */
	char path[4200];	/* its file in the batch directory */
};

/* One kind of first difference seen in the random scenarios */
struct kind_seen {
	struct npg_difference_kind k;
	int scenario;		/* the shortest random scenario showing it */
	int nscen;		/* how many part there first */
};

struct kinds {
	struct kind_seen *v;
	int n, cap;
	int scenario;		/* the one being walked */
	int nstmts;
	struct npg_scenario **sc;
};

static int add_kind(struct kinds *ks, const struct npg_difference_kind *k)
{
	struct kind_seen *e = NULL;

	for (int i = 0; i < ks->n && !e; i++)
		if (strcmp(ks->v[i].k.name, k->name) == 0 && strcmp(ks->v[i].k.field, k->field) == 0)
			e = &ks->v[i];
	if (!e) {
		if (ks->n == ks->cap) {
			int cap = ks->cap ? 2 * ks->cap : 32;
			struct kind_seen *v = realloc(ks->v, (size_t)cap * sizeof(*v));

			if (!v)
				return -1;
			ks->v = v, ks->cap = cap;
		}
		e = &ks->v[ks->n++];
		*e = (struct kind_seen){ *k, ks->scenario, 0 };
	}
	e->nscen++;
	if (ks->sc[ks->scenario]->nstmts < ks->sc[e->scenario]->nstmts) {
		e->k = *k;	/* its statement is the one the shrink keeps */
		e->scenario = ks->scenario;
	}
	return 0;
}

static int write_file(const char *path, const char *head, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, "nprocguard compare: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fputs(head, f);
	fputs(text, f);
	if (fclose(f) != 0) {
		fprintf(stderr, "nprocguard compare: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The minimal scenarios, written to --out and run on both kernels again:
 * those that no longer differ there are said and removed
 */
static int confirm(struct npg_compare *c, const struct opts *o, struct minimal *m, int nm,
		   int *confirmed)
{
	char **files = calloc((size_t)nm + 1, sizeof(*files));
	struct npg_scenario **sc = calloc((size_t)nm + 1, sizeof(*sc));
	int *first = calloc((size_t)nm + 1, sizeof(*first));
	int nfiles = 0, ret = -1;

	if (!files || !sc || !first) {
		fprintf(stderr, "nprocguard compare: out of memory\n");
		goto out;
	}
	for (; nfiles < nm; nfiles++) {
		char head[2048];

		snprintf(m[nfiles].path, sizeof(m[nfiles].path), "%s/compare-%llu-%d.npg", o->outdir,
			 o->seed, nfiles + 1);
		snprintf(head, sizeof(head), "# Shrunk from random scenario %d of 'nprocguard compare "
			 "--random N --seed %llu':\n# %s and %s differ in %s;\n# predicted: %s.\n",
			 m[nfiles].from, o->seed, c->sides[0].name, c->sides[1].name, m[nfiles].kinds,
			 m[nfiles].why);
		if (write_file(m[nfiles].path, head, m[nfiles].text) < 0 ||
		    !(sc[nfiles] = npg_scenario_load(m[nfiles].path, stderr)))
			goto out;
		files[nfiles] = m[nfiles].path;
	}
	for (int i = 0; i < nfiles; i += BATCH_MAX) {
		int k = nfiles - i < BATCH_MAX ? nfiles - i : BATCH_MAX;

		npg_closeout_flush();	/* before the sides' children: a lost write told at exit */
		if (npg_sides_run(c->sides, 2, c->jobs, c->guest, NULL, 0, files + i, k, o->uid_base) < 0 ||
		    npg_compare_records(c, sc + i, k, first + i) < 0)
			goto out;
	}
	*confirmed = 0;
	for (int i = 0; i < nm; i++) {
		if (first[i] >= 0) {
			++*confirmed;
			continue;
		}
		fprintf(stderr, "nprocguard compare: %s (from random scenario %d; %s) does not differ "
			"on the kernels, removed:\n%s", m[i].path, m[i].from, m[i].kinds, m[i].text);
		unlink(m[i].path);
	}
	ret = 0;
out:
	for (int i = 0; i < nfiles; i++)
		npg_scenario_free(sc[i]);
	free(files), free(sc), free(first);
	return ret;
}

/* One minimal scenario per kind of difference, the same text once */
static int shrink_kinds(struct npg_compare *c, struct kinds *ks, char **texts, struct minimal *m)
{
	int nm = 0;

	for (int i = 0; i < ks->n; i++) {
		struct kind_seen *e = &ks->v[i];
		char *text = strdup(texts[e->scenario]), why[400], name[240];
		int k;

		if (!text)
			return -1;
		snprintf(name, sizeof(name), "%s: %s", e->k.name, e->k.field);
		if (npg_compare_shrink(c, ks->sc[e->scenario], e->scenario, &e->k, text, why,
				       sizeof(why)) < 0) {
			fprintf(stderr, "nprocguard compare: %s (random scenario %d) not shrunk: %s\n",
				name, e->scenario, why);
			free(text);
			continue;
		}
		for (k = 0; k < nm && strcmp(m[k].text, text) != 0; k++)
			;
		if (k < nm) {
			size_t n = strlen(m[k].kinds);

			snprintf(m[k].kinds + n, sizeof(m[k].kinds) - n, ", %s", name);
			free(text);
			continue;
		}
		m[nm] = (struct minimal){ .text = text, .from = e->scenario };
		snprintf(m[nm].why, sizeof(m[nm].why), "%s", why);
		snprintf(m[nm].kinds, sizeof(m[nm].kinds), "%s", name);
		nm++;
	}
	return nm;
}

static int compare_random(struct npg_compare *c, struct opts *o)
{
	char **texts = NULL, n_arg[24], seed_arg[24], flags_arg[24];
	char *args[] = { "--random", n_arg, "--seed", seed_arg, "--random-flags", flags_arg };
	struct npg_scenario **sc;
	struct kinds ks = { 0 };
	struct npg_difference_kind kind;
	struct minimal *m = NULL;
	int *first = NULL;
	int nm = 0, ndiff = 0, confirmed = 0, ret = COMPARE_EXIT_NO_RESULT, n = (int)o->random_n;

	o->random_flags = npg_sides_random_flags(c->sides, 2);
	snprintf(n_arg, sizeof(n_arg), "%ld", o->random_n);
	snprintf(seed_arg, sizeof(seed_arg), "%llu", o->seed);
	snprintf(flags_arg, sizeof(flags_arg), "%u", o->random_flags);
	if (!(sc = generate(o, &texts)))
		return NPG_EXIT_USAGE;
	npg_closeout_flush();
	if (npg_sides_run(c->sides, 2, c->jobs, c->guest, args, 6, NULL, 0, o->uid_base) < 0)
		goto out;
	ret = NPG_EXIT_USAGE;
	/* the random scenarios are counted; their minimal forms are shown */
	c->counts_only = true;
	if (!(first = calloc((size_t)n, sizeof(*first))) ||
	    npg_compare_records(c, sc, n, first) < 0)
		goto out;
	c->counts_only = false;
	ks.sc = sc;
	for (int i = 0; i < n; i++) {
		if (first[i] < 0)
			continue;
		ndiff++;
		ks.scenario = i;
		if (npg_compare_divergence(c, sc[i], i, first[i], &kind) == 0 &&
		    add_kind(&ks, &kind) < 0)
			goto out;
	}
	printf("random: %d scenarios (seed %llu), %d differ in the kernels' rules; where they "
	       "first part (operation: field, scenarios):\n", n, o->seed, ndiff);
	for (int i = 0; i < ks.n; i++)
		printf("    %s: %s, %d\n", ks.v[i].k.name, ks.v[i].k.field, ks.v[i].nscen);
	if (ks.n > 0 && !(m = calloc((size_t)ks.n, sizeof(*m))))
		goto out;
	if ((nm = shrink_kinds(c, &ks, texts, m)) < 0)
		goto out;
	ret = NPG_EXIT_OK;
	if (nm > 0) {
		struct npg_compare_totals t = c->t;

		/* the totals are the random scenarios': the minimal ones are told apart */
		printf("minimal scenarios: %d distinct, one or more a kind, run on both kernels "
		       "again:\n", nm);
		c->t = (struct npg_compare_totals){ 0 };
		c->quiet = false;	/* what they did there, unreproducible steps too */
		if (confirm(c, o, m, nm, &confirmed) < 0)
			ret = COMPARE_EXIT_NO_RESULT;
		else
			printf("minimal scenarios: %d of %d differ on both kernels, written to %s\n",
			       confirmed, nm, o->outdir);
		c->t = t;
	}
out:
	for (int i = 0; texts && i < n; i++)
		free(texts[i]);
	for (int i = 0; i < nm; i++)
		free(m[i].text);
	free(texts);
	free_all(sc, n);
	free(first);
	free(ks.v);
	free(m);
	return ret;
}

static int compare_files(struct npg_compare *c, const struct opts *o,
			 struct npg_scenario_files *f)
{
	struct npg_scenario **sc = calloc((size_t)f->n, sizeof(*sc));
	/* both sides read standard input's scenario from one copy, named <stdin> */
	char *args[] = { "--stdin-file", f->stdin_copy };
	int bad = 0, ret = NPG_EXIT_USAGE, n = f->n;

	if (!sc)
		return NPG_EXIT_USAGE;
	for (int i = 0; i < n; i++)
		if (!(sc[i] = npg_scenario_files_load(f, i, NULL)))
			bad++;
	if (bad)
		goto out;
	ret = COMPARE_EXIT_NO_RESULT;
	for (int i = 0; i < n; i += BATCH_MAX) {
		int k = n - i < BATCH_MAX ? n - i : BATCH_MAX;

		npg_closeout_flush();
		if (npg_sides_run(c->sides, 2, c->jobs, c->guest, args, f->stdin_copy ? 2 : 0,
				  f->path + i, k, o->uid_base) < 0)
			goto out;
		if (npg_compare_records(c, sc + i, k, NULL) < 0) {
			ret = NPG_EXIT_USAGE;
			goto out;
		}
	}
	ret = NPG_EXIT_OK;
out:
	free_all(sc, n);
	return ret;
}

int npg_cmd_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "random", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },
		{ "out", required_argument, NULL, 'o' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "uid-base", required_argument, NULL, 'u' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "record", no_argument, NULL, 'R' },
		{ "random-flags", required_argument, NULL, 'F' },
		{ "bounding", required_argument, NULL, 'B' },
		{ "stdin-file", required_argument, NULL, 'S' },	/* --record's, as --bounding */
		{ "shard", required_argument, NULL, 'K' },	/* --record's too */
		{ "help", no_argument, NULL, 'h' },
		NPG_GUEST_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct npg_guest_opts guest = { 0 };
	struct opts o = { .random_n = -1, .seed = 1, .outdir = ".", .uid_base = NPG_DEFAULT_UID_BASE };
	struct npg_compare *c;
	struct npg_scenario_files files = { .stdin_index = -1 };
	bool record = false;
	int ch, ret;
	long jobs = 0;
	unsigned long count;
	uint64_t seed;
	char *end;

	while ((ch = getopt_long(argc, argv, "r:s:o:j:u:qh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'r':
			if (npg_parse_count("compare", "--random", optarg, 1, 1000000, &count) < 0)
				npg_usage_error("compare");
			o.random_n = (long)count;
			break;
		case 's':
			if (npg_parse_seed("compare", "--seed", optarg, &seed) < 0)
				npg_usage_error("compare");
			o.seed = seed;
			break;
		case 'o':
			if (!*optarg) {
				npg_bad_option("compare", "--out", optarg, "empty (a directory)");
				npg_usage_error("compare");
			}
			o.outdir = optarg;
			break;
		case 'j':
			if (npg_parse_count("compare", "--jobs", optarg, 1, NPG_JOBS_MAX, &count) < 0)
				npg_usage_error("compare");
			jobs = (long)count;
			break;
		case 'K':
			if (npg_shard_parse(&o.shard, "compare", optarg) < 0)
				npg_usage_error("compare");
			break;
		case 'u':
			if (npg_parse_uid_base("compare", optarg, &o.uid_base) < 0)
				npg_usage_error("compare");
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'R':
			record = true;
			break;
		case 'F':	/* between compare and its sides, not for users */
			if (npg_parse_count("compare", "--random-flags", optarg, 0, UINT_MAX, &count) < 0)
				npg_usage_error("compare");
			o.random_flags = (unsigned)count;
			break;
		case 'B':
			errno = 0;
			o.bounding = strtoull(optarg, &end, 16);
			if (errno || *end || !optarg[0] || !isxdigit((unsigned char)optarg[0])) {
				npg_bad_option("compare", "--bounding", optarg, "a capability set in "
					       "hexadecimal, as CapBnd in /proc/PID/status");
				npg_usage_error("compare");
			}
			o.has_bounding = true;
			break;
		case 'S':
			o.stdin_file = optarg;
			break;
		case 'h':
			usage();
			return NPG_EXIT_OK;
		case 0x100:
		case 0x101:
		case 0x102:
			if (npg_guest_option(&guest, "compare", ch, optarg) < 0)
				npg_usage_error("compare");
			break;
		default:
			npg_usage_error("compare");
		}
	}
	if (record)
		return record_here(&o, argc, argv);
	if (guest.kernel) {
		fprintf(stderr, "nprocguard compare: the kernels are its first two arguments, not "
			"--kernel\n");
		npg_usage_error("compare");
	}
	if (argc - optind < 2 || ((argc - optind == 2) == (o.random_n < 0))) {
		fprintf(stderr, "nprocguard compare: give two kernels, then scenario files or "
			"--random N\n");
		npg_usage_error("compare");
	}
	if (o.random_n > 0 && npg_out_dir("compare", "--out", o.outdir) < 0)
		return NPG_EXIT_USAGE;
	/* the files before any kernel line is printed: a bad one is a usage error */
	if (o.random_n < 0 &&
	    (npg_scenario_files("compare", argv + optind + 2, argc - optind - 2, false, &files) < 0 ||
	     npg_scenario_files_copyable("compare", &files) < 0 ||
	     npg_scenario_files_copy_stdin("compare", &files) < 0)) {
		npg_scenario_files_free(&files);
		return NPG_EXIT_USAGE;
	}
	if (!(c = calloc(1, sizeof(*c)))) {
		npg_scenario_files_free(&files);
		return NPG_EXIT_USAGE;
	}
	c->guest = &guest;
	c->jobs = jobs ? (int)jobs : npg_default_jobs();
	c->uid_base = o.uid_base;
	c->quiet = o.quiet;
	for (int i = 0; i < 2; i++)
		if (npg_side_open(&c->sides[i], argv[optind + i], "compare") < 0) {
			free(c);
			npg_scenario_files_free(&files);
			return NPG_EXIT_USAGE;
		}
	npg_compare_init(c);
	/* said once for every guest of the run: a KVM that fails is tried once */
	if (c->sides[0].image || c->sides[1].image)
		guest.accel = npg_guest_accel(&guest, "compare");
	for (int i = 0; i < 2; i++)
		printf("kernel %d: %s (%s)\n", i + 1, c->sides[i].name,
		       c->sides[i].image ? c->sides[i].image : "this machine");
	npg_guest_catch_signals();
	if (o.random_n > 0)
		ret = compare_random(c, &o);
	else
		ret = compare_files(c, &o, &files);
	npg_scenario_files_free(&files);
	npg_guest_release_signals();
	if (ret == NPG_EXIT_OK) {
		npg_compare_summary(c, stdout);
		ret = c->t.differ > c->t.machines ? NPG_EXIT_FAILED : NPG_EXIT_OK;
	}
	for (int i = 0; i < 2; i++)
		npg_side_free(&c->sides[i]);
	free(c);
	return ret;
}
