/*
 * audit and run agree on every trapped call. For each audit policy, each
 * caller (a table of credential states), each count of the users around
 * the limit and each sequence of one or two set*id calls, a scenario is
 * run on the model backend -- what `nprocguard run` does -- and before
 * every step the audit decision is asked about the same call, the caller
 * described only by what /proc would show of the model's task. linux-2.6
 * and ow-2006 must fail (or kill) exactly where the model's policy does;
 * always and once must fail only calls the kernel would allow, and every
 * privilege drop (once: the first).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "backend/backend.h"
#include "tools/audit/decide.h"
#include "tap.h"

#define WWW 1000u
#define OTHER 2000u
#define NONE 0xffffffffu

struct call {
	const char *step;	/* in the scenario language */
	const char *syscall;	/* as the audit filter traps it */
	uint64_t args[3];
};

static const struct call calls[] = {
	{ "setuid www", "setuid", { WWW } },
	{ "setuid root", "setuid", { 0 } },
	{ "seteuid www", "setresuid", { NONE, WWW, NONE } },	/* glibc's seteuid() */
	{ "seteuid root", "setresuid", { NONE, 0, NONE } },
	{ "setreuid www -1", "setreuid", { WWW, NONE } },	/* perl's $< = X */
	{ "setreuid -1 www", "setreuid", { NONE, WWW } },
	{ "setreuid www www", "setreuid", { WWW, WWW } },
	{ "setreuid other -1", "setreuid", { OTHER, NONE } },
	{ "setreuid root root", "setreuid", { 0, 0 } },
	{ "setresuid www www www", "setresuid", { WWW, WWW, WWW } },
	{ "setresuid -1 -1 www", "setresuid", { NONE, NONE, WWW } },
	{ "setresuid www -1 -1", "setresuid", { WWW, NONE, NONE } },
	{ "setresuid other www root", "setresuid", { OTHER, WWW, 0 } },
	{ "setfsuid www", "setfsuid", { WWW } },
	{ "setgid www", "setgid", { WWW } },
	{ "setresgid www www www", "setresgid", { WWW, WWW, WWW } },
	{ "setregid www -1", "setregid", { WWW, NONE } },
	{ "setgroups none", "setgroups", { 0, 0 } },
};
#define NCALLS ((int)(sizeof(calls) / sizeof(calls[0])))

/* callers: task declarations */
static const char *const states[] = {
	"uid root nproc 3 3",				/* a root daemon */
	"uid root",					/* ... without a limit */
	"uid root caps none nproc 3 3",			/* root that gave up its capabilities */
	"uid root euid www suid root nproc 3 3",	/* after seteuid(www): no effective caps */
	"uid www euid root suid root nproc 3 3",	/* a set-uid-root program */
	"uid www euid root suid www nproc 3 3",		/* ... that swapped real and effective */
	"uid other caps setuid,setgid nproc 3 3",	/* not root, but CAP_SETUID */
	"uid www nproc 3 3",				/* an ordinary user */
	"uid www euid other suid root nproc 3 3",
};
#define NSTATES ((int)(sizeof(states) / sizeof(states[0])))

static const char *const audit_names[] = {
	[NPG_AUDIT_ALWAYS] = "always", [NPG_AUDIT_ONCE] = "once",
	[NPG_AUDIT_LINUX_2_6] = "linux-2.6", [NPG_AUDIT_OW_2006] = "ow-2006",
};

/* The column of `run` each audit policy answers to: always and once fail
 * only what the kernel allows, and linux-2.4's set*id never fails */
static const struct npg_policy *model_of(enum npg_audit_policy p)
{
	switch (p) {
	case NPG_AUDIT_LINUX_2_6: return &npg_policy_linux_2_6;
	case NPG_AUDIT_OW_2006: return &npg_policy_ow_2006;
	default: return &npg_policy_linux_2_4;
	}
}

/* What /proc shows of the model's task: nothing the kernel keeps hidden */
static void caller_of(struct npg_backend *b, const struct npg_audit_call *call,
		      struct npg_audit_caller *c)
{
	struct npg_task t;
	npg_id uids[NPG_AUDIT_MAX_COUNTS];
	int n;

	b->ops->view(b, 0, &t);
	memset(c, 0, sizeof(*c));
	c->uid = t.cred.uid;
	c->gid = t.cred.gid;
	c->cap_effective = t.cred.cap_effective;
	c->cap_permitted = t.cred.cap_permitted;
	c->cap_bset = t.cred.cap_bset;
	c->nproc_cur = t.nproc_cur;
	c->nproc_max = t.nproc_max;
	c->nproc_exceeded = t.nproc_exceeded;
	n = npg_audit_count_uids(c, call, uids);
	for (int i = 0; i < n; i++)
		c->counts[i] = (struct npg_count){ .uid = uids[i], .count = b->ops->count(b, 0, uids[i]) };
	c->ncounts = n;
}

