/*
 * The set*uid and set*gid families, setgroups(), prlimit() on RLIMIT_NPROC,
 * prctl(PR_SET_KEEPCAPS) and capset(). Permission rules follow
 * kernel/sys.c and are the same from 2.4 to 6.x; only set_user() and the
 * ucounts bookkeeping differ between eras, and those are the policy's.
 */
#include <errno.h>
#include <sys/prctl.h>
#include <signal.h>

#include "model/model.h"
#include "model/policy.h"

static struct npg_result ok(void)
{
	return (struct npg_result){ .kind = NPG_R_OK };
}

static struct npg_result fail(int err)
{
	return (struct npg_result){ .kind = NPG_R_ERRNO, .value = err };
}

static struct npg_ids *ids_of(struct npg_cred *c, bool gid)
{
	return gid ? &c->gid : &c->uid;
}

static int setid_cap(bool gid)
{
	return gid ? NPG_CAP_SETGID : NPG_CAP_SETUID;
}

static bool is_any_of(npg_id id, const struct npg_ids *o)
{
	return id == o->real || id == o->eff || id == o->saved;
}

/*
 * make_kuid() of the ids a set*id call names, in the caller's namespace:
 * false (EINVAL) when one that is not -1 has no mapping there
 */
static bool kids(const struct npg_world *w, int ns, bool gid, npg_id *a, npg_id *b, npg_id *c)
{
	npg_id *ids[3] = { a, b, c };

	for (int i = 0; i < 3; i++) {
		if (!ids[i] || *ids[i] == NPG_ID_NONE)
			continue;
		if ((*ids[i] = npg_make_kid(w, ns, *ids[i], gid)) == NPG_ID_NONE)
			return false;
	}
	return true;
}

/*
 * The tail every set*uid/set*gid call shares once its permission checks
 * passed. For uids, in kernel/sys.c (6.x) order: set_user() when the real
 * uid changes, security_task_fix_setuid() (capabilities), set_cred_ucounts(),
 * flag_nproc_exceeded(), commit_creds() -- which moves the task from the
 * old user's count to the new one only when the real user changed.
 */
static struct npg_result commit_setid(struct npg_world *w, int t, bool gid,
				      struct npg_cred *new, bool fs_only)
{
	struct npg_task *cur = &w->tasks[t];
	const struct npg_policy *p = w->policy;
	bool user_changed = new->uid.real != cur->cred.uid.real;

	if (gid) {
		npg_commit_creds_dumpable(w, t, &cur->cred, new);
		cur->cred = *new;
		return ok();
	}
	if (user_changed) {
		int r = p->set_user(w, cur, new);

		if (r == NPG_SET_USER_KILL_SIGSEGV) {
			npg_task_kill(w, t, SIGSEGV);
			return (struct npg_result){ .kind = NPG_R_KILLED, .value = SIGSEGV };
		}
		if (r)
			return fail(-r);
	}
	npg_cap_fix_setuid(new, &cur->cred, fs_only, npg_ns_root_uid(w, cur->cred.userns));
	if (user_changed)
		new->charged_to = npg_set_cred_ucounts(w, new);
	if (p->flag_nproc_exceeded && !fs_only)
		p->flag_nproc_exceeded(w, cur, new);
	if (user_changed) {
		npg_charge(w, new, 1);
		npg_charge(w, &cur->cred, -1);
	}
	npg_commit_creds_dumpable(w, t, &cur->cred, new);
	cur->cred = *new;
	return ok();
}

/* __sys_setuid() / __sys_setgid() */
struct npg_result npg_sys_setuid(struct npg_world *w, int t, bool gid, npg_id id)
{
	struct npg_cred new = w->tasks[t].cred;
	const struct npg_ids *old = ids_of(&w->tasks[t].cred, gid);
	struct npg_ids *n = ids_of(&new, gid);

	/* "kuid = make_kuid(ns, uid); if (!uid_valid(kuid)) return -EINVAL;" */
	id = npg_make_kid(w, new.userns, id, gid);
	if (id == NPG_ID_NONE)
		return fail(EINVAL);
	if (npg_capable_own_ns(&w->tasks[t], setid_cap(gid)))
		n->real = n->saved = id;
	else if (id != old->real && id != old->saved)
		return fail(EPERM);
	n->eff = n->fs = id;
	return commit_setid(w, t, gid, &new, false);
}

