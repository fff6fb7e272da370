/*
 * The dated history of every rule that moved between releases.
 *
 * A mainline date is the first release whose tree has the commit (its
 * merge window's rc1 unless a later rc is named). A stable date is the
 * first point release of the branch that carries the backport: the
 * review series "X.Y.Z-rc1" that lists it becomes X.Y.Z. The evidence is
 * what was read: the stable review mails (linux-stable, as posted by Greg
 * Kroah-Hartman: series, date, patch subject), a release announcement, a
 * "FAILED: patch ... failed to apply" mail, or a kernel tree of a known
 * version. "No backport" is what a branch that ended before a fix, or
 * never had the code it fixes, or whose stable list shows nothing, says:
 * each entry says which.
 */
#include <stddef.h>
#include <string.h>

#include "model/history.h"
#include "model/rules.h"

#define END { 0, 0, 0, NULL }

static const struct npg_backport none[] = { END };

/* CVE-2014-8989, Cc: stable; the stable dates from linuxkernelcves.com's
 * stream_fixes and the branches' git logs */
static const struct npg_backport setgroups_knob[] = {
	{ 3, 12, 36, "stable 3.12.36 (CVE-2014-8989 fixed in the 3.12 stream: "
	  "ae254fcf5309)" },
	{ 3, 14, 28, "stable 3.14.28 (CVE-2014-8989 fixed in the 3.14 stream: "
	  "f077e88fc9f0)" },
	{ 3, 18, 2, "stable 3.18.2: linux-3.18.y's log between \"Linux 3.18.1\" and \"Linux "
	  "3.18.2\" has the whole set (4a7215f \"userns: Add a knob to disable setgroups on a "
	  "per user namespace basis\")" },
	END,
};

/* CVE-2015-8709: Cc: stable */
static const struct npg_backport ptrace_mm_user_ns[] = {
	{ 3, 16, 52, "stable 3.16.52 (CVE-2015-8709 fixed in the 3.16 stream: d5b3e840dbf6)" },
	{ 4, 4, 40, "stable 4.4.40 (CVE-2015-8709 fixed in the 4.4 stream: 03eed7afbc09)" },
	{ 4, 8, 16, "stable 4.8.16 (CVE-2015-8709 fixed in the 4.8 stream: e45692fa1aea)" },
	{ 4, 9, 1, "stable 4.9.1 (CVE-2015-8709 fixed in the 4.9 stream: 694a95fa6dae)" },
	END,
};

static const struct npg_backport map_root_setfcap[] = {
	{ 5, 10, 35, "stable 5.10.35: review 5.10.35-rc1 of 2021-05-05; Debian's changelog "
	  "quotes it under ChangeLog-5.10.35" },
	{ 5, 11, 19, "stable 5.11.19: linux-5.11.y's push of 2021-05-05 ending in "
	  "\"Linux 5.11.19-rc1\" carries it" },
	END,
};

static const struct npg_backport commit_creds_pair[] = {
	{ 5, 14, 15, "stable 5.14.15: review 5.14.15-rc1 of 2021-10-25, \"[PATCH 5.14 094/169] "
	  "ucounts: Pair inc_rlimit_ucounts with dec_rlimit_ucoutns in commit_creds\"" },
	END,
};

static const struct npg_backport ucounts_max_parent[] = {
	{ 5, 15, 12, "stable 5.15.12: review 5.15.12-rc1 of 2021-12-27, \"[PATCH 5.15 014/128] "
	  "ucounts: Fix rlimit max values check\"" },
	END,
};

/* Eric Biederman's "ucounts: Fix RLIMIT_NPROC regressions" (v2 of 2022-02-16), all Cc: stable */
static const struct npg_backport fork_counts_child[] = {
	{ 5, 15, 25, "stable 5.15.25: review 5.15.25-rc1 of 2022-02-21, \"[PATCH 5.15 181/196] "
	  "ucounts: Enforce RLIMIT_NPROC not RLIMIT_NPROC+1\"" },
	{ 5, 16, 11, "stable 5.16.11: review 5.16.11-rc1 of 2022-02-21, \"[PATCH 5.16 175/227] "
	  "ucounts: Enforce RLIMIT_NPROC not RLIMIT_NPROC+1\"" },
	END,
};

