/*
 * ptrace and dumpability in the model, at their boundaries: each clause of
 * __ptrace_may_access() and cap_ptrace_access_check() on its own, Yama's
 * scopes and PR_SET_PTRACER, what a tracer does to a set-id execve()
 * (LSM_UNSAFE_PTRACE, ptracer_capable() since 4.10, PT_PTRACE_CAP before),
 * and the dumpability commit_creds() and execve() give. PTRACE_ATTACH in
 * every era, with the seize's rules.
 */
#include <errno.h>
#include <signal.h>

#include "model/policy.h"
#include "model/release.h"
#include "tap.h"
#include "world.h"

#define A 1000
#define B 1001

static void spawn_ids(int idx, npg_id ruid, npg_id euid)
{
	struct npg_cred c = { 0 };

	c.uid = (struct npg_ids){ ruid, euid, euid, euid };
	c.gid = (struct npg_ids){ ruid, ruid, ruid, ruid };
	c.cap_bset = NPG_CAP_ALL;
	if (euid == 0)
		c.cap_permitted = c.cap_effective = NPG_CAP_ALL;
	npg_task_spawn(&w, idx, &c, 100, 100);
}

static void spawn(int idx, npg_id uid)
{
	spawn_ids(idx, uid, uid);
}

static const struct npg_exec_file setuid_root = { .setuid = true, .uid = 0, .gid = 0 };

/* __ptrace_may_access(): the caller's real ids against all three of the target's */
static void test_ids(void)
{
	fresh("linux-6", 4);
	spawn(0, A);
	spawn(1, A);
	spawn(2, B);
	spawn_ids(3, A, B);	/* after a set-uid-B program: euid B, not dumpable */
	tap_is(err(npg_sys_ptrace_seize(&w, 0, 1)), 0, "same user: attached");
	tap_is(npg_tracer_of(&w, 1), 0, "and traced by the caller");
	tap_is(err(npg_sys_ptrace_seize(&w, 2, 1)), EPERM, "already traced: EPERM");
	tap_is(err(npg_sys_ptrace_seize(&w, 0, 2)), EPERM, "another user: EPERM");
	tap_is(w.tasks[3].dumpable, 0, "a task with euid != ruid is declared non-dumpable");
	tap_is(err(npg_sys_ptrace_seize(&w, 0, 3)), EPERM, "its euid is not the caller's: EPERM");
	/* the caller's effective uid plays no part: real ids, ATTACH_REALCREDS */
	fresh("linux-6", 3);
	spawn_ids(0, B, A);
	spawn(1, A);
	tap_is(err(npg_sys_ptrace_seize(&w, 0, 1)), EPERM, "euid A, real uid B: EPERM on A's task");
	spawn(2, B);
	tap_is(err(npg_sys_ptrace_seize(&w, 0, 2)), 0, "but B's: attached");
}

/* the dumpable test and the permitted-subset test, each alone */
static void test_dumpable_and_caps(void)
{
	fresh("linux-6", 3);
	spawn(0, A);
	spawn(1, A);
	tap_is(err(npg_sys_dumpable(&w, 1, 0)), 0, "PR_SET_DUMPABLE 0");
	tap_is(err(npg_sys_ptrace_seize(&w, 0, 1)), EPERM, "same ids, not dumpable: EPERM");
	tap_is(err(npg_sys_dumpable(&w, 1, 1)), 0, "PR_SET_DUMPABLE 1");
	tap_is(err(npg_sys_ptrace_seize(&w, 0, 1)), 0, "dumpable again: attached");
	tap_is(err(npg_sys_dumpable(&w, 1, 2)), EINVAL, "PR_SET_DUMPABLE 2: EINVAL");
	/* a target with permitted capabilities the caller lacks */
	fresh("linux-6", 2);
	spawn(0, A);
	spawn(1, A);
	w.tasks[1].cred.cap_permitted = NPG_CAP(NPG_CAP_KILL);
	tap_is(err(npg_sys_ptrace_seize(&w, 0, 1)), EPERM, "the target has CAP_KILL: EPERM");
	w.tasks[0].cred.cap_permitted = NPG_CAP(NPG_CAP_KILL);
	tap_is(err(npg_sys_ptrace_seize(&w, 0, 1)), 0, "the caller has it too: attached");
	/* root passes every test with CAP_SYS_PTRACE, and none without */
	fresh("linux-6", 3);
	spawn(0, 0);
	spawn_ids(1, A, B);
	spawn(2, 0);
	tap_is(err(npg_sys_ptrace_seize(&w, 0, 1)), 0, "root attaches to a non-dumpable task");
	w.tasks[2].cred.cap_effective &= ~NPG_CAP(NPG_CAP_SYS_PTRACE);
	npg_sys_ptrace_detach(&w, 0, 1);
	tap_is(err(npg_sys_ptrace_seize(&w, 2, 1)), EPERM, "root without CAP_SYS_PTRACE: EPERM");
}