static bool privileged(const struct npg_cred *c)
{
	return c->uid.real == 0 || c->uid.eff == 0 || c->uid.saved == 0 ||
	       npg_cap_has(c->cap_effective, NPG_CAP_SETUID) ||
	       npg_cap_has(c->cap_effective, NPG_CAP_SETGID);
}

static bool moved_away(const struct npg_ids *b, const struct npg_ids *a)
{
	return (a->real != b->real && a->real) || (a->eff != b->eff && a->eff) ||
	       (a->saved != b->saved && a->saved) || (a->fs != b->fs && a->fs);
}

static int mismatches;

static void mismatch(const char *policy, const char *state, long procs, const char *steps,
		     const char *what)
{
	if (++mismatches <= 20)
		printf("#   %s, task d %s, procs %ld, %s: %s\n", policy, state, procs, steps, what);
}

/* One scenario: returns how many calls were compared */
static int check_sequence(enum npg_audit_policy p, int state, long procs, const int *seq, int len)
{
	char text[1024], steps[256] = "";
	struct npg_scenario *sc;
	struct npg_backend b;
	int n = 0, failed = 0, compared = 0;

	for (int i = 0; i < len; i++)
		n += snprintf(steps + n, sizeof(steps) - (size_t)n, "%s%s", i ? "; " : "",
			      calls[seq[i]].step);
	n = snprintf(text, sizeof(text), "user root 0\nuser www %u procs %ld\nuser other %u procs %ld\n"
		     "task d %s\n", WWW, procs, OTHER, procs, states[state]);
	for (int i = 0; i < len; i++)
		n += snprintf(text + n, sizeof(text) - (size_t)n, "d: %s\n", calls[seq[i]].step);
	sc = npg_scenario_parse("table", text, strlen(text), stderr);
	if (!sc) {
		mismatch(audit_names[p], states[state], procs, steps, "the scenario does not parse");
		return 0;
	}
	npg_model_backend_init(&b, model_of(p), NPG_CAP_ALL);
	if (b.ops->start(&b, sc) < 0) {
		mismatch(audit_names[p], states[state], procs, steps, b.error);
		goto out;
	}
	for (int i = 0; i < len; i++) {
		const struct call *k = &calls[seq[i]];
		struct npg_audit_call call;
		struct npg_audit_caller c;
		struct npg_audit_decision d;
		struct npg_task before, after;
		struct npg_result r;
		bool refused, want_refused;
		char what[160];

		if (!npg_audit_call_of(k->syscall, k->args, false, &call)) {
			mismatch(audit_names[p], states[state], procs, steps, "no call");
			break;
		}
		caller_of(&b, &call, &c);
		if (npg_audit_decide(p, NULL, failed, &c, &call, &d) < 0) {
			mismatch(audit_names[p], states[state], procs, steps, "decide failed");
			break;
		}
		b.ops->view(&b, 0, &before);
		r = b.ops->step(&b, &sc->stmts[i]);
		b.ops->view(&b, 0, &after);
		refused = d.action == NPG_AUDIT_FAIL || d.action == NPG_AUDIT_KILL;
		compared++;
		if (p == NPG_AUDIT_LINUX_2_6 || p == NPG_AUDIT_OW_2006) {
			bool killed = r.kind == NPG_R_KILLED && r.value == SIGSEGV;

			want_refused = killed || (r.kind == NPG_R_ERRNO && r.value == EAGAIN);
			if ((d.action == NPG_AUDIT_KILL) != killed || refused != want_refused) {
				snprintf(what, sizeof(what), "call %d: audit action %d, run kind %d value %ld",
					 i + 1, (int)d.action, (int)r.kind, r.value);
				mismatch(audit_names[p], states[state], procs, steps, what);
			}
		} else {
			const struct npg_ids *bi = call.gid ? &before.cred.gid : &before.cred.uid;
			const struct npg_ids *ai = call.gid ? &after.cred.gid : &after.cred.uid;
			bool allowed = r.kind == NPG_R_OK || r.kind == NPG_R_ID;
			bool drop = allowed && privileged(&before.cred) &&
				    (call.kind == NPG_CALL_SETGROUPS || moved_away(bi, ai));

			want_refused = drop && (p == NPG_AUDIT_ALWAYS || failed == 0);
			if (refused != want_refused ||
			    (d.action == NPG_AUDIT_ALLOW) != (drop && !want_refused)) {
				snprintf(what, sizeof(what), "call %d: audit action %d, run %s, a drop: %s",
					 i + 1, (int)d.action, allowed ? "allows it" : "refuses it",
					 drop ? "yes" : "no");
				mismatch(audit_names[p], states[state], procs, steps, what);
			}
		}
		if (refused && call.kind == NPG_CALL_SETFSUID &&
		    (!d.returns_id || d.id != (call.gid ? before.cred.gid.fs : before.cred.uid.fs)))
			mismatch(audit_names[p], states[state], procs, steps,
				 "a refused setfsuid must return the old fs id");
		if (refused)
			failed++;
		/* once audit refused a call the model let through, the program and the
		 * model part ways; a killed task runs nothing more */
		if (refused != want_refused || d.action == NPG_AUDIT_KILL ||
		    (refused && (r.kind == NPG_R_OK || r.kind == NPG_R_ID)))
			break;
	}
out:
	b.ops->stop(&b);
	npg_scenario_free(sc);
	return compared;
}

