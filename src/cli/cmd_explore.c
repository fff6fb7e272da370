/*
 * nprocguard explore: every interleaving of a concurrent scenario on the
 * model of one policy or of all, the shortest counterexample of each
 * property, and with --policy all the verdict table.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/closeout.h"
#include "cli/scenario_files.h"
#include "explore/program.h"
#include "explore/search.h"
#include "explore/trace.h"
#include "guest/guest.h"
#include "model/policy.h"

#define EXIT_BOUNDED 3		/* a bound stopped a search before a verdict */
#define EXIT_REPLAY 4		/* --replay-kernel: the kernel did not do what the model did */
#define MAX_FILES 1024
#define MAX_REPLAYS 1024	/* counterexamples one --replay-kernel run boots with */
#define MAX_STATES 4294967295ul	/* --max-states: the state table's 32-bit numbers */
#define MAX_DEPTH 1000000ul
#define MAX_MEMORY_MIB 16777216ul	/* --max-memory: 16 TiB */

struct opts {
	struct npg_explore_opts x;
	uint32_t policies;
	bool quiet, stats;
	const char *out_dir, *dot_file;
	struct npg_scenario_files files;
	const char *replay_kernel;	/* boot this image and replay the counterexamples */
	char *tmp_dir;		/* --replay-kernel without --out: where they go, removed after */
	int nreplays;
	char *replays[MAX_REPLAYS];	/* the .npg counterexamples written */
};

static void usage(void)
{
	printf("Usage:\n nprocguard explore [options] FILE|DIR...\n\n"
	       "Explore every interleaving of the concurrent scenarios (\"TASK runs:\" programs)\n"
	       "on the model and check properties; print the shortest counterexample of each\n"
	       "violated one. A directory stands for the concurrent *.npg files under it,\n"
	       "sorted, symbolic links not followed; a sequential file named on its own is\n"
	       "its one interleaving. FILE '-' is standard input (once).\n\n"
	       "Options:\n"
	       " -p, --policy NAME|all     a policy, or all for the verdict table (default all)\n"
	       " -P, --property P[,P...]   no-root-after-failed-drop, limit-holds[+K],\n"
	       "                           no-collateral-execve-failure, no-stale-failure,\n"
	       "                           setuid-never-fails (default: the five); the file's\n"
	       "                           always/never lines are always checked\n"
	       "     --max-states N        stop after N stored states (1 to 4294967295, default\n"
	       "                           50000000)\n"
	       "     --max-depth N         do not expand states N steps deep (0 to 1000000,\n"
	       "                           default none)\n"
	       "     --max-memory MIB      stop when the tables reach MIB MiB (1 to 16777216,\n"
	       "                           default 8192)\n"
	       "     --no-symmetry         store permutations of interchangeable tasks apart\n"
	       "     --no-por              no partial-order reduction: local calls are not merged\n"
	       "                           and every step of every state is taken\n"
	       "     --no-sleep-sets       take a transition even when a sibling already did\n"
	       " -o, --out DIR             write each counterexample as DIR/NAME.POLICY.PROPERTY.npg and .dot\n"
	       "                           (DIR made if missing)\n"
	       "     --replay-kernel IMAGE replay every counterexample on the x86_64 kernel IMAGE\n"
	       "                           under QEMU (conform --kernel IMAGE --policy NAME): needs\n"
	       "                           one --policy and qemu-system-x86_64, not root (root\n"
	       "                           only inside the guest)\n"
	       "     --dot FILE            the first counterexample as a Graphviz chart\n"
	       " -s, --stats               statistics of each search (default with one policy)\n"
	       " -q, --quiet               no traces, no progress line\n"
	       " -h, --help                display this help\n\n"
	       "Exit status: 0 every property holds, 1 one is violated, 2 usage or input error\n"
	       "(or the replay's conform said one, or output could not be written), 3 a bound\n"
	       "stopped a search before its verdict, 4 with --replay-kernel: a counterexample\n"
	       "did not replay on the kernel as on the model (or the guest gave no result).\n");
}