/* __sys_setreuid() / __sys_setregid() */
struct npg_result npg_sys_setreuid(struct npg_world *w, int t, bool gid, npg_id r, npg_id e)
{
	struct npg_cred new = w->tasks[t].cred;
	const struct npg_ids *old = ids_of(&w->tasks[t].cred, gid);
	struct npg_ids *n = ids_of(&new, gid);
	bool privileged = npg_capable_own_ns(&w->tasks[t], setid_cap(gid));

	if (!kids(w, new.userns, gid, &r, &e, NULL))
		return fail(EINVAL);
	if (r != NPG_ID_NONE) {
		n->real = r;
		if (r != old->real && r != old->eff && !privileged)
			return fail(EPERM);
	}
	if (e != NPG_ID_NONE) {
		n->eff = e;
		if (!is_any_of(e, old) && !privileged)
			return fail(EPERM);
	}
	/* "If the real uid is set, or the effective uid is set to a value not
	 * equal to the previous real uid, the saved uid is set to the new
	 * effective uid" (setreuid(2), kernel/sys.c) */
	if (r != NPG_ID_NONE || (e != NPG_ID_NONE && e != old->real))
		n->saved = n->eff;
	n->fs = n->eff;
	return commit_setid(w, t, gid, &new, false);
}

/* __sys_setresuid() / __sys_setresgid() */
struct npg_result npg_sys_setresuid(struct npg_world *w, int t, bool gid,
				    npg_id r, npg_id e, npg_id s)
{
	struct npg_cred new = w->tasks[t].cred;
	const struct npg_ids *old = ids_of(&w->tasks[t].cred, gid);
	struct npg_ids *n = ids_of(&new, gid);
	bool r_new, e_new, s_new;

	if (!kids(w, new.userns, gid, &r, &e, &s))
		return fail(EINVAL);
	r_new = r != NPG_ID_NONE && !is_any_of(r, old);
	e_new = e != NPG_ID_NONE && !is_any_of(e, old);
	s_new = s != NPG_ID_NONE && !is_any_of(s, old);

	/* 6.x: "check for no-op" -- returns before fsuid = euid */
	if (w->rules.setresuid_noop_fastpath && (r == NPG_ID_NONE || r == old->real) &&
	    (e == NPG_ID_NONE || (e == old->eff && e == old->fs)) &&
	    (s == NPG_ID_NONE || s == old->saved))
		return ok();
	if ((r_new || e_new || s_new) && !npg_capable_own_ns(&w->tasks[t], setid_cap(gid)))
		return fail(EPERM);
	if (r != NPG_ID_NONE)
		n->real = r;
	if (e != NPG_ID_NONE)
		n->eff = e;
	if (s != NPG_ID_NONE)
		n->saved = s;
	n->fs = n->eff;
	return commit_setid(w, t, gid, &new, false);
}

/*
 * __sys_setfsuid() / __sys_setfsgid(): always return the old fs id, as the
 * caller's namespace sees it ("from_kuid_munged(old->user_ns, old->fsuid)")
 */
struct npg_result npg_sys_setfsuid(struct npg_world *w, int t, bool gid, npg_id id)
{
	struct npg_cred new = w->tasks[t].cred;
	const struct npg_ids *old = ids_of(&w->tasks[t].cred, gid);
	struct npg_result r = { .kind = NPG_R_ID,
				.value = npg_from_kid_munged(w, new.userns, old->fs, gid) };

	id = npg_make_kid(w, new.userns, id, gid);
	if (id == NPG_ID_NONE || id == old->fs)
		return r;
	if (!is_any_of(id, old) && !npg_capable_own_ns(&w->tasks[t], setid_cap(gid)))
		return r;
	ids_of(&new, gid)->fs = id;
	commit_setid(w, t, gid, &new, true);
	return r;
}

