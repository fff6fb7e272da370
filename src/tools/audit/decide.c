/*
 * The audit's decision on a trapped set*id call, asked of the model: the
 * permission rules (src/model/setid.c) say what the call would change and
 * whether that is a privilege drop; the policy's set_user() hook says
 * whether the era's kernel would fail it. Nothing here restates a rule.
 */
#include <errno.h>
#include <string.h>

#include "model/policy.h"
#include "tools/audit/decide.h"

bool npg_audit_call_of(const char *name, const uint64_t *args, bool legacy16,
		       struct npg_audit_call *out)
{
	static const struct {
		const char *base;
		enum npg_audit_call_kind kind;
		bool gid;
		int nids;
	} calls[] = {
		{ "setuid", NPG_CALL_SETUID, false, 1 }, { "setgid", NPG_CALL_SETUID, true, 1 },
		{ "setreuid", NPG_CALL_SETREUID, false, 2 }, { "setregid", NPG_CALL_SETREUID, true, 2 },
		{ "setresuid", NPG_CALL_SETRESUID, false, 3 },
		{ "setresgid", NPG_CALL_SETRESUID, true, 3 },
		{ "setfsuid", NPG_CALL_SETFSUID, false, 1 }, { "setfsgid", NPG_CALL_SETFSUID, true, 1 },
		{ "setgroups", NPG_CALL_SETGROUPS, true, 0 },
	};
	size_t len = strlen(name);
	/* i386 has a 16-bit and a 32-bit call of each (setuid16 is "setuid" there) */
	bool is32 = len > 2 && strcmp(name + len - 2, "32") == 0;
	bool narrow = legacy16 && !is32;

	if (is32)
		len -= 2;
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		if (strlen(calls[i].base) != len || strncmp(calls[i].base, name, len) != 0)
			continue;
		out->kind = calls[i].kind;
		out->gid = calls[i].gid;
		for (int k = 0; k < 3; k++) {
			/* uid_t is 32 bits: the kernel reads the low half of the register */
			uint32_t v = (uint32_t)args[k];

			if (k >= calls[i].nids)
				out->id[k] = NPG_ID_NONE;
			else if (narrow)	/* kernel/uid16.c: low2highuid() */
				out->id[k] = (uint16_t)v == 0xffff ? NPG_ID_NONE : (uint16_t)v;
			else
				out->id[k] = v;
		}
		return true;
	}
	return false;
}

static void add_uid(npg_id *uids, int *n, npg_id uid)
{
	if (uid == NPG_ID_NONE)
		return;
	for (int i = 0; i < *n; i++)
		if (uids[i] == uid)
			return;
	uids[(*n)++] = uid;
}

int npg_audit_count_uids(const struct npg_audit_caller *c, const struct npg_audit_call *call,
			 npg_id *uids)
{
	int n = 0;

	add_uid(uids, &n, c->uid.real);
	add_uid(uids, &n, c->uid.eff);	/* 5.14-5.16 keyed counts on it */
	if (!call->gid)
		for (int i = 0; i < 3; i++)
			add_uid(uids, &n, call->id[i]);
	return n;
}

bool npg_audit_policy_reads_counts(enum npg_audit_policy p)
{
	return p == NPG_AUDIT_LINUX_2_6 || p == NPG_AUDIT_OW_2006 || p == NPG_AUDIT_MODEL;
}

/* The caller as the only task of a model world, its users' counts as /proc gave them */
static int world_of(struct npg_world *w, const struct npg_policy *p,
		    const struct npg_audit_caller *c)
{
	struct npg_cred cred = { 0 };

	if (npg_world_init(w, p, 1) < 0)
		return -1;
	cred.uid = c->uid;
	cred.gid = c->gid;
	cred.cap_effective = c->cap_effective;
	cred.cap_permitted = c->cap_permitted;
	cred.cap_bset = c->cap_bset;
	/* npg_task_spawn() charges the caller to its real uid, as the kernel did */
	npg_task_spawn(w, 0, &cred, c->nproc_cur, c->nproc_max);
	w->tasks[0].nproc_exceeded = c->nproc_exceeded;
	for (int i = 0; i < c->ncounts; i++)
		npg_count_add(w, c->counts[i].uid,
			      c->counts[i].count - (c->counts[i].uid == cred.uid.real ? 1 : 0));
	return 0;
}

static struct npg_result apply(struct npg_world *w, const struct npg_audit_call *call)
{
	switch (call->kind) {
	case NPG_CALL_SETUID:
		return npg_sys_setuid(w, 0, call->gid, call->id[0]);
	case NPG_CALL_SETREUID:
		return npg_sys_setreuid(w, 0, call->gid, call->id[0], call->id[1]);
	case NPG_CALL_SETRESUID:
		return npg_sys_setresuid(w, 0, call->gid, call->id[0], call->id[1], call->id[2]);
	case NPG_CALL_SETFSUID:
		return npg_sys_setfsuid(w, 0, call->gid, call->id[0]);
	case NPG_CALL_SETGROUPS:
		/* which groups does not matter to any rule: only the permission does */
		return npg_sys_setgroups(w, 0, 0, NULL);
	}
	return (struct npg_result){ .kind = NPG_R_ERRNO, .value = EINVAL };
}

