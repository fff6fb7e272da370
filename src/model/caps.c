/* Capability changes that follow uid changes and execve(). */
#include <errno.h>

#include "model/cred.h"

/*
 * security/commoncap.c, cap_task_fix_setuid() (2.6.x .. 6.x):
 * LSM_SETID_ID/RE/RES call cap_emulate_setxuid() unless
 * SECURE_NO_SETUID_FIXUP; LSM_SETID_FS toggles CAP_FS_MASK, also unless
 * SECURE_NO_SETUID_FIXUP. cap_emulate_setxuid() clears the ambient set
 * whenever the last root id goes, keep-caps or not (4.3+).
 */
void npg_cap_fix_setuid(struct npg_cred *new, const struct npg_cred *old, bool fs_only,
			npg_id root)
{
	if (old->securebits & NPG_SECBIT_NO_SETUID_FIXUP)
		return;
	/* "kuid_t root_uid = make_kuid(old->user_ns, 0)": uid 0 of the
	 * task's namespace (none when unmapped: nothing equals it) */
	if (fs_only) {
		if (old->uid.fs == root && new->uid.fs != root)
			new->cap_effective &= ~NPG_CAP_FS_MASK;
		if (old->uid.fs != root && new->uid.fs == root)
			new->cap_effective |= new->cap_permitted & NPG_CAP_FS_MASK;
		return;
	}
	/* cap_emulate_setxuid(): leaving uid 0 in all three ids drops everything */
	if ((old->uid.real == root || old->uid.eff == root || old->uid.saved == root) &&
	    new->uid.real != root && new->uid.eff != root && new->uid.saved != root) {
		if (!new->keepcaps) {
			new->cap_permitted = 0;
			new->cap_effective = 0;
		}
		new->cap_ambient = 0;
	}
	if (old->uid.eff == root && new->uid.eff != root)
		new->cap_effective = 0;
	if (old->uid.eff != root && new->uid.eff == root)
		new->cap_effective = new->cap_permitted;
}

/*
 * fs/exec.c, bprm_fill_uid() then security/commoncap.c,
 * cap_bprm_creds_from_file() (6.x; cap_bprm_set_creds() before 5.8, the
 * ambient set since 4.3), for a file system that honours set-id bits,
 * without no_new_privs, a tracer or a shared fs_struct (bprm->unsafe = 0):
 *
 *   bprm_fill_uid(): S_ISUID sets the euid to the owner; S_ISGID with
 *     S_IXGRP sets the egid to the group.
 *   get_file_caps(): pP' = (X & fP) | (pI & fI), fE; none: pP' = 0.
 *   handle_privileged_root(), unless SECURE_NOROOT: a set-uid-root file
 *     with file capabilities keeps to them ("has_fcap && __is_suid"; 3.0:
 *     only with the effective bit);
 *     else euid or ruid 0: pP' = X | pI, and euid 0: fE.
 *   is_setid = euid' != uid or egid' != gid -- since 337490f0007f
 *     (6.17) "id_changed": euid' != euid, or egid' neither the fsgid nor
 *     a supplementary group (in_group_p()); file capabilities or it clear
 *     pA; pP' |= pA'; pE' = fE ? pP' : pA'.
 *   "new->suid = new->fsuid = new->euid" (gids too); SECURE_KEEP_CAPS
 *     is cleared (prepare_exec_creds()).
 *
 * In a user namespace, "root" is uid 0 of that namespace (root_uid =
 * make_kuid(new->user_ns, 0)), and bprm_fill_uid() ignores the set-id
 * bits of a file whose owner or group has no mapping there.
 *
 * With no_new_privs (3.5+): set-id bits are ignored, and then the
 * "downgrade" of cap_bprm_creds_from_file() (below).
 *
 * -EPERM, @new unchanged, when fE is set and X & fP misses part of fP
 * (bprm_caps_from_vfs_caps()): begin_new_exec() returns it before
 * de_thread(), so the exec fails and the old image runs on.
 */
static bool in_group_p(const struct npg_cred *c, npg_id gid)
{
	if (gid == c->gid.fs)
		return true;
	for (int i = 0; i < c->ngroups; i++)
		if (c->groups[i] == gid)
			return true;
	return false;
}

