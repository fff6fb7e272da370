/*
 * nprocguard audit: run PROGRAM with its privilege drops failing as an old
 * kernel (or a policy) would, and report whether it carried on as root.
 * Exit status is the verdict: 0 SAFE, 1 VULNERABLE, 2 usage or supervisor
 * failure, 3 KILLED, 4 NO-DROP, 5 TIMED-OUT, 6 CANNOT-EXECUTE.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/backend.h"
#include "cli/cli.h"
#include "cli/model_option.h"
#include "report/report.h"
#include "tools/audit/audit.h"

#define AUDIT_TIMEOUT_MAX 604800	/* seconds: a week, as --guest-timeout */

static const char *const verdict_names[] = {
	[NPG_VERDICT_SAFE] = "SAFE", [NPG_VERDICT_VULNERABLE] = "VULNERABLE",
	[NPG_VERDICT_ERROR] = "ERROR", [NPG_VERDICT_KILLED] = "KILLED",
	[NPG_VERDICT_NO_DROP] = "NO-DROP", [NPG_VERDICT_TIMED_OUT] = "TIMED-OUT",
	[NPG_VERDICT_CANNOT_EXECUTE] = "CANNOT-EXECUTE",
};
static const char *const policy_names[] = {
	[NPG_AUDIT_ALWAYS] = "always", [NPG_AUDIT_ONCE] = "once",
	[NPG_AUDIT_LINUX_2_6] = "linux-2.6", [NPG_AUDIT_OW_2006] = "ow-2006",
	[NPG_AUDIT_MODEL] = "model",
};

/* "always", ..., or "model linux-6,-coredump_one_group" */
static const char *policy_name(const struct npg_audit_options *o)
{
	static char buf[600];
	char spec[512];

	if (o->policy != NPG_AUDIT_MODEL)
		return policy_names[o->policy];
	npg_config_format(&o->model, spec, sizeof(spec));
	snprintf(buf, sizeof(buf), "model %s", spec);
	return buf;
}

static void usage(void)
{
	printf("Usage:\n nprocguard audit [options] -- PROGRAM [ARGS...]\n\n"
	       "Run PROGRAM (as root) under a seccomp supervisor that fails its privilege\n"
	       "drops -- set*uid, set*gid, setgroups -- as the policy says, and watch whether\n"
	       "it then acts while it still holds uid 0 (effective, or a real or saved uid 0\n"
	       "it can take back): execve, an open for writing, chmod, chown, unlink, rename,\n"
	       "kill, bind or connect. Children and threads are followed.\n\n"
	       "Options:\n"
	       " -p, --policy POLICY  always (default): fail every drop with EAGAIN;\n"
	       "                      once: fail the first only; linux-2.6: fail every call\n"
	       "                      the model of 2.6.0-3.0 fails (set_user(): the real uid\n"
	       "                      changes to a user whose count, read from /proc, is at\n"
	       "                      the caller's RLIMIT_NPROC); ow-2006: kill with SIGSEGV\n"
	       "                      there instead\n"
	       "     --model MODEL    fail every drop the model fails: 'identified' (the\n"
	       "                      policy and rules nprocguard identify found for this\n"
	       "                      kernel, probed now if none is kept for this boot), or\n"
	       "                      POLICY[,+RULE|,-RULE|,RULE=N]...; a kernel from 3.1 on\n"
	       "                      fails none (set_user() only flags)\n"
	       " -f, --format FORMAT  text (default) or json\n"
	       " -t, --timeout SECS   end the run after SECS seconds (default 60; at most\n"
	       "                      604800, a week)\n"
	       " -h, --help           display this help\n\n"
	       "Exit status: 0 SAFE, 1 VULNERABLE, 2 usage or supervisor failure,\n"
	       "3 KILLED (ow-2006), 4 NO-DROP (it never tried to drop), 5 TIMED-OUT (killed\n"
	       "at --timeout before any finding), 6 CANNOT-EXECUTE (PROGRAM could not be run).\n");
}

static void describe_exit(const struct npg_audit_result *r, char *buf, size_t len)
{
	int status = r->exit_status;

	if (!r->exited)
		snprintf(buf, len, "never waited for");
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by SIG%s", sigabbrev_np(WTERMSIG(status)) ?
			 sigabbrev_np(WTERMSIG(status)) : "?");
	else
		snprintf(buf, len, "exited %d", WEXITSTATUS(status));
}

/* How the process held root when it acted: "effective uid 0", or the uid it can take back */
static void describe_holding(const struct npg_finding *f, char *buf, size_t len)
{
	if (f->uids[1] == 0)
		snprintf(buf, len, "effective uid 0");
	else
		snprintf(buf, len, "%s uid 0 (uids %u %u %u: root can be taken back)",
			 f->uids[0] == 0 ? "real" : "saved", f->uids[0], f->uids[1], f->uids[2]);
}

static void print_text(const struct npg_audit_options *o, const struct npg_audit_result *r)
{
	char exit[64], holding[96];

	describe_exit(r, exit, sizeof(exit));
	describe_holding(&r->finding, holding, sizeof(holding));
	printf("nprocguard audit: %s\n", verdict_names[r->verdict]);
	printf("  program: %s, policy %s, %s\n", o->argv[0], policy_name(o), exit);
	printf("  drops: %d attempted, %d failed by the policy%s%s\n", r->drops, r->failed,
	       r->failed ? ", the first " : "", r->first_failed);
	if (r->went_on_as_root)
		printf("  went on holding uid 0 after a failed drop: %d process%s\n",
		       r->went_on_as_root, r->went_on_as_root == 1 ? "" : "es");
	if (r->killed_pid)
		printf("  killed: pid %d by SIGSEGV at its failed drop (ow-2006)\n", (int)r->killed_pid);
	if (r->found)
		printf("  finding: %s(%s) with %s, %.6f s after the failed %s\n"
		       "           at %s, pid %d\n", r->finding.syscall, r->finding.args, holding,
		       r->finding.seconds_after, r->finding.failed_call, r->finding.where,
		       (int)r->finding.pid);
	if (r->error[0])
		printf("  note: %s\n", r->error);
}

