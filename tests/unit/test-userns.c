/*
 * User namespaces in the model, at their boundaries: which count a task
 * is charged to in each era, the ucounts chain and the limit recorded at
 * unshare() (kernel/ucount.c, kernel/user_namespace.c), ids named in a
 * namespace (make_kuid()), capabilities across namespaces (cap_capable()),
 * the failures of unshare() and of the maps.
 */
#include <errno.h>
#include <signal.h>

#include "model/policy.h"
#include "tap.h"
#include "world.h"

#define W 1000		/* the rootless user: creates the namespaces */
#define V 2000		/* another user, mapped by a privileged writer */

static void spawn(int idx, npg_id uid, uint64_t soft, uint64_t hard)
{
	struct npg_cred c = { 0 };

	c.uid = (struct npg_ids){ uid, uid, uid, uid };
	c.gid = (struct npg_ids){ uid, uid, uid, uid };
	c.cap_bset = NPG_CAP_ALL;
	if (uid == 0)
		c.cap_permitted = c.cap_effective = NPG_CAP_ALL;
	npg_task_spawn(&w, idx, &c, soft, hard);
}

static struct npg_idmap map1(npg_id inside, npg_id outside, npg_id count)
{
	return (struct npg_idmap){ .nr = 1, .extent = { { inside, outside, count } } };
}

/* unshare with "0 W 1" for uids and gids: what `unshare -r` makes */
static int rootless(int t, int ns, npg_id uid)
{
	struct npg_idmap m = map1(0, uid, 1);

	return err(npg_sys_unshare_user(&w, t, ns, &m, &m));
}

/*
 * linux-6, measured on 6.18: K_W tasks of W outside, the creator inside;
 * fork inside fails iff the creator's count with the child is over the
 * limit recorded at unshare() -- even with the soft limit inside raised.
 */
static void test_chain_limit(void)
{
	for (long k = 1; k <= 4; k++) {
		fresh("linux-6", 8);
		npg_count_add(&w, W, k - 1);	/* W's other processes */
		spawn(0, W, 4, 8);		/* L = 4 at unshare */
		tap_is(rootless(0, 1, W), 0, "K=%ld: rootless unshare", k);
		tap_is(npg_count_of(&w, W), k, "K=%ld: W's count outside keeps the creator", k);
		tap_is(npg_count_in(&w, 1, W), 1, "K=%ld: the creator alone counts inside", k);
		tap_is(err(npg_sys_prlimit(&w, 0, 0, 8, 8)), 0, "K=%ld: soft limit raised inside", k);
		tap_is(err(npg_sys_fork(&w, 0, 1, false)), k + 1 > 4 ? EAGAIN : 0,
		       "K=%ld: fork inside fails iff K + 1 > L at creation", k);
	}
	/* the count inside meets the limit of today, not of creation */
	fresh("linux-6", 8);
	spawn(0, W, 8, 8);
	rootless(0, 1, W);
	npg_sys_prlimit(&w, 0, 0, 2, 8);
	tap_is(err(npg_sys_fork(&w, 0, 1, false)), 0, "inside: 1 + 1 tasks, L now 2");
	tap_is(err(npg_sys_fork(&w, 0, 2, false)), EAGAIN, "inside: 2 + 1 > 2");
	tap_is(npg_count_in(&w, 1, W), 2, "two tasks inside");
	tap_is(npg_count_of(&w, W), 2, "both count for W outside too");
	npg_sys_exit(&w, 1, 0);
	npg_sys_wait(&w, 0, 1);
	tap_is(npg_count_in(&w, 1, W), 1, "release uncharges inside...");
	tap_is(npg_count_of(&w, W), 1, "... and every level above");
}

/* capabilities held only inside give no exemption: capable() is the initial namespace's */
static void test_no_exemption_inside(void)
{
	fresh("linux-6", 4);
	npg_count_add(&w, W, 5);
	spawn(0, W, 3, 3);
	rootless(0, 1, W);
	tap_ok(npg_capable_own_ns(&w.tasks[0], NPG_CAP_SYS_RESOURCE), "full set inside");
	tap_ok(!npg_capable(&w.tasks[0], NPG_CAP_SYS_RESOURCE), "but not capable()");
	tap_is(err(npg_sys_fork(&w, 0, 1, false)), EAGAIN, "so no fork exemption");
	tap_is(err(npg_sys_prlimit(&w, 0, 0, 9, 9)), EPERM, "nor a higher hard limit");
}

