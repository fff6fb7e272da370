/*
 * A policy is one kernel era's answer to the few questions that changed
 * between eras. Each hook is named after the kernel function whose
 * decision it reproduces; each policy lives in its own file under
 * policy/ and cites its source on every rule.
 */
#ifndef NPG_MODEL_POLICY_H
#define NPG_MODEL_POLICY_H

#include "model/model.h"
#include "model/rules.h"

/* set_user() may ask for the caller to be killed instead of failing */
#define NPG_SET_USER_KILL_SIGSEGV 1

struct npg_policy {
	const char *name;
	const char *kernels;	/* which kernels behaved this way */
	const char *source;	/* where the rules come from */
	const char *summary;	/* one line */
	bool has_flag;		/* whether PF_NPROC_EXCEEDED exists in this era */
	/* the rules of its newest release (rules.h); a running kernel's point
	 * release may take some away (release.c) */
	struct npg_rules rules;
	/*
	 * RLIMIT_NPROC lives in ucounts (21d1c5e386bc, 5.14): one count per
	 * (user namespace, uid), checked up the chain of namespaces; before,
	 * one count per kernel uid (user_struct) across all namespaces.
	 */
	bool ucounts;
	/* enforced_nproc_rlimit() (0ac983f51203, 5.17): a namespace created by
	 * real uid 0 of the initial namespace records no limit */
	bool userns_root_unlimited;

	/*
	 * copy_process(): may @parent create one more task (fork or thread)?
	 * Called after the child has been duplicated (so it has inherited the
	 * parent's flags) and before the child is charged to any count.
	 * Returns 0 or -EAGAIN; may clear the parent's flag on success.
	 */
	int (*copy_process)(struct npg_world *w, struct npg_task *parent,
			    const struct npg_cred *charged);
	/*
	 * @charged above is task_ucounts(p) when the test runs: the parent's
	 * credentials, or -- when the test follows copy_creds() (5.17,
	 * 8f2f9c4d82f2) -- the child's, which differ for clone(CLONE_NEWUSER):
	 * its new namespace is made (EPERM, ENOSPC) before the test
	 */
	bool nproc_test_after_copy_creds;

	/*
	 * set_user(): the real uid of @cur changes to new->uid.real. Returns 0,
	 * -EAGAIN, or NPG_SET_USER_KILL_SIGSEGV; may set or clear the flag.
	 * @new->charged_to is still the old one here (set_cred_ucounts() runs
	 * later), which is what made 5.14-5.16 compare the wrong count.
	 */
	int (*set_user)(struct npg_world *w, struct npg_task *cur, const struct npg_cred *new);

	/*
	 * set_cred_ucounts(): which count a task with credentials @new is
	 * charged to, given @old. NULL means the real uid (user_struct).
	 */
	npg_id (*set_cred_ucounts)(const struct npg_cred *old, const struct npg_cred *new);

	/* flag_nproc_exceeded(): 5.17+, after set_cred_ucounts(). May be NULL. */
	void (*flag_nproc_exceeded)(struct npg_world *w, struct npg_task *cur,
				    const struct npg_cred *new);

	/* do_execveat_common(): 0 or -EAGAIN before anything else; may clear the flag. */
	int (*execve)(struct npg_world *w, struct npg_task *cur);
};

/*
 * The rules that came inside linux-3.1's span (3.1-5.13: ambient
 * capabilities 4.3, no_new_privs 3.5, PTRACE_SEIZE 3.4, ptracer_cred 4.10,
 * /proc/PID/setgroups 3.19, CAP_SETFCAP for uid 0 maps 5.12,
 * user.max_user_namespaces 4.9, v3 file capabilities 4.14, namespaces
 * with maps 3.8) and stand
 * since: every 3.1+ policy has them, and for a running kernel its point
 * release takes away the younger ones (model/release.c)
 */
#define NPG_RULES_SINCE_LINUX_3_1 \
	.rules.ambient_caps = true, .rules.no_new_privs = true, \
	.rules.ptrace_user_ns_rules = true, .rules.ptrace_seize = 2, \
	.rules.userns_setgroups_knob = true, .rules.userns_map_root_setfcap = true, \
	.rules.userns_max_sysctl = true, .rules.fcaps_v3 = true, .rules.userns_idmaps = true

extern const struct npg_policy npg_policy_linux_2_4;
extern const struct npg_policy npg_policy_linux_2_6;
extern const struct npg_policy npg_policy_ow_2006;
extern const struct npg_policy npg_policy_kulikov_2011;
extern const struct npg_policy npg_policy_brown_flag_2011;
extern const struct npg_policy npg_policy_linux_3_1;
extern const struct npg_policy npg_policy_linux_5_14;
extern const struct npg_policy npg_policy_linux_6;

/* All policies in historical order; NULL-terminated. */
extern const struct npg_policy *const npg_policies[];
#define NPG_NPOLICIES 8

const struct npg_policy *npg_policy_find(const char *name);
int npg_policy_index(const struct npg_policy *p);
/*
 * The policy that models a running kernel of release @release (uname -r):
 * the one its local version names, if any (npg_policy_named_by_release(),
 * kernels built from kernel/patches/), else its version's era.
 */
const struct npg_policy *npg_policy_for_release(const char *release);
/* The policy @release's local version names ("3.0.8-ow-2006"), or NULL. */
const struct npg_policy *npg_policy_named_by_release(const char *release);

/*
 * Count against limit, as the kernel compares them: an int or long count
 * against an unsigned rlim_t, so a count that has gone negative compares
 * as over any limit (atomic_t promoted to unsigned long up to 5.13;
 * "if (val < 0 || val > max)" in is_rlimit_overlimit() since 5.14).
 */
static inline bool npg_count_at_least(long n, uint64_t limit)
{
	return n < 0 || (uint64_t)n >= limit;
}

static inline bool npg_count_over(long n, uint64_t limit)
{
	return n < 0 || (uint64_t)n > limit;
}

/* Rules shared by several eras, defined once in policy/common.c. */
int npg_copy_process_2_6(struct npg_world *w, struct npg_task *parent,
			 const struct npg_cred *charged);
bool npg_over_limit_at_set_user(const struct npg_world *w, const struct npg_task *cur,
				const struct npg_cred *new);

#endif
