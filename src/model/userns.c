/*
 * User namespaces: id mapping, capabilities across namespaces, and
 * unshare(CLONE_NEWUSER) with its maps (kernel/user_namespace.c,
 * kernel/fork.c ksys_unshare(), security/commoncap.c; 6.1).
 */
#include <errno.h>
#include <stdlib.h>

#include "model/model.h"
#include "model/policy.h"

static struct npg_result result(enum npg_result_kind kind, long value)
{
	return (struct npg_result){ .kind = kind, .value = value };
}

static const struct npg_idmap *map_of(const struct npg_world *w, int ns, bool gid)
{
	return gid ? &w->userns[ns].gid_map : &w->userns[ns].uid_map;
}

npg_id npg_idmap_down(const struct npg_idmap_extent *lines, int nr, npg_id id)
{
	for (int i = 0; i < nr; i++) {
		const struct npg_idmap_extent *e = &lines[i];

		if (id >= e->first && id - e->first < e->count)
			return e->lower_first + (id - e->first);
	}
	return NPG_ID_NONE;
}

static npg_id map_up(const struct npg_idmap *m, npg_id id)
{
	for (int i = 0; i < m->nr; i++) {
		const struct npg_idmap_extent *e = &m->extent[i];

		if (id >= e->lower_first && id - e->lower_first < e->count)
			return e->first + (id - e->lower_first);
	}
	return NPG_ID_NONE;
}

bool npg_idmap_range_mapped(const struct npg_idmap_extent *lines, int nr,
			    const struct npg_idmap_extent *r)
{
	for (int i = 0; i < nr; i++) {
		const struct npg_idmap_extent *e = &lines[i];

		if (r->lower_first >= e->first && r->lower_first - e->first < e->count &&
		    r->count <= e->count - (r->lower_first - e->first))
			return true;
	}
	return false;
}

bool npg_idmap_line_invalid(const struct npg_idmap_extent *e)
{
	return e->first == NPG_ID_NONE || e->lower_first == NPG_ID_NONE ||
	       (npg_id)(e->first + e->count) <= e->first ||
	       (npg_id)(e->lower_first + e->count) <= e->lower_first;
}

/* make_kuid(): down through each namespace to the initial one (identity) */
npg_id npg_make_kid(const struct npg_world *w, int ns, npg_id id, bool gid)
{
	while (ns != NPG_USERNS_INITIAL && id != NPG_ID_NONE) {
		const struct npg_idmap *m = map_of(w, ns, gid);

		id = npg_idmap_down(m->extent, m->nr, id);
		ns = w->userns[ns].parent;
	}
	return id;
}

npg_id npg_from_kid(const struct npg_world *w, int ns, npg_id kid, bool gid)
{
	/* up from the initial namespace: the chain from @ns, outermost first */
	int chain[NPG_MAX_USERNS + 1], n = 0;

	for (int i = ns; i != NPG_USERNS_INITIAL; i = w->userns[i].parent)
		chain[n++] = i;
	while (n > 0 && kid != NPG_ID_NONE)
		kid = map_up(map_of(w, chain[--n], gid), kid);
	return kid;
}

npg_id npg_from_kid_munged(const struct npg_world *w, int ns, npg_id kid, bool gid)
{
	npg_id id = npg_from_kid(w, ns, kid, gid);

	return id == NPG_ID_NONE ? NPG_OVERFLOW_ID : id;
}

/*
 * security/commoncap.c, cap_capable(): in the task's own namespace, its
 * effective set; in a descendant, everything if the task's euid owns the
 * namespace just below its own on the way, or the capability in its own
 * namespace; never in an ancestor.
 */
bool npg_cred_ns_capable(const struct npg_world *w, const struct npg_cred *c, int target, int cap)
{
	int ns = target;

	for (;;) {
		if (ns == c->userns)
			return npg_cap_has(c->cap_effective, cap);
		if (ns == NPG_USERNS_INITIAL ||
		    w->userns[ns].level <= (c->userns ? w->userns[c->userns].level : 0))
			return false;
		if (w->userns[ns].parent == c->userns && w->userns[ns].owner == c->uid.eff)
			return true;
		ns = w->userns[ns].parent;
	}
}

bool npg_ns_capable(const struct npg_world *w, const struct npg_task *t, int target, int cap)
{
	return npg_cred_ns_capable(w, &t->cred, target, cap);
}

/*
 * kernel/fork.c: ksys_unshare() adds CLONE_THREAD | CLONE_FS to
 * CLONE_NEWUSER, and check_unshare_flags() then asks only
 * thread_group_empty() (no other thread, a zombie leader included);
 * current_is_single_threaded() is for CLONE_VM, so a vfork() child that
 * still shares its parent's memory may unshare (measured on 6.18, 5.15.24
 * and 5.10.223; 3.8's test of mm_users refused it, not modelled)
 */
static bool single_threaded(const struct npg_world *w, int t)
{
	const struct npg_task *task = &w->tasks[t];

	for (int i = 0; i < w->ntasks; i++)
		if (i != t && w->tasks[i].leader == task->leader &&
		    (w->tasks[i].state == NPG_TASK_RUNNING || w->tasks[i].state == NPG_TASK_ZOMBIE))
			return false;
	return true;
}

/*
 * kernel/user_namespace.c, map_write() by a writer with every capability
 * over the parent namespace: the lines may not be empty, wrap, or overlap
 * one another (EINVAL); each lower range must be mapped in the parent
 * namespace ("map_id_range_down(parent_map, ...)": EPERM), and is stored
 * as kernel ids.
 */