static const struct npg_backport ucounts_real_uid[] = {
	{ 5, 15, 25, "stable 5.15.25: review 5.15.25-rc1 of 2022-02-21, \"[PATCH 5.15 180/196] "
	  "ucounts: Base set_cred_ucounts changes on the real user\"" },
	{ 5, 16, 11, "stable 5.16.11: review 5.16.11-rc1 of 2022-02-21, \"[PATCH 5.16 173/227] "
	  "ucounts: Base set_cred_ucounts changes on the real user\"" },
	END,
};

static const struct npg_backport set_user_no_capable[] = {
	{ 5, 15, 25, "stable 5.15.25: listed in the shortlog of review 5.15.25-rc1 of 2022-02-21 "
	  "(\"rlimit: Fix RLIMIT_NPROC enforcement failure caused by capability calls in "
	  "set_user\")" },
	{ 5, 16, 11, "stable 5.16.11: review 5.16.11-rc1 of 2022-02-21, \"[PATCH 5.16 176/227] "
	  "rlimit: Fix RLIMIT_NPROC enforcement failure caused by capability calls in "
	  "set_user\"" },
	END,
};

static const struct npg_backport flag_nproc_exceeded[] = {
	{ 5, 15, 25, "stable 5.15.25: review 5.15.25-rc1 of 2022-02-21, \"[PATCH 5.15 183/196] "
	  "ucounts: Move RLIMIT_NPROC handling after set_user\"" },
	{ 5, 16, 11, "stable 5.16.11: review 5.16.11-rc1 of 2022-02-21, \"[PATCH 5.16 177/227] "
	  "ucounts: Move RLIMIT_NPROC handling after set_user\"" },
	END,
};

static const struct npg_backport ucounts_wrap[] = {
	{ 5, 15, 25, "stable 5.15.25: review 5.15.25-rc1 of 2022-02-21, \"[PATCH 5.15 178/196] "
	  "ucounts: Handle wrapping in is_ucounts_overlimit\"" },
	{ 5, 16, 11, "stable 5.16.11: listed in the shortlog of review 5.16.11-rc1 of 2022-02-21" },
	END,
};

static const struct npg_backport enforced_nproc_rlimit[] = {
	{ 5, 15, 27, "stable 5.15.27: review 5.15.27-rc1 of 2022-03-07, \"[PATCH 5.15 137/262] "
	  "ucounts: Fix systemd LimitNPROC with private users regression\", and the 5.15.27 "
	  "release announcement" },
	{ 5, 16, 13, "stable 5.16.13: review 5.16.13-rc1 of 2022-03-07, \"[PATCH 5.16 049/186] "
	  "ucounts: Fix systemd LimitNPROC with private users regression\", and the 5.16.13 "
	  "release announcement" },
	END,
};

static const struct npg_backport setresuid_noop[] = {
	{ 5, 10, 179, "stable 5.10.179: review 5.10.179-rc1 of 2023-04-24 lists it "
	  "(\"[PATCH 5.10 00/68]\"); measured: Debian 5.10.223 has it" },
	{ 5, 15, 109, "stable 5.15.109: review 5.15.109-rc1 of 2023-04-24 lists it "
	  "(\"[PATCH 5.15 00/73]\"); measured: 5.15.24 has it not" },
	{ 6, 1, 26, "stable 6.1.26: review 6.1.26-rc1 of 2023-04-24 lists it (\"[PATCH 6.1 00/98]\")" },
	{ 6, 2, 13, "stable 6.2.13: review 6.2.13-rc1 of 2023-04-24 lists it "
	  "(\"[PATCH 6.2 000/110]\")" },
	END,
};

