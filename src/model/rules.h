/*
 * The rules that changed inside an era, release by release: what a policy
 * has, what a running kernel's point release keeps of them
 * (model/release.c), and what a world runs by. One struct, so that each
 * passes on to the next in one assignment.
 */
#ifndef NPG_MODEL_RULES_H
#define NPG_MODEL_RULES_H

#include <stdbool.h>

struct npg_rules {
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
	 * ptrace keeps the tracer's credentials (ptracer_cred, 64b875f7ac8a)
	 * and asks CAP_SYS_PTRACE over mm->user_ns for a non-dumpable task
	 * (bfedb589252c), both 4.10; before, PT_PTRACE_CAP and the tracee's
	 * cred->user_ns
	 */
	bool ptrace_user_ns_rules;
	/* PTRACE_SEIZE and PTRACE_INTERRUPT: 2 from 3.4 (fca26f260c52 and
	 * the rest), 1 in 3.1-3.3 (only with PTRACE_SEIZE_DEVEL), 0 before */
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

#endif
