/* nprocguard run: scenarios on the model, one column per policy. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/real/teardown.h"
#include "cli/cli.h"
#include "cli/closeout.h"
#include "cli/model_option.h"
#include "cli/scenario_files.h"
#include "report/report.h"
#include "runner/run.h"

static void usage(void)
{
	printf("Usage:\n nprocguard run [options] FILE...\n\n"
	       "Run scenario files on the model of one or several kernel policies and\n"
	       "check every expectation they state.\n"
	       "FILE '-' is standard input (once); a directory stands for the sequential\n"
	       "*.npg files under it, sorted, symbolic links not followed.\n\n"
	       "Options:\n"
	       " -p, --policy LIST    NAME[,NAME...] or 'all' (default: the file's\n"
	       "                      'policies' line, else all)\n"
	       " -f, --format FORMAT  text (default), json or tap\n"
	       "     --release RELEASE  the model of that kernel release: its era's policy,\n"
	       "                      and the rules its point release changed, as conform\n"
	       "                      picks them for the running kernel; RELEASE is\n"
	       "                      uname -r (5.10.223), optionally with uname -v:\n"
	       "                      \"$(uname -rv)\" or \"5.10.0-32-amd64 Debian 5.10.223-1\"\n"
	       "     --model MODEL    the model of one configuration: 'identified' (what\n"
	       "                      nprocguard identify found for this kernel, probed now\n"
	       "                      if it is not kept for this boot) or POLICY[,+RULE|\n"
	       "                      ,-RULE|,RULE=N]... (nprocguard policies --releases);\n"
	       "                      with --real, the rules the kernel is compared by\n"
	       " -R, --real           run on the running kernel instead of the model\n"
	       "                      (root; expectations of the kernel's own policy)\n"
	       "     --host           the model takes this machine's capability bounding\n"
	       "                      set (default: the full set, or the file's 'bounding')\n"
	       " -u, --uid-base UID   real uids for scenario users start above UID\n"
	       "                      (default 3000000000; 0 to 4294963198)\n"
	       " -T, --then COMMAND   with --real: run COMMAND (sh -c) after the last step,\n"
	       "                      while the scenario's tasks still exist; NPG_UID_BASE\n"
	       "                      is set in its environment; it runs in a process\n"
	       "                      group of its own, killed when it ends\n"
	       "     --wait           with --real: wait for another run holding the same\n"
	       "                      uid window instead of refusing to start\n"
	       " -h, --help           display this help\n\n"
	       "With one policy, text output is a step-by-step trace; with several, a\n"
	       "side-by-side table, one column per policy.\n\n"
	       "Limits of a scenario file: 16 MiB, 4096 tasks (exited ones included), 1024\n"
	       "user and group names, procs 0-100000, 32 supplementary groups per task, 64 words a\n"
	       "line (doc/scenario-language.md, \"Limits of the language\").\n\n"
	       "Exit status: 0 every expectation held, 1 one failed, 2 usage or syntax error,\n"
	       "3 (--real) the run could not start: no root, the uid window held by another\n"
	       "run or in use, the machine's limits. Interrupted by SIGINT, SIGTERM, SIGHUP or\n"
	       "SIGQUIT, it cleans up and dies of that signal (128+N in a shell).\n");
}

struct run_totals {
	int expectations, failed, unreproducible;
	bool not_started;	/* a file could not start (--real) */
};

struct run_options {
	long mask;
	enum npg_format fmt;
	bool real;
	const char *then;
	bool wait;
	bool host_bset;		/* --host: the model gets this machine's bounding set */
	const struct npg_release *release;	/* --release: the model of that release */
	uint32_t uid_base;
	struct npg_host host;
};

/*
 * --then: a command that looks at the live tasks (the status tests use
 * it). Not system(3): that ignores SIGINT and blocks SIGCHLD while the
 * command runs, so an interrupted run would carry on and exit 0. The
 * command gets a process group of its own, which the teardown kills --
 * with whatever it left running -- on SIGINT/SIGTERM and when it ends.
 */