/* Set in the table's order: enum npg_change_id */
const struct npg_change npg_changes[NPG_NCHANGES] = {
	[NPG_CH_SEIZE_DEVEL] = {
		"3544d72a0e10", "ptrace: implement PTRACE_SEIZE (behind PTRACE_SEIZE_DEVEL, "
		"with fca26f260c52, PTRACE_INTERRUPT)",
		"ptrace_seize", 1,
		{ 3, 1, 0 }, "mainline 3.1", none,
		"a new request, no stable backport" },
	[NPG_CH_FCAPS_HAS_CAP] = {
		"4d49f6710bfb", "capabilities: do not grant full privs for setuid w/ file caps "
		"+ no effective caps",
		"fcaps_suppress_root", 1,
		{ 3, 2, 0 }, "mainline 3.2, inferred: absent from 3.0.8 and 3.0.101 trees, present "
		"in a 3.2.0 tree and before 3.4-rc (no 3.1 tree read)", none,
		"none: no Cc: stable, and 3.0.101's security/commoncap.c still tests "
		"\"effective\"" },
	[NPG_CH_SEIZE] = {
		"(3.4)", "PTRACE_SEIZE_DEVEL dropped: PTRACE_SEIZE and PTRACE_INTERRUPT "
		"(fca26f260c52, 3.1) for good; the commit is not named here",
		"ptrace_seize", 2,
		{ 3, 4, 0 }, "mainline 3.4: its include/linux/ptrace.h has no PTRACE_SEIZE_DEVEL",
		none, "a change of a new interface, no stable backport" },
	[NPG_CH_NO_NEW_PRIVS] = {
		"259e5e6c75a9", "Add PR_{GET,SET}_NO_NEW_PRIVS to prevent execve from granting privs",
		"no_new_privs", 1,
		{ 3, 5, 0 }, "mainline 3.5", none, "a new prctl(), no stable backport" },
	[NPG_CH_USERNS_IDMAPS] = {
		"22d917d80e84", "userns: Rework the user_namespace adding uid/gid mapping support "
		"(3.5), and unshare(CLONE_NEWUSER) without privilege (3.8)",
		"userns_idmaps", 1,
		{ 3, 8, 0 }, "mainline 3.8", none, "a new interface, no stable backport" },
	[NPG_CH_SETGROUPS_KNOB] = {
		"9cc46516ddf4", "userns: Add a knob to disable setgroups on a per user namespace "
		"basis (with 66d2f338ee4c, 80dd00a23784)",
		"userns_setgroups_knob", 1,
		{ 3, 19, 0 }, "mainline 3.19", setgroups_knob,
		"3.10.y took it at a point release not known here; 3.16.y through Ubuntu's "
		"3.16.7-ckt4; 3.2.y and 3.4.y have no gid_map (3.5) to fix" },
	[NPG_CH_AMBIENT] = {
		"58319057b784", "capabilities: ambient capabilities",
		"ambient_caps", 1,
		{ 4, 3, 0 }, "mainline 4.3", none, "a new feature, no stable backport" },
	[NPG_CH_MAX_USER_NAMESPACES] = {
		"b376c3e1b6ec", "userns: Add a limit on the number of user namespaces",
		"userns_max_sysctl", 1,
		{ 4, 9, 0 }, "mainline 4.9", none, "a new sysctl, no stable backport" },
	[NPG_CH_PTRACE_MM_USER_NS] = {
		"bfedb589252c", "mm: Add a user_ns owner to mm_struct and fix ptrace permission "
		"checks",
		"ptrace_mm_user_ns", 1,
		{ 4, 10, 0 }, "mainline 4.10-rc1", ptrace_mm_user_ns,
		"none in 3.18.y, 3.12.y or 3.2.y (CVE-2015-8709: \"Fix not seen in stream\")" },
	[NPG_CH_PTRACER_CRED] = {
		"64b875f7ac8a", "ptrace: Capture the ptracer's creds not PT_PTRACE_CAP (with "
		"20523132ec5d, exec: Test the ptracer's saved cred to see if the tracee can gain "
		"caps)",
		"ptracer_cred", 1,
		{ 4, 10, 0 }, "mainline 4.10-rc1", none,
		"the exec side in no branch older than 4.10: Ben Hutchings on linux-stable, "
		"2019-12-12, LSM_UNSAFE_PTRACE_CAP \"for 4.9 and older branches\"" },
	[NPG_CH_FCAPS_V3] = {
		"8db6c34f1dbc", "Introduce v3 namespaced file capabilities",
		"fcaps_v3", 1,
		{ 4, 14, 0 }, "mainline 4.14", none, "a new format, no stable backport" },
	[NPG_CH_MAP_ROOT_SETFCAP] = {
		"db2e718a4798", "capabilities: require CAP_SETFCAP to map uid 0",
		"userns_map_root_setfcap", 1,
		{ 5, 12, 0 }, "mainline 5.12 (after -rc8)", map_root_setfcap,
		"none found in 5.4.y or 4.19.y: their stable queues of 2021-05-05 lack it" },
	[NPG_CH_UCOUNTS_NPROC] = {
		"21d1c5e386bc", "Reimplement RLIMIT_NPROC on top of ucounts",
		NULL, 0,
		{ 5, 14, 0 }, "mainline 5.14", none,
		"none: Eric Biederman on linux-stable, 2021-09-01, \"Without backports the code only "
		"affects v5.14\"; 5.10.50-5.10.62 carried the ucounts cred plumbing by mistake "
		"(AUTOSEL, reverted in 5.10.63), which changed no RLIMIT_NPROC test" },
	[NPG_CH_COMMIT_CREDS_PAIR] = {
		"629715adc62b", "ucounts: Pair inc_rlimit_ucounts with dec_rlimit_ucoutns in "
		"commit_creds",
		"commit_creds_userns_dec", 1,
		{ 5, 15, 0 }, "mainline 5.15-rc7", commit_creds_pair, "older branches have no ucounts" },
	[NPG_CH_SET_USER_CAPABLE] = {
		"2863643fb8b9", "set_user: add capability check when rlimit(RLIMIT_NPROC) exceeds",
		"set_user_capable", 1,
		{ 5, 15, 0 }, "mainline 5.15-rc1 (the kernel.sys.v5.15 pull of 2021-08-31)", none,
		"none in 5.14.y: no \"[PATCH 5.14 ...]\" posting, no Cc: stable, and 5.14.y ended "
		"at 5.14.21 (review of 2021-11-19)" },
	[NPG_CH_COREDUMP_ONE_GROUP] = {
		"0258b5fd7c71", "coredump: Limit coredumps to a single thread group",
		"coredump_one_group", 1,
		{ 5, 16, 0 }, "mainline 5.16-rc1 (per_signal_struct_coredumps-for-v5.16)", none,
		"none found: the stable lists show no posting (a behaviour change, not a fix); "
		"measured: 5.15.24 and 5.15.85 kill every process of the mm" },
	[NPG_CH_UCOUNTS_MAX_PARENT] = {
		"59ec71575ab4", "ucounts: Fix rlimit max values check",
		"ucounts_max_parent", 1,
		{ 5, 16, 0 }, "mainline 5.16-rc7", ucounts_max_parent,
		"none in 5.14.y: it ended (5.14.21, 2021-11-19) before the fix (2021-12-23)" },
	[NPG_CH_FORK_COUNTS_CHILD] = {
		"8f2f9c4d82f2", "ucounts: Enforce RLIMIT_NPROC not RLIMIT_NPROC+1",
		"fork_counts_child", 1,
		{ 5, 17, 0 }, "mainline 5.17-rc5", fork_counts_child,
		"none in 5.14.y (ended 2021-11); 4.19.y, 5.4.y and 5.10.y never had ucounts" },
	[NPG_CH_UCOUNTS_REAL_UID] = {
		"a55d07294f1e", "ucounts: Base set_cred_ucounts changes on the real user",
		"ucounts_real_uid", 1,
		{ 5, 17, 0 }, "mainline 5.17-rc5", ucounts_real_uid,
		"none in 5.14.y (ended 2021-11); older branches have no ucounts" },
	[NPG_CH_SET_USER_NO_CAPABLE] = {
		"c16bdeb5a39f", "rlimit: Fix RLIMIT_NPROC enforcement failure caused by capability "
		"calls in set_user",
		"set_user_capable", 0,
		{ 5, 17, 0 }, "mainline 5.17-rc5", set_user_no_capable,
		"only 5.15.y and 5.16.y had the capable() test it removes" },
	[NPG_CH_FLAG_NPROC_EXCEEDED] = {
		"c923a8e7edb0", "ucounts: Move RLIMIT_NPROC handling after set_user",
		"flag_nproc_exceeded", 1,
		{ 5, 17, 0 }, "mainline 5.17-rc5", flag_nproc_exceeded,
		"none in 5.14.y (ended 2021-11); older branches have no ucounts" },
	[NPG_CH_UCOUNTS_WRAP] = {
		"0cbae9e24fa7", "ucounts: Handle wrapping in is_ucounts_overlimit",
		"ucounts_wrap_check", 1,
		{ 5, 17, 0 }, "mainline 5.17-rc5", ucounts_wrap,
		"none in 5.14.y (ended 2021-11); older branches have no ucounts" },
	[NPG_CH_ENFORCED_NPROC_RLIMIT] = {
		"0ac983f51203", "ucounts: Fix systemd LimitNPROC with private users regression",
		"enforced_nproc_rlimit", 1,
		{ 5, 17, 0 }, "mainline 5.17-rc7", enforced_nproc_rlimit,
		"none in 5.14.y (ended 2021-11); older branches have no ucounts" },
	[NPG_CH_SETRESUID_NOOP] = {
		"659c0ce1cb9e", "kernel/sys.c: fix and improve control flow in __sys_setres[ug]id()",
		"setresuid_noop_fastpath", 1,
		{ 6, 3, 0 }, "mainline 6.3", setresuid_noop,
		"none in 5.4.y: \"FAILED: patch ... failed to apply to 5.4-stable tree\" of "
		"2023-04-22 and no later posting; none in 4.19.y (nothing posted)" },
	[NPG_CH_EXEC_ID_CHANGED] = {
		"337490f0007f", "exec: Correct the permission check for unsafe exec",
		"exec_id_changed", 1,
		{ 6, 17, 0 }, "mainline 6.17-rc1 (caps-pr-20250729)", none,
		"none found for 6.16.y, 6.12.y, 6.6.y or 6.1.y (6.1.192 still tests is_setid)" },
};

