/*
 * Every policy decision at N = L-1, L, L+1: copy_process(), set_user() (and
 * its flag), execve(), and what a successful fork does to the flag. The
 * expected values are the kernel-rules.md table, row by row.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "model/policy.h"
#include "tap.h"

#define L 3
#define WWW 1000
#define OTHER 2000

enum { OK = 0, AGAIN = EAGAIN, KILL = -SIGSEGV };

static struct npg_cred cred_of(npg_id uid, uint64_t caps)
{
	struct npg_cred c = { 0 };

	c.uid = (struct npg_ids){ uid, uid, uid, uid };
	c.gid = (struct npg_ids){ uid, uid, uid, uid };
	c.cap_bset = NPG_CAP_ALL;
	c.cap_permitted = c.cap_effective = caps;
	c.charged_to = uid;
	return c;
}

/* task 0 acts; the user it will meet already has @n tasks in all */
static void world(struct npg_world *w, const struct npg_policy *p, npg_id uid, uint64_t caps)
{
	struct npg_cred c = cred_of(uid, caps);

	npg_world_init(w, p, 4);
	npg_task_spawn(w, 0, &c, L, L);
}

static int code(struct npg_result r)
{
	if (r.kind == NPG_R_KILLED)
		return -(int)r.value;
	return r.kind == NPG_R_ERRNO ? (int)r.value : 0;
}

static const struct npg_policy *P(const char *name)
{
	return npg_policy_find(name);
}

/* fork by an unprivileged task whose user has n tasks (itself included) */
static void test_fork(const char *name, const int want[3], const char *rule)
{
	for (int i = 0; i < 3; i++) {
		long n = L - 1 + i;
		struct npg_world w;

		world(&w, P(name), WWW, 0);
		npg_count_add(&w, WWW, n - 1);
		tap_is(code(npg_sys_fork(&w, 0, 1, false)), want[i],
		       "%s: fork by an unprivileged user at N=%ld, L=%d: %s", name, n, L, rule);
		npg_world_free(&w);
	}
}

/* fork with the count at L+1: who is exempt */
static void test_fork_exempt(const char *name, int cap, npg_id uid, int want, const char *who)
{
	struct npg_world w;

	world(&w, P(name), uid, cap >= 0 ? NPG_CAP(cap) : 0);
	npg_count_add(&w, uid, L);
	tap_is(code(npg_sys_fork(&w, 0, 1, false)), want, "%s: fork over the limit by %s", name, who);
	npg_world_free(&w);
}

/* a root daemon (all capabilities) calls setuid(www); www has n tasks */
static void test_set_user(const char *name, const int want[3], const bool flag[3])
{
	for (int i = 0; i < 3; i++) {
		long n = L - 1 + i;
		struct npg_world w;
		int got;

		world(&w, P(name), 0, NPG_CAP_ALL);
		npg_count_add(&w, WWW, n);
		got = code(npg_sys_setuid(&w, 0, false, WWW));
		tap_is(got, want[i], "%s: root setuid() to a user with N=%ld, L=%d", name, n, L);
		tap_ok(w.tasks[0].nproc_exceeded == flag[i], "%s: flag after it is %s", name,
		       flag[i] ? "set" : "clear");
		if (got == 0)
			tap_is(npg_count_of(&w, WWW), n + 1, "%s: the caller moved to the new user's count",
			       name);
		npg_world_free(&w);
	}
}

/* execve by a www task with the flag set; www has n tasks (it included) */
static void test_execve(const char *name, bool flagged, const int want[3])
{
	for (int i = 0; i < 3; i++) {
		long n = L - 1 + i;
		struct npg_world w;
		int got;

		world(&w, P(name), WWW, 0);
		npg_count_add(&w, WWW, n - 1);
		w.tasks[0].nproc_exceeded = flagged;
		got = code(npg_sys_execve(&w, 0));
		tap_is(got, want[i], "%s: execve %s at N=%ld, L=%d", name,
		       flagged ? "with the flag" : "without the flag", n, L);
		npg_world_free(&w);
	}
}

/*
 * execve of a missing file by the same task: the policy's test first (its
 * EAGAIN wins), else ENOENT -- with the flag cleared where the test clears
 * it -- and nothing of the exec (credentials, other threads) happens.
 */