/* what a seize meets besides permission */
static void test_targets(void)
{
	fresh("linux-6", 4);
	spawn(0, A);
	tap_is(err(npg_sys_fork(&w, 0, 1, true)), 0, "a thread of the caller");
	tap_is(err(npg_sys_ptrace_seize(&w, 0, 1)), EPERM, "its own thread group: EPERM");
	tap_is(err(npg_sys_ptrace_seize(&w, 0, 0)), EPERM, "itself: EPERM");
	tap_is(err(npg_sys_ptrace_seize(&w, 0, 3)), ESRCH, "never forked: ESRCH");
	tap_is(err(npg_sys_fork(&w, 0, 2, false)), 0, "a child");
	npg_sys_exit(&w, 2, 0);
	tap_is(err(npg_sys_ptrace_seize(&w, 0, 2)), EPERM, "a zombie: EPERM (exit_state)");
	npg_sys_wait(&w, 0, 2);
	tap_is(err(npg_sys_ptrace_seize(&w, 0, 2)), ESRCH, "reaped: ESRCH");
}

/* a tracer's exit, a tracee's exit, detach */
static void test_links(void)
{
	fresh("linux-6", 5);
	spawn(0, A);
	spawn(1, A);
	npg_sys_fork(&w, 1, 2, false);
	npg_sys_ptrace_seize(&w, 0, 2);
	npg_sys_exit(&w, 2, 0);
	tap_is(npg_tracer_of(&w, 2), -1, "an exited tracee of another process: the harness "
	       "took its exit");
	tap_is(w.tasks[2].state, NPG_TASK_ZOMBIE, "left a zombie for its parent");
	npg_sys_fork(&w, 0, 3, false);
	npg_sys_ptrace_seize(&w, 0, 3);
	npg_sys_exit(&w, 3, 0);
	tap_is(npg_tracer_of(&w, 3), 0, "a tracee whose tracer is its parent stays linked");
	npg_sys_wait(&w, 0, 3);
	tap_is(npg_tracer_of(&w, 3), -1, "until the wait reaps it");
	npg_sys_fork(&w, 1, 4, false);
	npg_sys_ptrace_seize(&w, 0, 4);
	tap_is(err(npg_sys_ptrace_detach(&w, 1, 4)), ESRCH, "detach by another task: ESRCH");
	tap_is(err(npg_sys_ptrace_detach(&w, 0, 4)), 0, "detach by the tracer");
	tap_is(err(npg_sys_ptrace_detach(&w, 0, 4)), ESRCH, "twice: ESRCH");
	npg_sys_ptrace_seize(&w, 0, 4);
	npg_sys_exit(&w, 0, 0);
	tap_is(npg_tracer_of(&w, 4), -1, "the tracer exits: exit_ptrace() lets go");
	tap_is(err(npg_sys_ptrace_seize(&w, 1, 4)), 0, "and another may attach");
}

