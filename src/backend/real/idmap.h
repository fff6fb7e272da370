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

/*
 * Which user namespaces the running kernel has. NPG_USERNS_MAPS: 3.8's
 * (/proc/PID/ns/user, uid_map, unshare(), unprivileged creation).
 * NPG_USERNS_LEGACY: 2.6.39-3.4's -- clone(CLONE_NEWUSER) only, by a task
 * with CAP_SYS_ADMIN, CAP_SETUID and CAP_SETGID, capabilities relative to
 * the namespace (3486740a4f32), ids without maps and no /proc file at
 * all, so CONFIG_USER_NS shows only when a clone() is tried (EINVAL
 * without it). NPG_USERNS_NONE: none the model has, and why in @why:
 * CONFIG_USER_NS off on 3.8+, 3.5-3.7 (uid_map, but 3.0's privileged
 * clone() and no unshare()), 2.6.23-2.6.38 (capabilities not relative to
 * the namespace), or older.
 */
enum npg_userns_form { NPG_USERNS_NONE, NPG_USERNS_LEGACY, NPG_USERNS_MAPS };

enum npg_userns_form npg_userns_form_probe(char *why, size_t len);

/* What this machine offers; filled by npg_idmap_probe() */
struct npg_idmap_host {
	bool supported;		/* /proc/self/ns/user and /proc/self/uid_map: 3.8+, CONFIG_USER_NS */
	/* 2.6.39-3.4's namespaces (NPG_USERNS_LEGACY): no /proc file tells a
	 * task's namespace, the backend's bookkeeping does */
	bool legacy;
	char unsupported[160];	/* why not (for legacy: why there are no maps) */
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
 * the errno of the first map write that failed (EINVAL, EPERM; ENOENT at
 * the open where a live task has no such file: before 3.5), and *@failed
 * which one it was (0 uid_map, 1 gid_map; -1 none).
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