static void print_json(const struct npg_audit_options *o, const struct npg_audit_result *r)
{
	char exit[64];

	describe_exit(r, exit, sizeof(exit));
	printf("{\n  \"verdict\": \"%s\",\n  \"program\": ", verdict_names[r->verdict]);
	npg_json_string(stdout, o->argv[0]);
	printf(",\n  \"policy\": ");
	npg_json_string(stdout, policy_name(o));
	printf(",\n  \"exit\": ");
	npg_json_string(stdout, exit);
	printf(",\n  \"first_failed\": ");
	npg_json_string(stdout, r->first_failed);
	printf(",\n  \"drops\": %d,\n  \"failed\": %d,\n  \"went_on_as_root\": %d,\n"
	       "  \"killed_pid\": %d,\n  \"finding\": ", r->drops, r->failed, r->went_on_as_root,
	       (int)r->killed_pid);
	if (!r->found) {
		printf("null");
	} else {
		printf("{\"syscall\": ");
		npg_json_string(stdout, r->finding.syscall);
		printf(", \"args\": ");
		npg_json_string(stdout, r->finding.args);
		printf(", \"seconds_after\": %.6f, \"after\": ", r->finding.seconds_after);
		npg_json_string(stdout, r->finding.failed_call);
		printf(", \"where\": ");
		npg_json_string(stdout, r->finding.where);
		printf(", \"pid\": %d, \"uids\": [%u, %u, %u]}", (int)r->finding.pid,
		       r->finding.uids[0], r->finding.uids[1], r->finding.uids[2]);
	}
	printf(",\n  \"note\": ");
	npg_json_string(stdout, r->error);
	printf("\n}\n");
}

/* --model: a configuration, or what identify found for this kernel (probed now if none is kept) */
static int resolve_model(const struct npg_model_choice *m, struct npg_config *out)
{
	static struct npg_host host;
	struct npg_release rel;

	if (npg_host_probe(&host) < 0) {
		fprintf(stderr, "nprocguard audit: cannot read this process's state from /proc\n");
		return -1;
	}
	if (m->identified && !npg_model_kept(&host) &&
	    npg_real_claim_window("audit", NPG_DEFAULT_UID_BASE, false) < 0)
		return -1;
	if (npg_model_resolve("audit", m, &host, NPG_DEFAULT_UID_BASE, &rel) < 0)
		return -1;
	out->policy = rel.policy;
	out->rules = rel.rules;
	return 0;
}

int npg_cmd_audit(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "format", required_argument, NULL, 'f' },
		{ "timeout", required_argument, NULL, 't' },
		{ "model", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct npg_audit_options o = { .policy = NPG_AUDIT_ALWAYS, .timeout = 60 };
	struct npg_audit_result r;
	struct npg_model_choice model = { 0 };
	enum npg_format fmt = NPG_FORMAT_TEXT;
	int c;
	char *end;

	while ((c = getopt_long(argc, argv, "+p:f:t:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': {
			int i;

			for (i = 0; i < 4 && strcmp(optarg, policy_names[i]) != 0; i++)
				;
			if (i == 4) {
				npg_bad_option("audit", "--policy", optarg, "unknown policy (always, "
					       "once, linux-2.6 or ow-2006)");
				npg_usage_error("audit");
			}
			o.policy = (enum npg_audit_policy)i;
			break;
		}
		case 'M':
			if (npg_model_parse("audit", optarg, &model) < 0)
				npg_usage_error("audit");
			o.policy = NPG_AUDIT_MODEL;
			break;
		case 'f':
			if (npg_format_parse(optarg, &fmt) < 0 || fmt == NPG_FORMAT_TAP) {
				npg_bad_option("audit", "--format", optarg, "unknown format (text or "
					       "json)");
				npg_usage_error("audit");
			}
			break;
		case 't':
			/* strtod() skips blanks and takes nan, inf and 1e999: not a timeout */
			errno = 0;
			o.timeout = strtod(optarg, &end);
			if (errno || end == optarg || *end || (*optarg < '0' || *optarg > '9') ||
			    !(o.timeout > 0) || o.timeout > AUDIT_TIMEOUT_MAX) {
				npg_bad_option("audit", "--timeout", optarg, "seconds, more than 0 and "
					       "at most %d", AUDIT_TIMEOUT_MAX);
				npg_usage_error("audit");
			}
			break;
		case 'h':
			usage();
			return 0;
		default:
			npg_usage_error("audit");
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "nprocguard audit: no program given\n");
		npg_usage_error("audit");
	}
	if (geteuid() != 0) {
		fprintf(stderr, "nprocguard audit: needs root: the program must be able to drop "
			"privileges, and the supervisor to read its memory\n");
		return NPG_VERDICT_ERROR;
	}
	if (model.arg && resolve_model(&model, &o.model) < 0)
		return NPG_VERDICT_ERROR;
	o.argv = argv + optind;
	fflush(stdout);
	if (npg_audit_run(&o, &r) < 0) {
		fprintf(stderr, "nprocguard audit: %s\n", r.error);
		return NPG_VERDICT_ERROR;
	}
	if (fmt == NPG_FORMAT_JSON)
		print_json(&o, &r);
	else
		print_text(&o, &r);
	return (int)r.verdict;
}