/* LSM_UNSAFE_PTRACE: a traced set-uid-root exec keeps the caller's ids */
static void test_unsafe_exec(void)
{
	const char *eras[] = { "linux-2.6", "linux-3.1", "linux-6" };

	for (int e = 0; e < 3; e++) {
		fresh(eras[e], 3);
		/* the downgrade is as old as 2.6; the language's request,
		 * PTRACE_SEIZE, is 3.4's: granted here to reach the rule */
		w.rules.ptrace_seize = 2;
		spawn(0, A);
		spawn(1, A);
		spawn(2, 0);
		npg_sys_ptrace_seize(&w, 0, 1);
		tap_is(err(npg_sys_execve_file(&w, 1, &setuid_root)), 0, "%s: traced exec", eras[e]);
		tap_is(w.tasks[1].cred.uid.eff, A, "%s: set-uid root ignored under a user's tracer",
		       eras[e]);
		tap_is(w.tasks[1].dumpable, 1, "%s: and the process stays dumpable", eras[e]);
		npg_sys_ptrace_detach(&w, 0, 1);
		npg_sys_ptrace_seize(&w, 2, 1);
		npg_sys_execve_file(&w, 1, &setuid_root);
		tap_is(w.tasks[1].cred.uid.eff, 0, "%s: under root's tracer the exec is set-uid",
		       eras[e]);
		tap_is(w.tasks[1].dumpable, 0, "%s: and no longer dumpable", eras[e]);
	}
	/* the capability counts at attach: 4.10+ keeps the tracer's cred */
	fresh("linux-6", 2);
	spawn(0, 0);
	spawn(1, A);
	npg_sys_ptrace_seize(&w, 0, 1);
	w.tasks[0].cred.cap_effective = 0;
	npg_sys_execve_file(&w, 1, &setuid_root);
	tap_is(w.tasks[1].cred.uid.eff, 0, "the tracer dropped CAP_SYS_PTRACE after attaching: "
	       "ptracer_cred still has it");
	/* file capabilities are cut to what the caller had */
	fresh("linux-6", 2);
	spawn(0, A);
	spawn(1, A);
	npg_sys_ptrace_seize(&w, 0, 1);
	npg_sys_execve_file(&w, 1, &(struct npg_exec_file){
		.has_fcaps = true, .fcap_permitted = NPG_CAP(13), .fcap_effective = true });
	tap_is(w.tasks[1].cred.cap_permitted, 0, "a traced file-capability exec gains nothing");
	/* a traced caller with CAP_SETUID keeps the new effective uid */
	fresh("linux-6", 2);
	spawn(0, A);
	spawn(1, A);
	w.tasks[1].cred.cap_effective = w.tasks[1].cred.cap_permitted = NPG_CAP(NPG_CAP_SETUID);
	tap_is(err(npg_sys_ptrace_seize(&w, 0, 1)), EPERM, "the tracee's CAP_SETUID is not in "
	       "the tracer's permitted set: EPERM");
	w.tasks[0].cred.cap_permitted = NPG_CAP(NPG_CAP_SETUID);
	tap_is(err(npg_sys_ptrace_seize(&w, 0, 1)), 0, "it is: attached, without CAP_SYS_PTRACE");
	npg_sys_execve_file(&w, 1, &setuid_root);
	tap_is(w.tasks[1].cred.uid.eff, 0, "the caller's CAP_SETUID keeps euid 0");
	tap_is(w.tasks[1].cred.cap_permitted, NPG_CAP(NPG_CAP_SETUID),
	       "but its permitted set does not grow");
}

