/*
 * User namespaces on the real kernel: writing a namespace's uid_map and
 * gid_map as the harness of the model does (a writer with every
 * capability over the parent namespace), and telling a refusal of the
 * machine (a sysctl, an LSM, seccomp) from one of the kernel's rules.
 */
#ifndef NPG_REAL_IDMAP_H
#define NPG_REAL_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A map as written: up to NPG_IDMAP_MAX lines, one more where uid 0 splits one */
#define NPG_REAL_IDMAP_LINES 6
#define NPG_REAL_IDMAP_TEXT (NPG_REAL_IDMAP_LINES * 36 + 1)

/* What this machine offers; filled by npg_idmap_probe() */
struct npg_idmap_host {
	bool supported;		/* /proc/self/ns/user and /proc/self/uid_map: 3.8+, CONFIG_USER_NS */
	char unsupported[160];	/* why not */
	uint64_t init_ino;	/* the initial namespace: this process's */
	uint32_t overflowuid, overflowgid;	/* what an unmapped id reads as */
	int max_lines;		/* UID_GID_MAP_MAX_EXTENTS: 5, 340 from 4.15 (6397fac4915a) */
};

int npg_idmap_probe(struct npg_idmap_host *h);

/*
 * Write a new namespace's maps, uid_map first, then gid_map unless the
 * first failed ("" leaves one unwritten), to task @pid/@tid's files: from
 * this process when the namespace's parent is the initial one (map_write()
 * takes a writer in the namespace's parent), else from a child that joins
 * the parent namespace @parent_nsfd first (setns()). Returns -1 with @why
 * when the write could not be attempted as the kernel's harness would
 * (the backend's failure); else 0 with *@err the kernel's answer: 0, or
 * the errno of the first map write that failed (EINVAL, EPERM), and
 * *@failed which one it was (0 uid_map, 1 gid_map; -1 none).
 */
int npg_idmap_write(pid_t pid, pid_t tid, int parent_nsfd, const char *uid_text,
		    const char *gid_text, int timeout_ms, int *err, int *failed, char *why,
		    size_t len);

/*
 * Why this machine, not a rule of the kernel the model has, refused
 * @call (unshare(CLONE_NEWUSER), clone(CLONE_NEWUSER)) with @err to task
 * @pid/@tid: the sysctls and policies that do
 * (kernel.unprivileged_userns_clone, user.max_user_namespaces, AppArmor,
 * seccomp), or a general statement.
 */
void npg_idmap_refusal(pid_t pid, pid_t tid, const char *call, int err, char *buf, size_t len);

#endif