static void test_execve_missing(const char *name, bool flagged, const int want[3])
{
	const struct npg_exec_file missing = { .missing = true };

	for (int i = 0; i < 3; i++) {
		long n = L - 1 + i;
		struct npg_world w;
		int got;

		world(&w, P(name), WWW, 0);
		npg_count_add(&w, WWW, n - 1);
		w.tasks[0].nproc_exceeded = flagged;
		w.tasks[0].cred.uid.saved = OTHER;
		got = code(npg_sys_execve_file(&w, 0, &missing));
		tap_is(got, want[i] ? want[i] : ENOENT, "%s: execve of a missing file %s at N=%ld, L=%d",
		       name, flagged ? "with the flag" : "without the flag", n, L);
		if (P(name)->has_flag && strcmp(name, "brown-flag-2011") != 0)
			tap_ok(w.tasks[0].nproc_exceeded == (want[i] == AGAIN),
			       "%s: ... the flag is %s", name, want[i] == AGAIN ? "kept" : "cleared");
		tap_is(w.tasks[0].cred.uid.saved, OTHER, "%s: ... the credentials are untouched", name);
		npg_world_free(&w);
	}
}

static struct npg_result raw_setuid_www(struct npg_world *w, int t, const void *arg)
{
	(void)arg;
	return npg_sys_setuid(w, t, false, WWW);
}

/*
 * glibc's setuid() from the leader of a process with 2 extra threads, www
 * already at K: the i-th thread to switch (the newest thread first, the
 * caller last) meets K + i, and is flagged iff K + i > L (linux-6) or
 * K + i >= L (linux-3.1).
 */
static void test_glibc_setuid(const char *name, bool strictly_over)
{
	for (long k = L - 2; k <= L; k++) {
		struct npg_world w;
		int order[4];
		struct npg_result r;

		world(&w, P(name), 0, NPG_CAP_ALL);
		npg_sys_fork(&w, 0, 1, true);
		npg_sys_fork(&w, 0, 2, true);
		npg_count_add(&w, WWW, k);
		r = npg_glibc_setxid(&w, 0, order, raw_setuid_www, NULL);
		tap_is(r.kind, NPG_R_OK, "%s: glibc setuid with K=%ld, L=%d", name, k, L);
		tap_ok(order[0] == 2 && order[1] == 1 && order[2] == 0,
		       "%s: ... newest thread first, the caller last", name);
		for (int i = 0; i < 3; i++) {
			bool want = strictly_over ? k + i > L : k + i >= L;

			tap_ok(w.tasks[order[i]].nproc_exceeded == want,
			       "%s: ... thread %d to switch meets %ld: flag %s", name, i, k + i,
			       want ? "set" : "clear");
		}
		tap_is(npg_count_of(&w, WWW), k + 3, "%s: ... all three moved to www", name);
		npg_world_free(&w);
	}
}

/*
 * vfork is fork's copy_process(): the same result at every N; the parent
 * then waits until the child execs (even a failed exec keeps it waiting)
 * or exits.
 */
static void test_vfork(const char *name)
{
	for (int i = 0; i < 3; i++) {
		long n = L - 1 + i;
		struct npg_world wf, wv;
		int f, v;

		world(&wf, P(name), WWW, 0);
		world(&wv, P(name), WWW, 0);
		npg_count_add(&wf, WWW, n - 1);
		npg_count_add(&wv, WWW, n - 1);
		f = code(npg_sys_fork(&wf, 0, 1, false));
		v = code(npg_sys_vfork(&wv, 0, 1));
		tap_ok(f == v && npg_count_of(&wf, WWW) == npg_count_of(&wv, WWW),
		       "%s: vfork at N=%ld, L=%d returns and charges as fork", name, n, L);
		tap_ok(npg_vfork_waiting(&wv, 0) == (v == 0),
		       "%s: N=%ld: the parent waits in vfork() iff the child was made", name, n);
		npg_world_free(&wf);
		npg_world_free(&wv);
	}
}

static void test_vfork_release(const char *name)
{
	struct npg_world w;
	static const struct npg_exec_file missing = { .missing = true };

	world(&w, P(name), WWW, 0);
	npg_sys_vfork(&w, 0, 1);
	npg_sys_execve_file(&w, 1, &missing);
	tap_ok(npg_vfork_waiting(&w, 0), "%s: a failed execve of the child keeps the parent waiting",
	       name);
	npg_sys_execve(&w, 1);
	tap_ok(!npg_vfork_waiting(&w, 0), "%s: the child's execve releases the parent", name);
	npg_sys_vfork(&w, 0, 2);
	npg_sys_exit(&w, 2, 127);
	tap_ok(!npg_vfork_waiting(&w, 0), "%s: the child's exit releases the parent", name);
	npg_world_free(&w);
}

/*
 * ow-2006: a vfork() child killed at its setuid() by SIGSEGV, a core-dumping
 * signal: before 5.16 zap_threads() kills every process of the mm, its
 * parent asleep in vfork() too, with the same signal -- unless the mm is
 * not dumpable (do_coredump() gives up first); from 5.16 (0258b5fd7c71)
 * the child's group alone
 */
