/*
 * User namespaces: id mapping and capabilities across namespaces
 * (kernel/user_namespace.c, security/commoncap.c; 6.1, and 3.0 for the
 * namespaces before maps). Creating and administering them is
 * userns_setup.c.
 */
#include "model/model.h"
#include "model/policy.h"

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

/*
 * make_kuid(): down through each namespace to the initial one (identity).
 * Before 3.5 there is no kernel id: struct cred holds the ids as the
 * task's own namespace names them, and each namespace has its own
 * user_structs (alloc_uid(ns, uid), 2.6.39-3.4) -- an id means nothing
 * outside its namespace, and the model keeps it as it is.
 */
npg_id npg_make_kid(const struct npg_world *w, int ns, npg_id id, bool gid)
{
	if (!w->rules.userns_idmaps)
		return id;
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

	if (!w->rules.userns_idmaps)
		return kid;	/* ids as their namespace names them: npg_make_kid() */
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
 * security/commoncap.c, cap_capable() of 2.6.39-3.4 (3486740a4f32,
 * "userns: security: make capabilities relative to the user namespace"):
 *	for (;;) {
 *		if (targ_ns != &init_user_ns && targ_ns->creator == cred->user)
 *			return 0;
 *		if (targ_ns == cred->user->user_ns)
 *			return cap_raised(cred->cap_effective, cap) ? 0 : -EPERM;
 *		if (targ_ns == &init_user_ns)
 *			return -EPERM;
 *		targ_ns = targ_ns->creator->user_ns;
 *	}
 * The creator is a user_struct: the creator's real uid in its namespace
 * (npg_userns.owner there), not 3.8's euid.
 */
static bool legacy_ns_capable(const struct npg_world *w, const struct npg_cred *c, int target,
			      int cap)
{
	for (int ns = target;; ns = w->userns[ns].parent) {
		if (ns != NPG_USERNS_INITIAL && w->userns[ns].parent == c->userns &&
		    w->userns[ns].owner == c->uid.real)
			return true;
		if (ns == c->userns)
			return npg_cap_has(c->cap_effective, cap);
		if (ns == NPG_USERNS_INITIAL)
			return false;
	}
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

	if (!w->rules.userns_idmaps)
		return legacy_ns_capable(w, c, target, cap);
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

/*
 * security/commoncap.c, rootid_owns_currentns(): is kernel uid @kroot uid 0
 * of namespace @ns or of one of its ancestors?
 */
bool npg_rootid_owns(const struct npg_world *w, int ns, npg_id kroot)
{
	for (;; ns = w->userns[ns].parent) {
		if (npg_from_kid(w, ns, kroot, false) == 0)
			return true;
		if (ns == NPG_USERNS_INITIAL)
			return false;
	}
}

bool npg_ns_capable(const struct npg_world *w, const struct npg_task *t, int target, int cap)
{
	return npg_cred_ns_capable(w, &t->cred, target, cap);
}

bool npg_ids_comparable(const struct npg_world *w, const struct npg_cred *a,
			const struct npg_cred *b)
{
	return w->rules.userns_idmaps || a->userns == b->userns;
}

bool npg_init_user(const struct npg_world *w, const struct npg_cred *c)
{
	return c->uid.real == NPG_INIT_USER && (w->rules.userns_idmaps || c->userns == NPG_USERNS_INITIAL);
}
