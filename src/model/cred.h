/* Credentials and capabilities of one task, as struct cred has them. */
#ifndef NPG_MODEL_CRED_H
#define NPG_MODEL_CRED_H

#include <stdbool.h>
#include <stdint.h>

typedef uint32_t npg_id;			/* uid_t / gid_t */
#define NPG_ID_NONE ((npg_id)-1)		/* "-1": leave unchanged / invalid */
#define NPG_NGROUPS 32				/* supplementary groups kept by the model */

/* Kernel capability numbers (include/uapi/linux/capability.h). */
enum {
	NPG_CAP_CHOWN = 0, NPG_CAP_DAC_OVERRIDE = 1, NPG_CAP_DAC_READ_SEARCH = 2,
	NPG_CAP_FOWNER = 3, NPG_CAP_FSETID = 4, NPG_CAP_KILL = 5, NPG_CAP_SETGID = 6,
	NPG_CAP_SETUID = 7, NPG_CAP_SETPCAP = 8, NPG_CAP_LINUX_IMMUTABLE = 9,
	NPG_CAP_SYS_PTRACE = 19, NPG_CAP_SYS_ADMIN = 21, NPG_CAP_SYS_RESOURCE = 24, NPG_CAP_MKNOD = 27,
	NPG_CAP_MAC_OVERRIDE = 32, NPG_CAP_LAST = 40,
};
#define NPG_CAP(n) ((uint64_t)1 << (n))
#define NPG_CAP_ALL ((NPG_CAP(NPG_CAP_LAST) << 1) - 1)
/* CAP_FS_MASK (include/linux/capability.h): what fsuid 0 <-> non-0 toggles. */
#define NPG_CAP_FS_MASK (NPG_CAP(NPG_CAP_CHOWN) | NPG_CAP(NPG_CAP_DAC_OVERRIDE) | \
	NPG_CAP(NPG_CAP_DAC_READ_SEARCH) | NPG_CAP(NPG_CAP_FOWNER) | \
	NPG_CAP(NPG_CAP_FSETID) | NPG_CAP(NPG_CAP_LINUX_IMMUTABLE) | \
	NPG_CAP(NPG_CAP_MAC_OVERRIDE) | NPG_CAP(NPG_CAP_MKNOD))

/* real, effective, saved and filesystem ids: the same four for uids and gids */
struct npg_ids {
	npg_id real, eff, saved, fs;
};

struct npg_cred {
	struct npg_ids uid, gid;
	int ngroups;
	npg_id groups[NPG_NGROUPS];
	uint64_t cap_effective, cap_permitted, cap_bset;
	uint64_t cap_inheritable, cap_ambient;
	bool keepcaps;		/* SECURE_KEEP_CAPS, set by prctl(PR_SET_KEEPCAPS) */
	/* the other securebits (NPG_SECBIT_*): keep-caps itself is @keepcaps */
	uint32_t securebits;
	/*
	 * Whose per-user count the task is charged to: cred->user (a user_struct
	 * keyed by the real uid) up to 5.13, cred->ucounts since 5.14 (keyed by
	 * the effective uid in 5.14-5.16, by the real uid again since 5.17).
	 */
	npg_id charged_to;
	int userns;		/* cred->user_ns: index into the world's namespaces, 0 initial */
};

/* include/uapi/linux/securebits.h: the bits prctl(PR_SET_SECUREBITS) takes here */
#define NPG_SECBIT_NOROOT		(1u << 0)
#define NPG_SECBIT_NOROOT_LOCKED	(1u << 1)
#define NPG_SECBIT_NO_SETUID_FIXUP	(1u << 2)
#define NPG_SECBIT_NO_SETUID_FIXUP_LOCKED (1u << 3)
#define NPG_SECBIT_KEEP_CAPS		(1u << 4)
#define NPG_SECBIT_KEEP_CAPS_LOCKED	(1u << 5)
#define NPG_SECBIT_NO_CAP_AMBIENT_RAISE	(1u << 6)	/* 4.3+ */
#define NPG_SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED (1u << 7)
#define NPG_SECBITS_ALL 0xffu

/* What execve() finds at the path it is given. */
struct npg_exec_file {
	bool missing;		/* no such file: ENOENT, after the RLIMIT_NPROC test */
	bool setuid, setgid;	/* S_ISUID (owner @uid), S_ISGID (group @gid, S_IXGRP set) */
	npg_id uid, gid;
	bool has_fcaps;		/* security.capability: fP, fI and the fE bit */
	uint64_t fcap_permitted, fcap_inheritable;
	bool fcap_effective;
	/*
	 * security.capability v3 (8db6c34f1dbc, 4.14): written in a user
	 * namespace, with the kernel uid of its root; the capabilities apply
	 * only where @fcap_rootid is uid 0 of the caller's namespace or of an
	 * ancestor (rootid_owns_currentns()); before 4.14 too long for the
	 * v2-sized read of get_vfs_caps_from_disk(): ERANGE
	 */
	bool fcap_v3;
	npg_id fcap_rootid;
	/* on a file system mounted nosuid: mnt_may_suid() is false, so
	 * bprm_fill_uid() and get_file_caps() ignore the bits and capabilities */
	bool nosuid;
};

/* include/linux/cred.h: INIT_USER is the root user of the initial namespace. */
#define NPG_INIT_USER 0

static inline bool npg_cap_has(uint64_t set, int cap)
{
	return (set & NPG_CAP(cap)) != 0;
}

/* security/commoncap.c: cap_emulate_setxuid() and the LSM_SETID_FS case;
 * @root_uid is the kernel uid of uid 0 in the task's namespace */
void npg_cap_fix_setuid(struct npg_cred *new, const struct npg_cred *old, bool fs_only,
			npg_id root_uid);
/* What cap_bprm_creds_from_file() needs besides the credentials */
struct npg_bprm {
	npg_id root_uid;	/* the kernel uid of uid 0 in the task's namespace */
	bool setid_mapped;	/* the file's owner and group are mapped there */
	bool no_new_privs;	/* LSM_UNSAFE_NO_NEW_PRIVS */
	/* LSM_UNSAFE_PTRACE, and no ptracer_capable() to excuse it */
	bool ptrace;
	/* get_vfs_caps_from_disk(): -ENODATA for v3 capabilities whose
	 * root id owns no namespace of the caller's chain: none */
	bool fcap_ignored;
	/* ns_capable(new->user_ns, CAP_SETUID) of the caller: a traced
	 * caller that holds it keeps the new effective ids */
	bool cap_setuid;
	/* 337490f0007f (6.17): "id_changed" (euid' != euid, egid' not among
	 * the caller's groups) where older kernels test "is_setid" (euid' !=
	 * uid, egid' != gid) */
	bool id_changed_rule;
	/* 4d49f6710bfb (3.2): any file capabilities ("has_cap") keep a task of
	 * a non-root real uid and effective uid root to them; 3.0 only those
	 * with the effective bit */
	bool fcaps_suppress_root;
};

/* security/commoncap.c: cap_bprm_creds_from_file() of @f (NULL: a plain
 * program), with fs/exec.c bprm_fill_uid() before it: 0, or -EPERM. */
int npg_cap_bprm_creds(struct npg_cred *new, const struct npg_exec_file *f,
		       const struct npg_bprm *bprm);
/* The securebits as prctl(PR_GET_SECUREBITS) would return them */
static inline uint32_t npg_securebits(const struct npg_cred *c)
{
	return c->securebits | (c->keepcaps ? NPG_SECBIT_KEEP_CAPS : 0);
}

#endif
