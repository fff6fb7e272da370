/*
 * The user namespaces of 2.6.39-3.4, at their boundaries (3.0's
 * kernel/fork.c do_fork() and copy_process(), kernel/cred.c copy_creds(),
 * kernel/user_namespace.c create_user_ns(), kernel/user.c alloc_uid(),
 * security/commoncap.c cap_capable(), kernel/signal.c kill_ok_by_cred(),
 * kernel/sys.c check_prlimit_permission()): who may make one, the child
 * uid 0 charged to the namespace's own root user_struct, counts per
 * (namespace, uid), ids compared only within a namespace, the creator's
 * rights, and the calls of 3.8 that do not exist yet.
 */
#include <errno.h>
#include <signal.h>

#include "model/policy.h"
#include "model/release.h"
#include "tap.h"
#include "world.h"

#define W 1000		/* a user of the initial namespace */

static void spawn(int idx, npg_id uid, uint64_t caps, uint64_t soft)
{
	struct npg_cred c = { 0 };

	c.uid = (struct npg_ids){ uid, uid, uid, uid };
	c.gid = (struct npg_ids){ uid, uid, uid, uid };
	c.ngroups = 1;
	c.groups[0] = 27;
	c.cap_bset = NPG_CAP_ALL;
	c.cap_permitted = c.cap_effective = caps;
	npg_task_spawn(&w, idx, &c, soft, 64);
}

static int clone_user(int t, int child, int ns)
{
	return err(npg_sys_clone_user(&w, t, child, ns, NULL, NULL));
}

/* do_fork(): CAP_SYS_ADMIN, CAP_SETUID and CAP_SETGID by capable() */
static void test_who_may_create(void)
{
	uint64_t three = NPG_CAP(NPG_CAP_SYS_ADMIN) | NPG_CAP(NPG_CAP_SETUID) |
			 NPG_CAP(NPG_CAP_SETGID);

	fresh("linux-2.6", 4);
	spawn(0, W, 0, 64);
	tap_is(clone_user(0, 1, 1), EPERM, "a user without capabilities: EPERM");
	tap_is(w.tasks[1].state, NPG_TASK_ABSENT, "and no child");
	tap_is(npg_count_of(&w, W), 1, "nothing charged");
	fresh("linux-2.6", 4);
	spawn(0, W, three & ~NPG_CAP(NPG_CAP_SETGID), 64);
	tap_is(clone_user(0, 1, 1), EPERM, "CAP_SYS_ADMIN and CAP_SETUID without CAP_SETGID: EPERM");
	fresh("linux-2.6", 4);
	spawn(0, W, three, 64);
	tap_is(clone_user(0, 1, 1), 0, "a user with the three: made");
	tap_is(w.userns[1].owner, W, "its creator: the user_struct of W");
	/* a task inside holds every capability -- of its own namespace only */
	tap_is(clone_user(1, 2, 2), EPERM, "the child's own capabilities are not capable()'s");
	tap_is(err(npg_sys_unshare_user(&w, 0, 3, NULL, NULL)), EINVAL,
	       "unshare(CLONE_NEWUSER): EINVAL before 3.8");
}

/* create_user_ns(): uid 0 and gid 0 everywhere, no groups, the parent's capabilities */
static void test_child_credentials(void)
{
	const struct npg_cred *c;

	fresh("linux-2.6", 4);
	spawn(0, 0, NPG_CAP_ALL, 64);
	tap_is(clone_user(0, 1, 1), 0, "root clones into a new namespace");
	c = &w.tasks[1].cred;
	tap_ok(c->uid.real == 0 && c->uid.eff == 0 && c->uid.saved == 0 && c->uid.fs == 0 &&
	       c->gid.real == 0 && c->gid.eff == 0 && c->gid.saved == 0 && c->gid.fs == 0,
	       "the child is uid 0 and gid 0 in it");
	tap_is(c->ngroups, 0, "init_groups: no supplementary group");
	tap_ok(c->cap_effective == NPG_CAP_ALL && c->cap_permitted == NPG_CAP_ALL,
	       "the capabilities are the parent's");
	tap_is(c->userns, 1, "in namespace 1");
	fresh("linux-2.6", 4);
	spawn(0, W, NPG_CAP_ALL, 64);
	clone_user(0, 1, 1);
	tap_is(w.tasks[1].cred.uid.real, 0, "a user's child is uid 0 there too (no map to ask)");
	tap_ok(npg_ns_capable(&w, &w.tasks[1], 1, NPG_CAP_SYS_ADMIN),
	       "with every capability over its namespace");
	tap_ok(!npg_capable(&w.tasks[1], NPG_CAP_SYS_ADMIN), "none over the initial one");
}