/* up to 5.13 one count per kernel uid: the namespace changes nothing */
static void test_one_count_per_uid(void)
{
	fresh("linux-3.1", 4);
	npg_count_add(&w, W, 2);
	spawn(0, W, 4, 4);
	rootless(0, 1, W);
	tap_is(npg_count_in(&w, 1, W), 3, "linux-3.1: 'in NS' is the uid's one count");
	tap_is(err(npg_sys_fork(&w, 0, 1, false)), 0, "3 < 4: fork");
	tap_is(err(npg_sys_fork(&w, 0, 2, false)), EAGAIN, "4 >= 4: EAGAIN, inside as outside");
}

/* enforced_nproc_rlimit(): only 5.17+ exempts a namespace created by root */
static void test_root_creator(void)
{
	struct npg_idmap m = map1(0, V, 1);

	for (int i = 0; i < 2; i++) {
		const char *pol = i ? "linux-6" : "linux-5.14";

		fresh(pol, 4);
		npg_count_add(&w, 0, 10);
		spawn(0, 0, 3, 3);	/* root with a finite limit */
		tap_is(err(npg_sys_unshare_user(&w, 0, 1, &m, &m)), 0, "%s: root unshares", pol);
		tap_is(w.userns[1].nproc_max, i ? NPG_RLIM_INFINITY : 3,
		       "%s: limit recorded for the root creator", pol);
	}
}

/* 5.14-5.16: the ucounts key after unshare is the effective uid */
static void test_5_14_key(void)
{
	struct npg_idmap m = map1(0, V, 1);

	fresh("linux-5.14", 4);
	spawn(0, W, 9, 9);
	w.tasks[0].cred.uid.eff = w.tasks[0].cred.uid.fs = V;	/* a set-uid-V program */
	tap_is(err(npg_sys_unshare_user(&w, 0, 1, &m, NULL)), 0, "euid V unshares");
	tap_is(npg_count_in(&w, 1, V), 1, "5.14: charged to (ns, euid)");
	tap_is(npg_count_of(&w, V), 1, "and V owns the namespace outside");
	tap_is(npg_count_of(&w, W), 0, "W's count moved away");
	fresh("linux-6", 4);
	spawn(0, W, 9, 9);
	w.tasks[0].cred.uid.eff = w.tasks[0].cred.uid.fs = V;
	npg_sys_unshare_user(&w, 0, 1, &m, NULL);
	tap_is(npg_count_in(&w, 1, W), 1, "5.17+: charged to (ns, real uid)");
	tap_is(npg_count_of(&w, V), 1, "the owner (euid V) counts it outside");
	tap_is(npg_count_of(&w, W), 0, "and W no longer");
}

static void test_ids(void)
{
	struct npg_idmap m = { .nr = 2, .extent = { { 0, W, 1 }, { 1, V, 10 } } };
	struct npg_result r;

	fresh("linux-6", 4);
	spawn(0, 0, 9, 9);
	tap_is(err(npg_sys_unshare_user(&w, 0, 1, &m, &m)), 0, "root maps two ranges");
	tap_is(npg_make_kid(&w, 1, 0, false), W, "0 -> W");
	tap_is(npg_make_kid(&w, 1, 5, false), V + 4, "5 -> V + 4");
	tap_ok(npg_make_kid(&w, 1, 11, false) == NPG_ID_NONE, "11 is unmapped");
	tap_is(npg_from_kid_munged(&w, 1, 0, false), NPG_OVERFLOW_ID, "kernel root shows as 65534");
	r = npg_sys_setfsuid(&w, 0, false, 3);
	tap_ok(r.kind == NPG_R_ID && r.value == NPG_OVERFLOW_ID,
	       "setfsuid returns the old fsuid as the namespace sees it");
	tap_is(w.tasks[0].cred.uid.fs, V + 2, "and sets kernel uid V + 2");
	tap_is(err(npg_sys_setuid(&w, 0, false, 11)), EINVAL, "setuid(unmapped) is EINVAL");
	tap_is(err(npg_sys_setresuid(&w, 0, false, NPG_ID_NONE, 12, NPG_ID_NONE)), EINVAL,
	       "setresuid(-1, unmapped, -1) is EINVAL");
	tap_is(err(npg_sys_setuid(&w, 0, false, 0)), 0, "setuid(0) inside: CAP_SETUID there");
	tap_is(w.tasks[0].cred.uid.real, W, "real uid is now W");
	tap_is(npg_count_in(&w, 1, W), 1, "charged to (ns, W)");
	tap_is(npg_count_of(&w, 0), 1, "and to root, the owner, outside");
	npg_sys_setuid(&w, 0, false, 1);
	tap_is(w.tasks[0].cred.cap_permitted, 0, "leaving namespace root drops the caps");
	tap_is(err(npg_sys_setgroups(&w, 0, 1, (npg_id[]){ 1 })), EPERM, "setgroups without CAP_SETGID");
}

