/*
 * Making and administering user namespaces: create_user_ns() behind
 * unshare() and clone(CLONE_NEWUSER) (whose copy_process() is
 * process.c's), setns() (userns_install()), the
 * /proc/PID/uid_map, gid_map and setgroups files, and
 * user.max_user_namespaces (kernel/user_namespace.c, kernel/fork.c,
 * kernel/ucount.c, fs/proc/base.c; 6.1). Before 3.8 only clone() made one,
 * as 2.6.39-3.4 did (3.0 here; npg_world.userns_idmaps false).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "model/model.h"
#include "model/policy.h"

#define NPG_CAP_SETFCAP 31

static struct npg_result result(enum npg_result_kind kind, long value)
{
	return (struct npg_result){ .kind = kind, .value = value };
}

/* The namespace table, with the initial namespace's defaults */
static int userns_table(struct npg_world *w)
{
	if (w->userns)
		return 0;
	w->userns = calloc(NPG_MAX_USERNS + 1, sizeof(*w->userns));
	if (!w->userns)
		return -ENOMEM;
	w->userns[NPG_USERNS_INITIAL] = (struct npg_userns){
		.exists = true, .setgroups_allowed = true,
		/* max_threads / 2 on a real machine (96,362 on these VMs): no
		 * scenario's 32 namespaces come near it */
		.max_user_namespaces = INT_MAX,
	};
	return 0;
}

/*
 * kernel/fork.c: ksys_unshare() adds CLONE_THREAD | CLONE_FS to
 * CLONE_NEWUSER, and check_unshare_flags() then asks only
 * thread_group_empty() (no other thread, a zombie leader included);
 * current_is_single_threaded() is for CLONE_VM, so a vfork() child that
 * still shares its parent's memory may unshare (measured on 6.18, 5.15.24
 * and 5.10.223; 3.8's test of mm_users refused it, not modelled).
 * userns_install() asks the same.
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
 * The UCOUNT_USER_NAMESPACES count of ucounts (@ns, @uid): every living
 * namespace whose chain of creators passes there -- one created by @uid
 * in @ns, and everything below it (inc_ucount() charges each level).
 * The model's namespaces never die (the real backend holds them open).
 */
static long userns_count(const struct npg_world *w, int ns, npg_id uid)
{
	long n = 0;

	for (int i = 1; i <= NPG_MAX_USERNS; i++) {
		if (!w->userns[i].exists)
			continue;
		for (int m = i; m != NPG_USERNS_INITIAL; m = w->userns[m].parent)
			if (w->userns[m].parent == ns && w->userns[m].owner == uid) {
				n++;
				break;
			}
	}
	return n;
}

/*
 * inc_user_namespaces() -> inc_ucount(): at (the parent, the creator's
 * euid) and at each level above, "atomic_long_inc_below(&iter->ucount[type],
 * max)" against that level's namespace's user.max_user_namespaces
 */
static bool userns_count_below_max(const struct npg_world *w, int parent, npg_id owner)
{
	for (npg_id uid = owner, ns = (npg_id)parent;;) {
		if (userns_count(w, ns, uid) >= w->userns[ns].max_user_namespaces)
			return false;
		if (ns == (npg_id)NPG_USERNS_INITIAL)
			return true;
		uid = w->userns[ns].owner;
		ns = w->userns[ns].parent;
	}
}

/*
 * set_cred_user_ns(): securebits default, pI = pA = 0, pP = pE = X = the
 * full set; then set_cred_ucounts(): since 5.14 the ucounts (@ns, the
 * key of the era) replace those of @old
 */
static void set_cred_user_ns(const struct npg_world *w, struct npg_cred *new, int ns)
{
	new->userns = ns;
	new->securebits = 0;
	new->keepcaps = false;
	new->cap_inheritable = 0;
	new->cap_ambient = 0;
	new->cap_permitted = new->cap_effective = new->cap_bset = w->cap_full_set;
	if (w->policy->ucounts)
		new->charged_to = npg_set_cred_ucounts(w, new);
}

