/*
 * A running kernel's release, down to the point release where a rule of
 * the model depends on it: stable backports change behaviour inside an era.
 */
#ifndef NPG_MODEL_RELEASE_H
#define NPG_MODEL_RELEASE_H

#include <stdbool.h>

struct npg_policy;

struct npg_release {
	int major, minor, patch;	/* the point release, e.g. 5.10.223 */
	const struct npg_policy *policy;	/* the era: npg_policy_for_release() */
	/* __sys_setresuid()'s "check for no-op" (upstream 659c0ce1cb9e) */
	bool setresuid_noop_fastpath;
	bool ambient_caps;		/* PR_CAP_AMBIENT: 4.3 on */
	bool no_new_privs;		/* PR_SET_NO_NEW_PRIVS: 3.5 on */
	bool exec_id_changed;		/* 337490f0007f: 6.17 on */
	bool ptrace_user_ns_rules;	/* 64b875f7ac8a, bfedb589252c: 4.10 on */
	/* PTRACE_SEIZE: 2 from 3.4, 1 in 3.1-3.3 (only with PTRACE_SEIZE_DEVEL), 0 before */
	int ptrace_seize;
	bool userns_setgroups_knob;	/* 9cc46516ddf4 and the rest: 3.19 on */
	bool userns_map_root_setfcap;	/* db2e718a4798: 5.12 on */
	bool userns_max_sysctl;		/* b376c3e1b6ec: 4.9 on */
	bool fcaps_v3;			/* 8db6c34f1dbc: 4.14 on */
	bool userns_idmaps;		/* namespaces with uid_map, unshare(): 3.8 on */
	int cap_last_cap;		/* CAP_LAST_CAP of this release */
	char why[200];			/* where the point release changed a rule, or "" */
};

/*
 * @release is uname -r, @version uname -v (or NULL). Distribution kernels
 * often keep the point release out of uname -r (Debian: "5.10.0-32-amd64")
 * and put it in uname -v ("#1 SMP Debian 5.10.223-1 (2024-08-10)"); that
 * one wins when present. -1 if no version number can be read.
 */
int npg_release_parse(struct npg_release *r, const char *release, const char *version);
/* The same for the running kernel (uname(2)). */
int npg_running_release(struct npg_release *r);

#endif