static void test_unshare_failures(void)
{
	struct npg_idmap bad = { .nr = 2, .extent = { { 0, W, 2 }, { 1, V, 1 } } };
	struct npg_idmap zero = map1(0, W, 0), m = map1(0, W, 1), sub = map1(0, 0, 1);

	fresh("linux-6", 4);
	spawn(0, W, 9, 9);
	npg_sys_fork(&w, 0, 1, true);
	tap_is(rootless(0, 1, W), EINVAL, "a threaded process may not unshare");
	npg_sys_exit(&w, 1, 0);
	tap_is(err(npg_sys_unshare_user(&w, 0, 1, &bad, NULL)), EINVAL, "overlapping lines: EINVAL");
	tap_is(w.tasks[0].cred.userns, 1, "... after the unshare itself");
	tap_is(err(npg_sys_unshare_user(&w, 0, 2, NULL, NULL)), EPERM,
	       "unshare again with no map: the euid is unmapped in the parent");

	fresh("linux-6", 4);
	spawn(0, W, 9, 9);
	npg_sys_vfork(&w, 0, 1);
	tap_is(rootless(1, 1, W), 0, "a vfork() child may unshare (thread_group_empty() only)");

	fresh("linux-6", 4);
	spawn(0, W, 9, 9);
	tap_is(err(npg_sys_unshare_user(&w, 0, 1, &zero, NULL)), EINVAL, "count 0: EINVAL");
	fresh("linux-6", 4);
	spawn(0, W, 9, 9);
	npg_sys_unshare_user(&w, 0, 1, &m, &m);
	tap_is(err(npg_sys_unshare_user(&w, 0, 2, &sub, &sub)), 0, "nested unshare");
	tap_is(npg_make_kid(&w, 2, 0, false), W, "nested 0 -> parent 0 -> W");
	tap_is(w.userns[2].level, 2, "level 2");
	fresh("linux-6", 4);
	spawn(0, W, 9, 9);
	npg_sys_unshare_user(&w, 0, 1, &m, &m);
	sub = map1(0, 5, 1);
	tap_is(err(npg_sys_unshare_user(&w, 0, 2, &sub, NULL)), EPERM,
	       "nested map of an id the parent does not map: EPERM");
}

/* cap_capable(): the owner's euid in the parent has every capability inside */
static void test_cap_capable(void)
{
	fresh("linux-6", 4);
	spawn(0, W, 9, 9);
	spawn(1, W, 9, 9);
	spawn(2, V, 9, 9);
	rootless(0, 1, W);
	tap_ok(npg_ns_capable(&w, &w.tasks[1], 1, NPG_CAP_KILL), "the owner outside is capable inside");
	tap_ok(!npg_ns_capable(&w, &w.tasks[2], 1, NPG_CAP_KILL), "another user is not");
	tap_ok(!npg_ns_capable(&w, &w.tasks[0], 0, NPG_CAP_KILL), "inside is never capable outside");
	tap_is(err(npg_sys_kill(&w, 0, 2, 0)), EPERM, "so it may not signal V");
}

/* execve() inside: uid 0 of the namespace is root; unmapped set-id owners are ignored */
static void test_exec(void)
{
	struct npg_exec_file suid_root = { .setuid = true, .uid = 0, .gid = 0 };

	fresh("linux-6", 4);
	spawn(0, W, 9, 9);
	rootless(0, 1, W);
	npg_sys_execve(&w, 0);
	tap_ok(w.tasks[0].cred.cap_permitted == NPG_CAP_ALL, "namespace root keeps everything at exec");
	tap_is(err(npg_sys_execve_file(&w, 0, &suid_root)), 0, "a set-uid-root file inside");
	tap_is(w.tasks[0].cred.uid.eff, W, "its owner is unmapped: the bit is ignored");
}