static void test_table(enum npg_audit_policy p)
{
	static const long procs[] = { 1, 2, 3, 4 };	/* L-2 .. L+1 for L = 3 */

	for (int s = 0; s < NSTATES; s++) {
		int before = mismatches, compared = 0;

		for (int k = 0; k < 4; k++)
			for (int a = 0; a < NCALLS; a++) {
				int one[1] = { a };

				compared += check_sequence(p, s, procs[k], one, 1);
				for (int b2 = 0; b2 < NCALLS; b2++) {
					int two[2] = { a, b2 };

					compared += check_sequence(p, s, procs[k], two, 2);
				}
			}
		tap_ok(mismatches == before && compared > 0,
		       "%s, task d %s: audit and run agree on %d calls", audit_names[p], states[s],
		       compared);
	}
}

/* The case: seteuid(www) then setreuid(www, -1) by root, www at 3 of 3 */
static void test_perl_drop(void)
{
	static const struct {
		npg_id ruid, euid, suid;
		uint64_t caps;
		const char *syscall;
		uint64_t args[3];
		enum npg_audit_action want;
	} steps[] = {
		{ 0, 0, 0, NPG_CAP_ALL, "setresuid", { NONE, WWW, NONE }, NPG_AUDIT_ALLOW },
		{ 0, WWW, 0, 0, "setreuid", { WWW, NONE }, NPG_AUDIT_FAIL },
	};

	for (int i = 0; i < 2; i++) {
		struct npg_audit_caller c = {
			.uid = { steps[i].ruid, steps[i].euid, steps[i].suid, steps[i].euid },
			.cap_effective = steps[i].caps, .cap_permitted = NPG_CAP_ALL,
			.cap_bset = NPG_CAP_ALL, .nproc_cur = 3, .nproc_max = 3, .ncounts = 2,
			.counts = { { 0, 1 }, { WWW, 3 } },
		};
		struct npg_audit_call call;
		struct npg_audit_decision d;

		npg_audit_call_of(steps[i].syscall, steps[i].args, false, &call);
		npg_audit_decide(NPG_AUDIT_LINUX_2_6, NULL, 0, &c, &call, &d);
		tap_is(d.action, steps[i].want, "linux-2.6: %s by uids %u %u %u, www at 3 of 3: %s",
		       i ? "setreuid(www, -1)" : "seteuid(www)", steps[i].ruid, steps[i].euid,
		       steps[i].suid, i ? "set_user() fails it" : "no real-uid change: allowed");
	}
}

static void test_call_of(void)
{
	struct npg_audit_call c;
	uint64_t a[3] = { 0xffff, 4000000000u, 0xffffffffu };

	tap_ok(npg_audit_call_of("setresuid", a, false, &c) && c.kind == NPG_CALL_SETRESUID &&
	       !c.gid && c.id[0] == 0xffff && c.id[1] == 4000000000u && c.id[2] == NPG_ID_NONE,
	       "setresuid: 32-bit ids, 0xffffffff is -1, ids above 2^31 kept");
	tap_ok(npg_audit_call_of("setresgid32", a, true, &c) && c.gid && c.id[0] == 0xffff &&
	       c.id[2] == NPG_ID_NONE, "i386 setresgid32: 32-bit ids");
	tap_ok(npg_audit_call_of("setuid", a, true, &c) && c.kind == NPG_CALL_SETUID &&
	       c.id[0] == NPG_ID_NONE, "i386 setuid (16-bit): 0xffff is -1");
	tap_ok(npg_audit_call_of("setgroups32", a, true, &c) && c.kind == NPG_CALL_SETGROUPS,
	       "setgroups32 is setgroups");
	tap_ok(!npg_audit_call_of("setsid", a, false, &c) && !npg_audit_call_of("openat", a, false, &c),
	       "other calls are not set*id calls");
}

int main(void)
{
	test_call_of();
	test_perl_drop();
	for (int p = NPG_AUDIT_ALWAYS; p <= NPG_AUDIT_OW_2006; p++)
		test_table((enum npg_audit_policy)p);
	return tap_done();
}