/* commit_creds(): effective and fs ids, and a grown permitted set */
static void test_commit_creds(void)
{
	fresh("linux-6", 2);
	spawn(0, 0);
	tap_is(w.tasks[0].dumpable, 1, "root starts dumpable");
	npg_sys_setresuid(&w, 0, false, NPG_ID_NONE, NPG_ID_NONE, A);
	tap_is(w.tasks[0].dumpable, 1, "a saved uid alone: still dumpable");
	npg_sys_setresuid(&w, 0, false, A, NPG_ID_NONE, NPG_ID_NONE);
	tap_is(w.tasks[0].dumpable, 1, "a real uid alone: still dumpable");
	npg_sys_setresuid(&w, 0, false, NPG_ID_NONE, A, NPG_ID_NONE);
	tap_is(w.tasks[0].dumpable, 0, "the effective uid: suid_dumpable (0)");
	npg_sys_dumpable(&w, 0, 1);
	npg_sys_execve_file(&w, 0, NULL);
	tap_is(w.tasks[0].dumpable, 1, "an exec with euid == ruid: dumpable");
	/* a diverged fsuid: the exec resets it to the euid, which commit_creds() sees */
	fresh("linux-6", 2);
	spawn(0, 0);
	npg_sys_setfsuid(&w, 0, false, A);
	tap_is(w.tasks[0].dumpable, 0, "setfsuid: not dumpable");
	npg_sys_dumpable(&w, 0, 1);
	npg_sys_execve_file(&w, 0, NULL);
	tap_is(w.tasks[0].dumpable, 0, "a plain exec that moves the fsuid back: not dumpable");
	/* the suid_dumpable of the machine */
	fresh("linux-6", 2);
	w.suid_dumpable = 2;
	spawn(0, 0);
	npg_sys_setuid(&w, 0, false, A);
	tap_is(w.tasks[0].dumpable, 2, "fs.suid_dumpable 2: SUID_DUMP_ROOT");
	/* shared: threads and a vfork child */
	fresh("linux-6", 3);
	spawn(0, 0);
	npg_sys_fork(&w, 0, 1, true);
	npg_sys_vfork(&w, 1, 2);
	npg_sys_setuid(&w, 2, false, A);
	tap_is(w.tasks[0].dumpable, 0, "a vfork child's setuid makes its parent's mm non-dumpable");
	tap_is(w.tasks[1].dumpable, 0, "the vforking thread's too");
	npg_sys_execve_file(&w, 2, NULL);
	npg_sys_dumpable(&w, 0, 1);
	tap_is(w.tasks[1].dumpable, 1, "after the child's exec: a thread shares the mm");
	tap_is(w.tasks[2].dumpable, 1, "the child has its own again");
	/* unshare() into a namespace the euid owns gains nothing (cred_cap_issubset()) */
	fresh("linux-6", 2);
	spawn(0, A);
	npg_sys_unshare_user(&w, 0, 1, &(struct npg_idmap){ .nr = 1, .extent = { { 0, A, 1 } } },
			     &(struct npg_idmap){ .nr = 1, .extent = { { 0, A, 1 } } });
	tap_is(w.tasks[0].dumpable, 1, "unshare: still dumpable");
}

