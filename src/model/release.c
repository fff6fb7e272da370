/*
 * Rules that a stable point release changed inside an era.
 *
 * __sys_setresuid()/__sys_setresgid() "check for no-op": upstream commit
 * 659c0ce1cb9efc7f58d380ca4bb2a51ae9e30553 ("kernel/sys.c: fix and improve
 * control flow in __sys_setres[ug]id()", Ondrej Mosnacek, Cc: stable,
 * Fixes: 1da177e4c3f4) returns 0 before prepare_creds() when every given id
 * equals the current one and a given euid also equals the fsuid, so a
 * setresuid(-1, -1, -1) or setresuid(-1, euid, -1) no longer resets a
 * diverged fsuid/fsgid to the effective id. It reached mainline in 6.3
 * (through mm-hotfixes) and stable on 2023-04-24: the review series
 * "5.10.179-rc1" ("[PATCH 5.10 33/68]"), "5.15.109-rc1" and "6.1.26-rc1"
 * list it in their shortlogs. 6.2.13, of the same batch, is inferred to
 * carry it (not verified here); for older stable branches (5.4.y and
 * before) the model assumes it absent. Measured under QEMU: Debian's
 * 5.10.223 has it, 5.15.24 has not.
 */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "model/policy.h"
#include "model/release.h"

struct backport {
	int major, minor, patch;	/* first release of the branch with it */
	const char *note;
};

/* Mainline from 6.3 on, and these stable branches from the point release given */
static const struct backport noop_fastpath[] = {
	{ 5, 10, 179, "stable 5.10.179, review of 2023-04-24" },
	{ 5, 15, 109, "stable 5.15.109, review of 2023-04-24" },
	{ 6, 1, 26, "stable 6.1.26, review of 2023-04-24" },
	{ 6, 2, 13, "inferred: stable 6.2.13, the same batch" },
};

static bool has_noop_fastpath(const struct npg_release *r, const char **note)
{
	*note = "mainline 6.3";
	if (r->major > 6 || (r->major == 6 && r->minor >= 3))
		return true;
	for (size_t i = 0; i < sizeof(noop_fastpath) / sizeof(noop_fastpath[0]); i++) {
		const struct backport *b = &noop_fastpath[i];

		if (r->major == b->major && r->minor == b->minor) {
			*note = b->note;
			return r->patch >= b->patch;
		}
	}
	return false;
}

