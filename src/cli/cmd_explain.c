/*
 * nprocguard explain: which limit refuses a task's next fork, thread or
 * execve, with the numbers, walked in the running kernel's order
 * (src/tools/explain/); --since-boot lists the evidence of past
 * refusals; --format prometheus writes the fleet metrics.
 */
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/backend.h"
#include "cli/cli.h"
#include "cli/model_option.h"
#include "identify/cache.h"
#include "report/report.h"
#include "system/procscan.h"
#include "system/taskiter.h"
#include "system/tasklimits.h"
#include "tools/explain/explain.h"
#include "tools/metrics/prometheus.h"

static void usage(void)
{
	printf("Usage:\n nprocguard explain [options]\n\n"
	       "Say which limit refuses a task's next fork, thread or execve, and with which\n"
	       "numbers: each check copy_process() makes, in the running kernel's order --\n"
	       "RLIMIT_NPROC of the user, kernel.threads-max, the pids of each pid namespace\n"
	       "(kernel.pid_max), the pids cgroup and its ancestors (pids.max) -- or, for\n"
	       "execve, PF_NPROC_EXCEEDED and the re-check of the limit.\n\n"
	       "Options:\n"
	       " -p, --pid PID          the task (default: the parent of nprocguard, the shell)\n"
	       " -u, --user USER        the user's most limited process (lowest RLIMIT_NPROC)\n"
	       " -g, --cgroup PATH      a pids cgroup (a directory, or a path in the hierarchy)\n"
	       "     --op OP            fork (default), thread or execve\n"
	       "     --since-boot       the cgroups whose pids.max has refused forks (pids.events)\n"
	       "                        and the tasks flagged PF_NPROC_EXCEEDED now\n"
	       "     --sysroot DIR      read /proc and /sys below DIR (a recorded tree)\n"
	       "     --source SOURCE    where the user's tasks are counted: auto (the pinned BPF\n"
	       "                        iterator if there is one, else /proc), bpf or proc\n"
	       "     --format FORMAT    text (default), json, or prometheus (the metrics of\n"
	       "                        status --format prometheus)\n"
	       "     --textfile PATH    with --format prometheus: write PATH atomically; PATH\n"
	       "                        must be absent or a regular file (as for status)\n"
	       " -J, --json             same as --format json\n"
	       "     --model MODEL      decide by 'identified' (the policy and rules nprocguard\n"
	       "                        identify found for this boot of the kernel; probed\n"
	       "                        now, as root, if none is kept) or by a configuration,\n"
	       "                        POLICY[,+RULE|,-RULE|,RULE=N]... (default: what the\n"
	       "                        kernel's version says)\n"
	       " -h, --help             display this help\n\n"
	       "Exit status: 0 the operation would pass, 1 a limit refuses it (or --since-boot\n"
	       "found refusals), 2 usage or read error.\n");
}

static int prometheus(const char *path, const char *root, const char *source)
{
	struct npg_scan scan;
	struct npg_scan_user *users;
	char reason[512];
	size_t n;
	int rc;

	if (root[0]) {
		fprintf(stderr, "nprocguard explain: --format prometheus reads the running system, "
			"not --sysroot\n");
		return NPG_EXIT_USAGE;
	}
	memset(&scan, 0, sizeof(scan));
	if (npg_scan_running(&scan, source, true) < 0) {
		fprintf(stderr, "nprocguard explain: cannot read /proc: %s\n", strerror(errno));
		return NPG_EXIT_USAGE;
	}
	rc = npg_scan_users(&scan, &users, &n);
	npg_scan_free(&scan);
	if (rc < 0) {
		fprintf(stderr, "nprocguard explain: out of memory\n");
		return NPG_EXIT_USAGE;
	}
	rc = npg_prometheus_write(path, users, n, "", reason, sizeof(reason));
	free(users);
	if (rc < 0) {
		npg_textfile_failed("explain", reason);
		return NPG_EXIT_USAGE;
	}
	return NPG_EXIT_OK;
}

/*
 * --model: of the running kernel only (not a --sysroot tree's); identify
 * probes it at once when nothing is kept for this boot, as root
 */