/* Yama: scopes, ancestry, PR_SET_PTRACER */
static void test_yama(void)
{
	fresh("linux-6", 5);
	spawn(0, A);
	spawn(1, A);
	tap_is(err(npg_sys_ptracer(&w, 1, NPG_PTRACER_ANY, 0)), EINVAL, "no Yama: PR_SET_PTRACER "
	       "is EINVAL");
	w.yama_scope = 1;
	npg_sys_fork(&w, 0, 2, false);
	tap_is(err(npg_sys_ptrace_seize(&w, 0, 1)), EPERM, "scope 1: not an ancestor: EPERM");
	tap_is(err(npg_sys_ptrace_seize(&w, 0, 2)), 0, "its child: attached");
	tap_is(err(npg_sys_ptracer(&w, 1, NPG_PTRACER_TASK, 0)), 0, "PR_SET_PTRACER naming it");
	tap_is(err(npg_sys_ptrace_seize(&w, 0, 1)), 0, "then attached");
	npg_sys_ptrace_detach(&w, 0, 1);
	npg_sys_fork(&w, 0, 3, false);
	tap_is(err(npg_sys_ptrace_seize(&w, 3, 1)), 0, "a child of the named tracer: "
	       "task_is_descendant(named, tracer)");
	npg_sys_ptrace_detach(&w, 3, 1);
	tap_is(err(npg_sys_ptrace_seize(&w, 2, 1)), 0, "so is the tracer's other child");
	npg_sys_ptrace_detach(&w, 2, 1);
	tap_is(err(npg_sys_ptracer(&w, 1, NPG_PTRACER_NONE, 0)), 0, "PR_SET_PTRACER 0");
	tap_is(err(npg_sys_ptrace_seize(&w, 0, 1)), EPERM, "the exception is gone");
	tap_is(err(npg_sys_ptracer(&w, 1, NPG_PTRACER_ANY, 0)), 0, "PR_SET_PTRACER_ANY");
	tap_is(err(npg_sys_ptrace_seize(&w, 3, 1)), 0, "anyone attaches");
	tap_is(err(npg_sys_ptracer(&w, 1, NPG_PTRACER_TASK, 4)), EINVAL, "a pid of no task: EINVAL");
	w.yama_scope = 2;
	npg_sys_fork(&w, 0, 4, false);
	tap_is(err(npg_sys_ptrace_seize(&w, 0, 4)), EPERM, "scope 2: even a child needs "
	       "CAP_SYS_PTRACE");
	w.yama_scope = 3;
	w.tasks[0].cred.cap_effective = w.tasks[0].cred.cap_permitted = NPG_CAP_ALL;
	tap_is(err(npg_sys_ptrace_seize(&w, 0, 4)), EPERM, "scope 3: never");
}

/* PTRACE_SEIZE: 3.4; 3.1-3.3 without PTRACE_SEIZE_DEVEL EIO; before, ESRCH */
static void test_seize_eras(void)
{
	struct npg_release r;

	fresh("linux-2.6", 2);
	spawn(0, A);
	spawn(1, A);
	tap_is(err(npg_sys_ptrace_seize(&w, 0, 1)), ESRCH, "linux-2.6: no PTRACE_SEIZE, ESRCH");
	tap_ok(npg_release_parse(&r, "3.2.102", NULL) == 0 && r.rules.ptrace_seize == 1,
	       "3.2: PTRACE_SEIZE only with PTRACE_SEIZE_DEVEL");
	fresh("linux-3.1", 2);
	w.rules.ptrace_seize = r.rules.ptrace_seize;
	spawn(0, A);
	spawn(1, A);
	tap_is(err(npg_sys_ptrace_seize(&w, 0, 1)), EIO, "3.2: EIO");
	tap_ok(npg_release_parse(&r, "3.4.0", NULL) == 0 && r.rules.ptrace_seize == 2, "3.4: PTRACE_SEIZE");
	tap_ok(npg_release_parse(&r, "3.0.8", NULL) == 0 && r.rules.ptrace_seize == 0, "3.0.8: none");
}

/*
 * PTRACE_ATTACH: every policy has it (no EIO or ESRCH of an unknown
 * request), with ptrace_attach()'s refusals; the SIGSTOP it sends is
 * taken by the harness, so the tracee runs on
 */