static int map_write(struct npg_world *w, int ns, bool gid, const struct npg_idmap *in)
{
	struct npg_idmap out = { .nr = 0 };
	int parent = w->userns[ns].parent;
	const struct npg_idmap *pm = map_of(w, parent, gid);

	for (int i = 0; i < in->nr; i++) {
		const struct npg_idmap_extent *e = &in->extent[i];

		if (npg_idmap_line_invalid(e))
			return -EINVAL;
		for (int j = 0; j < i; j++) {
			const struct npg_idmap_extent *p = &in->extent[j];

			if ((p->first <= e->first + e->count - 1 && p->first + p->count - 1 >= e->first) ||
			    (p->lower_first <= e->lower_first + e->count - 1 &&
			     p->lower_first + p->count - 1 >= e->lower_first))
				return -EINVAL;
		}
	}
	if (in->nr == 0)
		return -EINVAL;
	for (int i = 0; i < in->nr; i++) {
		struct npg_idmap_extent e = in->extent[i];

		/* map_id_range_down(): the whole range inside one extent of the parent */
		if (parent != NPG_USERNS_INITIAL && !npg_idmap_range_mapped(pm->extent, pm->nr, &e))
			return -EPERM;
		out.extent[out.nr++] = e;
	}
	/* kept in the parent's terms: make_kid() walks down the chain */
	if (gid)
		w->userns[ns].gid_map = out;
	else
		w->userns[ns].uid_map = out;
	return 0;
}

/*
 * kernel/fork.c, ksys_unshare() -> unshare_userns() -> create_user_ns(),
 * then set_cred_ucounts() and commit_creds():
 *	if (parent_ns->level > 32) -ENOSPC
 *	if (!kuid_has_mapping(parent_ns, owner) || !kgid_has_mapping(parent_ns, group)) -EPERM
 *	set_userns_rlimit_max(ns, UCOUNT_RLIMIT_NPROC, enforced_nproc_rlimit());
 *	set_cred_user_ns(): securebits default, pI = pA = 0, pP = pE = X = full
 * The ids stay the same kernel ids. Since 5.14 the task moves to the
 * ucounts (new ns, uid) -- "if (new->user != old->user || new->user_ns !=
 * old->user_ns)" in commit_creds() -- and so still counts for the owner in
 * the parent namespace through the chain. Up to 5.13 its user_struct,
 * and so its count, stay the same.
 */
struct npg_result npg_sys_unshare_user(struct npg_world *w, int t, int ns,
				       const struct npg_idmap *uid_map,
				       const struct npg_idmap *gid_map)
{
	struct npg_task *task = &w->tasks[t];
	struct npg_cred new = task->cred;
	int parent = task->cred.userns;
	struct npg_userns *u;
	int err;

	if (ns <= 0 || ns > NPG_MAX_USERNS)
		return result(NPG_R_ERRNO, EINVAL);
	if (!w->userns) {
		w->userns = calloc(NPG_MAX_USERNS + 1, sizeof(*w->userns));
		if (!w->userns)
			return result(NPG_R_ERRNO, ENOMEM);
		w->userns[NPG_USERNS_INITIAL].exists = true;
	}
	if (!single_threaded(w, t))
		return result(NPG_R_ERRNO, EINVAL);
	if (parent != NPG_USERNS_INITIAL && w->userns[parent].level > 32)
		return result(NPG_R_ERRNO, ENOSPC);
	if (npg_from_kid(w, parent, task->cred.uid.eff, false) == NPG_ID_NONE ||
	    npg_from_kid(w, parent, task->cred.gid.eff, true) == NPG_ID_NONE)
		return result(NPG_R_ERRNO, EPERM);

	u = &w->userns[ns];
	*u = (struct npg_userns){
		.exists = true,
		.parent = parent,
		.level = (parent ? w->userns[parent].level : 0) + 1,
		.owner = task->cred.uid.eff,
		.group = task->cred.gid.eff,
	};
	/*
	 * enforced_nproc_rlimit() (0ac983f51203, 5.17; 5.16.13, 5.15.27):
	 * no limit when the creator is real uid 0 of the initial namespace;
	 * before it, "set_rlimit_ucount_max(ns, UCOUNT_RLIMIT_NPROC,
	 * rlimit(RLIMIT_NPROC))" for everyone
	 */
	u->nproc_max = npg_rlimit_nproc(w, task);
	if (w->policy->userns_root_unlimited && task->cred.uid.real == NPG_INIT_USER &&
	    parent == NPG_USERNS_INITIAL)
		u->nproc_max = NPG_RLIM_INFINITY;

	new.userns = ns;
	new.securebits = 0;
	new.keepcaps = false;
	new.cap_inheritable = 0;
	new.cap_ambient = 0;
	new.cap_permitted = new.cap_effective = new.cap_bset = w->cap_full_set;
	if (w->policy->ucounts) {
		/* set_cred_ucounts(): alloc_ucounts(new->user_ns, key) */
		new.charged_to = w->policy->set_cred_ucounts ?
				 w->policy->set_cred_ucounts(&task->cred, &new) : new.uid.real;
		npg_charge(w, &new, 1);
		npg_charge(w, &task->cred, -1);
	}
	/* cred_cap_issubset(): the full set of a namespace the euid owns is
	 * no gain, so unshare() keeps the mm dumpable (mm->user_ns stays) */
	npg_commit_creds_dumpable(w, t, &task->cred, &new);
	task->cred = new;

	/* then the harness writes the maps: uid_map first */
	if (uid_map && uid_map->nr && (err = map_write(w, ns, false, uid_map)) < 0)
		return result(NPG_R_ERRNO, -err);
	if (gid_map && gid_map->nr && (err = map_write(w, ns, true, gid_map)) < 0)
		return result(NPG_R_ERRNO, -err);
	return result(NPG_R_OK, 0);
}
