/*
 * A policy is one kernel era's answer to the few questions that changed
 * between eras. Each hook is named after the kernel function whose
 * decision it reproduces; each policy lives in its own file under
 * policy/ and cites its source on every rule.
 */
#ifndef NPG_MODEL_POLICY_H
#define NPG_MODEL_POLICY_H

#include "model/model.h"

/* set_user() may ask for the caller to be killed instead of failing */
#define NPG_SET_USER_KILL_SIGSEGV 1

struct npg_policy {
	const char *name;
	const char *kernels;	/* which kernels behaved this way */
	const char *source;	/* where the rules come from */
	const char *summary;	/* one line */
	bool has_flag;		/* whether PF_NPROC_EXCEEDED exists in this era */
	/*
	 * __sys_setresuid()/__sys_setresgid() return 0 at once when nothing
	 * would change ("check for no-op"), so a -1 effective id leaves a
	 * diverged fs id alone instead of resetting it to the effective one.
	 */
	bool setresuid_noop_fastpath;
	/* PR_CAP_AMBIENT exists (4.3, 58319057b784): prctl() fails EINVAL before */
	bool ambient_caps;
	/* PR_SET_NO_NEW_PRIVS exists (3.5, 259e5e6c75a9): EINVAL before */
	bool no_new_privs;
	/* cap_bprm_creds_from_file() tests "id_changed" (337490f0007f, 6.17) */
	bool exec_id_changed;
	/*
	 * ptrace keeps the tracer's credentials (ptracer_cred, 64b875f7ac8a)
	 * and asks CAP_SYS_PTRACE over mm->user_ns for a non-dumpable task
	 * (bfedb589252c), both 4.10; before, PT_PTRACE_CAP and the tracee's
	 * cred->user_ns
	 */
	bool ptrace_user_ns_rules;
	/* PTRACE_SEIZE and PTRACE_INTERRUPT (3.4, fca26f260c52 and the rest) */
	bool ptrace_seize;
	/* /proc/PID/setgroups, unprivileged maps by euid (3.19: 9cc46516ddf4,
	 * 66d2f338ee4c, 80dd00a23784); CAP_SETFCAP to map uid 0 (5.12,
	 * db2e718a4798) */
	bool userns_setgroups_knob;
	bool userns_map_root_setfcap;
	/* user.max_user_namespaces and its ENOSPC (4.9, b376c3e1b6ec) */
	bool userns_max_sysctl;
	/* security.capability v3, with a root id (4.14, 8db6c34f1dbc) */
	bool fcaps_v3;
	/*
	 * User namespaces as 3.8 made them (3.5's maps, 3.8's unshare and
	 * unprivileged creation): kernel
	 * ids through uid_map/gid_map, unshare(CLONE_NEWUSER), creation
	 * without privilege. Before, 2.6.39-3.4's: clone(CLONE_NEWUSER) only,
	 * with CAP_SYS_ADMIN, CAP_SETUID and CAP_SETGID, a child of uid 0 in a
	 * namespace of its own user_structs, ids with no mapping (userns.h)
	 */
	bool userns_idmaps;
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
	.ambient_caps = true, .no_new_privs = true, .ptrace_user_ns_rules = true, \
	.ptrace_seize = true, .userns_setgroups_knob = true, \
	.userns_map_root_setfcap = true, .userns_max_sysctl = true, .fcaps_v3 = true, \
	.userns_idmaps = true

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
/* The policy that models a running kernel of release @release (uname -r). */
const struct npg_policy *npg_policy_for_release(const char *release);

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
