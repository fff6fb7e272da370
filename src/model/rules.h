/*
 * The rules that changed inside an era, release by release: what a policy
 * has, what a kernel's point release has of them (model/release.c, from
 * the dated history of model/history.c), and what a world runs by. One
 * struct, so that each passes on to the next in one assignment.
 *
 * Two families. The RLIMIT_NPROC rules are a policy's own: they are what
 * tells linux-5.14 from linux-6, and `--policy` keeps them whatever the
 * kernel's release. The credential rules (capabilities, ptrace, user
 * namespaces, set*id) are the kernel's: they follow its release under any
 * policy (npg_rules_for_policy()).
 */
#ifndef NPG_MODEL_RULES_H
#define NPG_MODEL_RULES_H

#include <stdbool.h>
#include <stddef.h>

struct npg_rules {
	/* --- RLIMIT_NPROC in ucounts (5.14+): the policy's own family --- */
	/*
	 * set_user()'s flag test asks capable(CAP_SYS_RESOURCE) and
	 * capable(CAP_SYS_ADMIN) of the caller's current, pre-setuid
	 * credentials (2863643fb8b9, 5.15), so a root caller is never
	 * flagged; removed by c16bdeb5a39f (5.17; stable 5.15.25, 5.16.11)
	 */
	bool set_user_capable;
	/*
	 * flag_nproc_exceeded() after set_cred_ucounts(): the new user's own
	 * ucounts, ">", untouched when the ucounts stay (c923a8e7edb0, 5.17;
	 * 5.15.25, 5.16.11); before, set_user() tested new->ucounts while
	 * they were still the caller's
	 */
	bool flag_nproc_exceeded;
	/*
	 * copy_process() tests after copy_creds() has charged the child,
	 * "N + 1 > L" (8f2f9c4d82f2, 5.17; 5.15.25, 5.16.11); before, the
	 * parent's count "> L": a user reached L + 1
	 */
	bool fork_counts_child;
	/* set_cred_ucounts() keys the ucounts on the real uid (a55d07294f1e,
	 * 5.17; 5.15.25, 5.16.11); before, on the effective uid */
	bool ucounts_real_uid;
	/*
	 * is_ucounts_overlimit() compares each level with the limit recorded
	 * by the namespace above it, signed (59ec71575ab4, 5.16; 5.15.12);
	 * before, each level with its own namespace's record, unsigned
	 */
	bool ucounts_max_parent;
	/* "if (val < 0 || val > max)": a count gone negative is over
	 * (0cbae9e24fa7, 5.17; 5.15.25, 5.16.11) */
	bool ucounts_wrap_check;
	/* enforced_nproc_rlimit(): a namespace made by real uid 0 of the
	 * initial namespace records no limit (0ac983f51203, 5.17; 5.15.27,
	 * 5.16.13) */
	bool enforced_nproc_rlimit;
	/* commit_creds() takes the task out of its old ucounts when only the
	 * namespace changes (629715adc62b, 5.15; 5.14.15) */
	bool commit_creds_userns_dec;

	/* --- the kernel's credential rules: they follow the release --- */
	/*
	 * __sys_setresuid()/__sys_setresgid() return 0 at once when nothing
	 * would change ("check for no-op", 659c0ce1cb9e), so a -1 effective id
	 * leaves a diverged fs id alone instead of resetting it
	 */
	bool setresuid_noop_fastpath;
	/* PR_CAP_AMBIENT exists (4.3, 58319057b784): prctl() fails EINVAL before */
	bool ambient_caps;
	/* PR_SET_NO_NEW_PRIVS exists (3.5, 259e5e6c75a9): EINVAL before */
	bool no_new_privs;
	/* cap_bprm_creds_from_file() tests "id_changed" (337490f0007f, 6.17) */
	bool exec_id_changed;
	/*
	 * cap_bprm_set_creds() keeps a task whose real uid is not root and
	 * whose effective uid is to the file's capabilities whenever the file
	 * has any ("has_cap", 4d49f6710bfb, 3.2); 3.0 only when they have the
	 * effective bit, and otherwise gave it root's whole set
	 */
	bool fcaps_suppress_root;
	/*
	 * execve() of a traced task asks the tracer's credentials at attach
	 * (ptracer_cred: 64b875f7ac8a, 20523132ec5d, 9227dd2a84a7; 4.10, the
	 * exec side in no older branch); before, PT_PTRACE_CAP
	 */
	bool ptracer_cred;
	/* __ptrace_may_access() asks CAP_SYS_PTRACE over mm->user_ns for a
	 * non-dumpable task (bfedb589252c, 4.10; 4.9.1, 4.8.16, 4.4.40,
	 * 3.16.52); before, over the tracee's cred->user_ns */
	bool ptrace_mm_user_ns;
	/* PTRACE_SEIZE and PTRACE_INTERRUPT (3544d72a0e10, fca26f260c52):
	 * 2 from 3.4, 1 in 3.1-3.3 (only with PTRACE_SEIZE_DEVEL), 0 before */
	int ptrace_seize;
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
	 * unprivileged creation): kernel ids through uid_map/gid_map. Before,
	 * 2.6.39-3.4's: clone(CLONE_NEWUSER) only, with CAP_SYS_ADMIN,
	 * CAP_SETUID and CAP_SETGID, a child of uid 0 in a namespace of its own
	 * user_structs, ids with no mapping (userns.h)
	 */
	bool userns_idmaps;
	/*
	 * A core-dumping signal kills its thread group alone (0258b5fd7c71,
	 * "coredump: Limit coredumps to a single thread group", 5.16); before,
	 * zap_threads() killed every process using the same mm -- a vfork()
	 * child's parent with it
	 */
	bool coredump_one_group;
};

enum npg_rule_family {
	NPG_RULE_NPROC,		/* the policy's own */
	NPG_RULE_CRED,		/* the kernel's: follows the release */
};

/* One rule, as printed and as named on the command line ("flag_nproc_exceeded") */
struct npg_rule_info {
	const char *name;
	enum npg_rule_family family;
	size_t offset;		/* of its field in struct npg_rules */
	bool is_int;		/* ptrace_seize: 0, 1 or 2; the rest are bool */
	const char *what;	/* one line: what the kernel does when the rule holds */
};

extern const struct npg_rule_info npg_rule_infos[];
extern const int npg_nrules;

const struct npg_rule_info *npg_rule_find(const char *name);
int npg_rule_get(const struct npg_rules *r, const struct npg_rule_info *ri);
void npg_rule_set(struct npg_rules *r, const struct npg_rule_info *ri, int value);

#endif
