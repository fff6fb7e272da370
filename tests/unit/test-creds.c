/*
 * Credential rules that do not change between eras (kernel/sys.c,
 * security/commoncap.c): who may set which id, what the saved uid becomes,
 * what happens to capabilities, RLIMIT_NPROC's hard-limit rule.
 */
#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>

#include "model/policy.h"
#include "tap.h"

static struct npg_world w;

static void spawn(int idx, npg_id r, npg_id e, npg_id s, uint64_t caps)
{
	struct npg_cred c = { 0 };

	c.uid = (struct npg_ids){ r, e, s, e };
	c.gid = (struct npg_ids){ r, r, r, r };
	c.cap_bset = NPG_CAP_ALL;
	c.cap_permitted = c.cap_effective = caps;
	npg_task_spawn(&w, idx, &c, 10, 20);
}

static void fresh(void)
{
	npg_world_free(&w);
	npg_world_init(&w, npg_policy_find("linux-6"), 4);
}

static bool ids(int t, npg_id r, npg_id e, npg_id s)
{
	const struct npg_ids *u = &w.tasks[t].cred.uid;
	bool same = u->real == r && u->eff == e && u->saved == s;

	if (!same)
		printf("#   uids are %u %u %u, want %u %u %u\n", u->real, u->eff, u->saved, r, e, s);
	return same;
}

static int err(struct npg_result r)
{
	return r.kind == NPG_R_ERRNO ? (int)r.value : 0;
}