static void test_attach_eras(void)
{
	for (int pi = 0; pi < NPG_NPOLICIES; pi++) {
		const char *name = npg_policies[pi]->name;

		fresh(name, 6);
		spawn(0, A);
		spawn(1, A);
		spawn(2, B);
		tap_is(err(npg_sys_ptrace_attach(&w, 0, 1)), 0, "%s: PTRACE_ATTACH of the same user",
		       name);
		tap_is(npg_tracer_of(&w, 1), 0, "%s: traced by the caller", name);
		tap_is(w.tasks[1].state, NPG_TASK_RUNNING, "%s: and running (the SIGSTOP taken)",
		       name);
		tap_is(err(npg_sys_ptrace_attach(&w, 2, 1)), EPERM, "%s: already traced: EPERM",
		       name);
		tap_is(err(npg_sys_ptrace_attach(&w, 0, 2)), EPERM, "%s: another user: EPERM", name);
		npg_sys_fork(&w, 0, 3, true);
		tap_is(err(npg_sys_ptrace_attach(&w, 0, 3)), EPERM, "%s: its own thread: EPERM", name);
		tap_is(err(npg_sys_ptrace_attach(&w, 0, 0)), EPERM, "%s: itself: EPERM", name);
		tap_is(err(npg_sys_ptrace_attach(&w, 0, 5)), ESRCH, "%s: never forked: ESRCH", name);
		npg_sys_fork(&w, 1, 4, false);
		npg_sys_exit(&w, 4, 0);
		tap_is(err(npg_sys_ptrace_attach(&w, 0, 4)), EPERM, "%s: a zombie: EPERM", name);
		npg_sys_wait(&w, 1, 4);
		tap_is(err(npg_sys_ptrace_attach(&w, 0, 4)), ESRCH, "%s: reaped: ESRCH", name);
		tap_is(err(npg_sys_ptrace_detach(&w, 2, 1)), ESRCH, "%s: detach by another: ESRCH",
		       name);
		tap_is(err(npg_sys_ptrace_detach(&w, 0, 1)), 0, "%s: detach by the tracer", name);
		tap_is(npg_tracer_of(&w, 1), -1, "%s: let go", name);
		tap_is(err(npg_sys_ptrace_detach(&w, 0, 1)), ESRCH, "%s: twice: ESRCH", name);
		/* a thread of another process: ptrace links tasks */
		npg_sys_fork(&w, 1, 5, true);
		tap_is(err(npg_sys_ptrace_attach(&w, 0, 5)), 0, "%s: another process's thread",
		       name);
		tap_is(npg_tracer_of(&w, 1), -1, "%s: its leader is not traced", name);
	}
	/* the seize's refusals before 3.4 are not the attach's */
	fresh("linux-2.6", 2);
	spawn(0, A);
	spawn(1, A);
	tap_is(err(npg_sys_ptrace_seize(&w, 0, 1)), ESRCH, "linux-2.6: PTRACE_SEIZE is ESRCH");
	tap_is(err(npg_sys_ptrace_attach(&w, 0, 1)), 0, "PTRACE_ATTACH is not");
	fresh("linux-3.1", 2);
	w.rules.ptrace_seize = 1;	/* 3.1-3.3 */
	spawn(0, A);
	spawn(1, A);
	tap_is(err(npg_sys_ptrace_seize(&w, 0, 1)), EIO, "3.2: PTRACE_SEIZE is EIO");
	tap_is(err(npg_sys_ptrace_attach(&w, 0, 1)), 0, "PTRACE_ATTACH is not");
	/* __ptrace_may_access() and cap_ptrace_access_check() as for the seize */
	fresh("linux-2.6", 4);
	spawn(0, A);
	spawn(1, A);
	spawn_ids(2, A, B);
	spawn(3, 0);
	npg_sys_dumpable(&w, 1, 0);
	tap_is(err(npg_sys_ptrace_attach(&w, 0, 1)), EPERM, "linux-2.6: not dumpable: EPERM");
	tap_is(err(npg_sys_ptrace_attach(&w, 0, 2)), EPERM, "linux-2.6: euid B: EPERM");
	tap_is(err(npg_sys_ptrace_attach(&w, 3, 2)), 0, "linux-2.6: root: attached");
	tap_ok(w.tasks[2].ptrace_cap, "linux-2.6: PT_PTRACE_CAP recorded");
	npg_sys_dumpable(&w, 1, 1);
	w.tasks[1].cred.cap_permitted = NPG_CAP(NPG_CAP_KILL);
	tap_is(err(npg_sys_ptrace_attach(&w, 0, 1)), EPERM, "linux-2.6: the target has CAP_KILL: "
	       "EPERM");
	/* Yama, where the machine has it */
	fresh("linux-6", 3);
	w.yama_scope = 1;
	spawn(0, A);
	spawn(1, A);
	npg_sys_fork(&w, 0, 2, false);
	tap_is(err(npg_sys_ptrace_attach(&w, 0, 1)), EPERM, "Yama scope 1: not an ancestor: EPERM");
	tap_is(err(npg_sys_ptrace_attach(&w, 0, 2)), 0, "its child: attached");
}