static int resolve_model(const struct npg_model_choice *m, const char *root, struct npg_host *host,
			 struct npg_release *rel)
{
	if (root[0] && m->identified) {
		fprintf(stderr, "nprocguard explain: --model identified asks the running kernel: "
			"not with --sysroot\n");
		return -1;
	}
	if (npg_host_probe(host) < 0) {
		fprintf(stderr, "nprocguard explain: cannot read this process's state from /proc: %s\n",
			strerror(errno));
		return -1;
	}
	/* probing needs the uid window; what is kept for this boot does not */
	if (m->identified && host->root && !npg_model_kept(host) &&
	    npg_real_claim_window("explain", NPG_DEFAULT_UID_BASE, false) < 0)
		return -1;
	return npg_model_resolve("explain", m, host, NPG_DEFAULT_UID_BASE, rel);
}

int npg_cmd_explain(int argc, char **argv)
{
	enum { OPT_OP = 256, OPT_SINCE, OPT_SYSROOT, OPT_SOURCE, OPT_FORMAT, OPT_TEXTFILE, OPT_MODEL };
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "user", required_argument, NULL, 'u' },
		{ "cgroup", required_argument, NULL, 'g' },
		{ "op", required_argument, NULL, OPT_OP },
		{ "since-boot", no_argument, NULL, OPT_SINCE },
		{ "sysroot", required_argument, NULL, OPT_SYSROOT },
		{ "source", required_argument, NULL, OPT_SOURCE },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "textfile", required_argument, NULL, OPT_TEXTFILE },
		{ "json", no_argument, NULL, 'J' },
		{ "model", required_argument, NULL, OPT_MODEL },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct npg_explain_facts facts;	/* large: kept off the stack */
	static struct npg_explain e;
	static struct npg_host host;
	struct npg_model_choice model = { 0 };
	struct npg_release model_rel;
	const char *user = NULL, *cgroup = NULL, *root = "", *source = "auto", *format = "text";
	const char *textfile = NULL;
	bool since = false;
	int c, op = NPG_EXPLAIN_FORK, targets = 0, rc;
	pid_t pid = 0;
	char why[1024];
	unsigned long v;

	while ((c = getopt_long(argc, argv, "p:u:g:Jh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			/* PID_MAX_LIMIT: no kernel gives a higher pid */
			if (npg_parse_number("explain", "--pid", optarg, "a process id", 1, 4194304,
					     &v) < 0)
				npg_usage_error("explain");
			pid = (pid_t)v;
			targets++;
			break;
		case 'u': user = optarg; targets++; break;
		case 'g':
			if (!*optarg) {
				npg_bad_option("explain", "--cgroup", optarg, "empty (a pids cgroup: a "
					       "directory, or a path in the hierarchy)");
				npg_usage_error("explain");
			}
			cgroup = optarg;
			targets++;
			break;
		case OPT_OP:
			op = npg_explain_op_parse(optarg);
			if (op < 0) {
				fprintf(stderr, "nprocguard explain: bad --op '%.64s' (fork, thread or "
					"execve)\n", optarg);
				npg_usage_error("explain");
			}
			break;
		case OPT_SINCE: since = true; break;
		case OPT_SYSROOT:
			if (!*optarg) {	/* "" was taken as no --sysroot: the running system */
				npg_bad_option("explain", "--sysroot", optarg, "empty (a directory "
					       "holding proc/ and sys/; / for the running system)");
				npg_usage_error("explain");
			}
			root = optarg;
			break;
		case OPT_SOURCE:
			if (strcmp(optarg, "auto") && strcmp(optarg, "bpf") && strcmp(optarg, "proc")) {
				fprintf(stderr, "nprocguard explain: bad --source '%.64s' (auto, bpf or "
					"proc)\n", optarg);
				npg_usage_error("explain");
			}
			source = optarg;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "text") && strcmp(optarg, "json") && strcmp(optarg, "prometheus")) {
				fprintf(stderr, "nprocguard explain: bad --format '%.64s' (text, json or "
					"prometheus)\n", optarg);
				npg_usage_error("explain");
			}
			format = optarg;
			break;
		case OPT_TEXTFILE: textfile = optarg; break;
		case 'J': format = "json"; break;
		case OPT_MODEL:
			if (npg_model_parse("explain", optarg, &model) < 0)
				npg_usage_error("explain");
			break;
		case 'h': usage(); return NPG_EXIT_OK;
		default: npg_usage_error("explain");
		}
	}
	if (optind < argc) {
		fprintf(stderr, "nprocguard explain: unexpected argument '%.64s'\n", argv[optind]);
		npg_usage_error("explain");
	}
	if (targets > 1) {
		fprintf(stderr, "nprocguard explain: --pid, --user and --cgroup exclude each other\n");
		npg_usage_error("explain");
	}
	if (textfile && strcmp(format, "prometheus") != 0) {
		fprintf(stderr, "nprocguard explain: --textfile goes with --format prometheus\n");
		npg_usage_error("explain");
	}
	if (root[0]) {
		struct stat st;

		/* room for the longest /proc and /sys paths below it */
		if (strlen(root) > 400) {
			npg_bad_option("explain", "--sysroot", root, "longer than 400 bytes");
			npg_usage_error("explain");
		}
		if (stat(root, &st) < 0 || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "nprocguard explain: --sysroot %s: not a directory\n", root);
			return NPG_EXIT_USAGE;
		}
		if (strcmp(root, "/") == 0)
			root = "";
	}
	if (textfile && npg_check_textfile("explain", textfile) < 0)
		return NPG_EXIT_USAGE;	/* before the scan, before anything is written */
	if (strcmp(format, "prometheus") == 0)
		return prometheus(textfile ? textfile : "-", root, source);
	if (since) {
		rc = npg_explain_since_boot(root, source);
		return rc < 0 ? NPG_EXIT_USAGE : rc > 0 ? NPG_EXIT_FAILED : NPG_EXIT_OK;
	}
	if (cgroup && op == NPG_EXPLAIN_EXECVE) {
		fprintf(stderr, "nprocguard explain: --op execve needs a task, not a cgroup\n");
		npg_usage_error("explain");
	}
	if (user) {
		uint32_t uid;

		if (root[0]) {
			fprintf(stderr, "nprocguard explain: --user reads the running system; with "
				"--sysroot name the task with --pid\n");
			npg_usage_error("explain");
		}
		if (npg_parse_user("explain", user, &uid) < 0)
			npg_usage_error("explain");
		pid = npg_explain_most_limited(uid, source);
		if (pid <= 0) {
			fprintf(stderr, "nprocguard explain: user %.64s has no live process\n", user);
			return NPG_EXIT_USAGE;
		}
	} else if (!pid && !cgroup) {
		if (root[0]) {
			fprintf(stderr, "nprocguard explain: with --sysroot, name the task (--pid) or "
				"the cgroup (--cgroup)\n");
			npg_usage_error("explain");
		}
		pid = getppid();
	}
	{
		struct npg_explain_source src = { root, source };

		rc = cgroup ? npg_explain_gather_cgroup(&facts, &src, cgroup, why, sizeof(why))
			    : npg_explain_gather(&facts, &src, pid, why, sizeof(why));
	}
	if (rc < 0) {
		fprintf(stderr, "nprocguard explain: ");
		npg_safe_fputs(why, stderr);
		fputc('\n', stderr);
		return NPG_EXIT_USAGE;
	}
	if (model.arg && resolve_model(&model, root, &host, &model_rel) < 0)
		return NPG_EXIT_USAGE;
	npg_explain_decide(&facts, model.arg ? &model_rel : NULL, (enum npg_explain_op)op, &e);
	/* the version's model, when identify has found another for this boot */
	if (!model.arg && !root[0] && npg_host_probe(&host) == 0 && host.policy)
		npg_identified_differs(&host.rel, host.release, e.identified, sizeof(e.identified));
	if (strcmp(format, "json") == 0)
		npg_explain_print_json(stdout, &facts, &e);
	else
		npg_explain_print_text(stdout, &facts, &e);
	return e.first_refusal >= 0 ? NPG_EXIT_FAILED : NPG_EXIT_OK;
}