static void run_then(struct npg_backend *b, void *arg)
{
	const struct run_options *opt = arg;
	char base[16];
	int status;
	pid_t pid, w;

	(void)b;
	snprintf(base, sizeof(base), "%u", opt->uid_base);
	npg_closeout_flush();
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "nprocguard run: --then: fork: %s\n", strerror(errno));
		return;
	}
	if (pid == 0) {
		setpgid(0, 0);
		setenv("NPG_UID_BASE", base, 1);
		execl("/bin/sh", "sh", "-c", opt->then, (char *)NULL);
		fprintf(stderr, "nprocguard run: --then: /bin/sh: %s\n", strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);	/* both sides: whichever runs first */
	npg_teardown_set_group(pid);
	npg_teardown_set_phase("the --then command, after the last step");
	while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	kill(-pid, SIGKILL);	/* what it left in the background */
	npg_teardown_set_group(0);
	if (w == pid && status != 0)
		fprintf(stderr, "nprocguard run: --then command exited with status %d\n",
			WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

/* Run @sc and report it through @rep. 0, or -1 when the report could not be written. */
static int run_one(const struct npg_scenario *sc, const struct run_options *opt,
		   struct run_totals *tot, struct npg_report *rep)
{
	struct npg_backend backends[NPG_NPOLICIES];
	struct npg_column cols[NPG_NPOLICIES];
	struct npg_run run;
	struct npg_sink sink = npg_report_sink(rep);
	long mask = opt->mask ? opt->mask : (long)sc->policies;
	int n = 0, rc;

	if (opt->real) {
		npg_real_backend_init(&backends[0], &opt->host, opt->uid_base);
		/* --model: the rules the kernel is compared by, and whose expectations */
		if (opt->release) {
			backends[0].policy = opt->release->policy;
			backends[0].release = opt->release;
		}
		cols[0] = (struct npg_column){ .backend = &backends[0],
					       .policy_index = npg_expectations_of(sc, backends[0].policy),
					       .before_stop = opt->then ? run_then : NULL,
					       .before_stop_arg = (void *)opt };
		n = 1;
		mask = 0;
	}
	for (int i = 0; npg_policies[i]; i++) {
		if (!(mask & (1L << i)))
			continue;
		npg_model_backend_init(&backends[n], npg_policies[i],
				       opt->host_bset ? opt->host.cap_bnd : NPG_CAP_ALL);
		backends[n].cap_bset_fixed = opt->host_bset;
		/* --host: the machine as it is, this process's no_new_privs included */
		backends[n].tasks_no_new_privs = opt->host_bset && opt->host.no_new_privs;
		/* --host: this machine's Yama and fs.suid_dumpable, whatever the file says */
		if (opt->host_bset) {
			backends[n].yama_fixed = true;
			backends[n].yama_scope = opt->host.yama_scope;
			backends[n].suid_dumpable = opt->host.suid_dumpable;
		}
		backends[n].release = opt->release;
		if (opt->release)
			snprintf(backends[n].label, sizeof(backends[n].label), "%s for %d.%d.%d",
				 npg_policies[i]->name, opt->release->major, opt->release->minor,
				 opt->release->patch);
		cols[n] = (struct npg_column){ .backend = &backends[n], .policy_index = i };
		n++;
	}
	rc = npg_run_scenario(&run, sc, cols, n, &sink);
	if (rc == NPG_RUN_NOT_STARTED)
		tot->not_started = true;
	if (rc == 0 || rc == NPG_RUN_NOT_STARTED)
		rc = npg_report_finish_run(rep, &run);
	else
		npg_report_discard_run(rep);
	npg_run_free(&run);
	if (rc == NPG_RUN_NO_MEMORY || rc == NPG_REPORT_NO_MEMORY) {
		fprintf(stderr, "nprocguard run: %s: out of memory\n", sc->file);
		return -1;
	}
	if (rc == NPG_REPORT_WRITE_ERROR) {
		npg_closeout_set_errno(rep->write_errno);	/* said at exit */
		return -1;
	}
	tot->expectations += run.expectations;
	tot->failed += run.failed;
	tot->unreproducible += run.unreproducible;
	return 0;
}

int npg_cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "format", required_argument, NULL, 'f' },
		{ "real", no_argument, NULL, 'R' },
		{ "uid-base", required_argument, NULL, 'u' },
		{ "then", required_argument, NULL, 'T' },
		{ "wait", no_argument, NULL, 'W' },
		{ "host", no_argument, NULL, 'H' },
		{ "release", required_argument, NULL, 'L' },
		{ "model", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct run_options opt = { .fmt = NPG_FORMAT_TEXT, .uid_base = NPG_DEFAULT_UID_BASE };
	struct run_totals tot = { 0 };
	struct npg_release release, model_rel;
	struct npg_model_choice model = { 0 };
	struct npg_scenario **sc;
	struct npg_scenario_files files;
	int c, nfiles, bad = 0;
	bool stopped = false;	/* out of memory, or stdout failed */

	while ((c = getopt_long(argc, argv, "p:f:Ru:T:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			opt.mask = npg_parse_policy_list("run", optarg);
			if (opt.mask < 0)
				npg_usage_error("run");
			break;
		case 'R':
			opt.real = true;
			break;
		case 'T':
			opt.then = optarg;
			break;
		case 'W':
			opt.wait = true;
			break;
		case 'H':
			opt.host_bset = true;
			break;
		case 'L':
			/* the code conform picks the running kernel's model with */
			if (npg_release_parse_arg(&release, optarg) < 0) {
				npg_bad_option("run", "--release", optarg, "not a kernel release "
					       "(uname -r, e.g. 5.10.223)");
				npg_usage_error("run");
			}
			opt.release = &release;
			break;
		case 'M':
			if (npg_model_parse("run", optarg, &model) < 0)
				npg_usage_error("run");
			break;
		case 'u':
			if (npg_parse_uid_base("run", optarg, &opt.uid_base) < 0)
				npg_usage_error("run");
			break;
		case 'f':
			if (npg_format_parse(optarg, &opt.fmt) < 0) {
				npg_bad_option("run", "--format", optarg, "unknown format (text, json "
					       "or tap)");
				npg_usage_error("run");
			}
			break;
		case 'h':
			usage();
			return NPG_EXIT_OK;
		default:
			npg_usage_error("run");
		}
	}
	if (opt.real && opt.mask) {
		fprintf(stderr, "nprocguard run: --real runs the kernel's own policy; "
			"--policy is for the model (see 'nprocguard conform')\n");
		npg_usage_error("run");
	}
	if (opt.release && (opt.mask || opt.real)) {
		fprintf(stderr, "nprocguard run: --release picks the model's policy: not with %s\n",
			opt.real ? "--real (the kernel is the running one)" : "--policy");
		npg_usage_error("run");
	}
	if (opt.release) {
		for (int i = 0; npg_policies[i]; i++)
			if (npg_policies[i] == opt.release->policy)
				opt.mask = 1L << i;
		/* a hidden point release, an enterprise kernel's backports */
		if (opt.release->caveat[0])
			fprintf(stderr, "nprocguard run: --release: %s\n", opt.release->caveat);
	}
	if (model.arg && (opt.mask || opt.release)) {
		fprintf(stderr, "nprocguard run: --model picks the model: not with %s\n",
			opt.mask ? "--policy" : "--release");
		npg_usage_error("run");
	}
	if (opt.then && !opt.real) {
		fprintf(stderr, "nprocguard run: --then goes with --real\n");
		npg_usage_error("run");
	}
	if (opt.host_bset && !opt.real && npg_host_probe(&opt.host) < 0) {
		fprintf(stderr, "nprocguard run: --host: cannot read this machine's "
			"capability bounding set from /proc/self/status\n");
		return NPG_EXIT_USAGE;
	}
	if (opt.real && npg_real_preflight(&opt.host) < 0)
		return NPG_EXIT_NOT_RUN;
	if (opt.real && npg_real_claim_window("run", opt.uid_base, opt.wait) < 0)
		return NPG_EXIT_NOT_RUN;
	if (model.arg) {
		/* identify may probe this kernel: the real backend's preflight and window */
		if (!opt.real && model.identified &&
		    (npg_real_preflight(&opt.host) < 0 ||
		     npg_real_claim_window("run", opt.uid_base, opt.wait) < 0))
			return NPG_EXIT_NOT_RUN;
		if (!opt.real && !model.identified && npg_host_probe(&opt.host) < 0) {
			fprintf(stderr, "nprocguard run: cannot read this process's state from /proc\n");
			return NPG_EXIT_USAGE;
		}
		if (npg_model_resolve("run", &model, &opt.host, opt.uid_base, &model_rel) < 0)
			return NPG_EXIT_NOT_RUN;
		opt.release = &model_rel;
		for (int i = 0; !opt.real && npg_policies[i]; i++)
			if (npg_policies[i] == model_rel.policy)
				opt.mask = 1L << i;
	}
	if (optind == argc) {
		fprintf(stderr, "nprocguard run: no scenario file given\n");
		npg_usage_error("run");
	}
	if (npg_scenario_files("run", argv + optind, argc - optind, false, &files) < 0)
		return NPG_EXIT_USAGE;
	nfiles = files.n;
	/* parse everything first: a bad file stops the run before any result */
	sc = calloc((size_t)nfiles, sizeof(*sc));
	if (!sc) {
		perror("nprocguard");
		npg_scenario_files_free(&files);
		return NPG_EXIT_USAGE;
	}
	for (int i = 0; i < nfiles; i++)
		if (!(sc[i] = npg_scenario_files_load(&files, i, NULL)))
			bad++;
	npg_scenario_files_free(&files);
	if (!bad) {
		struct npg_report rep;
		struct npg_progress progress;

		npg_progress_init(&progress, "run");
		npg_report_init(&rep, opt.fmt, stdout, stderr);
		rep.progress = &progress;
		if (opt.fmt == NPG_FORMAT_JSON)
			npg_report_json_begin(stdout, "run");
		if (opt.release && opt.fmt == NPG_FORMAT_TEXT) {
			char line[1200];

			npg_release_model(opt.release, line, sizeof(line));
			printf("model %s\n", line);
		}
		for (int i = 0; !stopped && i < nfiles; i++)
			stopped = run_one(sc[i], &opt, &tot, &rep) < 0;
		if (!stopped && opt.fmt == NPG_FORMAT_JSON)
			npg_report_json_end(stdout, tot.expectations, tot.failed, tot.unreproducible);
		if (!stopped && opt.fmt == NPG_FORMAT_TAP)
			npg_report_tap_end(stdout, rep.tap_number);
		if (!stopped && opt.fmt == NPG_FORMAT_TEXT && nfiles > 1)
			printf("%d files, %d expectations: %d held, %d failed\n", nfiles,
			       tot.expectations, tot.expectations - tot.failed, tot.failed);
	}
	for (int i = 0; i < nfiles; i++)
		npg_scenario_free(sc[i]);
	free(sc);
	if (bad || stopped)
		return NPG_EXIT_USAGE;
	/* a file that did not run leaves the answer incomplete: that outranks a failure */
	if (tot.not_started)
		return NPG_EXIT_NOT_RUN;
	return tot.failed ? NPG_EXIT_FAILED : NPG_EXIT_OK;
}
