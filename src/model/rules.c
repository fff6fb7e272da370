/* The rules by name, for the command line, reports and identify. */
#include <string.h>

#include "model/rules.h"

#define NPROC(field, text) { #field, NPG_RULE_NPROC, offsetof(struct npg_rules, field), false, text }
#define CRED(field, text) { #field, NPG_RULE_CRED, offsetof(struct npg_rules, field), false, text }

const struct npg_rule_info npg_rule_infos[] = {
	NPROC(set_user_capable, "set_user() does not flag a caller holding CAP_SYS_RESOURCE or "
	      "CAP_SYS_ADMIN, root included (2863643fb8b9)"),
	NPROC(flag_nproc_exceeded, "set*uid flags by the new user's ucounts after "
	      "set_cred_ucounts(), '> L' (c923a8e7edb0)"),
	NPROC(fork_counts_child, "copy_process() counts the child first: N + 1 > L fails "
	      "(8f2f9c4d82f2)"),
	NPROC(ucounts_real_uid, "a task is charged to its real uid's ucounts (a55d07294f1e)"),
	NPROC(ucounts_max_parent, "each ucounts level is held to the limit the namespace above "
	      "recorded (59ec71575ab4)"),
	NPROC(ucounts_wrap_check, "a ucounts count gone negative is over the limit (0cbae9e24fa7)"),
	NPROC(enforced_nproc_rlimit, "a namespace made by root records no RLIMIT_NPROC "
	      "(0ac983f51203)"),
	NPROC(commit_creds_userns_dec, "a move to another namespace leaves the old ucounts "
	      "(629715adc62b)"),
	CRED(setresuid_noop_fastpath, "setres[ug]id() that changes nothing returns at once "
	     "(659c0ce1cb9e)"),
	CRED(ambient_caps, "ambient capabilities exist (58319057b784)"),
	CRED(no_new_privs, "PR_SET_NO_NEW_PRIVS exists (259e5e6c75a9)"),
	CRED(exec_id_changed, "execve() tests id_changed, not euid' != uid (337490f0007f)"),
	CRED(fcaps_suppress_root, "file capabilities without the effective bit keep a "
	     "non-root real uid with euid 0 to them (4d49f6710bfb)"),
	CRED(ptracer_cred, "execve() of a traced task asks the tracer's credentials at attach "
	     "(64b875f7ac8a)"),
	CRED(ptrace_mm_user_ns, "ptrace asks CAP_SYS_PTRACE over mm->user_ns for a non-dumpable "
	     "task (bfedb589252c)"),
	{ "ptrace_seize", NPG_RULE_CRED, offsetof(struct npg_rules, ptrace_seize), true,
	  "PTRACE_SEIZE: 2 as today, 1 only with PTRACE_SEIZE_DEVEL, 0 none (3544d72a0e10)" },
	CRED(userns_setgroups_knob, "/proc/PID/setgroups and unprivileged gid maps "
	     "(9cc46516ddf4)"),
	CRED(userns_map_root_setfcap, "mapping uid 0 needs CAP_SETFCAP (db2e718a4798)"),
	CRED(userns_max_sysctl, "user.max_user_namespaces and its ENOSPC (b376c3e1b6ec)"),
	CRED(fcaps_v3, "v3 file capabilities, with a root id (8db6c34f1dbc)"),
	CRED(userns_idmaps, "user namespaces with uid_map/gid_map and unshare() (3.8)"),
	CRED(coredump_one_group, "a core dump kills its thread group alone (0258b5fd7c71)"),
};

const int npg_nrules = (int)(sizeof(npg_rule_infos) / sizeof(npg_rule_infos[0]));

const struct npg_rule_info *npg_rule_find(const char *name)
{
	for (int i = 0; i < npg_nrules; i++)
		if (strcmp(npg_rule_infos[i].name, name) == 0)
			return &npg_rule_infos[i];
	return NULL;
}

int npg_rule_get(const struct npg_rules *r, const struct npg_rule_info *ri)
{
	const char *p = (const char *)r + ri->offset;

	if (ri->is_int) {
		int v;

		memcpy(&v, p, sizeof(v));
		return v;
	}
	return *(const bool *)(const void *)p;
}

void npg_rule_set(struct npg_rules *r, const struct npg_rule_info *ri, int value)
{
	char *p = (char *)r + ri->offset;

	if (ri->is_int)
		memcpy(p, &value, sizeof(value));
	else
		*(bool *)(void *)p = value != 0;
}