static int single_policy(const struct opts *o)
{
	int npol = 0;

	for (int i = 0; i < NPG_NPOLICIES; i++)
		npol += (o->policies >> i) & 1;
	return npol == 1;
}

#define PROPERTIES "P[,P...] of no-root-after-failed-drop, limit-holds[+K], " \
	"no-collateral-execve-failure, no-stale-failure, setuid-never-fails"

/* -P LIST: each name, none empty ("", ",", "a,,b" are refused, not "every property") */
static int parse_properties(struct opts *o, const char *arg)
{
	const char *p = arg;

	for (;;) {
		size_t len = strcspn(p, ",");
		char name[128], shown[NPG_OPTION_TEXT];

		if (len == 0) {
			npg_bad_option("explore", "--property", arg, "%s (%s)",
				       *arg ? "an empty name" : "empty", PROPERTIES);
			return -1;
		}
		if (o->x.nprops == NPG_MAX_PROPS) {
			npg_bad_option("explore", "--property", arg, "more than %d properties",
				       NPG_MAX_PROPS);
			return -1;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(len < sizeof(name) ? len : sizeof(name) - 1),
			 p);
		if (len >= sizeof(name) || npg_prop_parse(name, &o->x.props[o->x.nprops]) < 0) {
			npg_bad_option("explore", "--property", arg, "unknown property '%s' (%s)",
				       npg_option_text(p, len, shown, sizeof(shown)), PROPERTIES);
			return -1;
		}
		o->x.nprops++;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

/*
 * Where -o and --dot write, checked before the search rather than after
 * it has run and printed: a directory we can write files into, a file we
 * can write (or make in its directory)
 */
static int writable(const char *opt, const char *path, bool dir)
{
	struct stat st;
	char *copy = NULL;
	const char *where = path;
	int rc = 0;

	if (!dir && stat(path, &st) < 0 && errno == ENOENT) {
		char *slash;

		if (!(copy = strdup(path)))
			return -1;
		slash = strrchr(copy, '/');
		where = !slash ? "." : slash == copy ? "/" : (*slash = '\0', copy);
		dir = true;
	}
	if (stat(where, &st) < 0 || (dir && !S_ISDIR(st.st_mode) && (errno = ENOTDIR)) ||
	    (!dir && S_ISDIR(st.st_mode) && (errno = EISDIR)) ||
	    access(where, dir ? W_OK | X_OK : W_OK) < 0) {
		fprintf(stderr, "nprocguard explore: %s %s: %s\n", opt, path, strerror(errno));
		rc = -1;
	}
	free(copy);
	return rc;
}

/* A file option's value: not empty (--out '' would write to /NAME) */
static int file_option(const char *opt, const char *arg)
{
	if (*arg)
		return 0;
	npg_bad_option("explore", opt, arg, "empty (a %s)", strcmp(opt, "--out") == 0 ?
		       "directory" : "file name");
	return -1;
}

static int parse_args(struct opts *o, int argc, char **argv)
{
	enum { O_MAX_STATES = 256, O_MAX_DEPTH, O_MAX_MEMORY, O_NO_SYMMETRY, O_NO_POR, O_NO_SLEEP, O_DOT,
	       O_REPLAY_KERNEL };
	static const struct option longopts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "property", required_argument, NULL, 'P' },
		{ "max-states", required_argument, NULL, O_MAX_STATES },
		{ "max-depth", required_argument, NULL, O_MAX_DEPTH },
		{ "max-memory", required_argument, NULL, O_MAX_MEMORY },
		{ "no-symmetry", no_argument, NULL, O_NO_SYMMETRY },
		{ "no-por", no_argument, NULL, O_NO_POR },
		{ "no-sleep-sets", no_argument, NULL, O_NO_SLEEP },
		{ "out", required_argument, NULL, 'o' },
		{ "dot", required_argument, NULL, O_DOT },
		{ "replay-kernel", required_argument, NULL, O_REPLAY_KERNEL },
		{ "stats", no_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long v;
	long mask;
	int c;

	o->policies = (1u << NPG_NPOLICIES) - 1;
	o->x.max_states = 50000000;
	o->x.max_depth = -1;
	o->x.max_memory = (uint64_t)8192 << 20;
	o->x.symmetry = true;
	o->x.por = true;
	o->x.sleep_sets = true;
	while ((c = getopt_long(argc, argv, "p:P:o:sqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			mask = npg_parse_policy_list("explore", optarg);
			if (mask < 0)
				npg_usage_error("explore");
			o->policies = (uint32_t)mask;
			break;
		case 'P':
			if (parse_properties(o, optarg) < 0)
				npg_usage_error("explore");
			break;
		case O_MAX_STATES:
			/* the state table numbers states in 32 bits */
			if (npg_parse_count("explore", "--max-states", optarg, 1, MAX_STATES, &v) < 0)
				npg_usage_error("explore");
			o->x.max_states = v;
			break;
		case O_MAX_DEPTH:
			if (npg_parse_count("explore", "--max-depth", optarg, 0, MAX_DEPTH, &v) < 0)
				npg_usage_error("explore");
			o->x.max_depth = (int)v;
			break;
		case O_MAX_MEMORY:
			if (npg_parse_count("explore", "--max-memory", optarg, 1, MAX_MEMORY_MIB, &v) < 0)
				npg_usage_error("explore");
			o->x.max_memory = (uint64_t)v << 20;
			break;
		case O_NO_SYMMETRY: o->x.symmetry = false; break;
		case O_NO_POR: o->x.por = false; break;
		case O_NO_SLEEP: o->x.sleep_sets = false; break;
		case 'o':
			if (file_option("--out", optarg) < 0)
				npg_usage_error("explore");
			o->out_dir = optarg;
			break;
		case O_DOT:
			if (file_option("--dot", optarg) < 0)
				npg_usage_error("explore");
			o->dot_file = optarg;
			break;
		case O_REPLAY_KERNEL: o->replay_kernel = optarg; break;
		case 's': o->stats = true; break;
		case 'q': o->quiet = true; break;
		case 'h': usage(); exit(NPG_EXIT_OK);
		default: npg_usage_error("explore");
		}
	}
	if (optind == argc) {
		fprintf(stderr, "nprocguard explore: no scenario file\n");
		npg_usage_error("explore");
	}
	if (o->replay_kernel && !single_policy(o)) {
		fprintf(stderr, "nprocguard explore: --replay-kernel needs one --policy: the model "
			"conform compares the kernel with\n");
		npg_usage_error("explore");
	}
	/* before the search, not after it: a bad image is no disagreement */
	if (o->replay_kernel && npg_guest_check_image(o->replay_kernel, "explore", "--replay-kernel") < 0)
		return -1;
	if (o->out_dir && npg_out_dir("explore", "--out", o->out_dir) < 0)
		return -1;
	if (o->x.nprops == 0)
		for (int i = 0; i < NPG_NBUILTIN; i++)
			npg_prop_parse(npg_builtin_names[i], &o->x.props[o->x.nprops++]);
	if ((o->out_dir && writable("--out", o->out_dir, true) < 0) ||
	    (o->dot_file && writable("--dot", o->dot_file, false) < 0))
		return -1;
	if (npg_scenario_files("explore", argv + optind, argc - optind, true, &o->files) < 0)
		return -1;
	if (o->files.n > MAX_FILES) {
		fprintf(stderr, "nprocguard explore: more than %d files\n", MAX_FILES);
		return -1;
	}
	o->x.progress = !o->quiet;
	return 0;
}

static long rss_mib(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss / 1024 : -1;
}

static void print_stats(const char *file, const char *policy, const struct npg_explore_stats *s)
{
	printf("%s: %s: %llu states stored, %llu matched, %llu transitions (%llu local calls "
	       "merged, %llu slept), depth %d, tables %.1f MiB, peak RSS %ld MiB, %.3f s, "
	       "%.0f states/s%s%s\n",
	       file, policy, (unsigned long long)s->stored, (unsigned long long)s->matched,
	       (unsigned long long)s->transitions, (unsigned long long)s->merged,
	       (unsigned long long)s->slept, s->depth, (double)s->table_bytes / 1048576.0,
	       rss_mib(), s->seconds, s->seconds > 0 ? (double)s->stored / s->seconds : 0.0,
	       s->bounded ? "; INCOMPLETE: " : "", s->bounded ? s->bound : "");
}

static void safe_name(char *buf, size_t len, const char *s)
{
	size_t i = 0;

	for (; *s && i + 1 < len; s++)
		buf[i++] = (*s == '/' || *s == ' ' || *s == '\'' || *s == '"') ? '_' : *s;
	buf[i] = '\0';
}

static int write_outputs(struct opts *o, const struct npg_cprog *cp, const char *policy,
			 const struct npg_check_result *cr, bool *dot_done)
{
	char path[4096], base[256], prop[64];
	const char *slash = strrchr(cp->sc->file, '/');
	FILE *f;

	if (o->dot_file && !*dot_done) {
		*dot_done = true;
		f = fopen(o->dot_file, "w");
		if (!f || npg_trace_write_dot(f, cp, policy, cr) < 0 || fclose(f) != 0) {
			fprintf(stderr, "nprocguard explore: %s: %s\n", o->dot_file, strerror(errno));
			return -1;
		}
	}
	if (!o->out_dir)
		return 0;
	/* standard input's counterexamples: stdin.POLICY.PROPERTY.npg */
	snprintf(base, sizeof(base), "%s", strcmp(cp->sc->file, "<stdin>") == 0 ? "stdin" :
		 slash ? slash + 1 : cp->sc->file);
	if (strlen(base) > 4 && strcmp(base + strlen(base) - 4, ".npg") == 0)
		base[strlen(base) - 4] = '\0';
	safe_name(prop, sizeof(prop), cr->name);
	for (int k = 0; k < 2; k++) {
		snprintf(path, sizeof(path), "%s/%s.%s.%s.%s", o->out_dir, base, policy, prop,
			 k ? "dot" : "npg");
		f = fopen(path, "w");
		if (!f || (k ? npg_trace_write_dot(f, cp, policy, cr)
			     : npg_trace_write_scenario(f, cp, policy, cr)) < 0 || fclose(f) != 0) {
			fprintf(stderr, "nprocguard explore: %s: %s\n", path, strerror(errno));
			return -1;
		}
		if (k == 0 && o->replay_kernel) {
			if (o->nreplays == MAX_REPLAYS) {
				fprintf(stderr, "nprocguard explore: more than %d counterexamples to "
					"replay\n", MAX_REPLAYS);
				return -1;
			}
			if (!(o->replays[o->nreplays++] = strdup(path)))
				return -1;
		}
	}
	return 0;
}

/* Where --replay-kernel's counterexamples go when --out names no directory */
static int make_tmp_dir(struct opts *o)
{
	const char *tmp = getenv("TMPDIR");
	char path[4096];

	snprintf(path, sizeof(path), "%s/nprocguard-explore.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(path) || !(o->tmp_dir = strdup(path))) {
		fprintf(stderr, "nprocguard explore: %s: %s\n", path, strerror(errno));
		return -1;
	}
	o->out_dir = o->tmp_dir;
	return 0;
}

static void remove_tmp_dir(const struct opts *o)
{
	struct dirent **ents;
	int n;

	if (!o->tmp_dir)
		return;
	n = scandir(o->tmp_dir, &ents, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		char path[4096];

		if (ents[i]->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", o->tmp_dir, ents[i]->d_name);
			unlink(path);
		}
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
	rmdir(o->tmp_dir);
}

/*
 * conform --kernel IMAGE --policy NAME over every counterexample written, in
 * a child running this same executable: the model's answer of each step
 * becomes the kernel's expectation inside the guest. Its exit status.
 */
static int replay_on_kernel(const struct opts *o)
{
	const char *policy = NULL;
	char **args = calloc((size_t)o->nreplays + 8, sizeof(char *));
	int n = 0, status;
	pid_t pid;

	if (!args)
		return -1;
	for (int p = 0; p < NPG_NPOLICIES; p++)
		if ((o->policies >> p) & 1)
			policy = npg_policies[p]->name;
	args[n++] = "nprocguard";
	args[n++] = "conform";
	args[n++] = "--kernel";
	args[n++] = (char *)o->replay_kernel;
	args[n++] = "--policy";
	args[n++] = (char *)policy;
	for (int i = 0; i < o->nreplays; i++)
		args[n++] = o->replays[i];
	npg_closeout_flush();
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		execv("/proc/self/exe", args);
		fprintf(stderr, "nprocguard explore: /proc/self/exe: %s\n", strerror(errno));
		_exit(127);
	}
	free(args);
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		fprintf(stderr, "nprocguard explore: conform: %s\n", strerror(errno));
		return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* A cell of the verdict table: over every file, the worst verdict */
struct cell {
	enum npg_verdict v;
	int steps;
	const char *file;
};

static void merge(struct cell *c, const struct npg_check_result *cr, const char *file)
{
	if (cr->verdict == NPG_VIOLATED &&
	    (c->v != NPG_VIOLATED || cr->steps < c->steps)) {
		c->v = NPG_VIOLATED;
		c->steps = cr->steps;
		c->file = file;
	} else if (cr->verdict == NPG_UNKNOWN && c->v == NPG_HOLDS) {
		c->v = NPG_UNKNOWN;
		c->file = file;
	}
}

static void cell_text(const struct cell *c, char *buf, size_t len)
{
	if (c->v == NPG_VIOLATED)
		snprintf(buf, len, "violated (%d steps)", c->steps);
	else
		snprintf(buf, len, "%s", c->v == NPG_HOLDS ? "holds" : "unknown (bound)");
}

static void print_table(const struct opts *o, struct cell (*cells)[NPG_MAX_PROPS + 1], bool user)
{
	int ncol = o->x.nprops + (user ? 1 : 0), w = 20;

	printf("%-16s", "POLICY");
	for (int c = 0; c < ncol; c++) {
		const char *name = c < o->x.nprops ? o->x.props[c].name : "always/never";

		printf(" %-*s", c == ncol - 1 ? 0 : (int)strlen(name) > w ? (int)strlen(name) : w, name);
	}
	printf("\n");
	for (int p = 0; p < NPG_NPOLICIES; p++) {
		if (!((o->policies >> p) & 1))
			continue;
		printf("%-16s", npg_policies[p]->name);
		for (int c = 0; c < ncol; c++) {
			const char *name = c < o->x.nprops ? o->x.props[c].name : "always/never";
			char text[48];

			cell_text(&cells[p][c], text, sizeof(text));
			printf(" %-*s", c == ncol - 1 ? 0 : (int)strlen(name) > w ? (int)strlen(name) : w, text);
		}
		printf("\n");
	}
	printf("\nShortest counterexamples:\n");
	for (int p = 0; p < NPG_NPOLICIES; p++)
		for (int c = 0; c < ncol && ((o->policies >> p) & 1); c++)
			if (cells[p][c].v != NPG_HOLDS)
				printf("  %-16s %-30s %s%s\n", npg_policies[p]->name,
				       c < o->x.nprops ? o->x.props[c].name : "always/never",
				       cells[p][c].file, cells[p][c].v == NPG_UNKNOWN ? " (bound reached)" : "");
}

int npg_cmd_explore(int argc, char **argv)
{
	struct opts o = { 0 };
	struct cell cells[NPG_NPOLICIES][NPG_MAX_PROPS + 1];
	bool table, any_user = false, violated = false, unknown = false, dot_done = false;
	int rc = NPG_EXIT_OK;

	memset(cells, 0, sizeof(cells));
	if (parse_args(&o, argc, argv) < 0) {
		rc = NPG_EXIT_USAGE;
		goto out;
	}
	table = !single_policy(&o);
	if (o.replay_kernel && !o.out_dir && make_tmp_dir(&o) < 0) {
		rc = NPG_EXIT_USAGE;
		goto out;
	}
	for (int f = 0; f < o.files.n && rc != NPG_EXIT_USAGE; f++) {
		struct npg_cprog *cp = npg_cprog_load(o.files.path[f], stderr);
		const char *file = npg_scenario_name(o.files.path[f]);	/* "-": <stdin> */

		if (!cp) {
			rc = NPG_EXIT_USAGE;
			break;
		}
		any_user |= cp->nalways > 0;
		for (int p = 0; p < NPG_NPOLICIES; p++) {
			struct npg_explore_result res;
			char err[256], label[512];

			if (!((o.policies >> p) & 1))
				continue;
			snprintf(label, sizeof(label), "%s %s", file, npg_policies[p]->name);
			o.x.label = label;
			if (npg_explore(cp, npg_policies[p], &o.x, &res, err, sizeof(err)) < 0) {
				fprintf(stderr, "nprocguard explore: %s: %s: %s\n", file,
					npg_policies[p]->name, err);
				npg_explore_result_free(&res);
				rc = NPG_EXIT_USAGE;
				break;
			}
			if (res.stats.bounded)
				fprintf(stderr, "nprocguard explore: %s: %s: search incomplete: %s\n",
					file, npg_policies[p]->name, res.stats.bound);
			for (int c = 0; c < res.nchecks; c++) {
				const struct npg_check_result *cr = &res.checks[c];

				violated |= cr->verdict == NPG_VIOLATED;
				unknown |= cr->verdict == NPG_UNKNOWN;
				merge(&cells[p][c < o.x.nprops ? c : o.x.nprops], cr, file);
				if (!table && !o.quiet) {
					if (cr->verdict == NPG_VIOLATED)
						npg_trace_print(stdout, cp, npg_policies[p]->name, cr);
					else
						printf("%s: %s: %s %s\n", file, npg_policies[p]->name,
						       cr->name, cr->verdict == NPG_HOLDS ? "holds" :
						       "unknown: the search stopped before a verdict");
				}
				if (cr->verdict == NPG_VIOLATED &&
				    write_outputs(&o, cp, npg_policies[p]->name, cr, &dot_done) < 0)
					rc = NPG_EXIT_USAGE;
			}
			if (o.stats || (!table && !o.quiet))
				print_stats(file, npg_policies[p]->name, &res.stats);
			npg_explore_result_free(&res);
		}
		npg_cprog_free(cp);
	}
	if (rc == NPG_EXIT_OK && table)
		print_table(&o, cells, any_user);
	if (rc == NPG_EXIT_OK)
		rc = unknown ? EXIT_BOUNDED : violated ? NPG_EXIT_FAILED : NPG_EXIT_OK;
	if (rc != NPG_EXIT_USAGE && o.replay_kernel) {
		int crc;

		if (o.nreplays == 0) {
			printf("replay on %s: no counterexample to replay\n", o.replay_kernel);
		} else if ((crc = replay_on_kernel(&o)) == NPG_EXIT_USAGE) {
			/* conform said why: a bad image, its output lost... not a disagreement */
			fprintf(stderr, "nprocguard explore: the replay on %s failed (conform exited "
				"%d)\n", o.replay_kernel, crc);
			rc = NPG_EXIT_USAGE;
		} else if (crc != 0) {
			fprintf(stderr, "nprocguard explore: the counterexamples did not replay on %s as "
				"on the model (conform exited %d)\n", o.replay_kernel, crc);
			rc = EXIT_REPLAY;
		}
	}
out:
	remove_tmp_dir(&o);
	free(o.tmp_dir);
	for (int i = 0; i < o.nreplays; i++)
		free(o.replays[i]);
	npg_scenario_files_free(&o.files);
	return rc;
}