static void test_coredump_zaps_mm(int dumpable, bool one_group, bool parent_dies)
{
	struct npg_world w;
	struct npg_cred root = cred_of(0, NPG_CAP_ALL);

	npg_world_init(&w, P("ow-2006"), 4);
	npg_task_spawn(&w, 0, &root, 100, 100);
	w.rules.coredump_one_group = one_group;
	npg_set_dumpable(&w, 0, dumpable);
	npg_sys_vfork(&w, 0, 1);
	w.tasks[1].nproc_cur = w.tasks[1].nproc_max = L;
	npg_count_add(&w, WWW, L);
	tap_is(code(npg_sys_setuid(&w, 1, false, WWW)), KILL, "ow-2006: the vfork() child's setuid kills it");
	tap_ok(npg_alive(&w.tasks[0]) == !parent_dies &&
	       (!parent_dies || w.tasks[0].exit_signal == SIGSEGV),
	       "ow-2006, mm dumpable %d, %s: the parent asleep in vfork() %s", dumpable,
	       one_group ? "5.16+" : "before 5.16", parent_dies ? "dies of SIGSEGV too" : "lives");
	npg_world_free(&w);
}

static void test_fork_clears_flag(const char *name, bool parent_cleared)
{
	struct npg_world w;

	world(&w, P(name), WWW, 0);
	w.tasks[0].nproc_exceeded = true;
	npg_sys_fork(&w, 0, 1, false);
	tap_ok(w.tasks[1].nproc_exceeded, "%s: the child inherits the flag (dup_task_struct)", name);
	tap_ok(w.tasks[0].nproc_exceeded == !parent_cleared, "%s: a successful fork %s the parent's flag",
	       name, parent_cleared ? "clears" : "keeps");
	npg_world_free(&w);
}