/*
 * commit_creds() of a task's move into another namespace (unshare,
 * setns): since 5.14 "if (new->user != old->user || new->user_ns !=
 * old->user_ns)" moves its charge to the new ucounts; up to 5.13 its
 * user_struct, and so its count, stay. cred_cap_issubset(): the full set
 * of a namespace the euid owns is no gain, so the mm stays dumpable there
 * (and mm->user_ns stays).
 */
static void commit_userns(struct npg_world *w, int t, const struct npg_cred *new)
{
	struct npg_task *task = &w->tasks[t];

	if (w->policy->ucounts) {
		npg_charge(w, new, 1);
		/* 5.14.0-5.14.14 decremented the old ucounts only "if (new->user !=
		 * old->user)": the old level kept the task (629715adc62b) */
		if (w->rules.commit_creds_userns_dec || new->uid.real != task->cred.uid.real)
			npg_charge(w, &task->cred, -1);
	}
	npg_commit_creds_dumpable(w, t, &task->cred, new);
	task->cred = *new;
}

/*
 * kernel/user_namespace.c, create_user_ns() of 2.6.39-3.4, from
 * copy_creds() for the child's credentials @new:
 *	root_user = alloc_uid(ns, 0);
 *	ns->creator = new->user;
 *	new->user = root_user;
 *	new->uid = new->euid = new->suid = new->fsuid = 0;
 *	new->gid = new->egid = new->sgid = new->fsgid = 0;
 *	put_group_info(new->group_info);
 *	new->group_info = get_group_info(&init_groups);
 * The capabilities and securebits stay the parent's, and copy_creds()
 * charges the child to the new root user_struct. No map, no count or
 * depth of namespaces: do_fork()'s capable() already keeps a child
 * namespace's tasks from making one.
 */
static void create_user_ns_2_6_39(struct npg_world *w, int ns, struct npg_cred *new)
{
	w->userns[ns] = (struct npg_userns){
		.exists = true,
		.parent = new->userns,
		.level = (new->userns ? w->userns[new->userns].level : 0) + 1,
		.owner = new->uid.real,		/* ns->creator: the user_struct of the real uid */
		.group = new->gid.real,
		.nproc_max = NPG_RLIM_INFINITY,
		.setgroups_allowed = true,
		.max_user_namespaces = INT_MAX,
	};
	new->userns = ns;
	new->uid = (struct npg_ids){ 0, 0, 0, 0 };
	new->gid = (struct npg_ids){ 0, 0, 0, 0 };
	new->ngroups = 0;
	new->charged_to = 0;
}

/*
 * kernel/user_namespace.c, create_user_ns() for credentials @new of the
 * caller @t (unshare: its own; clone: its child's):
 *	if (parent_ns->level > 32) -ENOSPC
 *	inc_user_namespaces(parent_ns, owner): -ENOSPC
 *	if (!kuid_has_mapping(parent_ns, owner) || !kgid_has_mapping(parent_ns, group)) -EPERM
 *	ns->parent_could_setfcap = cap_raised(new->cap_effective, CAP_SETFCAP);
 *	set_userns_rlimit_max(ns, UCOUNT_RLIMIT_NPROC, enforced_nproc_rlimit());
 *	ns->flags = parent_ns->flags;	(USERNS_SETGROUPS_ALLOWED)
 * then set_cred_user_ns(): securebits default, pI = pA = 0, pP = pE = X =
 * full; and set_cred_ucounts(): the ucounts (new ns, uid) since 5.14. The
 * kernel ids stay.
 */
