/*
 * The point release picks rules inside an era: the setresuid() no-op fast
 * path of upstream 659c0ce1cb9e (mainline 6.3, stable backports), read
 * from uname -r or, for Debian's kernels, from uname -v.
 */
#include <string.h>
#include <sys/prctl.h>

#include "model/model.h"
#include "model/policy.h"
#include "model/release.h"
#include "tap.h"

static void release_is(const char *release, const char *version, const struct npg_policy *era,
		       int patch, bool fastpath)
{
	struct npg_release r;
	struct npg_rules own;

	if (!tap_ok(npg_release_parse(&r, release, version) == 0, "%s parses", release))
		return;
	npg_policy_rules(era, &own);
	tap_ok(r.policy == era, "%s: era %s", release, era->name);
	tap_is(r.patch, patch, "%s (%s): point release", release, version ? version : "no uname -v");
	tap_ok(r.rules.setresuid_noop_fastpath == fastpath, "%s (%s): no-op fast path %s", release,
	       version ? version : "no uname -v", fastpath ? "present" : "absent");
	tap_ok((strstr(r.why, "659c0ce1cb9e") != NULL) == (fastpath != own.setresuid_noop_fastpath),
	       "%s: the refinement is explained exactly when it changes the era's rule", release);
	tap_ok((strstr(r.why, "337490f0007f") != NULL) == (r.rules.exec_id_changed != own.exec_id_changed),
	       "%s: so is execve()'s id_changed test", release);
}

