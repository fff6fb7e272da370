/*
 * User namespaces: what ids a task's system calls name, which
 * capabilities count where, and which count a task is charged to. Since
 * 3.8 (uid_map/gid_map, unprivileged creation) ids are kernel ids, one
 * count per kernel uid up to 5.13, one per (namespace, uid) with a chain
 * of ancestors since 5.14 (kernel/ucount.c). In 2.6.39-3.4
 * (npg_world.userns_idmaps false) a namespace has no map: its ids are its
 * own, and so are its user_structs -- one count per (namespace, uid), no
 * chain.
 */
#ifndef NPG_MODEL_USERNS_H
#define NPG_MODEL_USERNS_H

#include <stdbool.h>
#include <stdint.h>

#include "model/cred.h"

#define NPG_USERNS_INITIAL 0		/* init_user_ns */
#define NPG_MAX_USERNS 32		/* namespaces one scenario creates */
#define NPG_IDMAP_MAX 5			/* lines of one uid_map / gid_map */
#define NPG_OVERFLOW_ID 65534		/* overflowuid / overflowgid */

/* struct uid_gid_extent: ids first .. first+count-1 inside are lower_first .. outside */
struct npg_idmap_extent {
	npg_id first, lower_first, count;
};

struct npg_idmap {
	int nr;				/* 0: not written (every id unmapped) */
	struct npg_idmap_extent extent[NPG_IDMAP_MAX];
};

struct npg_userns {
	bool exists;
	int parent;			/* index of the parent namespace */
	int level;			/* init_user_ns is level 0 */
	npg_id owner, group;		/* the creator's euid / egid (kernel ids) */
	/* ns->rlimit_max[UCOUNT_RLIMIT_NPROC]: the parent level's limit (5.14+) */
	uint64_t nproc_max;
	/* uid_map / gid_map: lower ids in the parent namespace's terms */
	struct npg_idmap uid_map, gid_map;
	/* USERNS_SETGROUPS_ALLOWED: inherited from the parent, cleared by
	 * writing "deny" to /proc/PID/setgroups (3.19+) */
	bool setgroups_allowed;
	/* the creator's effective set held CAP_SETFCAP (verify_root_map(), 5.12+) */
	bool parent_could_setfcap;
	/* ucount_max[UCOUNT_USER_NAMESPACES]: user.max_user_namespaces as a
	 * task of this namespace reads and writes it; INT_MAX at creation */
	long max_user_namespaces;
};

struct npg_world;
struct npg_task;

/*
 * The rules of one map's lines, kernel/user_namespace.c, for the model and
 * for the real backend's map as it writes it. map_id_range_down() of one
 * id: NPG_ID_NONE when no line holds it.
 */
npg_id npg_idmap_down(const struct npg_idmap_extent *lines, int nr, npg_id id);
/* map_id_range_down() of a line's lower range: inside one line of @lines? */
bool npg_idmap_range_mapped(const struct npg_idmap_extent *lines, int nr,
			    const struct npg_idmap_extent *r);
/* map_write()'s checks of one line alone (a -1 id, a range that wraps): EINVAL */
bool npg_idmap_line_invalid(const struct npg_idmap_extent *e);

/* make_kuid()/make_kgid(): NPG_ID_NONE when @id has no mapping in @ns */
npg_id npg_make_kid(const struct npg_world *w, int ns, npg_id id, bool gid);
/* from_kuid(): NPG_ID_NONE when @kid is not mapped into @ns */
npg_id npg_from_kid(const struct npg_world *w, int ns, npg_id kid, bool gid);
/* from_kuid_munged(): overflowuid for an unmapped id */
npg_id npg_from_kid_munged(const struct npg_world *w, int ns, npg_id kid, bool gid);
/* the kernel uid of uid 0 in @ns (root_uid in commoncap.c), or NPG_ID_NONE */
static inline npg_id npg_ns_root_uid(const struct npg_world *w, int ns)
{
	return npg_make_kid(w, ns, 0, false);
}

/* rootid_owns_currentns(): @kroot is uid 0 of @ns or of an ancestor */
bool npg_rootid_owns(const struct npg_world *w, int ns, npg_id kroot);
/* security/commoncap.c, cap_capable(): @t's credentials against @target_ns */
bool npg_ns_capable(const struct npg_world *w, const struct npg_task *t, int target_ns, int cap);
/* the same for credentials that are no task's own (ptracer_cred) */
bool npg_cred_ns_capable(const struct npg_world *w, const struct npg_cred *c, int target_ns,
			 int cap);
/*
 * May the ids of @a and @b be compared? Kernel ids always (3.8+); in
 * 2.6.39-3.4 only within one namespace: "cred->user->user_ns ==
 * tcred->user->user_ns &&" before the ids in kill_ok_by_cred(),
 * check_prlimit_permission() and __ptrace_may_access()
 */
bool npg_ids_comparable(const struct npg_world *w, const struct npg_cred *a,
			const struct npg_cred *b);
/* INIT_USER, the initial namespace's root user_struct: real uid 0 there */
bool npg_init_user(const struct npg_world *w, const struct npg_cred *c);

#endif