/* new_idmap_permitted(), verify_root_map(), /proc/PID/setgroups: a writer that is no harness */
static void test_writers(void)
{
	struct npg_idmap own = map1(0, W, 1), root = map1(0, 0, 1), two = map1(0, W, 2);

	fresh("linux-6", 4);
	spawn(0, W, 8, 8);
	tap_is(err(npg_sys_unshare_user(&w, 0, 1, NULL, NULL)), 0, "unshare, no maps");
	tap_is(err(npg_sys_write_idmap(&w, 0, 0, false, &two)), EPERM, "two ids: EPERM");
	tap_is(err(npg_sys_write_idmap(&w, 0, 0, false, &root)), EPERM,
	       "lower id 0 without the creator's CAP_SETFCAP: EPERM");
	tap_is(err(npg_sys_write_idmap(&w, 0, 0, false, &own)), 0, "its own euid: ok");
	tap_is(err(npg_sys_write_idmap(&w, 0, 0, false, &own)), EPERM, "a second write: EPERM");
	tap_is(err(npg_sys_write_idmap(&w, 0, 0, true, &own)), EPERM, "gid_map, setgroups allowed: EPERM");
	tap_is(err(npg_sys_write_setgroups(&w, 0, 0, false)), 0, "deny");
	tap_is(err(npg_sys_write_idmap(&w, 0, 0, true, &own)), 0, "then gid_map: ok");
	tap_is(err(npg_sys_write_setgroups(&w, 0, 0, true)), EPERM, "allow after deny: EPERM");
	tap_is(err(npg_sys_setgroups(&w, 0, 0, NULL)), EPERM, "setgroups() denied inside");
	tap_is(err(npg_sys_unshare_user(&w, 0, 2, NULL, NULL)), 0, "a nested namespace...");
	tap_ok(!w.userns[2].setgroups_allowed, "... inherits the deny");
	/* before 5.12 (no verify_root_map()) mapping uid 0 needs no CAP_SETFCAP */
	fresh("linux-3.1", 4);
	spawn(0, 0, 8, 8);
	w.tasks[0].cred.cap_effective &= ~NPG_CAP(31);
	npg_sys_unshare_user(&w, 0, 1, NULL, NULL);
	w.rules.userns_map_root_setfcap = false;
	tap_is(err(npg_sys_write_idmap(&w, 0, 0, false, &root)), 0,
	       "before 5.12 root maps uid 0 without CAP_SETFCAP");
	/* a root creator with CAP_SETFCAP maps 0 from inside since 5.12 */
	fresh("linux-6", 4);
	spawn(0, 0, 8, 8);
	npg_sys_unshare_user(&w, 0, 1, NULL, NULL);
	tap_is(err(npg_sys_write_idmap(&w, 0, 0, false, &root)), 0,
	       "parent_could_setfcap: root maps uid 0 from inside");
	/* the writer's namespace must be the map's or its parent */
	fresh("linux-6", 4);
	spawn(0, W, 8, 8);
	spawn(1, W, 8, 8);
	npg_sys_unshare_user(&w, 0, 1, NULL, NULL);
	npg_sys_unshare_user(&w, 1, 2, &own, NULL);
	tap_is(err(npg_sys_write_idmap(&w, 1, 0, false, &own)), EPERM, "a sibling namespace: EPERM");
	tap_is(err(npg_sys_write_idmap(&w, 1, 1, true, &own)), EPERM, "the initial one's: EPERM");
}

