/*
 * npg_drop_privileges(): drop to a user the way CERT POS36-C and POS37-C
 * say -- supplementary groups, then the gid, then the uid, every call
 * checked, then everything verified -- and aware of RLIMIT_NPROC.
 * See npg_drop_privileges(3).
 */
#ifndef NPROCGUARD_PRIVDROP_H
#define NPROCGUARD_PRIVDROP_H

#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

enum npg_groups_mode {
	NPG_GROUPS_CLEAR,	/* no supplementary groups */
	NPG_GROUPS_SET,		/* exactly group_list[0..ngroups) */
	NPG_GROUPS_INIT,	/* initgroups(user, gid): the user's groups from the group database */
};

#define NPG_PRIVDROP_NO_NEW_PRIVS 0x1u	/* also set PR_SET_NO_NEW_PRIVS */

struct npg_privdrop {
	uid_t uid;
	gid_t gid;
	enum npg_groups_mode groups;
	const gid_t *group_list;
	size_t ngroups;
	const char *user;		/* for NPG_GROUPS_INIT */
	long long rlimit_nproc;		/* >= 0: set soft and hard RLIMIT_NPROC first; < 0: leave */
	unsigned flags;
	char reason[256];		/* on failure: which step, and why */
};

/*
 * Drop the calling process to @d->uid/@d->gid for good. Returns 0, or -1
 * with errno set and @d->reason naming the step ("setresuid(1000, 1000,
 * 1000): Resource temporarily unavailable", "setuid(0) succeeded after the
 * drop: root can be regained"). After -1 the process may be half-dropped:
 * it must not go on to run anything on behalf of the target user.
 */
int npg_drop_privileges(struct npg_privdrop *d);

/*
 * Will the kernel refuse this process's next execve() because of
 * RLIMIT_NPROC (PF_NPROC_EXCEEDED set and the real user over its limit,
 * fs/exec.c since 3.1)? Returns 1 with a sentence in @buf ("user www has
 * 31 tasks, RLIMIT_NPROC is 30: execve would fail with EAGAIN
 * (PF_NPROC_EXCEEDED)"), 0 if not, -1 if /proc cannot tell.
 */
int npg_nproc_execve_verdict(char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