int npg_release_parse(struct npg_release *r, const char *release, const char *version)
{
	const char *deb = version ? strstr(version, "Debian ") : NULL;
	const struct npg_policy *era;
	const char *note;

	memset(r, 0, sizeof(*r));
	if (sscanf(release, "%d.%d.%d", &r->major, &r->minor, &r->patch) < 2)
		return -1;
	if (deb) {
		int ma, mi, pa;

		if (sscanf(deb + 7, "%d.%d.%d", &ma, &mi, &pa) == 3 && ma == r->major &&
		    mi == r->minor)
			r->patch = pa;
	}
	{
		int ma, mi, abi, n = 0;

		/* Debian's ABI form keeps the point release out: "5.10.0-32-amd64" */
		r->point_unknown = r->patch == 0 &&
				   sscanf(release, "%d.%d.0-%d-%n", &ma, &mi, &abi, &n) == 3 && n > 0;
	}
	/* the era of the version, or the policy the local version names */
	r->policy = npg_policy_for_release(release);
	if (!r->policy)
		return -1;
	era = r->policy;
	r->rules.setresuid_noop_fastpath = has_noop_fastpath(r, &note);
	/* linux-3.1 spans 3.1-5.13; ambient capabilities came in 4.3 (58319057b784) */
	r->rules.ambient_caps = era->rules.ambient_caps && (r->major > 4 || (r->major == 4 && r->minor >= 3));
	/* and no_new_privs in 3.5 (259e5e6c75a9) */
	r->rules.no_new_privs = era->rules.no_new_privs && (r->major > 3 || (r->major == 3 && r->minor >= 5));
	/* "exec: Correct the permission check for unsafe exec" (337490f0007f, 6.17):
	 * no stable backport known */
	r->rules.exec_id_changed = r->major > 6 || (r->major == 6 && r->minor >= 17);
	/* PTRACE_SEIZE in 3.4; 3.1-3.3 wanted PTRACE_SEIZE_DEVEL in the flags */
	r->rules.ptrace_seize = !era->rules.ptrace_seize ? 0 :
			  r->major > 3 || (r->major == 3 && r->minor >= 4) ? 2 :
			  r->major == 3 && r->minor >= 1 ? 1 : 0;
	/* ptracer_cred and mm->user_ns in 4.10 (64b875f7ac8a, bfedb589252c) */
	r->rules.ptrace_user_ns_rules = era->rules.ptrace_user_ns_rules &&
				  (r->major > 4 || (r->major == 4 && r->minor >= 10));
	/* /proc/PID/setgroups in 3.19 (9cc46516ddf4; security fixes, also
	 * in some stable branches, not followed here); CAP_SETFCAP to map
	 * uid 0 in 5.12 (db2e718a4798) */
	r->rules.userns_setgroups_knob = era->rules.userns_setgroups_knob &&
				   (r->major > 3 || (r->major == 3 && r->minor >= 19));
	r->rules.userns_map_root_setfcap = era->rules.userns_map_root_setfcap &&
				     (r->major > 5 || (r->major == 5 && r->minor >= 12));
	/* a core dump kills its thread group alone from 5.16 (0258b5fd7c71) */
	r->rules.coredump_one_group = era->rules.coredump_one_group &&
				      (r->major > 5 || (r->major == 5 && r->minor >= 16));
	/* user.max_user_namespaces in 4.9 (b376c3e1b6ec) */
	r->rules.userns_max_sysctl = era->rules.userns_max_sysctl &&
			       (r->major > 4 || (r->major == 4 && r->minor >= 9));
	/* v3 file capabilities in 4.14 (8db6c34f1dbc) */
	r->rules.fcaps_v3 = era->rules.fcaps_v3 && (r->major > 4 || (r->major == 4 && r->minor >= 14));
	/* 3.8: "userns: Implement unshare of the user namespace", "userns:
	 * Allow unprivileged users to create user namespaces"; 3.5-3.7 had
	 * maps but kept the privileged clone() (not modelled apart) */
	r->rules.userns_idmaps = era->rules.userns_idmaps && (r->major > 3 || (r->major == 3 && r->minor >= 8));
	/*
	 * include/uapi/linux/capability.h: CAP_CHECKPOINT_RESTORE (40) came in
	 * 5.9, CAP_PERFMON and CAP_BPF (38, 39) in 5.8, CAP_AUDIT_READ (37) in
	 * 3.16, CAP_BLOCK_SUSPEND (36) in 3.5; CAP_FULL_SET, what a new user
	 * namespace gives, is every one of them up to CAP_LAST_CAP
	 */
	if (r->major > 5 || (r->major == 5 && r->minor >= 9))
		r->cap_last_cap = 40;
	else if (r->major == 5 && r->minor == 8)
		r->cap_last_cap = 39;
	else if (r->major > 3 || (r->major == 3 && r->minor >= 16))
		r->cap_last_cap = 37;
	else if (r->major == 3 && r->minor >= 5)
		r->cap_last_cap = 36;
	else
		r->cap_last_cap = 35;
	/* a release built from our patches: its local version names the policy */
	if (npg_policy_named_by_release(release))
		snprintf(r->why, sizeof(r->why), "(named by its local version)");
	if (r->rules.setresuid_noop_fastpath != era->rules.setresuid_noop_fastpath) {
		size_t n = strlen(r->why);

		snprintf(r->why + n, sizeof(r->why) - n, "%s%s the setresuid() no-op fast path of "
			 "659c0ce1cb9e (%s)", n ? ", " : "",
			 r->rules.setresuid_noop_fastpath ? "with" : "without", note);
	}
	if (r->rules.exec_id_changed != era->rules.exec_id_changed) {
		size_t n = strlen(r->why);

		snprintf(r->why + n, sizeof(r->why) - n, "%s%s execve()'s id_changed test of "
			 "337490f0007f (6.17)", n ? ", " : "", r->rules.exec_id_changed ? "with" : "without");
	}
	return 0;
}

int npg_running_release(struct npg_release *r)
{
	struct utsname u;

	if (uname(&u) < 0)
		return -1;
	return npg_release_parse(r, u.release, u.version);
}

int npg_release_parse_arg(struct npg_release *r, const char *arg)
{
	char release[128];
	size_t n = strcspn(arg, " \t");

	if (n == 0 || n >= sizeof(release))
		return -1;
	memcpy(release, arg, n);
	release[n] = '\0';
	return npg_release_parse(r, release, arg[n] ? arg + n : NULL);
}

void npg_release_model(const struct npg_release *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", r->policy->name, r->why[0] ? " " : "", r->why);
}
