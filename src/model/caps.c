/* Capability changes that follow uid changes and execve(). */
#include "model/cred.h"

/*
 * security/commoncap.c, cap_task_fix_setuid() (2.6.x .. 6.x):
 * LSM_SETID_ID/RE/RES call cap_emulate_setxuid(); LSM_SETID_FS toggles
 * CAP_FS_MASK. SECURE_NO_SETUID_FIXUP is not modelled (never set).
 */
void npg_cap_fix_setuid(struct npg_cred *new, const struct npg_cred *old, bool fs_only)
{
	if (fs_only) {
		if (old->uid.fs == 0 && new->uid.fs != 0)
			new->cap_effective &= ~NPG_CAP_FS_MASK;
		if (old->uid.fs != 0 && new->uid.fs == 0)
			new->cap_effective |= new->cap_permitted & NPG_CAP_FS_MASK;
		return;
	}
	/* cap_emulate_setxuid(): leaving uid 0 in all three ids drops everything */
	if ((old->uid.real == 0 || old->uid.eff == 0 || old->uid.saved == 0) &&
	    new->uid.real != 0 && new->uid.eff != 0 && new->uid.saved != 0) {
		if (!new->keepcaps) {
			new->cap_permitted = 0;
			new->cap_effective = 0;
		}
	}
	if (old->uid.eff == 0 && new->uid.eff != 0)
		new->cap_effective = 0;
	if (old->uid.eff != 0 && new->uid.eff == 0)
		new->cap_effective = new->cap_permitted;
}

/*
 * security/commoncap.c, cap_bprm_creds_from_file() for a plain binary (no
 * file capabilities, no set-id bit; inheritable and ambient sets empty):
 * "if (__is_eff(root_uid, new) || __is_real(root_uid, new))" the permitted
 * set becomes the bounding set, and the effective set is raised only for
 * an effective uid of 0. Then "new->suid = new->fsuid = new->euid" (same
 * for gids). fs/exec.c (begin_new_exec / prepare_exec_creds) clears
 * SECURE_KEEP_CAPS.
 */
void npg_cap_bprm_creds(struct npg_cred *new)
{
	if (new->uid.eff == 0 || new->uid.real == 0)
		new->cap_permitted = new->cap_bset;
	else
		new->cap_permitted = 0;
	new->cap_effective = new->uid.eff == 0 ? new->cap_permitted : 0;
	new->uid.saved = new->uid.fs = new->uid.eff;
	new->gid.saved = new->gid.fs = new->gid.eff;
	new->keepcaps = false;
}