int main(void)
{
	struct npg_release r;

	release_is("3.0.8", NULL, &npg_policy_linux_2_6, 8, false);
	release_is("5.10.178", NULL, &npg_policy_linux_3_1, 178, false);
	release_is("5.10.179", NULL, &npg_policy_linux_3_1, 179, true);
	release_is("5.10.0-32-amd64", "#1 SMP Debian 5.10.223-1 (2024-08-10)", &npg_policy_linux_3_1,
		   223, true);
	release_is("5.10.0-32-amd64", NULL, &npg_policy_linux_3_1, 0, false);
	release_is("5.4.250", NULL, &npg_policy_linux_3_1, 250, false);
	release_is("5.15.24", NULL, &npg_policy_linux_5_14, 24, false);
	release_is("5.17.3", NULL, &npg_policy_linux_6, 3, false);
	release_is("6.1.0-50-amd64", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.176-1 (2025-01-01)",
		   &npg_policy_linux_6, 176, true);
	release_is("6.1.25", NULL, &npg_policy_linux_6, 25, false);
	release_is("6.3", NULL, &npg_policy_linux_6, 0, true);
	release_is("6.18.44-fc-v1147", "#1 SMP", &npg_policy_linux_6, 44, true);
	/* run --release: uname -r, then optionally uname -v or Debian's version */
	tap_ok(npg_release_parse_arg(&r, "5.10.0-32-amd64 #1 SMP Debian 5.10.223-1 (2024-08-10)") == 0 &&
	       r.patch == 223 && r.rules.setresuid_noop_fastpath && !r.point_unknown,
	       "--release \"$(uname -rv)\" of Debian's 5.10.223");
	tap_ok(npg_release_parse_arg(&r, "5.10.0-32-amd64 Debian 5.10.223-1") == 0 && r.patch == 223,
	       "--release \"5.10.0-32-amd64 Debian 5.10.223-1\"");
	tap_ok(npg_release_parse_arg(&r, "5.10.0-32-amd64") == 0 && r.patch == 0 && r.point_unknown,
	       "--release 5.10.0-32-amd64: no point release, and that is known");
	tap_ok(npg_release_parse_arg(&r, "5.10.223") == 0 && !r.point_unknown && r.policy == &npg_policy_linux_3_1,
	       "--release 5.10.223");
	tap_ok(npg_release_parse_arg(&r, "6.1.0") == 0 && !r.point_unknown, "--release 6.1.0 is a point release");
	tap_ok(npg_release_parse_arg(&r, "") < 0 && npg_release_parse_arg(&r, " 5.10") < 0 &&
	       npg_release_parse_arg(&r, "frob") < 0, "--release: an empty or unreadable release is refused");
	/* PR_CAP_AMBIENT came in 4.3 (58319057b784), inside linux-3.1's era */
	tap_ok(npg_release_parse(&r, "3.0.8", NULL) == 0 && !r.rules.ambient_caps, "3.0.8: no ambient set");
	tap_ok(npg_release_parse(&r, "4.2.8", NULL) == 0 && !r.rules.ambient_caps, "4.2.8: no ambient set");
	tap_ok(npg_release_parse(&r, "4.3.0", NULL) == 0 && r.rules.ambient_caps, "4.3: the ambient set");
	tap_ok(npg_release_parse(&r, "5.15.24", NULL) == 0 && r.rules.ambient_caps, "5.15: the ambient set");
	tap_ok(npg_release_parse(&r, "3.0.8", NULL) == 0 && !r.rules.no_new_privs, "3.0.8: no no_new_privs");
	tap_ok(npg_release_parse(&r, "3.4.113", NULL) == 0 && !r.rules.no_new_privs, "3.4: no no_new_privs");
	tap_ok(npg_release_parse(&r, "3.5.0", NULL) == 0 && r.rules.no_new_privs, "3.5: no_new_privs");
	tap_ok(npg_release_parse(&r, "5.4.1", NULL) == 0 && r.cap_last_cap == 37, "5.4: CAP_AUDIT_READ last");
	tap_ok(npg_release_parse(&r, "5.8.0", NULL) == 0 && r.cap_last_cap == 39, "5.8: CAP_BPF last");
	tap_ok(npg_release_parse(&r, "5.10.223", NULL) == 0 && r.cap_last_cap == 40,
	       "5.10: CAP_CHECKPOINT_RESTORE last");
	/* the user-namespace and ptrace rules that came inside linux-3.1's span */
	tap_ok(npg_release_parse(&r, "3.18.1", NULL) == 0 && !r.rules.userns_setgroups_knob,
	       "3.18.1: no /proc/PID/setgroups");
	tap_ok(npg_release_parse(&r, "3.18.2", NULL) == 0 && r.rules.userns_setgroups_knob &&
	       npg_release_parse(&r, "3.14.28", NULL) == 0 && r.rules.userns_setgroups_knob &&
	       npg_release_parse(&r, "3.14.27", NULL) == 0 && !r.rules.userns_setgroups_knob,
	       "3.18.2 and 3.14.28 took /proc/PID/setgroups (CVE-2014-8989)");
	tap_ok(npg_release_parse(&r, "3.19.0", NULL) == 0 && r.rules.userns_setgroups_knob,
	       "3.19: /proc/PID/setgroups");
	tap_ok(npg_release_parse(&r, "4.8.15", NULL) == 0 && !r.rules.userns_max_sysctl &&
	       !r.rules.ptracer_cred && !r.rules.ptrace_mm_user_ns,
	       "4.8.15: no user.max_user_namespaces, PT_PTRACE_CAP, the tracee's namespace");
	tap_ok(npg_release_parse(&r, "4.8.16", NULL) == 0 && !r.rules.ptracer_cred &&
	       r.rules.ptrace_mm_user_ns, "4.8.16: mm->user_ns (bfedb589252c, stable 4.8.16)");
	tap_ok(npg_release_parse(&r, "4.9.337", NULL) == 0 && r.rules.userns_max_sysctl &&
	       !r.rules.ptracer_cred && r.rules.ptrace_mm_user_ns,
	       "4.9: user.max_user_namespaces, mm->user_ns, still PT_PTRACE_CAP at exec");
	tap_ok(npg_release_parse(&r, "4.4.39", NULL) == 0 && !r.rules.ptrace_mm_user_ns &&
	       npg_release_parse(&r, "4.4.40", NULL) == 0 && r.rules.ptrace_mm_user_ns,
	       "4.4.40 took mm->user_ns");
	tap_ok(npg_release_parse(&r, "4.10.0", NULL) == 0 && r.rules.ptracer_cred &&
	       r.rules.ptrace_mm_user_ns, "4.10: ptracer_cred and mm->user_ns");
	tap_ok(npg_release_parse(&r, "5.11.18", NULL) == 0 && !r.rules.userns_map_root_setfcap &&
	       npg_release_parse(&r, "5.10.34", NULL) == 0 && !r.rules.userns_map_root_setfcap &&
	       npg_release_parse(&r, "5.4.300", NULL) == 0 && !r.rules.userns_map_root_setfcap,
	       "5.11.18, 5.10.34, 5.4.y: mapping uid 0 needs nothing more");
	tap_ok(npg_release_parse(&r, "5.11.19", NULL) == 0 && r.rules.userns_map_root_setfcap &&
	       npg_release_parse(&r, "5.10.35", NULL) == 0 && r.rules.userns_map_root_setfcap,
	       "5.11.19 and 5.10.35 took db2e718a4798");
	tap_ok(npg_release_parse(&r, "5.12.0", NULL) == 0 && r.rules.userns_map_root_setfcap,
	       "5.12: mapping uid 0 needs CAP_SETFCAP");
	/* 3.8: unshare(CLONE_NEWUSER) and namespaces with maps; 3.0-3.7 the older ones */
	tap_ok(npg_release_parse(&r, "3.0.8", NULL) == 0 && !r.rules.userns_idmaps,
	       "3.0.8: the namespaces of 2.6.39-3.4");
	tap_ok(npg_release_parse(&r, "3.7.10", NULL) == 0 && !r.rules.userns_idmaps,
	       "3.7: no unshare(CLONE_NEWUSER) yet");
	tap_ok(npg_release_parse(&r, "3.8.0", NULL) == 0 && r.rules.userns_idmaps,
	       "3.8: namespaces with maps");
	tap_ok(npg_release_parse(&r, "5.10.223", NULL) == 0 && r.rules.userns_idmaps,
	       "5.10: namespaces with maps");
	{
		struct npg_rules r26, r31, r6;

		npg_policy_rules(&npg_policy_linux_2_6, &r26);
		npg_policy_rules(&npg_policy_linux_3_1, &r31);
		npg_policy_rules(&npg_policy_linux_6, &r6);
		tap_ok(!r26.userns_idmaps && r31.userns_idmaps && r6.userns_idmaps,
		       "the eras: before 3.1 none, linux-3.1 on maps");
	}
	tap_ok(npg_release_parse(&r, "2.6.32", NULL) == 0 && !r.rules.userns_setgroups_knob &&
	       !r.rules.ptracer_cred && !r.rules.ptrace_mm_user_ns, "2.6.32: the oldest rules");
	{
		struct npg_world w;

		tap_ok(npg_world_init(&w, &npg_policy_linux_2_6, 1) == 0, "a linux-2.6 world");
		w.tasks[0].state = NPG_TASK_RUNNING;
		tap_ok(npg_sys_ambient(&w, 0, PR_CAP_AMBIENT_CLEAR_ALL, 0).kind == NPG_R_ERRNO,
		       "linux-2.6: prctl(PR_CAP_AMBIENT) fails (EINVAL)");
		npg_world_free(&w);
		tap_ok(npg_world_init(&w, &npg_policy_linux_6, 1) == 0, "a linux-6 world");
		w.tasks[0].state = NPG_TASK_RUNNING;
		tap_ok(npg_sys_ambient(&w, 0, PR_CAP_AMBIENT_CLEAR_ALL, 0).kind == NPG_R_OK,
		       "linux-6: PR_CAP_AMBIENT_CLEAR_ALL succeeds");
		npg_world_free(&w);
	}
	tap_ok(npg_release_parse(&r, "5.15.24", NULL) == 0 && !r.rules.coredump_one_group &&
	       npg_release_parse(&r, "5.16.0", NULL) == 0 && r.rules.coredump_one_group &&
	       npg_release_parse(&r, "5.10.0-32-amd64", NULL) == 0 && !r.rules.coredump_one_group &&
	       npg_release_parse(&r, "6.1.0", NULL) == 0 && r.rules.coredump_one_group,
	       "a core dump kills its thread group alone from 5.16 (0258b5fd7c71), every "
	       "process of its mm before");
	/* kernels built from kernel/patches/: the local version names the policy */
	tap_ok(npg_release_parse(&r, "3.0.8-kulikov-2011", NULL) == 0 &&
	       r.policy == &npg_policy_kulikov_2011 && r.patch == 8 && strstr(r.why, "local version"),
	       "3.0.8-kulikov-2011: kulikov-2011, named by its local version");
	tap_ok(npg_release_parse(&r, "3.0.8-seed001-kulikov-2011", NULL) == 0 &&
	       r.policy == &npg_policy_kulikov_2011, "3.0.8-seed001-kulikov-2011: kulikov-2011");
	tap_ok(npg_release_parse(&r, "3.0.8-ow-2006", NULL) == 0 && r.policy == &npg_policy_ow_2006,
	       "3.0.8-ow-2006: ow-2006");
	tap_ok(npg_release_parse(&r, "3.0.8-brown-flag-2011", NULL) == 0 &&
	       r.policy == &npg_policy_brown_flag_2011, "3.0.8-brown-flag-2011: brown-flag-2011");
	tap_ok(npg_release_parse(&r, "3.0.8-linux-3.1", NULL) == 0 && r.policy == &npg_policy_linux_3_1 &&
	       !r.rules.ambient_caps && !r.rules.no_new_privs && r.rules.ptrace_seize == 0 &&
	       !r.rules.userns_idmaps && r.cap_last_cap == 35,
	       "3.0.8-linux-3.1: linux-3.1, with 3.0.8's release rules (no ambient set, no "
	       "no_new_privs, no PTRACE_SEIZE, 2.6.39-3.4's namespaces, CAP_LAST_CAP 35)");
	tap_ok(npg_release_parse(&r, "3.0.8", NULL) == 0 && r.policy == &npg_policy_linux_2_6 &&
	       !strstr(r.why, "local version"), "3.0.8: its era, linux-2.6");
	tap_ok(npg_policy_named_by_release("3.0.8-mykulikov-2011") == NULL &&
	       npg_policy_named_by_release("kulikov-2011") == NULL &&
	       npg_policy_named_by_release("3.0.8-kulikov-2011-rc1") == NULL &&
	       npg_policy_for_release("5.10.0-32-amd64") == &npg_policy_linux_3_1,
	       "only a whole policy name at the end of the release names one");
	tap_ok(npg_release_parse(&r, "garbage", NULL) < 0, "a release without a version is refused");
	tap_ok(npg_release_parse(&r, "", "Debian 5.10.1") < 0, "an empty release is refused");
	return tap_done();
}