int npg_cap_bprm_creds(struct npg_cred *new, const struct npg_exec_file *f,
		       const struct npg_bprm *bprm)
{
	const struct npg_cred old = *new;
	bool effective = false, is_setid;
	bool has_fcap = f && f->has_fcaps && !f->nosuid && !bprm->fcap_ignored;
	bool setid_mapped = bprm->setid_mapped && !(f && f->nosuid), nnp = bprm->no_new_privs;
	npg_id root = bprm->root_uid;

	/* bprm_fill_uid(): "if (task_no_new_privs(current)) return;" */
	if (f && f->setuid && setid_mapped && !nnp)
		new->uid.eff = f->uid;
	if (f && f->setgid && setid_mapped && !nnp)
		new->gid.eff = f->gid;
	new->cap_permitted = 0;
	if (has_fcap) {
		new->cap_permitted = (old.cap_bset & f->fcap_permitted) |
				     (old.cap_inheritable & f->fcap_inheritable);
		effective = f->fcap_effective;
		/* bprm_caps_from_vfs_caps(): "insufficient to execute correctly" */
		if (effective && (f->fcap_permitted & ~new->cap_permitted)) {
			*new = old;
			return -EPERM;
		}
	}
	/*
	 * handle_privileged_root(): "if (has_fcap && __is_suid(root_uid, new))
	 * return;" since 4d49f6710bfb (3.2); 3.0's cap_bprm_set_creds() skipped
	 * the root rules only "if (effective && new->uid != 0 && new->euid ==
	 * 0)", so file capabilities without the effective bit left a task of
	 * euid 0 root's whole set (measured on 3.0.8)
	 */
	if (!(old.securebits & NPG_SECBIT_NOROOT) &&
	    !((bprm->fcaps_suppress_root ? has_fcap : effective) && new->uid.real != root &&
	      new->uid.eff == root)) {
		if (new->uid.eff == root || new->uid.real == root)
			new->cap_permitted = old.cap_bset | old.cap_inheritable;
		if (new->uid.eff == root)
			effective = true;
	}
	if (bprm->id_changed_rule)
		is_setid = new->uid.eff != old.uid.eff || !in_group_p(&old, new->gid.eff);
	else
		is_setid = new->uid.eff != old.uid.real || new->gid.eff != old.gid.real;
	/*
	 * "Don't let someone trace a set[ug]id/setpcap binary with the revised
	 * credentials unless they have the appropriate permit. In addition,
	 * if NO_NEW_PRIVS, then ensure we get no new privs":
	 *	if ((is_setid || __cap_gained(permitted, new, old)) &&
	 *	    ((bprm->unsafe & ~LSM_UNSAFE_PTRACE) ||
	 *	     !ptracer_capable(current, new->user_ns))) {
	 *		if (!ns_capable(new->user_ns, CAP_SETUID) ||
	 *		    (bprm->unsafe & LSM_UNSAFE_NO_NEW_PRIVS)) {
	 *			new->euid = new->uid; new->egid = new->gid;
	 *		}
	 *		new->cap_permitted = cap_intersect(new->cap_permitted,
	 *						   old->cap_permitted);
	 *	}
	 * A set-id change counts even from a task whose euid already differs
	 * from its real uid (euid' != uid). The same test, with
	 * LSM_UNSAFE_PTRACE_CAP for a capable tracer, since 2.6.29.
	 */
	if ((nnp || bprm->ptrace) && (is_setid || (new->cap_permitted & ~old.cap_permitted))) {
		if (!bprm->cap_setuid || nnp) {
			new->uid.eff = new->uid.real;
			new->gid.eff = new->gid.real;
		}
		new->cap_permitted &= old.cap_permitted;
	}
	if (has_fcap || is_setid)
		new->cap_ambient = 0;
	new->cap_permitted |= new->cap_ambient;
	new->cap_effective = effective ? new->cap_permitted : new->cap_ambient;
	new->uid.saved = new->uid.fs = new->uid.eff;
	new->gid.saved = new->gid.fs = new->gid.eff;
	new->keepcaps = false;
	return 0;
}