/*
 * kernel/groups.c, setgroups(): may_setgroups() is CAP_SETGID in the
 * caller's namespace and userns_may_setgroups() -- "It is not safe to use
 * setgroups until a gid mapping in the user namespace has been
 * established", nor once "deny" was written to /proc/PID/setgroups
 * (USERNS_SETGROUPS_ALLOWED); then groups_from_user(): an unmapped gid is
 * EINVAL. 2.6.39-3.4 ask nsown_capable(CAP_SETGID) alone: no map, no
 * knob.
 */
struct npg_result npg_sys_setgroups(struct npg_world *w, int t, int n, const npg_id *groups)
{
	struct npg_task *cur = &w->tasks[t];
	int ns = cur->cred.userns;
	npg_id kgroups[NPG_NGROUPS];

	if (!npg_capable_own_ns(cur, NPG_CAP_SETGID) ||
	    (ns != NPG_USERNS_INITIAL && w->rules.userns_idmaps && (w->userns[ns].gid_map.nr == 0 ||
					  !w->userns[ns].setgroups_allowed)))
		return fail(EPERM);
	if (n < 0 || n > NPG_NGROUPS)
		return fail(EINVAL);
	for (int i = 0; i < n; i++)
		if ((kgroups[i] = npg_make_kid(w, ns, groups[i], true)) == NPG_ID_NONE)
			return fail(EINVAL);
	cur->cred.ngroups = n;
	for (int i = 0; i < n; i++)
		cur->cred.groups[i] = kgroups[i];
	return ok();
}

/*
 * kernel/sys.c, prlimit64() -> check_prlimit_permission() -> do_prlimit():
 * another task needs matching real/effective/saved ids or CAP_SYS_RESOURCE;
 * soft above hard is EINVAL; raising the hard limit needs CAP_SYS_RESOURCE.
 */
struct npg_result npg_sys_prlimit(struct npg_world *w, int t, int target,
				  uint64_t cur, uint64_t max)
{
	struct npg_task *caller = &w->tasks[t];
	struct npg_task *tsk = &w->tasks[target];
	struct npg_task *leader = &w->tasks[tsk->leader];

	if (tsk->state != NPG_TASK_RUNNING && tsk->state != NPG_TASK_ZOMBIE)
		return fail(ESRCH);
	/* "if (current == task) return 0;": the same task, not the same
	 * process -- another thread of the caller's is checked like anyone
	 * (found by conform --random on 6.18) */
	if (target != t) {
		const struct npg_cred *c = &caller->cred, *tc = &tsk->cred;
		bool id_match = npg_ids_comparable(w, c, tc) &&
				c->uid.real == tc->uid.eff && c->uid.real == tc->uid.saved &&
				c->uid.real == tc->uid.real && c->gid.real == tc->gid.eff &&
				c->gid.real == tc->gid.saved && c->gid.real == tc->gid.real;

		if (!id_match && !npg_ns_capable(w, caller, tc->userns, NPG_CAP_SYS_RESOURCE))
			return fail(EPERM);
	}
	if (cur > max)
		return fail(EINVAL);
	if (max > leader->nproc_max && !npg_capable(caller, NPG_CAP_SYS_RESOURCE))
		return fail(EPERM);
	leader->nproc_cur = cur;
	leader->nproc_max = max;
	return ok();
}

/*
 * kernel/sys.c, prctl(PR_SET_NO_NEW_PRIVS) (3.5+):
 *	if (arg2 != 1 || arg3 || arg4 || arg5) return -EINVAL;
 *	task_set_no_new_privs(current);
 * Before 3.5 prctl() knows no such option: EINVAL. Anyone may; nothing
 * clears it. The flag is the task's: threads created
 * before it keep their own (copy_process() copies it at clone).
 */
struct npg_result npg_sys_no_new_privs(struct npg_world *w, int t, int value)
{
	if (value != 1 || !w->rules.no_new_privs)
		return fail(EINVAL);
	w->tasks[t].no_new_privs = true;
	return ok();
}

/* kernel/sys.c, prctl(PR_SET_KEEPCAPS): EPERM once SECURE_KEEP_CAPS_LOCKED */
struct npg_result npg_sys_keepcaps(struct npg_world *w, int t, bool on)
{
	if (w->tasks[t].cred.securebits & NPG_SECBIT_KEEP_CAPS_LOCKED)
		return fail(EPERM);
	w->tasks[t].cred.keepcaps = on;
	return ok();
}