/* kill_ok_by_cred(): each of the four id pairs alone, CAP_KILL, none */
static void test_kill(void)
{
	static const struct {
		npg_id r, e;		/* the sender's real and effective uid */
		uint64_t caps;
		int want;
		const char *why;
	} cases[] = {
		{ 2000, 1000, 0, 0, "sender euid == target suid" },
		{ 2000, 3000, 0, 0, "sender euid == target ruid" },
		{ 1000, 4000, 0, 0, "sender ruid == target suid" },
		{ 3000, 4000, 0, 0, "sender ruid == target ruid" },
		{ 4000, 4000, NPG_CAP(NPG_CAP_KILL), 0, "CAP_KILL" },
		{ 4000, 3001, 0, EPERM, "no id in common, no CAP_KILL" },
		{ 4000, 4000, NPG_CAP_ALL & ~NPG_CAP(NPG_CAP_KILL), EPERM, "every capability but CAP_KILL" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fresh();
		spawn(0, cases[i].r, cases[i].e, cases[i].e, cases[i].caps);
		spawn(1, 3000, 5000, 1000, 0);	/* target: real 3000, saved 1000 */
		tap_is(err(npg_sys_kill(&w, 0, 1, 0)), cases[i].want, "kill 0: %s", cases[i].why);
	}
	fresh();
	spawn(0, 4000, 4000, 4000, 0);
	spawn(1, 4000, 4000, 4000, 0);
	tap_is(npg_sys_kill(&w, 0, 1, SIGTERM).kind, NPG_R_OK, "kill TERM another process");
	tap_ok(w.tasks[1].state == NPG_TASK_REAPED && w.tasks[1].exit_signal == SIGTERM,
	       "... it dies of it, and the harness reaps it");
	tap_is(npg_count_of(&w, 4000), 1, "... and it no longer counts");
	tap_is(err(npg_sys_kill(&w, 0, 1, 0)), ESRCH, "kill of a reaped process is ESRCH");
	npg_sys_fork(&w, 0, 2, true);
	npg_sys_fork(&w, 0, 3, false);
	w.tasks[3].state = NPG_TASK_ABSENT;	/* as if its fork had failed */
	tap_is(err(npg_sys_kill(&w, 0, 3, SIGKILL)), ESRCH, "kill of a task never created is ESRCH");
	tap_ok(npg_alive(&w.tasks[0]), "... and does not reach the parent it was copied from");
	tap_is(npg_sys_kill(&w, 2, 0, SIGKILL).kind, NPG_R_KILLED,
	       "a thread that kills its own process dies with it");
}

/* de_thread(): a non-leader's execve takes over the leader's place */
static void test_execve_from_thread(void)
{
	fresh();
	spawn(0, 1000, 1000, 1000, 0);
	npg_sys_fork(&w, 0, 1, true);	/* thread 1 */
	npg_sys_fork(&w, 0, 2, false);	/* a child of the process */
	npg_sys_fork(&w, 0, 3, true);	/* thread 3 */
	tap_is(npg_count_of(&w, 1000), 4, "leader, two threads and a child count");
	tap_is(npg_sys_execve(&w, 1).kind, NPG_R_OK, "execve from a thread");
	tap_is(npg_count_of(&w, 1000), 2, "... the old leader and the other thread are released");
	tap_ok(w.tasks[0].state == NPG_TASK_REAPED && w.tasks[3].state == NPG_TASK_REAPED,
	       "... neither is left a zombie");
	tap_ok(w.tasks[1].leader == 1 && w.tasks[1].parent == NPG_HARNESS,
	       "... the thread leads the process and has the leader's parent");
	tap_is(w.tasks[2].parent, 1, "... the process's child is the thread's now");
	tap_is(npg_sys_wait(&w, 1, 2).kind, NPG_R_RUNNING, "... and the thread may wait for it");
	tap_is(npg_sys_exit(&w, 1, 0).kind, NPG_R_OK, "exit from it is the process's exit");
	tap_is(npg_count_of(&w, 1000), 1, "... the child lives on, reparented");
}

/*
 * cap_bprm_creds_from_file(), bprm_fill_uid() and the securebits and
 * ambient rules of commoncap.c, on linux-6 (they are the same for every
 * policy: the policies differ in the RLIMIT_NPROC test before them).
 */
static void test_setid_programs(void)
{
	static const struct npg_exec_file passwd = { .setuid = true, .uid = 0 };
	static const struct npg_exec_file newgrp = { .setgid = true, .gid = 0 };
	static const struct npg_exec_file ping = { .has_fcaps = true, .fcap_effective = true,
						    .fcap_permitted = NPG_CAP(13) };
	static const struct npg_exec_file ping_v3 = { .has_fcaps = true, .fcap_effective = true,
						       .fcap_permitted = NPG_CAP(13), .fcap_v3 = true };
	const uint64_t kill = NPG_CAP(NPG_CAP_KILL);

	fresh();
	spawn(0, 1000, 1000, 1000, 0);
	w.tasks[0].nproc_cur = w.tasks[0].nproc_max = 1;	/* www at its limit */
	tap_is(err(npg_sys_execve_file(&w, 0, &passwd)), 0, "a set-uid-root program runs at the limit");
	tap_ok(ids(0, 1000, 0, 0) && npg_count_of(&w, 1000) == 1,
	       "set-uid root: euid and suid 0, the real uid and the count unchanged");
	tap_ok(w.tasks[0].cred.cap_effective == NPG_CAP_ALL, "set-uid root: the bounding set, effective");
	npg_sys_setuid(&w, 0, false, 1000);
	tap_ok(ids(0, 1000, 1000, 1000) && w.tasks[0].cred.cap_permitted == 0,
	       "back to www: every capability goes (cap_emulate_setxuid())");
	npg_sys_execve_file(&w, 0, &ping);
	tap_ok(w.tasks[0].cred.cap_effective == NPG_CAP(13), "file capabilities with fE: pE = pP = X & fP");
	npg_sys_execve_file(&w, 0, &newgrp);
	tap_ok(w.tasks[0].cred.gid.eff == 0 && w.tasks[0].cred.gid.saved == 0 &&
	       w.tasks[0].cred.cap_permitted == 0, "set-gid root: egid and sgid 0, no capabilities");

	fresh();
	spawn(0, 1000, 1000, 1000, 0);
	w.tasks[0].cred.cap_bset = NPG_CAP_ALL & ~NPG_CAP(13);
	tap_is(err(npg_sys_execve_file(&w, 0, &ping)), EPERM,
	       "fE with part of fP outside the bounding set: EPERM (bprm_caps_from_vfs_caps())");

	/* a v3 xattr before 4.14: 24 bytes read into v2's 20 (3.0.8, measured) */
	fresh();
	spawn(0, 1000, 1000, 1000, 0);
	w.rules.fcaps_v3 = false;
	tap_is(err(npg_sys_execve_file(&w, 0, &ping_v3)), ERANGE,
	       "a v3 file capability before 4.14: ERANGE (get_vfs_caps_from_disk()'s getxattr())");
	w.rules.fcaps_v3 = true;
	tap_is(err(npg_sys_execve_file(&w, 0, &ping_v3)), 0, "... and from 4.14 on it runs");

	/* securebits */
	fresh();
	spawn(0, 1000, 1000, 1000, 0);
	tap_is(err(npg_sys_securebits(&w, 0, NPG_SECBIT_NOROOT)), EPERM,
	       "PR_SET_SECUREBITS needs CAP_SETPCAP");
	fresh();
	spawn(0, 0, 0, 0, NPG_CAP_ALL);
	tap_is(err(npg_sys_securebits(&w, 0, NPG_SECBIT_NOROOT | NPG_SECBIT_NOROOT_LOCKED |
				      NPG_SECBIT_KEEP_CAPS_LOCKED)), 0, "root sets noroot, locked");
	tap_is(err(npg_sys_securebits(&w, 0, NPG_SECBIT_NOROOT_LOCKED | NPG_SECBIT_KEEP_CAPS_LOCKED)),
	       EPERM, "a locked bit may not change");
	tap_is(err(npg_sys_securebits(&w, 0, NPG_SECBIT_NOROOT)), EPERM, "a lock may not go");
	tap_is(err(npg_sys_keepcaps(&w, 0, true)), EPERM, "PR_SET_KEEPCAPS under keep-caps-locked");
	npg_sys_execve(&w, 0);
	tap_ok(ids(0, 0, 0, 0) && w.tasks[0].cred.cap_permitted == 0,
	       "SECURE_NOROOT: root's execve gains nothing");
	fresh();
	spawn(0, 0, 0, 0, NPG_CAP_ALL);
	npg_sys_securebits(&w, 0, NPG_SECBIT_NO_SETUID_FIXUP);
	npg_sys_setresuid(&w, 0, false, 1000, 1000, 1000);
	tap_ok(w.tasks[0].cred.cap_effective == NPG_CAP_ALL,
	       "SECURE_NO_SETUID_FIXUP: leaving root keeps every capability");

	/* ambient */
	fresh();
	spawn(0, 1000, 1000, 1000, kill);
	tap_is(err(npg_sys_ambient(&w, 0, PR_CAP_AMBIENT_RAISE, NPG_CAP_KILL)), EPERM,
	       "ambient raise needs the capability inheritable too");
	tap_is(err(npg_sys_capset(&w, 0, kill, kill, kill)), 0, "capset of the inheritable set");
	tap_is(err(npg_sys_ambient(&w, 0, PR_CAP_AMBIENT_RAISE, NPG_CAP_KILL)), 0,
	       "ambient raise of a permitted and inheritable capability");
	npg_sys_execve(&w, 0);
	tap_ok(w.tasks[0].cred.cap_effective == kill && w.tasks[0].cred.cap_ambient == kill,
	       "a plain program keeps the ambient set: pP = pE = pA");
	npg_sys_execve_file(&w, 0, &newgrp);
	tap_ok(w.tasks[0].cred.cap_ambient == 0 && w.tasks[0].cred.cap_effective == 0,
	       "a set-id program clears the ambient set");
	npg_sys_capset(&w, 0, 0, 0, kill);
	tap_is(err(npg_sys_ambient(&w, 0, PR_CAP_AMBIENT_LOWER, NPG_CAP_KILL)), 0, "ambient lower always");
}

/* prctl(PR_SET_NO_NEW_PRIVS) and cap_bprm_creds_from_file()'s downgrade */
static void test_no_new_privs(void)
{
	struct npg_exec_file suid_root = { .setuid = true, .uid = 0, .gid = 0 };
	struct npg_exec_file fcaps = { .has_fcaps = true, .fcap_effective = true,
				       .fcap_permitted = NPG_CAP(NPG_CAP_KILL) };

	fresh();
	spawn(0, 1000, 1000, 1000, 0);
	tap_is(err(npg_sys_no_new_privs(&w, 0, 0)), EINVAL, "no_new_privs 0 is EINVAL");
	tap_is(err(npg_sys_no_new_privs(&w, 0, 1)), 0, "no_new_privs 1: anyone");
	npg_sys_fork(&w, 0, 1, false);
	tap_ok(w.tasks[1].no_new_privs, "fork keeps it");
	tap_is(err(npg_sys_execve_file(&w, 0, &suid_root)), 0, "a set-uid-root program runs");
	tap_ok(ids(0, 1000, 1000, 1000), "... as the caller: the bit is ignored");
	tap_is(w.tasks[0].cred.cap_permitted, 0, "... with no capabilities");
	tap_is(err(npg_sys_execve_file(&w, 0, &fcaps)), 0, "a file-capability program runs");
	tap_is(w.tasks[0].cred.cap_permitted, 0, "... within the old permitted set: none");
	tap_ok(w.tasks[0].no_new_privs, "execve keeps it");

	for (int rule = 0; rule < 2; rule++) {
		fresh();
		w.rules.exec_id_changed = rule;
		spawn(0, 1000, 2000, 2000, 0);	/* after a set-uid-2000 program */
		npg_sys_execve(&w, 0);
		tap_ok(ids(0, 1000, 2000, 2000), "%s: without it a plain exec keeps euid != ruid",
		       rule ? "6.17+" : "before 6.17");
		npg_sys_no_new_privs(&w, 0, 1);
		npg_sys_execve(&w, 0);
		if (rule)	/* id_changed: the euid does not change at this exec */
			tap_ok(ids(0, 1000, 2000, 2000), "6.17+: with it too (337490f0007f)");
		else		/* is_setid: euid != uid, "downgrade" */
			tap_ok(ids(0, 1000, 1000, 1000),
			       "before 6.17: with it the effective uid falls back to the real one");
	}

	fresh();
	w.rules.no_new_privs = false;		/* a 3.0 kernel */
	spawn(0, 1000, 1000, 1000, 0);
	tap_is(err(npg_sys_no_new_privs(&w, 0, 1)), EINVAL, "before 3.5: EINVAL");

	fresh();
	spawn(0, 0, 0, 0, NPG_CAP_ALL);
	npg_sys_capset(&w, 0, NPG_CAP_ALL, NPG_CAP_ALL, NPG_CAP(NPG_CAP_KILL));
	tap_is(err(npg_sys_securebits(&w, 0, NPG_SECBIT_NO_CAP_AMBIENT_RAISE)), 0,
	       "securebits no-cap-ambient-raise");
	tap_is(err(npg_sys_ambient(&w, 0, PR_CAP_AMBIENT_RAISE, NPG_CAP_KILL)), EPERM,
	       "then raising an ambient capability is EPERM");
	w.rules.ambient_caps = false;		/* before 4.3 the bit is unknown */
	tap_is(err(npg_sys_securebits(&w, 0, NPG_SECBIT_NO_CAP_AMBIENT_RAISE)), EPERM,
	       "before 4.3 the bit is EPERM");
}

int main(void)
{
	fresh();
	spawn(0, 1000, 1000, 1000, 0);
	tap_is(err(npg_sys_setuid(&w, 0, false, 0)), EPERM, "unprivileged setuid(0) is EPERM");
	tap_is(err(npg_sys_setuid(&w, 0, false, (npg_id)-1)), EINVAL, "setuid(-1) is EINVAL");

	fresh();
	spawn(0, 1000, 0, 0, NPG_CAP_ALL);	/* a set-uid-root program */
	tap_is(err(npg_sys_setuid(&w, 0, false, 2000)), 0, "setuid by euid 0 with CAP_SETUID");
	tap_ok(ids(0, 2000, 2000, 2000), "privileged setuid sets real, effective and saved");
	tap_is(w.tasks[0].cred.cap_permitted, 0, "leaving uid 0 everywhere clears permitted");

	fresh();
	spawn(0, 1000, 0, 0, NPG_CAP_ALL);
	npg_sys_keepcaps(&w, 0, true);
	npg_sys_setresuid(&w, 0, false, 1000, 1000, 1000);
	tap_ok(w.tasks[0].cred.cap_permitted == NPG_CAP_ALL, "PR_SET_KEEPCAPS keeps permitted");
	tap_is(w.tasks[0].cred.cap_effective, 0, "... but effective is cleared with euid 0 -> non-0");
	npg_sys_execve(&w, 0);
	tap_is(w.tasks[0].cred.cap_permitted, 0, "execve as non-root empties permitted");
	tap_ok(!w.tasks[0].cred.keepcaps, "execve clears keepcaps");

	fresh();
	spawn(0, 1000, 0, 0, NPG_CAP_ALL);
	npg_sys_setresuid(&w, 0, false, NPG_ID_NONE, 1000, NPG_ID_NONE);	/* seteuid(1000) */
	tap_ok(ids(0, 1000, 1000, 0), "seteuid keeps the saved uid 0");
	tap_is(w.tasks[0].cred.cap_effective, 0, "euid 0 -> 1000 clears effective");
	tap_is(err(npg_sys_setresuid(&w, 0, false, NPG_ID_NONE, 0, NPG_ID_NONE)), 0,
	       "seteuid(0) back through the saved uid");
	tap_ok(w.tasks[0].cred.cap_effective == NPG_CAP_ALL, "euid -> 0 restores effective from permitted");

	fresh();
	spawn(0, 1000, 2000, 3000, 0);
	tap_is(err(npg_sys_setreuid(&w, 0, false, 3000, NPG_ID_NONE)), EPERM,
	       "setreuid: the real uid may not become the saved uid");
	tap_is(err(npg_sys_setreuid(&w, 0, false, NPG_ID_NONE, 3000)), 0,
	       "setreuid: the effective uid may become the saved uid");
	tap_ok(ids(0, 1000, 3000, 3000), "setreuid: euid != old ruid sets saved = new euid");
	tap_is(err(npg_sys_setreuid(&w, 0, false, NPG_ID_NONE, 1000)), 0, "setreuid(-1, ruid)");
	tap_ok(ids(0, 1000, 1000, 3000), "setreuid: euid == old ruid leaves saved alone");

	fresh();
	spawn(0, 1000, 2000, 3000, 0);
	tap_is(err(npg_sys_setresuid(&w, 0, false, 3000, 1000, 2000)), 0,
	       "setresuid permutes the three ids without privilege");
	tap_is(err(npg_sys_setresuid(&w, 0, false, 4000, NPG_ID_NONE, NPG_ID_NONE)), EPERM,
	       "setresuid to a new id needs CAP_SETUID");

	fresh();
	spawn(0, 1000, 1000, 1000, 0);
	{
		struct npg_result r = npg_sys_setfsuid(&w, 0, false, 0);

		tap_ok(r.kind == NPG_R_ID && r.value == 1000, "setfsuid returns the old fsuid, even when refused");
		tap_is(w.tasks[0].cred.uid.fs, 1000, "unprivileged setfsuid(0) changes nothing");
	}

	fresh();
	spawn(0, 0, 0, 0, NPG_CAP_ALL);
	npg_sys_setfsuid(&w, 0, false, 1000);
	tap_is(w.tasks[0].cred.cap_effective & NPG_CAP_FS_MASK, 0, "fsuid 0 -> 1000 drops CAP_FS_MASK");
	tap_ok(npg_cap_has(w.tasks[0].cred.cap_effective, NPG_CAP_SETUID), "... and nothing else");
	tap_is(npg_count_of(&w, 1000), 0, "setfsuid never moves the count");

	fresh();
	spawn(0, 1000, 1000, 1000, 0);
	tap_is(err(npg_sys_setuid(&w, 0, true, 0)), EPERM, "unprivileged setgid(0) is EPERM");
	tap_is(err(npg_sys_setgroups(&w, 0, 0, NULL)), EPERM, "setgroups needs CAP_SETGID");

	fresh();
	spawn(0, 1000, 1000, 1000, 0);
	tap_is(err(npg_sys_prlimit(&w, 0, 0, 30, 20)), EINVAL, "soft above hard is EINVAL");
	tap_is(err(npg_sys_prlimit(&w, 0, 0, 30, 30)), EPERM, "raising the hard limit needs CAP_SYS_RESOURCE");
	tap_is(err(npg_sys_prlimit(&w, 0, 0, 5, 5)), 0, "lowering is always allowed");
	tap_is(err(npg_sys_prlimit(&w, 0, 0, 5, 20)), EPERM, "... and cannot be undone");

	fresh();
	spawn(0, 0, 0, 0, NPG_CAP_ALL & ~NPG_CAP(NPG_CAP_SYS_RESOURCE));
	spawn(1, 1000, 1000, 1000, 0);
	tap_is(err(npg_sys_prlimit(&w, 0, 1, 5, 5)), EPERM,
	       "prlimit on another user's task needs CAP_SYS_RESOURCE, even for root");

	fresh();
	spawn(0, 1000, 1000, 1000, NPG_CAP(NPG_CAP_SETUID));
	tap_is(err(npg_sys_capset(&w, 0, NPG_CAP(NPG_CAP_SYS_ADMIN), NPG_CAP(NPG_CAP_SYS_ADMIN), 0)), EPERM,
	       "capset cannot add to permitted");
	tap_is(err(npg_sys_capset(&w, 0, 0, 0, 0)), 0, "capset may drop everything");

	fresh();
	spawn(0, 1000, 1000, 1000, 0);
	npg_sys_fork(&w, 0, 1, true);	/* a thread */
	npg_sys_fork(&w, 0, 2, false);	/* a child process */
	tap_is(npg_count_of(&w, 1000), 3, "a thread and a child count");
	npg_sys_exit(&w, 0, 0);
	tap_is(npg_count_of(&w, 1000), 1, "exit_group releases the thread; the orphan is reparented");
	tap_ok(w.tasks[2].parent == NPG_HARNESS && w.tasks[2].state == NPG_TASK_RUNNING,
	       "the child lives on under the harness");
	npg_sys_exit(&w, 2, 3);
	tap_is(npg_count_of(&w, 1000), 0, "an orphan is reaped at once by its new parent");

	test_kill();
	test_no_new_privs();
	test_execve_from_thread();
	test_setid_programs();
	npg_world_free(&w);
	return tap_done();
}