/* alloc_uid(ns, uid): each namespace its own user_structs, root's included */
static void test_counts_per_namespace(void)
{
	fresh("linux-2.6", 8);
	spawn(0, 0, NPG_CAP_ALL, 2);
	tap_is(clone_user(0, 1, 1), 0, "root, soft limit 2, clones");
	tap_is(npg_count_in(&w, 1, 0), 1, "the child counts for root of the new namespace");
	tap_is(npg_count_of(&w, 0), 1, "not for root of the initial one");
	/* copy_process(): "p->real_cred->user != INIT_USER" and capable() fail inside */
	tap_is(err(npg_sys_fork(&w, 1, 2, false)), 0, "fork inside: 1 < 2");
	tap_is(err(npg_sys_fork(&w, 1, 3, false)), EAGAIN,
	       "fork inside: 2 >= 2, root there is not INIT_USER and capable() fails");
	tap_is(err(npg_sys_fork(&w, 0, 4, false)), 0, "root outside is INIT_USER: exempt");
	/* set*uid inside charges (1, W), not W */
	tap_is(err(npg_sys_setuid(&w, 2, false, W)), 0, "setuid(W) inside, own CAP_SETUID");
	tap_is(npg_count_in(&w, 1, W), 1, "W in namespace 1 has it");
	tap_is(npg_count_of(&w, W), 0, "W outside has nothing");
	tap_is(npg_count_in(&w, 1, 0), 1, "root inside is back to one");
	/* set_user() before 3.1: the namespace's W at the limit fails */
	tap_is(err(npg_sys_fork(&w, 1, 5, false)), 0, "another fork inside");
	tap_is(err(npg_sys_setuid(&w, 5, false, W)), 0, "setuid(W): 1 < 2");
	tap_is(err(npg_sys_fork(&w, 1, 6, false)), 0, "and another");
	tap_is(err(npg_sys_setuid(&w, 6, false, W)), EAGAIN, "setuid(W): (1, W) has 2 >= 2");
	tap_is(err(npg_sys_setuid(&w, 6, false, 0)), 0, "setuid(0) to its own uid: no set_user()");
	/* the uid of the initial namespace at its limit does not matter inside */
	npg_count_add(&w, 2000, 5);
	tap_is(err(npg_sys_setuid(&w, 6, false, 2000)), 0, "2000 outside has 5: inside it has 0");
}

/* the flag of 3.1-3.4: set_user() and execve() read the namespace's user_struct */
static void test_flag_3_1(void)
{
	struct npg_release r;

	fresh("linux-3.1", 6);
	tap_ok(npg_release_parse(&r, "3.4.0", NULL) == 0, "3.4 parses");
	w.rules.userns_idmaps = r.rules.userns_idmaps;
	spawn(0, 0, NPG_CAP_ALL, 2);
	tap_is(clone_user(0, 1, 1), 0, "root, soft limit 2, clones");
	tap_is(err(npg_sys_fork(&w, 1, 2, false)), 0, "fork inside: 1 < 2");
	tap_is(err(npg_sys_fork(&w, 1, 3, false)), EAGAIN, "fork inside: 2 >= 2");
	tap_is(err(npg_sys_setresuid(&w, 2, false, W, W, 0)), 0, "setresuid(W, W, 0) inside");
	tap_ok(!w.tasks[2].nproc_exceeded, "(1, W) had 0 < 2: not flagged");
	tap_is(err(npg_sys_prlimit(&w, 2, 2, 1, 1)), 0, "its own soft limit down to 1");
	tap_is(err(npg_sys_capset(&w, 2, w.tasks[2].cred.cap_permitted,
				  w.tasks[2].cred.cap_permitted, 0)), 0,
	       "the saved uid 0 kept the permitted set: raised again");
	tap_is(err(npg_sys_setuid(&w, 2, false, 0)), 0, "setuid(0) never fails in 3.1");
	tap_ok(w.tasks[2].nproc_exceeded, "(1, 0) had 1 >= 1 and is not INIT_USER: flagged");
	tap_is(err(npg_sys_execve(&w, 2)), EAGAIN, "execve: (1, 0) has 2 > 1");
	tap_is(npg_count_of(&w, 0), 1, "root of the initial namespace: its own task alone");
}