/*
 * LSM_UNSAFE_PTRACE with PTRACE_ATTACH, the request every era has: before
 * 4.10 PT_PTRACE_CAP, the tracer's capability at attach; after,
 * ptracer_cred
 */
static void test_attach_unsafe_exec(void)
{
	const char *eras[] = { "linux-2.4", "linux-2.6", "ow-2006", "linux-3.1", "linux-5.14",
			       "linux-6" };

	for (int e = 0; e < 6; e++) {
		fresh(eras[e], 3);
		spawn(0, A);
		spawn(1, A);
		spawn(2, 0);
		tap_is(err(npg_sys_ptrace_attach(&w, 0, 1)), 0, "%s: a user attaches", eras[e]);
		tap_ok(!w.tasks[1].ptrace_cap, "%s: without PT_PTRACE_CAP", eras[e]);
		tap_is(err(npg_sys_execve_file(&w, 1, &setuid_root)), 0, "%s: traced exec", eras[e]);
		tap_is(w.tasks[1].cred.uid.eff, A, "%s: set-uid root keeps the caller's ids",
		       eras[e]);
		tap_is(w.tasks[1].cred.uid.saved, A, "%s: saved uid too", eras[e]);
		tap_is(w.tasks[1].cred.cap_permitted, 0, "%s: and no capability", eras[e]);
		tap_is(err(npg_sys_ptrace_detach(&w, 0, 1)), 0, "%s: detached", eras[e]);
		tap_is(err(npg_sys_ptrace_attach(&w, 2, 1)), 0, "%s: root attaches", eras[e]);
		tap_ok(w.tasks[1].ptrace_cap, "%s: with PT_PTRACE_CAP", eras[e]);
		npg_sys_execve_file(&w, 1, &setuid_root);
		tap_is(w.tasks[1].cred.uid.eff, 0, "%s: the exec is set-uid", eras[e]);
	}
	/* before 4.10 the flag set at attach: root's tracer that gives up
	 * CAP_SYS_PTRACE afterwards still lets the exec be set-uid */
	fresh("linux-2.6", 2);
	spawn(0, 0);
	spawn(1, A);
	tap_is(err(npg_sys_ptrace_attach(&w, 0, 1)), 0, "linux-2.6: root attaches");
	w.tasks[0].cred.cap_effective = 0;
	npg_sys_execve_file(&w, 1, &setuid_root);
	tap_is(w.tasks[1].cred.uid.eff, 0, "linux-2.6: CAP_SYS_PTRACE dropped after attaching: "
	       "PT_PTRACE_CAP still set, the exec is set-uid");
	/* a tracer of the tracee's uid with CAP_SYS_PTRACE (not root) */
	fresh("linux-2.6", 2);
	spawn(0, A);
	spawn(1, A);
	w.tasks[0].cred.cap_effective = w.tasks[0].cred.cap_permitted = NPG_CAP(NPG_CAP_SYS_PTRACE);
	tap_is(err(npg_sys_ptrace_attach(&w, 0, 1)), 0, "linux-2.6: A with CAP_SYS_PTRACE attaches");
	npg_sys_execve_file(&w, 1, &setuid_root);
	tap_is(w.tasks[1].cred.uid.eff, 0, "linux-2.6: PT_PTRACE_CAP: the exec is set-uid");
}

int main(void)
{
	test_ids();
	test_dumpable_and_caps();
	test_targets();
	test_links();
	test_unsafe_exec();
	test_commit_creds();
	test_yama();
	test_seize_eras();
	test_attach_eras();
	test_attach_unsafe_exec();
	npg_world_free(&w);
	return tap_done();
}