static int create_user_ns(struct npg_world *w, int t, int ns, struct npg_cred *new)
{
	const struct npg_task *task = &w->tasks[t];
	int parent = new->userns, err;
	struct npg_userns *u;

	if (ns <= 0 || ns > NPG_MAX_USERNS)
		return -EINVAL;
	if ((err = userns_table(w)) < 0)
		return err;
	if (!w->rules.userns_idmaps) {
		create_user_ns_2_6_39(w, ns, new);
		return 0;
	}
	if (parent != NPG_USERNS_INITIAL && w->userns[parent].level > 32)
		return -ENOSPC;
	if (w->rules.userns_max_sysctl && !userns_count_below_max(w, parent, new->uid.eff))
		return -ENOSPC;
	if (npg_from_kid(w, parent, new->uid.eff, false) == NPG_ID_NONE ||
	    npg_from_kid(w, parent, new->gid.eff, true) == NPG_ID_NONE)
		return -EPERM;

	u = &w->userns[ns];
	*u = (struct npg_userns){
		.exists = true,
		.parent = parent,
		.level = (parent ? w->userns[parent].level : 0) + 1,
		.owner = new->uid.eff,
		.group = new->gid.eff,
		.setgroups_allowed = w->userns[parent].setgroups_allowed,
		.parent_could_setfcap = npg_cap_has(new->cap_effective, NPG_CAP_SETFCAP),
		.max_user_namespaces = INT_MAX,
	};
	/*
	 * enforced_nproc_rlimit() (0ac983f51203, 5.17; 5.16.13, 5.15.27; rule
	 * enforced_nproc_rlimit):
	 * no limit when the caller is real uid 0 of the initial namespace;
	 * before it, "set_rlimit_ucount_max(ns, UCOUNT_RLIMIT_NPROC,
	 * rlimit(RLIMIT_NPROC))" for everyone. The caller's limit, a clone's too.
	 */
	u->nproc_max = npg_rlimit_nproc(w, task);
	if (w->rules.enforced_nproc_rlimit && task->cred.uid.real == NPG_INIT_USER &&
	    task->cred.userns == NPG_USERNS_INITIAL)
		u->nproc_max = NPG_RLIM_INFINITY;

	set_cred_user_ns(w, new, ns);
	return 0;
}

/*
 * map_write(): the lines may not be empty, wrap, or overlap one another
 * (EINVAL); then new_idmap_permitted() for a writer other than the
 * harness (EPERM), and each lower range must be mapped in the parent
 * namespace ("map_id_range_down(parent_map, ...)": EPERM). Kept in the
 * parent's terms: make_kid() walks down the chain.
 */
static int check_lines(const struct npg_idmap *in)
{
	if (in->nr == 0)
		return -EINVAL;
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
	return 0;
}

/*
 * new_idmap_permitted() for credentials @c (the writer's, who also opened
 * the file):
 *	verify_root_map() (db2e718a4798, 5.12), uid_map only: a line whose
 *	lower id is 0 needs the creator's CAP_SETFCAP when the namespace
 *	writes its own map, else the writer's CAP_SETFCAP over the parent;
 *	one line of one id, the writer's euid owning the namespace: its own
 *	euid (uid_map), or its own egid once setgroups is denied (gid_map;
 *	before 3.19, 66d2f338ee4c and 80dd00a23784, the fsuid / fsgid and no
 *	setgroups test);
 *	else CAP_SETUID / CAP_SETGID over the parent.
 */
static bool idmap_permitted(const struct npg_world *w, const struct npg_cred *c, int ns,
			    bool gid, const struct npg_idmap *in)
{
	const struct npg_userns *u = &w->userns[ns];
	const struct npg_idmap_extent *e = &in->extent[0];

	if (!gid && w->rules.userns_map_root_setfcap) {
		for (int i = 0; i < in->nr; i++) {
			if (in->extent[i].lower_first != 0)
				continue;
			if (c->userns == ns ? !u->parent_could_setfcap
					    : !npg_cred_ns_capable(w, c, u->parent, NPG_CAP_SETFCAP))
				return false;
			break;
		}
	}
	if (in->nr == 1 && e->count == 1 && u->owner == c->uid.eff) {
		npg_id k = npg_make_kid(w, u->parent, e->lower_first, gid);

		if (!w->rules.userns_setgroups_knob) {
			if (k == (gid ? c->gid.fs : c->uid.fs))
				return true;
		} else if (!gid && k == c->uid.eff) {
			return true;
		} else if (gid && !u->setgroups_allowed && k == c->gid.eff) {
			return true;
		}
	}
	return npg_cred_ns_capable(w, c, u->parent, gid ? NPG_CAP_SETGID : NPG_CAP_SETUID);
}