int main(void)
{
	static const int fork_ge[3] = { OK, AGAIN, AGAIN }, fork_gt[3] = { OK, OK, AGAIN };
	static const int all_ok[3] = { OK, OK, OK };
	static const int su_fail[3] = { OK, AGAIN, AGAIN }, su_kill[3] = { OK, KILL, KILL };
	static const bool no_flag[3] = { false, false, false };
	static const bool flag_ge[3] = { false, true, true }, flag_gt[3] = { false, false, true };
	static const int exec_gt[3] = { OK, OK, AGAIN }, exec_always[3] = { AGAIN, AGAIN, AGAIN };

	/* copy_process(): N >= L fails everywhere but 5.14-5.16 (N > L) */
	test_fork("linux-2.4", fork_ge, "N >= L");
	test_fork("linux-2.6", fork_ge, "N >= L");
	test_fork("ow-2006", fork_ge, "N >= L");
	test_fork("kulikov-2011", fork_ge, "N >= L");
	test_fork("brown-flag-2011", fork_ge, "N >= L");
	test_fork("linux-3.1", fork_ge, "N >= L");
	test_fork("linux-5.14", fork_gt, "N > L, tested before the child is charged");
	test_fork("linux-6", fork_ge, "N+1 > L, the child already charged");

	for (int i = 0; npg_policies[i]; i++) {
		const char *name = npg_policies[i]->name;
		bool root_exempt = strcmp(name, "linux-2.4") != 0;

		test_fork_exempt(name, NPG_CAP_SYS_RESOURCE, WWW, OK, "a task with CAP_SYS_RESOURCE");
		test_fork_exempt(name, NPG_CAP_SYS_ADMIN, WWW, OK, "a task with CAP_SYS_ADMIN");
		test_fork_exempt(name, NPG_CAP_SETUID, WWW, AGAIN, "a task with only CAP_SETUID");
		test_fork_exempt(name, -1, 0, root_exempt ? OK : AGAIN,
				 "the root user without capabilities");
	}

	for (int i = 0; npg_policies[i]; i++) {
		test_vfork(npg_policies[i]->name);
		test_vfork_release(npg_policies[i]->name);
	}

	/* set_user() */
	test_set_user("linux-2.4", all_ok, no_flag);
	test_set_user("linux-2.6", su_fail, no_flag);
	test_set_user("ow-2006", su_kill, no_flag);
	test_set_user("kulikov-2011", all_ok, no_flag);
	test_set_user("brown-flag-2011", all_ok, flag_ge);
	test_set_user("linux-3.1", all_ok, flag_ge);
	test_set_user("linux-5.14", all_ok, no_flag);	/* capable() of the old creds */
	test_set_user("linux-6", all_ok, flag_gt);

	/* execve() */
	test_execve("linux-2.4", true, all_ok);
	test_execve("linux-2.6", true, all_ok);
	test_execve("ow-2006", true, all_ok);
	test_execve("kulikov-2011", false, exec_gt);
	test_execve("brown-flag-2011", true, exec_always);
	test_execve("brown-flag-2011", false, all_ok);
	test_execve("linux-3.1", true, exec_gt);
	test_execve("linux-3.1", false, all_ok);
	test_execve("linux-5.14", true, exec_gt);
	test_execve("linux-6", true, exec_gt);
	test_execve("linux-6", false, all_ok);

	/* execve() of a missing file: the test comes before the lookup */
	test_execve_missing("linux-2.4", true, all_ok);
	test_execve_missing("linux-2.6", true, all_ok);
	test_execve_missing("kulikov-2011", false, exec_gt);
	test_execve_missing("brown-flag-2011", true, exec_always);
	test_execve_missing("linux-3.1", true, exec_gt);
	test_execve_missing("linux-5.14", true, exec_gt);
	test_execve_missing("linux-6", true, exec_gt);
	test_execve_missing("linux-6", false, all_ok);

	test_glibc_setuid("linux-6", true);
	test_glibc_setuid("linux-3.1", false);
	/* linux-2.6: a later thread fails where an earlier one switched: abort() */
	{
		struct npg_world w;
		int order[4];

		world(&w, P("linux-2.6"), 0, NPG_CAP_ALL);
		npg_sys_fork(&w, 0, 1, true);
		npg_count_add(&w, WWW, L - 1);
		tap_ok(npg_glibc_setxid(&w, 0, order, raw_setuid_www, NULL).kind == NPG_R_KILLED &&
		       w.tasks[0].exit_signal == SIGABRT,
		       "linux-2.6: glibc setuid that fails on the caller only: killed SIGABRT");
		npg_world_free(&w);
	}

	test_coredump_zaps_mm(1, false, true);
	test_coredump_zaps_mm(2, false, true);
	test_coredump_zaps_mm(0, false, false);
	test_coredump_zaps_mm(1, true, false);

	test_fork_clears_flag("brown-flag-2011", false);
	test_fork_clears_flag("linux-3.1", true);
	test_fork_clears_flag("linux-5.14", true);
	test_fork_clears_flag("linux-6", true);

	/* execve() that passes the re-check clears a stale flag (3.1+) */
	{
		struct npg_world w;

		world(&w, P("linux-3.1"), WWW, 0);
		w.tasks[0].nproc_exceeded = true;
		npg_sys_execve(&w, 0);
		tap_ok(!w.tasks[0].nproc_exceeded, "linux-3.1: an execve under the limit clears the flag");
		npg_world_free(&w);
	}

	/* 5.14-5.16: a non-root caller is flagged on its *own* old count */
	{
		struct npg_world w;

		world(&w, P("linux-5.14"), OTHER, NPG_CAP(NPG_CAP_SETUID));
		npg_count_add(&w, OTHER, L);	/* the caller's user is over L */
		npg_sys_setuid(&w, 0, false, WWW);	/* www has no task at all */
		tap_ok(w.tasks[0].nproc_exceeded,
		       "linux-5.14: set_user() tests the caller's old ucounts, not the new user's");
		npg_world_free(&w);
	}

	/* 5.14-5.16: ucounts follow the effective uid when the real one changes */
	{
		struct npg_world w;

		world(&w, P("linux-5.14"), 0, NPG_CAP_ALL);
		npg_sys_setreuid(&w, 0, false, WWW, 0);	/* real www, effective root */
		tap_is(npg_count_of(&w, 0), 1, "linux-5.14: setreuid(www, root) leaves the task charged to root");
		tap_is(npg_count_of(&w, WWW), 0, "linux-5.14: ... and www's count untouched");
		npg_world_free(&w);
		world(&w, P("linux-6"), 0, NPG_CAP_ALL);
		npg_sys_setreuid(&w, 0, false, WWW, 0);
		tap_is(npg_count_of(&w, WWW), 1, "linux-6: setreuid(www, root) charges www (the real uid)");
		npg_world_free(&w);
	}

	/* linux-6: a set*uid that keeps the ucounts leaves the flag alone */
	{
		struct npg_world w;

		world(&w, P("linux-6"), 0, NPG_CAP_ALL);
		w.tasks[0].nproc_exceeded = true;
		npg_sys_setresuid(&w, 0, false, NPG_ID_NONE, WWW, NPG_ID_NONE);
		tap_ok(w.tasks[0].nproc_exceeded, "linux-6: seteuid() does not touch the flag");
		npg_world_free(&w);
	}

	/* the release for ucounts and user_struct alike: a zombie counts */
	{
		struct npg_world w;

		world(&w, P("linux-6"), WWW, 0);
		npg_sys_fork(&w, 0, 1, false);
		npg_sys_exit(&w, 1, 0);
		tap_is(npg_count_of(&w, WWW), 2, "a zombie child still counts");
		npg_sys_wait(&w, 0, 1);
		tap_is(npg_count_of(&w, WWW), 1, "reaping it releases the count");
		npg_world_free(&w);
	}
	return tap_done();
}
