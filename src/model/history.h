/*
 * The dated history behind every rule of struct npg_rules: each upstream
 * commit a rule comes from, the mainline release that first has it, the
 * first point release of each stable branch that took it, and the
 * evidence for each date (the stable review series, or a tree read).
 * model/release.c asks it which commits a release has.
 */
#ifndef NPG_MODEL_HISTORY_H
#define NPG_MODEL_HISTORY_H

#include <stdbool.h>

struct npg_version {
	int major, minor, patch;
};

struct npg_backport {
	int major, minor, patch;	/* the first point release of the branch with it */
	const char *evidence;
};

enum npg_change_id {
	NPG_CH_SEIZE_DEVEL,		/* PTRACE_SEIZE behind PTRACE_SEIZE_DEVEL, 3.1 */
	NPG_CH_FCAPS_HAS_CAP,		/* 4d49f6710bfb, 3.2 */
	NPG_CH_SEIZE,			/* PTRACE_SEIZE for good, 3.4 */
	NPG_CH_NO_NEW_PRIVS,		/* 259e5e6c75a9, 3.5 */
	NPG_CH_USERNS_IDMAPS,		/* 3.8 */
	NPG_CH_SETGROUPS_KNOB,		/* 9cc46516ddf4, 3.19 */
	NPG_CH_AMBIENT,			/* 58319057b784, 4.3 */
	NPG_CH_MAX_USER_NAMESPACES,	/* b376c3e1b6ec, 4.9 */
	NPG_CH_PTRACE_MM_USER_NS,	/* bfedb589252c, 4.10 */
	NPG_CH_PTRACER_CRED,		/* 64b875f7ac8a, 20523132ec5d, 4.10 */
	NPG_CH_FCAPS_V3,		/* 8db6c34f1dbc, 4.14 */
	NPG_CH_MAP_ROOT_SETFCAP,	/* db2e718a4798, 5.12 */
	NPG_CH_UCOUNTS_NPROC,		/* 21d1c5e386bc, 5.14 */
	NPG_CH_COMMIT_CREDS_PAIR,	/* 629715adc62b, 5.15 */
	NPG_CH_SET_USER_CAPABLE,	/* 2863643fb8b9, 5.15 */
	NPG_CH_COREDUMP_ONE_GROUP,	/* 0258b5fd7c71, 5.16 */
	NPG_CH_UCOUNTS_MAX_PARENT,	/* 59ec71575ab4, 5.16 */
	NPG_CH_FORK_COUNTS_CHILD,	/* 8f2f9c4d82f2, 5.17 */
	NPG_CH_UCOUNTS_REAL_UID,	/* a55d07294f1e, 5.17 */
	NPG_CH_SET_USER_NO_CAPABLE,	/* c16bdeb5a39f, 5.17 */
	NPG_CH_FLAG_NPROC_EXCEEDED,	/* c923a8e7edb0, 5.17 */
	NPG_CH_UCOUNTS_WRAP,		/* 0cbae9e24fa7, 5.17 */
	NPG_CH_ENFORCED_NPROC_RLIMIT,	/* 0ac983f51203, 5.17 */
	NPG_CH_SETRESUID_NOOP,		/* 659c0ce1cb9e, 6.3 */
	NPG_CH_EXEC_ID_CHANGED,		/* 337490f0007f, 6.17 */
	NPG_NCHANGES
};

struct npg_change {
	const char *commit;		/* the upstream commit(s), abbreviated */
	const char *title;
	/* the rule of struct npg_rules it decides, and its value from it on
	 * (NULL: an era's change, the policy's own) */
	const char *rule;
	int value;
	struct npg_version mainline;	/* major.minor of the first mainline release */
	const char *mainline_evidence;
	const struct npg_backport *backports;	/* ends with a zero major */
	/* what was checked of the stable branches that have no backport */
	const char *no_backport;
};

/* In the order of their mainline releases: a later change overrides an earlier one */
extern const struct npg_change npg_changes[NPG_NCHANGES];

static inline int npg_version_cmp(const struct npg_version *a, int major, int minor, int patch)
{
	if (a->major != major)
		return a->major < major ? -1 : 1;
	if (a->minor != minor)
		return a->minor < minor ? -1 : 1;
	return a->patch < patch ? -1 : a->patch > patch;
}

/*
 * Does release @v have change @id? From mainline major.minor on, or in
 * its stable branch from the point release a backport came in. *@why (if
 * not NULL) names where the answer comes from: "mainline 5.17", "stable
 * 5.15.25 (review of 2022-02-21 ...)", or the branch's note of no
 * backport.
 */
bool npg_version_has(const struct npg_version *v, enum npg_change_id id, const char **why);
struct npg_rules;
struct npg_rule_info;
/*
 * Rule @ri's value in release @v: that of the latest change deciding it
 * that @v has, 0 when none. *@decided (if not NULL): that change, or the
 * rule's first change when @v has none (the one it lacks).
 */
int npg_rule_in_version(const struct npg_rule_info *ri, const struct npg_version *v,
			int *decided);
/* Every rule in release @v */
void npg_rules_of_version(const struct npg_version *v, struct npg_rules *out);
/* The backport of change @id to the stable branch @major.@minor, or NULL */
const struct npg_backport *npg_change_backport(enum npg_change_id id, int major, int minor);

#endif