const struct npg_backport *npg_change_backport(enum npg_change_id id, int major, int minor)
{
	for (const struct npg_backport *b = npg_changes[id].backports; b->major; b++)
		if (b->major == major && b->minor == minor)
			return b;
	return NULL;
}

bool npg_version_has(const struct npg_version *v, enum npg_change_id id, const char **why)
{
	const struct npg_change *c = &npg_changes[id];
	const struct npg_backport *b;

	if (npg_version_cmp(v, c->mainline.major, c->mainline.minor, 0) >= 0) {
		if (why)
			*why = c->mainline_evidence;
		return true;
	}
	/* a branch older than mainline's: its own backport, if any; the
	 * evidence names the point release either way */
	if ((b = npg_change_backport(id, v->major, v->minor))) {
		if (why)
			*why = b->evidence;
		return v->patch >= b->patch;
	}
	if (why)
		*why = c->no_backport;
	return false;
}

/*
 * A rule's value in release @v: that of the latest change of
 * model/history.c deciding it that @v has (changes are in mainline
 * order), or 0 when it has none. *@decided, if not NULL, is that change,
 * or the rule's first change when @v has none (the one it lacks).
 */
int npg_rule_in_version(const struct npg_rule_info *ri, const struct npg_version *v,
			int *decided)
{
	int value = 0, first = -1, last = -1;

	for (int id = 0; id < NPG_NCHANGES; id++) {
		const struct npg_change *c = &npg_changes[id];

		if (!c->rule || strcmp(c->rule, ri->name) != 0)
			continue;
		if (first < 0)
			first = id;
		if (npg_version_has(v, (enum npg_change_id)id, NULL)) {
			value = c->value;
			last = id;
		}
	}
	if (decided)
		*decided = last >= 0 ? last : first;
	return value;
}

void npg_rules_of_version(const struct npg_version *v, struct npg_rules *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < npg_nrules; i++)
		npg_rule_set(out, &npg_rule_infos[i], npg_rule_in_version(&npg_rule_infos[i], v, NULL));
}