/* @c NULL: the harness, with every capability over the parent namespace */
static int map_write(struct npg_world *w, const struct npg_cred *c, int ns, bool gid,
		     const struct npg_idmap *in)
{
	struct npg_userns *u = &w->userns[ns];
	struct npg_idmap *map = gid ? &u->gid_map : &u->uid_map;
	const struct npg_idmap *pm = gid ? &w->userns[u->parent].gid_map
					 : &w->userns[u->parent].uid_map;
	int err;

	/* "Only allow one successful write to the map"; "Adjusting namespace
	 * settings requires capabilities on the target" */
	if (map->nr != 0)
		return -EPERM;
	if (c && !npg_cred_ns_capable(w, c, ns, NPG_CAP_SYS_ADMIN))
		return -EPERM;
	if ((err = check_lines(in)) < 0)
		return err;
	if (c && !idmap_permitted(w, c, ns, gid, in))
		return -EPERM;
	for (int i = 0; i < in->nr; i++)
		if (u->parent != NPG_USERNS_INITIAL &&
		    !npg_idmap_range_mapped(pm->extent, pm->nr, &in->extent[i]))
			return -EPERM;
	*map = *in;
	return 0;
}

/* the maps a step has the harness write, uid_map first; before 3.8
 * (3.5, in fact) there is no /proc/PID/uid_map to open */
struct npg_result npg_userns_harness_maps(struct npg_world *w, int ns,
					  const struct npg_idmap *uid_map,
					  const struct npg_idmap *gid_map)
{
	int err;

	if (!w->rules.userns_idmaps && ((uid_map && uid_map->nr) || (gid_map && gid_map->nr)))
		return result(NPG_R_ERRNO, ENOENT);

	if (uid_map && uid_map->nr && (err = map_write(w, NULL, ns, false, uid_map)) < 0)
		return result(NPG_R_ERRNO, -err);
	if (gid_map && gid_map->nr && (err = map_write(w, NULL, ns, true, gid_map)) < 0)
		return result(NPG_R_ERRNO, -err);
	return result(NPG_R_OK, 0);
}

/*
 * kernel/fork.c, ksys_unshare() -> unshare_userns() -> create_user_ns(),
 * then set_cred_ucounts() and commit_creds(). Since 5.14 the task moves
 * to the ucounts (new ns, uid) -- "if (new->user != old->user ||
 * new->user_ns != old->user_ns)" in commit_creds() -- and so still counts
 * for the owner in the parent namespace through the chain. Up to 5.13 its
 * user_struct, and so its count, stay the same. Before 3.8
 * check_unshare_flags() knows no CLONE_NEWUSER: EINVAL.
 */
struct npg_result npg_sys_unshare_user(struct npg_world *w, int t, int ns,
				       const struct npg_idmap *uid_map,
				       const struct npg_idmap *gid_map)
{
	struct npg_cred new = w->tasks[t].cred;
	int err;

	if (!w->rules.userns_idmaps)
		return result(NPG_R_ERRNO, EINVAL);

	if (!single_threaded(w, t))
		return result(NPG_R_ERRNO, EINVAL);
	if ((err = create_user_ns(w, t, ns, &new)) < 0)
		return result(NPG_R_ERRNO, -err);
	commit_userns(w, t, &new);
	return npg_userns_harness_maps(w, ns, uid_map, gid_map);
}

/* copy_creds()'s part of npg_copy_process(): the child's namespace */
int npg_copy_creds_newuser(struct npg_world *w, int t, int ns, struct npg_cred *new)
{
	return create_user_ns(w, t, ns, new);
}