/* ids compare only within one namespace; the creator holds everything below */
static void test_across_namespaces(void)
{
	fresh("linux-2.6", 6);
	spawn(0, 0, NPG_CAP_ALL, 64);
	spawn(1, W, 0, 64);
	spawn(2, 0, 0, 64);		/* root without capabilities */
	clone_user(0, 3, 1);
	tap_is(err(npg_sys_setresuid(&w, 3, false, W, W, W)), 0, "inside: setresuid(W, W, W)");
	tap_is(err(npg_sys_kill(&w, 1, 3, 0)), EPERM,
	       "W outside may not signal W inside: \"cred->user->user_ns == tcred->user->user_ns\"");
	tap_is(err(npg_sys_kill(&w, 3, 1, 0)), EPERM, "nor W inside W outside");
	tap_is(err(npg_sys_prlimit(&w, 1, 3, 4, 8)), EPERM, "prlimit: the same");
	tap_is(err(npg_sys_kill(&w, 2, 3, 0)), 0,
	       "root without capabilities is the creator (its user_struct): every capability below");
	tap_is(err(npg_sys_prlimit(&w, 2, 3, 4, 8)), 0, "prlimit by the creator");
	tap_is(err(npg_sys_kill(&w, 3, 2, 0)), EPERM, "inside, nothing over the initial namespace");
	tap_is(err(npg_sys_fork(&w, 3, 4, false)), 0, "W inside forks");
	tap_is(err(npg_sys_kill(&w, 4, 3, 0)), 0, "W and W of one namespace: allowed");
}

/* the 3.8 interfaces: no files, no descriptor; a clone's maps cannot be written */
static void test_no_3_8_interfaces(void)
{
	struct npg_idmap m = { .nr = 1, .extent = { { 0, W, 1 } } };

	fresh("linux-2.6", 4);
	spawn(0, 0, NPG_CAP_ALL, 64);
	tap_is(err(npg_sys_setns_user(&w, 0, 1)), EBADF, "setns into a namespace never made: EBADF");
	spawn(2, W, 0, 64);
	tap_is(err(npg_sys_setns_user(&w, 2, 1)), EPERM,
	       "3.0's setns() asks capable(CAP_SYS_ADMIN) before the descriptor: EPERM");
	tap_is(err(npg_sys_clone_user(&w, 0, 1, 1, &m, &m)), ENOENT,
	       "clone with maps: no /proc/PID/uid_map, ENOENT");
	tap_is(w.tasks[1].state, NPG_TASK_RUNNING, "the child exists all the same");
	tap_is(w.tasks[1].cred.uid.real, 0, "unmapped: uid 0 of its namespace");
	tap_is(err(npg_sys_setns_user(&w, 0, 1)), ENOENT, "setns: no /proc/PID/ns/user before 3.8");
	tap_is(err(npg_sys_write_idmap(&w, 0, 1, false, &m)), ENOENT, "writing uid_map: ENOENT");
	tap_is(err(npg_sys_write_setgroups(&w, 0, 1, false)), ENOENT, "writing setgroups: ENOENT");
}

/* cap_bprm_set_creds(): uid 0 is the namespace's, compared raw */
static void test_exec_inside(void)
{
	fresh("linux-2.6", 4);
	spawn(0, 0, NPG_CAP_ALL, 64);
	clone_user(0, 1, 1);
	tap_is(err(npg_sys_capset(&w, 1, 0, 0, 0)), 0, "the child drops every capability");
	tap_is(err(npg_sys_execve(&w, 1)), 0, "and execs as uid 0 of its namespace");
	tap_ok(w.tasks[1].cred.cap_permitted == NPG_CAP_ALL,
	       "\"new->euid == 0 || new->uid == 0\": the bounding set again");
	tap_ok(!npg_capable(&w.tasks[1], NPG_CAP_SYS_ADMIN), "still nothing outside");
}

int main(void)
{
	test_who_may_create();
	test_child_credentials();
	test_counts_per_namespace();
	test_flag_3_1();
	test_across_namespaces();
	test_no_3_8_interfaces();
	test_exec_inside();
	npg_world_free(&w);
	return tap_done();
}