/* clone(CLONE_NEWUSER), setns(), user.max_user_namespaces */
static void test_clone_setns_max(void)
{
	struct npg_idmap own = map1(0, W, 1);

	fresh("linux-6", 6);
	spawn(0, W, 3, 8);
	npg_sys_fork(&w, 0, 1, true);
	tap_is(err(npg_sys_unshare_user(&w, 0, 1, NULL, NULL)), EINVAL, "threads: unshare EINVAL");
	tap_is(err(npg_sys_clone_user(&w, 0, 2, 1, &own, &own)), 0, "clone is fine");
	tap_is(w.tasks[2].cred.userns, 1, "the child is in the new namespace");
	tap_is(w.tasks[0].cred.userns, 0, "the parent is not");
	tap_is(npg_count_in(&w, 1, W), 1, "the child counts inside");
	tap_is(npg_count_of(&w, W), 3, "and for W outside (thread, parent, child)");
	tap_is(err(npg_sys_clone_user(&w, 0, 3, 2, NULL, NULL)), EAGAIN,
	       "the parent's test: 3 of 3, EAGAIN before any namespace");
	tap_ok(!w.userns[2].exists, "no namespace made");
	tap_is(err(npg_sys_setns_user(&w, 0, 1)), EINVAL, "setns with threads: EINVAL");
	npg_sys_exit(&w, 1, 0);
	tap_is(err(npg_sys_setns_user(&w, 0, 1)), 0, "the owner joins from outside");
	tap_is(err(npg_sys_setns_user(&w, 0, 1)), EINVAL, "its own namespace: EINVAL");
	tap_is(err(npg_sys_setns_user(&w, 0, 5)), EBADF, "a namespace never made: EBADF");
	tap_is(npg_count_in(&w, 1, W), 2, "both count inside now");
	/* max_user_namespaces, inside: the owner is root there */
	tap_is(err(npg_sys_max_user_namespaces(&w, 2, 0)), 0, "root inside sets its own");
	tap_is(err(npg_sys_unshare_user(&w, 2, 3, NULL, NULL)), ENOSPC, "0: ENOSPC");
	tap_is(err(npg_sys_max_user_namespaces(&w, 2, 1)), 0, "1");
	tap_is(err(npg_sys_unshare_user(&w, 2, 4, NULL, NULL)), 0, "one namespace below");
	spawn(5, W, 8, 8);
	w.tasks[5].cred.cap_effective = 0;
	tap_is(err(npg_sys_max_user_namespaces(&w, 5, 9)), EACCES, "no CAP_SYS_RESOURCE: EACCES");
	w.rules.userns_max_sysctl = false;
	tap_is(err(npg_sys_max_user_namespaces(&w, 2, 9)), ENOENT, "before 4.9: no such file");

	/*
	 * 5.17+: copy_creds() makes the child's namespace before the test,
	 * which then reads the child's chain -- (the new namespace, its ruid),
	 * then (the parent namespace, the creator's euid); 5.14 and before
	 * test the parent's own count first (found by conform --random, 6.18)
	 */
	fresh("linux-6", 4);
	npg_count_add(&w, W, 2);
	spawn(0, W, 3, 3);	/* W at 3 of 3 */
	w.tasks[0].cred.uid.eff = w.tasks[0].cred.uid.saved = w.tasks[0].cred.uid.fs = V;
	tap_is(err(npg_sys_clone_user(&w, 0, 1, 1, NULL, NULL)), 0,
	       "linux-6: W at its limit, the namespace owned by euid V: the child counts for V");
	tap_is(npg_count_of(&w, V), 1, "V's count outside has the child");
	tap_is(npg_count_of(&w, W), 3, "W's does not");
	fresh("linux-6", 4);
	npg_count_add(&w, W, 2);
	spawn(0, W, 3, 3);
	tap_is(err(npg_sys_clone_user(&w, 0, 1, 1, NULL, NULL)), EAGAIN,
	       "linux-6: owned by W at 3 of 3: (initial, W) would be 4 > 3");
	tap_ok(!w.userns[1].exists, "the failed clone leaves no namespace");
	tap_is(w.tasks[1].state, NPG_TASK_ABSENT, "nor a child");
	fresh("linux-5.14", 4);
	npg_count_add(&w, W, 2);
	spawn(0, W, 3, 3);
	w.tasks[0].cred.uid.eff = w.tasks[0].cred.uid.saved = w.tasks[0].cred.uid.fs = V;
	w.tasks[0].cred.charged_to = W;
	tap_is(err(npg_sys_clone_user(&w, 0, 1, 1, NULL, NULL)), 0,
	       "linux-5.14: the parent's own count, 3 > 3 is not over: ok");
	fresh("linux-6", 4);
	spawn(0, W, 1, 1);	/* W at 1 of 1: a fork would fail */
	tap_is(err(npg_sys_unshare_user(&w, 0, 1, NULL, NULL)), 0, "unshare, no maps");
	tap_is(err(npg_sys_clone_user(&w, 0, 1, 2, NULL, NULL)), EPERM,
	       "linux-6: an unmapped euid is EPERM before the limit's EAGAIN");
	tap_ok(!w.userns[2].exists, "and no namespace is left");
	fresh("linux-3.1", 4);
	spawn(0, W, 1, 1);
	npg_sys_unshare_user(&w, 0, 1, NULL, NULL);
	tap_is(err(npg_sys_clone_user(&w, 0, 1, 2, NULL, NULL)), EAGAIN,
	       "linux-3.1: the limit's EAGAIN comes first");
}

int main(void)
{
	test_chain_limit();
	test_no_exemption_inside();
	test_one_count_per_uid();
	test_root_creator();
	test_5_14_key();
	test_ids();
	test_unshare_failures();
	test_cap_capable();
	test_exec();
	test_writers();
	test_clone_setns_max();
	npg_world_free(&w);
	return tap_done();
}