/*
 * setns(fd of @ns, CLONE_NEWUSER) -> userns_install():
 *	if (user_ns == current_user_ns()) -EINVAL
 *	if (!thread_group_empty(current)) -EINVAL
 *	if (current->fs->users != 1) -EINVAL
 *	if (!ns_capable(user_ns, CAP_SYS_ADMIN)) -EPERM
 * then set_cred_user_ns() and set_cred_ucounts(), as unshare(). No
 * namespace of that name (not created under this policy): no descriptor,
 * EBADF. Before 3.8 a user namespace has no /proc/PID/ns/user to open
 * (proc_ns_operations gained userns_operations in 3.8): ENOENT, before
 * any call; for one never made the call is made with no descriptor, and
 * 3.0's setns() (kernel/nsproxy.c) asks first
 *	if (!capable(CAP_SYS_ADMIN)) return -EPERM;
 * then proc_ns_fget(fd): EBADF (found by conform on 3.0.8).
 */
struct npg_result npg_sys_setns_user(struct npg_world *w, int t, int ns)
{
	struct npg_task *task = &w->tasks[t];
	struct npg_cred new = task->cred;
	bool made = ns > 0 && ns <= NPG_MAX_USERNS && w->userns && w->userns[ns].exists;

	if (!w->rules.userns_idmaps)
		return result(NPG_R_ERRNO, made ? ENOENT :
				 !npg_capable(task, NPG_CAP_SYS_ADMIN) ? EPERM : EBADF);
	if (!made)
		return result(NPG_R_ERRNO, EBADF);
	if (ns == task->cred.userns || !single_threaded(w, t))
		return result(NPG_R_ERRNO, EINVAL);
	if (!npg_ns_capable(w, task, ns, NPG_CAP_SYS_ADMIN))
		return result(NPG_R_ERRNO, EPERM);
	set_cred_user_ns(w, &new, ns);
	commit_userns(w, t, &new);
	return result(NPG_R_OK, 0);
}

/*
 * Opening /proc/@target/{uid_map,gid_map,setgroups} (S_IRUGO|S_IWUSR) to
 * write: the inode's owner is task_dump_owner() -- the task's euid and
 * egid while its mm is dumpable, else uid 0 of mm->user_ns (the initial
 * root when unmapped) -- and generic_permission() lets the owner write,
 * or a writer with CAP_DAC_OVERRIDE in its own namespace where the owner
 * is mapped (capable_wrt_inode_uidgid()).
 */
static bool proc_file_writable(const struct npg_world *w, int t, int target)
{
	const struct npg_cred *c = &w->tasks[t].cred;
	const struct npg_task *tsk = &w->tasks[target];
	npg_id ouid = tsk->cred.uid.eff, ogid = tsk->cred.gid.eff;

	if (!npg_alive(tsk)) {		/* an exited task has no mm: the initial root's */
		ouid = ogid = 0;
	} else if (tsk->dumpable != 1) {
		ouid = npg_make_kid(w, tsk->mm_userns, 0, false);
		ogid = npg_make_kid(w, tsk->mm_userns, 0, true);
		if (ouid == NPG_ID_NONE)
			ouid = 0;
		if (ogid == NPG_ID_NONE)
			ogid = 0;
	}
	if (c->uid.fs == ouid)
		return true;
	return npg_cap_has(c->cap_effective, NPG_CAP_DAC_OVERRIDE) &&
	       npg_from_kid(w, c->userns, ouid, false) != NPG_ID_NONE &&
	       npg_from_kid(w, c->userns, ogid, true) != NPG_ID_NONE;
}

/* the file's task: ENOENT once it is reaped (its /proc directory is gone) */
static int proc_target(const struct npg_world *w, int target)
{
	const struct npg_task *tsk = &w->tasks[target];

	if (tsk->state != NPG_TASK_RUNNING && tsk->state != NPG_TASK_ZOMBIE)
		return -ENOENT;
	return 0;
}

/*
 * fs/proc/base.c, a write of /proc/@target/uid_map (gid_map) by @t:
 * proc_id_map_open() takes @target's namespace; proc_uid_map_write():
 *	if (!ns->parent) return -EPERM;
 *	if ((seq_ns != ns) && (seq_ns != ns->parent)) return -EPERM;
 * (seq_ns: the writer's namespace), then map_write(). No such file before
 * 3.8 (the model's namespaces of 2.6.39-3.4): ENOENT.
 */