/* Holds root in some way: a uid 0, or the capability to set ids */
static bool privileged(const struct npg_audit_caller *c)
{
	return c->uid.real == 0 || c->uid.eff == 0 || c->uid.saved == 0 ||
	       npg_cap_has(c->cap_effective, NPG_CAP_SETUID) ||
	       npg_cap_has(c->cap_effective, NPG_CAP_SETGID);
}

/* Some id of the family moved, and not to 0: away from where it was */
static bool moved_away(const struct npg_ids *before, const struct npg_ids *after)
{
	const npg_id b[4] = { before->real, before->eff, before->saved, before->fs };
	const npg_id a[4] = { after->real, after->eff, after->saved, after->fs };

	for (int i = 0; i < 4; i++)
		if (a[i] != b[i] && a[i] != 0)
			return true;
	return false;
}

/*
 * A privilege drop: a call by a privileged caller that the kernel's
 * permission rules allow and that moves an id away from where it was
 * (setgroups: allowed at all). The permission rules are asked of the
 * linux-2.4 policy, whose set_user() has no RLIMIT_NPROC test: what is
 * left are the rules of kernel/sys.c every era shares.
 */
static int is_drop(const struct npg_audit_caller *c, const struct npg_audit_call *call,
		   bool *drop)
{
	struct npg_world w;
	struct npg_result r;
	const struct npg_ids *before, *after;

	*drop = false;
	if (!privileged(c))
		return 0;
	if (world_of(&w, &npg_policy_linux_2_4, c) < 0)
		return -1;
	r = apply(&w, call);
	before = call->gid ? &c->gid : &c->uid;
	after = call->gid ? &w.tasks[0].cred.gid : &w.tasks[0].cred.uid;
	if (call->kind == NPG_CALL_SETGROUPS)
		*drop = r.kind == NPG_R_OK;
	else if (r.kind == NPG_R_OK || r.kind == NPG_R_ID)
		*drop = moved_away(before, after);
	npg_world_free(&w);
	return 0;
}

static void refuse(struct npg_audit_decision *out, const struct npg_audit_caller *c,
		   const struct npg_audit_call *call, enum npg_audit_action action, int error)
{
	out->action = action;
	out->error = error;
	if (call->kind == NPG_CALL_SETFSUID) {
		/* kernel/sys.c __sys_setfsuid(): a refusal is the old fs id, unchanged */
		out->returns_id = true;
		out->id = call->gid ? c->gid.fs : c->uid.fs;
	}
}

int npg_audit_decide(enum npg_audit_policy p, const struct npg_config *model, int failed_before,
		     const struct npg_audit_caller *c, const struct npg_audit_call *call,
		     struct npg_audit_decision *out)
{
	struct npg_world w;
	struct npg_result r;
	bool drop;

	memset(out, 0, sizeof(*out));
	if (is_drop(c, call, &drop) < 0)
		return -1;
	out->action = drop ? NPG_AUDIT_ALLOW : NPG_AUDIT_PASS;
	switch (p) {
	case NPG_AUDIT_ALWAYS:
		if (drop)
			refuse(out, c, call, NPG_AUDIT_FAIL, EAGAIN);
		return 0;
	case NPG_AUDIT_ONCE:
		if (drop && failed_before == 0)
			refuse(out, c, call, NPG_AUDIT_FAIL, EAGAIN);
		return 0;
	case NPG_AUDIT_LINUX_2_6:
	case NPG_AUDIT_OW_2006:
	case NPG_AUDIT_MODEL:
		break;
	}
	/* the era's own answer: its set_user() hook, on the caller's counts and limit */
	if (world_of(&w, p == NPG_AUDIT_MODEL ? model->policy : p == NPG_AUDIT_OW_2006 ?
		     &npg_policy_ow_2006 : &npg_policy_linux_2_6, c) < 0)
		return -1;
	if (p == NPG_AUDIT_MODEL)
		w.rules = model->rules;
	r = apply(&w, call);
	npg_world_free(&w);
	if (r.kind == NPG_R_KILLED)
		refuse(out, c, call, NPG_AUDIT_KILL, EAGAIN);	/* seed 003: force_sig(), then fail */
	else if (r.kind == NPG_R_ERRNO && r.value == EAGAIN)
		refuse(out, c, call, NPG_AUDIT_FAIL, EAGAIN);
	return 0;
}