/*
 * security/commoncap.c, cap_capset(): pI' within pI | pP unless CAP_SETPCAP
 * (cap_inh_is_capped()), and within pI | X; no new permitted bits;
 * effective within permitted; then "new->cap_ambient =
 * cap_intersect(new->cap_ambient, cap_intersect(*permitted, *inheritable))".
 */
struct npg_result npg_sys_capset(struct npg_world *w, int t, uint64_t effective,
				 uint64_t permitted, uint64_t inheritable)
{
	struct npg_cred *c = &w->tasks[t].cred;

	if (!npg_capable_own_ns(&w->tasks[t], NPG_CAP_SETPCAP) &&
	    (inheritable & ~(c->cap_inheritable | c->cap_permitted)))
		return fail(EPERM);
	if ((inheritable & ~(c->cap_inheritable | c->cap_bset)) ||
	    (effective & ~permitted) || (permitted & ~c->cap_permitted))
		return fail(EPERM);
	c->cap_effective = effective;
	c->cap_permitted = permitted;
	c->cap_inheritable = inheritable;
	c->cap_ambient &= permitted & inheritable;
	return ok();
}

/*
 * security/commoncap.c, cap_task_prctl(PR_SET_SECUREBITS) (2.6.26+): EPERM
 * when a locked bit would change, a lock would go, a bit is unknown
 * (SECURE_NO_CAP_AMBIENT_RAISE and its lock came with ambient
 * capabilities, 4.3), or the caller lacks CAP_SETPCAP ("doing anything
 * requires privilege").
 */
struct npg_result npg_sys_securebits(struct npg_world *w, int t, uint32_t bits)
{
	struct npg_cred *c = &w->tasks[t].cred;
	uint32_t known = w->rules.ambient_caps ? NPG_SECBITS_ALL : 0x3fu;
	uint32_t old = npg_securebits(c), locks = old & (NPG_SECBIT_NOROOT_LOCKED |
		NPG_SECBIT_NO_SETUID_FIXUP_LOCKED | NPG_SECBIT_KEEP_CAPS_LOCKED |
		NPG_SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED);

	if (((locks >> 1) & (old ^ bits)) || (locks & ~bits) || (bits & ~known) ||
	    !npg_capable_own_ns(&w->tasks[t], NPG_CAP_SETPCAP))
		return fail(EPERM);
	c->securebits = bits & ~NPG_SECBIT_KEEP_CAPS;
	c->keepcaps = (bits & NPG_SECBIT_KEEP_CAPS) != 0;
	return ok();
}

/*
 * security/commoncap.c, cap_task_prctl(PR_CAP_AMBIENT) (4.3+): CLEAR_ALL
 * always; RAISE needs the capability in both pP and pI; LOWER always.
 * Before 4.3 prctl() knows no PR_CAP_AMBIENT: EINVAL (kernel/sys.c,
 * prctl()'s default case after security_task_prctl() returned -ENOSYS).
 */
struct npg_result npg_sys_ambient(struct npg_world *w, int t, int how, int cap)
{
	struct npg_cred *c = &w->tasks[t].cred;

	if (!w->rules.ambient_caps)
		return fail(EINVAL);

	if (how == PR_CAP_AMBIENT_CLEAR_ALL) {
		c->cap_ambient = 0;
		return ok();
	}
	if (cap < 0 || cap > NPG_CAP_LAST)
		return fail(EINVAL);
	if (how == PR_CAP_AMBIENT_RAISE) {
		if (!npg_cap_has(c->cap_permitted, cap) || !npg_cap_has(c->cap_inheritable, cap) ||
		    (c->securebits & NPG_SECBIT_NO_CAP_AMBIENT_RAISE))
			return fail(EPERM);
		c->cap_ambient |= NPG_CAP(cap);
		return ok();
	}
	if (how != PR_CAP_AMBIENT_LOWER)
		return fail(EINVAL);
	c->cap_ambient &= ~NPG_CAP(cap);
	return ok();
}