struct npg_result npg_sys_write_idmap(struct npg_world *w, int t, int target, bool gid,
				      const struct npg_idmap *map)
{
	const struct npg_task *tsk = &w->tasks[target];
	int ns = tsk->cred.userns, err;

	if (!w->rules.userns_idmaps)
		return result(NPG_R_ERRNO, ENOENT);

	if ((err = proc_target(w, target)) < 0)
		return result(NPG_R_ERRNO, -err);
	if (!proc_file_writable(w, t, target))
		return result(NPG_R_ERRNO, EACCES);
	if (ns == NPG_USERNS_INITIAL)
		return result(NPG_R_ERRNO, EPERM);
	if (w->tasks[t].cred.userns != ns && w->tasks[t].cred.userns != w->userns[ns].parent)
		return result(NPG_R_ERRNO, EPERM);
	if ((err = map_write(w, &w->tasks[t].cred, ns, gid, map)) < 0)
		return result(NPG_R_ERRNO, -err);
	return result(NPG_R_OK, 0);
}

/*
 * /proc/@target/setgroups (3.19+, 9cc46516ddf4; ENOENT before):
 * proc_setgroups_open() wants CAP_SYS_ADMIN over the namespace (EACCES),
 * proc_setgroups_write(): "allow" after "deny", or "deny" once the gid_map
 * is written, is EPERM. "deny" is for good: setgroups() is EPERM in the
 * namespace (userns_may_setgroups()) and in namespaces created from it.
 */
struct npg_result npg_sys_write_setgroups(struct npg_world *w, int t, int target, bool allow)
{
	const struct npg_task *tsk = &w->tasks[target];
	int ns = tsk->cred.userns, err;
	struct npg_userns *u;

	if (!w->rules.userns_setgroups_knob)
		return result(NPG_R_ERRNO, ENOENT);
	if ((err = proc_target(w, target)) < 0)
		return result(NPG_R_ERRNO, -err);
	if (!proc_file_writable(w, t, target))
		return result(NPG_R_ERRNO, EACCES);
	if ((err = userns_table(w)) < 0)
		return result(NPG_R_ERRNO, -err);
	if (!npg_ns_capable(w, &w->tasks[t], ns, NPG_CAP_SYS_ADMIN))
		return result(NPG_R_ERRNO, EACCES);
	u = &w->userns[ns];
	if (allow ? !u->setgroups_allowed : u->gid_map.nr != 0 || ns == NPG_USERNS_INITIAL)
		return result(NPG_R_ERRNO, EPERM);
	u->setgroups_allowed = allow;
	return result(NPG_R_OK, 0);
}

/*
 * /proc/sys/user/max_user_namespaces, which shows the writer's own
 * namespace's value (kernel/ucount.c, set_lookup()): writable only with
 * CAP_SYS_RESOURCE over that namespace (set_permissions(): else mode
 * 0444, so open() is EACCES, root included); 0 to INT_MAX
 * (proc_dointvec_minmax(): EINVAL outside). No such file before 4.9.
 */
struct npg_result npg_sys_max_user_namespaces(struct npg_world *w, int t, long value)
{
	struct npg_task *task = &w->tasks[t];
	int err;

	if (!w->rules.userns_max_sysctl)
		return result(NPG_R_ERRNO, ENOENT);
	if ((err = userns_table(w)) < 0)
		return result(NPG_R_ERRNO, -err);
	if (!npg_ns_capable(w, task, task->cred.userns, NPG_CAP_SYS_RESOURCE))
		return result(NPG_R_ERRNO, EACCES);
	if (value < 0 || value > INT_MAX)
		return result(NPG_R_ERRNO, EINVAL);
	w->userns[task->cred.userns].max_user_namespaces = value;
	return result(NPG_R_OK, 0);
}
