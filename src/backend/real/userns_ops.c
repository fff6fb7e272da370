/*
 * User namespaces on the controller's side: unshare(CLONE_NEWUSER),
 * clone(CLONE_NEWUSER) and setns() by a puppet, the maps the harness
 * writes after them, the /proc/PID/uid_map, gid_map and setgroups files
 * and user.max_user_namespaces written by a puppet itself, and each
 * namespace the run made held open and recorded (kernel/user_namespace.c,
 * kernel/fork.c, kernel/ucount.c, fs/proc/base.c; 6.1). On 2.6.39-3.4
 * (3.0 here: r->uns.legacy) only clone() makes one, with no map and no
 * /proc file: the run's bookkeeping is all there is of it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend/real/idmap.h"
#include "backend/real/lifecycle.h"
#include "backend/real/real_priv.h"
#include "backend/real/userns_ops.h"
#include "system/procfs.h"

/*
 * A task that can no longer be driven faithfully from this step on: its
 * steps, and whatever they touch, are not compared (mark_touched()).
 */
static struct npg_result taint_now(struct npg_backend *b, struct real_priv *r,
				   struct real_task *t, const char *why)
{
	npg_real_taint(t, why);
	npg_real_mark_touched(r);
	return npg_real_unreproducible(b, t->why);
}

/*
 * A namespace operation the kernel here cannot run as the model's would
 * (unshare, clone, setns, a map the window cannot hold): the task stays
 * where it was, while in the model it may be in its namespace with every
 * capability there, or the namespace has maps it has not here. The taint
 * of its own steps is not enough: one of them may end other tasks (an
 * execve() from a thread, a vfork() child's exit that the parent waits
 * for: found on 3.0.8 with conform --random), so nothing after it is
 * compared.
 */
static struct npg_result not_run(struct npg_backend *b, struct real_priv *r, struct real_task *t,
				 const struct npg_stmt *st, const char *why)
{
	taint_now(b, r, t, why);
	return npg_real_diverge(b, r, st, why);
}

/* --- map lines: scenario ids to the kernel's --- */

/*
 * A first-level namespace: its lower ids are kernel ids, moved into the
 * window like every kernel id of the scenario. Uid 0 stays 0, so a line
 * from 0 is written as two; a line the kernel refuses on its own
 * (npg_idmap_line_invalid()) goes as it is, to be refused for the same reason.
 */
static bool first_level_lines(const struct real_priv *r, const struct npg_idmap *m,
			      struct npg_idmap_extent *out, int *n, char *why, size_t len)
{
	bool invalid = false;

	*n = 0;
	for (int i = 0; i < m->nr; i++) {
		struct npg_idmap_extent e = m->extent[i];
		uint64_t lo = e.lower_first ? e.lower_first : 1;
		uint64_t hi = (uint64_t)e.lower_first + e.count - 1;

		if (npg_idmap_line_invalid(&e)) {
			out[(*n)++] = e;
			invalid = true;
			continue;
		}
		if (e.lower_first == 0) {
			out[(*n)++] = (struct npg_idmap_extent){ e.first, 0, 1 };
			if (e.count == 1)
				continue;
			e = (struct npg_idmap_extent){ e.first + 1, 1, e.count - 1 };
		}
		if (!npg_real_window_holds(r, lo, hi)) {
			snprintf(why, len, "the map line '%u %u %u' covers more kernel ids than the "
				 "run's uid window (%d uids) holds", m->extent[i].first,
				 m->extent[i].lower_first, m->extent[i].count, NPG_UID_WINDOW);
			return false;
		}
		out[(*n)++] = (struct npg_idmap_extent){ e.first, npg_real_map_id(r, e.lower_first),
							 e.count };
	}
	if (!invalid && *n > r->uns.max_lines) {
		snprintf(why, len, "written with uid 0 apart, the map has %d lines; this kernel "
			 "takes %d (UID_GID_MAP_MAX_EXTENTS)", *n, r->uns.max_lines);
		return false;
	}
	return true;
}

/*
 * A nested namespace: its lower ids are ids of the parent namespace,
 * written as they are. The parent's map as written may be cut where the
 * model's is not (uid 0 apart): then map_id_range_down() in map_write()
 * could refuse a range the model's map holds (EPERM), or the reverse.
 */
static bool nested_lines(const struct real_priv *r, int parent, bool gid,
			 const struct npg_idmap *m, struct npg_idmap_extent *out, int *n,
			 char *why, size_t len)
{
	const struct real_userns *p = &r->userns[parent];
	bool model_ok = true, kernel_ok = true;

	*n = m->nr;
	memcpy(out, m->extent, sizeof(*out) * (size_t)m->nr);
	for (int i = 0; i < m->nr; i++)
		if (npg_idmap_line_invalid(&m->extent[i]))
			return true;	/* EINVAL before any range is looked up */
	for (int i = 0; i < m->nr; i++) {
		model_ok &= npg_idmap_range_mapped(p->model_map[gid].extent, p->model_map[gid].nr,
						   &m->extent[i]);
		kernel_ok &= npg_idmap_range_mapped(p->written[gid], p->nr_written[gid], &m->extent[i]);
	}
	if (model_ok != kernel_ok) {
		snprintf(why, len, "the parent namespace's %s was written with uid 0 apart, and "
			 "this map's ranges cross where it was cut", gid ? "gid_map" : "uid_map");
		return false;
	}
	return true;
}

/*
 * The lines of a map of a namespace whose parent is @parent, as the kernel
 * is to be given them: map_write() reads the upper (inside) ids as they
 * are, and the lower ones in the parent's terms ("map_id_range_down(
 * parent_map, ...)"), whoever writes. Rendered into @text. False, with
 * @why, when that cannot be done faithfully.
 */
static bool map_lines(const struct real_priv *r, int parent, bool gid, const struct npg_idmap *m,
		      struct npg_idmap_extent *out, int *n, char *text, size_t text_len,
		      char *why, size_t len)
{
	size_t at = 0;

	if (!(parent == 0 ? first_level_lines(r, m, out, n, why, len) :
			    nested_lines(r, parent, gid, m, out, n, why, len)))
		return false;
	text[0] = '\0';
	for (int i = 0; i < *n && at < text_len; i++)
		at += (size_t)snprintf(text + at, text_len - at, "%u %u %u\n", out[i].first,
				       out[i].lower_first, out[i].count);
	return true;
}

/* What stands of namespace @ns's map after a write of @m as @lines */
static void record_map(struct real_userns *u, bool gid, const struct npg_idmap *m,
		       const struct npg_idmap_extent *lines, int n)
{
	u->model_map[gid] = *m;
	u->nr_written[gid] = n;
	memcpy(u->written[gid], lines, sizeof(*lines) * (size_t)n);
}

/*
 * The harness's half of unshare and clone: uid_map, then gid_map of
 * namespace @ns, whose task @t is, written by a writer with every
 * capability over the parent namespace @parent, in that namespace
 * (npg_idmap_write()). The step's result is the first failing write's
 * errno, as in npg_sys_unshare_user(). Maps that cannot be written
 * faithfully taint @t and what it touches (mark_touched() follows the
 * ids of the maps): the task is where the model has it.
 */
static struct npg_result write_maps(struct npg_backend *b, struct real_priv *r,
				    struct real_task *t, const struct npg_stmt *st, int ns, int parent)
{
	const struct npg_op *op = &st->op;
	struct real_userns *u = &r->userns[ns];
	struct npg_idmap_extent lines[2][NPG_REAL_IDMAP_LINES];
	char text[2][NPG_REAL_IDMAP_TEXT], why[200];
	int n[2] = { 0, 0 }, err, failed;

	for (int m = 0; m < 2; m++) {
		const struct npg_idmap *map = m ? &op->gid_map : &op->uid_map;

		text[m][0] = '\0';
		if (map->nr == 0)
			continue;
		if (!map_lines(r, parent, m, map, lines[m], &n[m], text[m], sizeof(text[m]), why,
			       sizeof(why)))
			return taint_now(b, r, t, why);
	}
	if (npg_idmap_write(t->pid, t->tid, parent ? r->userns[parent].nsfd : -1, text[0], text[1],
			    ANSWER_TIMEOUT_MS, &err, &failed, why, sizeof(why)) < 0)
		return taint_now(b, r, t, why);
	/* what stands: the maps before the first that failed (none after it was tried) */
	for (int m = 0; m < 2 && (failed < 0 || m < failed); m++)
		if (text[m][0])
			record_map(u, m, m ? &op->gid_map : &op->uid_map, lines[m], n[m]);
	if (err)
		return (struct npg_result){ .kind = NPG_R_ERRNO, .value = err };
	return (struct npg_result){ .kind = NPG_R_OK };
}

/* --- creating a namespace: unshare() and clone() --- */

/* Is some other task in @t's thread group (a zombie leader included)? */
static bool has_other_threads(const struct real_task *t)
{
	char path[64];
	struct dirent *e;
	DIR *d;
	int n = 0;

	if (t->tid != t->pid)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)t->pid);
	if (!(d = opendir(path)))
		return false;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n > 1;
}

/* kuid_has_mapping(current_user_ns(), @kid) of @t, from its map as the initial namespace reads it */
static bool has_mapping(const struct real_task *t, bool gid, uint32_t kid)
{
	uint32_t lines[NPG_REAL_IDMAP_LINES * 64][3];
	int n = npg_proc_read_idmap(t->pid, t->tid, gid, lines, (int)(sizeof(lines) / sizeof(lines[0])));

	if (n < 0)
		return true;	/* cannot tell: taken as mapped, so the refusal is not trusted */
	for (int i = 0; i < n; i++)
		if (kid >= lines[i][1] && (uint64_t)kid < (uint64_t)lines[i][1] + lines[i][2])
			return true;
	return false;
}

/*
 * An ENOSPC of create_user_ns() the scenario made: "parent_ns->level >
 * 32", or inc_user_namespaces() at a level whose user.max_user_namespaces
 * a step of the run wrote (inc_ucount() walks from the parent up:
 * "for (iter = ucounts; iter; iter = tns->ucounts)"). The initial
 * namespace's limit is the machine's unless the run wrote it (in a guest).
 */
static bool enospc_of_scenario(const struct real_priv *r, int parent)
{
	if (r->userns[parent].level > 32)
		return true;
	for (int ns = parent;; ns = r->userns[ns].parent) {
		if (r->userns[ns].max_set)
			return true;
		if (ns == 0)
			return false;
	}
}

/* capable() of 2.6.39-3.4: the initial namespace's, which no task of a child one has */
static bool capable_legacy(const struct real_task *t, const struct npg_proc_task *pt, int cap)
{
	return t->ns == 0 && npg_cap_has(pt->cap_eff, cap);
}

/*
 * The refusals of 2.6.39-3.4 (3.0): check_unshare_flags() knows no
 * CLONE_NEWUSER (EINVAL), and do_fork() wants of a clone()
 *	if (!capable(CAP_SYS_ADMIN) || !capable(CAP_SETUID) ||
 *			!capable(CAP_SETGID))
 *		return -EPERM;
 * then copy_process()'s RLIMIT_NPROC test (EAGAIN), before copy_creds()
 * calls create_user_ns().
 */
static bool legacy_refusal(const struct real_task *t, bool clone,
			   const struct npg_proc_task *before, int err)
{
	if (!clone)
		return err == EINVAL;
	if (err == EPERM)
		return !capable_legacy(t, before, NPG_CAP_SYS_ADMIN) ||
		       !capable_legacy(t, before, NPG_CAP_SETUID) ||
		       !capable_legacy(t, before, NPG_CAP_SETGID);
	return err == EAGAIN;
}

/*
 * unshare(CLONE_NEWUSER) or clone(CLONE_NEWUSER) by @t failed. The kernel
 * rules the model has: check_unshare_flags() refuses a task with other
 * threads (EINVAL; CLONE_NEWUSER implies CLONE_THREAD, and
 * thread_group_empty() counts a zombie leader; not clone's),
 * copy_process() a parent at its RLIMIT_NPROC (EAGAIN; clone's),
 * create_user_ns() a namespace over a limit (ENOSPC, above) and a creator
 * whose euid or egid has no mapping in its namespace (EPERM). Anything
 * else is this machine's doing.
 */
static struct npg_result create_failed(struct npg_backend *b, struct real_priv *r,
				       struct real_task *t, const struct npg_stmt *st, int parent,
				       const struct npg_proc_task *before, int err)
{
	bool clone = st->op.code == NPG_OP_CLONE_USER;
	char why[200];

	if (r->uns.legacy) {
		if (legacy_refusal(t, clone, before, err))
			return (struct npg_result){ .kind = NPG_R_ERRNO, .value = err };
		/* 3.0's create_user_ns() without CONFIG_USER_NS: "return -EINVAL" */
		if (clone && err == EINVAL)
			return not_run(b, r, t, st, "this kernel has no user namespaces: "
				       "clone(CLONE_NEWUSER) is EINVAL (CONFIG_USER_NS is off)");
	}
	if ((err == EINVAL && !clone && has_other_threads(t)) ||
	    (err == EAGAIN && clone) ||
	    (err == ENOSPC && enospc_of_scenario(r, parent)) ||
	    (err == EPERM && (!has_mapping(t, false, before->uid[1]) ||
			      !has_mapping(t, true, before->gid[1]))))
		return (struct npg_result){ .kind = NPG_R_ERRNO, .value = err };
	npg_idmap_refusal(t->pid, t->tid, clone ? "clone(CLONE_NEWUSER)" : "unshare(CLONE_NEWUSER)",
			  err, why, sizeof(why));
	return not_run(b, r, t, st, why);
}

/* Hold the namespace task @nt is in open in @u, and its inode number. 0 or -1. */
static int hold_ns(const struct real_task *nt, struct real_userns *u)
{
	char path[64];
	struct stat sb;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/ns/user", (int)nt->pid, (int)nt->tid);
	u->nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (u->nsfd < 0 || fstat(u->nsfd, &sb) < 0)
		return -1;
	u->ino = (uint64_t)sb.st_ino;
	return 0;
}

/*
 * 2.6.39-3.4 (3.0's kernel/user_namespace.c create_user_ns(), called by
 * copy_creds() for the clone child @nt): a namespace with a root
 * user_struct of its own, "ns->creator = new->user" -- the parent's
 * user_struct, its real uid -- and the child's ids all 0 in it. No
 * /proc file names it, no descriptor holds it: the backend knows it by
 * its bookkeeping alone (npg_real_task_ns()), and no limit is recorded
 * (no ucounts before 5.14).
 */
static void legacy_ns_made(struct real_priv *r, struct real_task *nt, int ns, int parent,
			   const struct npg_proc_task *before)
{
	struct real_userns *u = &r->userns[ns];

	u->created = true;
	u->nsfd = -1;
	u->parent = parent;
	u->level = r->userns[parent].level + 1;
	u->owner = before->uid[0];
	u->nproc_max = NPG_RLIM_INFINITY;
	r->ns_made++;
	nt->ns = ns;
}

/*
 * 5.14-5.16 set_cred_ucounts(): a task that enters @article user namespace
 * is charged to alloc_ucounts(new->user_ns, new->euid), its effective uid
 * before the move (@before); /proc shows only real uids, so once they
 * differ the counts are not known.
 */
static void key_by_euid(struct real_priv *r, struct real_task *t,
			const struct npg_proc_task *before, const char *article)
{
	if (!r->ucounts_by_euid)
		return;
	t->key = before->uid[1];
	t->key_known = true;
	if (before->uid[0] != before->uid[1] && !r->charged_unknown[0])
		snprintf(r->charged_unknown, sizeof(r->charged_unknown),
			 "5.14-5.16 charge a task that enters %s user namespace to its "
			 "effective uid (set_cred_ucounts()), which /proc does not show: "
			 "'%s' has real uid %u, effective %u", article,
			 r->sc->tasks[t - r->tasks].name, npg_real_unmap_id(r, before->uid[0]),
			 npg_real_unmap_id(r, before->uid[1]));
}

/*
 * The new namespace @ns, which task @nt (the creator @t, or its clone
 * child) is in now: held open and recorded as create_user_ns() made it --
 * its parent, its owner (the creator's euid: the ids do not change) and
 * the limit it records for its parent's level, set_userns_rlimit_max(ns,
 * UCOUNT_RLIMIT_NPROC, enforced_nproc_rlimit()): none for real uid 0 of
 * the initial namespace from 0ac983f51203 (5.17), else the creator's soft
 * limit ("rlimit(RLIMIT_NPROC)" of current: the cloning parent's). Then
 * the harness writes its maps.
 */
static struct npg_result ns_made(struct npg_backend *b, struct real_priv *r, struct real_task *nt,
				 const struct npg_stmt *st, int ns, int parent,
				 const struct npg_proc_task *before, uint64_t soft)
{
	struct real_userns *u = &r->userns[ns];

	if (r->uns.legacy) {
		legacy_ns_made(r, nt, ns, parent, before);
		return write_maps(b, r, nt, st, ns, parent);
	}
	if (hold_ns(nt, u) < 0)
		return npg_real_broken(b, "opening the new user namespace");
	u->created = true;
	u->parent = parent;
	u->level = r->userns[parent].level + 1;
	u->owner = before->uid[1];
	u->nproc_max = soft;
	if (r->rules.enforced_nproc_rlimit && before->uid[0] == 0 && parent == 0)
		u->nproc_max = NPG_RLIM_INFINITY;
	r->ns_made++;
	nt->ns = ns;
	key_by_euid(r, nt, before, "a new");
	return write_maps(b, r, nt, st, ns, parent);
}

/* The creator's ids and soft limit before the call, for create_failed() and ns_made() */
static int read_creator(const struct real_task *t, struct npg_proc_task *before, uint64_t *soft)
{
	uint64_t hard;

	if (npg_proc_read_task(t->pid, t->tid, before) < 0 ||
	    npg_proc_read_nproc(t->pid, soft, &hard) < 0)
		return -1;
	return 0;
}

struct npg_result npg_real_step_unshare(struct npg_backend *b, struct real_priv *r,
					struct real_task *t, const struct npg_stmt *st)
{
	struct npg_proc_task before;
	uint64_t soft;
	struct npg_wire_msg m;
	struct npg_result res;
	int parent = t->ns;

	if (!r->uns.supported && !r->uns.legacy)
		return not_run(b, r, t, st, r->uns.unsupported);
	if (read_creator(t, &before, &soft) < 0)
		return npg_real_broken(b, "reading the task before unshare()");
	if (!npg_real_ask(b, r, t, st, 0, t, &m, &res))
		return res;
	if (m.result == NPG_R_ERRNO)
		return create_failed(b, r, t, st, parent, &before, (int)m.value);
	if (m.result != NPG_R_OK)
		return (struct npg_result){ .kind = m.result, .value = m.value };
	/* a kernel before 3.8 that unshares a user namespace is none the model has */
	if (r->uns.legacy)
		return not_run(b, r, t, st, "unshare(CLONE_NEWUSER) succeeded on a kernel "
			       "before 3.8, whose check_unshare_flags() refuses it");
	return ns_made(b, r, t, st, st->op.target, parent, &before, soft);
}

/*
 * clone(CLONE_NEWUSER | SIGCHLD) by @t (puppet.c): a child made as fork's
 * is, in the namespace copy_creds() makes for it; the writer of its maps
 * is in @t's namespace, the new one's parent.
 */
struct npg_result npg_real_step_clone_user(struct npg_backend *b, struct real_priv *r,
					   struct real_task *t, const struct npg_stmt *st)
{
	struct real_task *c = &r->tasks[st->op.target];
	struct npg_proc_task before;
	struct npg_result res;
	uint64_t soft;
	int parent = t->ns;

	if (!r->uns.supported && !r->uns.legacy)
		return not_run(b, r, t, st, r->uns.unsupported);
	if (read_creator(t, &before, &soft) < 0)
		return npg_real_broken(b, "reading the task before clone()");
	res = npg_real_step_new_task(b, r, t, st);
	/* no clone3() and no raw clone() this build knows for this machine */
	if (res.kind == NPG_R_ERRNO && res.value == ENOSYS)
		return not_run(b, r, t, st, "this machine has no clone3() and this build does not "
			       "know its clone() argument order");
	if (res.kind == NPG_R_ERRNO)
		return create_failed(b, r, t, st, parent, &before, (int)res.value);
	if (res.kind != NPG_R_OK)
		return res;
	return ns_made(b, r, c, st, st->op.value, parent, &before, soft);
}

/*
 * setns() into namespace @ns, which the run made, on 2.6.39-3.4: there is
 * no descriptor to pass, since /proc/PID/ns/ has no "user" entry before
 * 3.8 (proc_ns_operations gained userns_operations then). The harness
 * tries to get one as it would on 3.8+ -- from a task of @ns, or its own
 * when none is left -- and the kernel's ENOENT is the step's result.
 */
static struct npg_result legacy_setns(struct npg_backend *b, struct real_priv *r,
				      struct real_task *t, const struct npg_stmt *st, int ns)
{
	char path[64] = "/proc/self/ns/user", why[200];
	int fd, err;

	for (int i = 0; i < r->sc->ntasks; i++)
		if (r->tasks[i].created && !r->tasks[i].gone && r->tasks[i].ns == ns) {
			snprintf(path, sizeof(path), "/proc/%d/task/%d/ns/user",
				 (int)r->tasks[i].pid, (int)r->tasks[i].tid);
			break;
		}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	err = errno;
	if (fd < 0 && err == ENOENT)
		return (struct npg_result){ .kind = NPG_R_ERRNO, .value = ENOENT };
	if (fd >= 0)
		close(fd);
	snprintf(why, sizeof(why), "opening %s on a kernel before 3.8: %s", path,
		 fd >= 0 ? "it exists" : strerror(err));
	return not_run(b, r, t, st, why);
}

/*
 * setns(fd, CLONE_NEWUSER) with a descriptor of the namespace the
 * controller holds, passed to the puppet (SCM_RIGHTS). A namespace the
 * run never made (its creating step failed here as in the model, or comes
 * later) has no descriptor: the puppet passes -1, and the kernel says
 * EBADF (fdget() in setns()), as the model does. One whose creating step
 * could not be run here may exist in the model: nothing can be compared.
 */
struct npg_result npg_real_step_setns_user(struct npg_backend *b, struct real_priv *r,
					   struct real_task *t, const struct npg_stmt *st)
{
	const struct real_userns *u = &r->userns[st->op.target];
	struct npg_wire_msg cmd, m;
	struct npg_proc_task before;
	struct npg_result res;
	char why[200];

	if (!r->uns.supported && !r->uns.legacy)
		return not_run(b, r, t, st, r->uns.unsupported);
	if (!u->created && u->unknown) {
		snprintf(why, sizeof(why), "the step that makes namespace '%s' could not be run here",
			 r->sc->userns[st->op.target - 1].name);
		return not_run(b, r, t, st, why);
	}
	if (r->uns.legacy && u->created)
		return legacy_setns(b, r, t, st, st->op.target);
	if (npg_proc_read_task(t->pid, t->tid, &before) < 0)
		return npg_real_broken(b, "reading the task before setns()");
	npg_real_build_cmd(r, t, st, 0, &cmd);
	if (!npg_real_exchange(b, r, t, &cmd, u->created ? u->nsfd : -1, t, &m, &res))
		return res;
	if (m.result != NPG_R_OK)
		return (struct npg_result){ .kind = m.result, .value = m.value };
	/* userns_install(): set_cred_user_ns(), then set_cred_ucounts() */
	t->ns = st->op.target;
	key_by_euid(r, t, &before, "a");
	return (struct npg_result){ .kind = NPG_R_OK };
}

/* --- files a puppet writes itself --- */

/* A /proc directory no task can have: pid_max is at most 4194304 (PID_MAX_LIMIT) */
#define NO_SUCH_TASK INT_MAX

/*
 * write TASK uid_map|gid_map|setgroups: the puppet opens the file of
 * TASK -- of its namespace -- and writes. Opener and writer are the same
 * task, as the kernel's checks want: proc_uid_map_write() asks the
 * opener's namespace (seq_user_ns()), map_write() and
 * new_idmap_permitted() the opener's capabilities (file->f_cred),
 * proc_setgroups_open() the opener's CAP_SYS_ADMIN (EACCES). The
 * lines' lower ids are given in the terms of the target namespace's
 * parent, as the harness's are (map_lines()).
 */
static struct npg_result step_write_file(struct npg_backend *b, struct real_priv *r,
					 struct real_task *t, const struct npg_stmt *st,
					 struct npg_wire_msg *cmd)
{
	const struct npg_op *op = &st->op;
	struct real_task *tt = &r->tasks[op->target];
	bool alive = tt->created && !tt->gone;
	bool gid = op->value == 1;
	const struct npg_idmap *map = gid ? &op->gid_map : &op->uid_map;
	struct npg_idmap_extent lines[NPG_REAL_IDMAP_LINES];
	struct npg_wire_msg m;
	struct npg_result res;
	char why[200];
	int ns = 0, n = 0;

	/* a task reaped or never made: ENOENT, as in proc_target() */
	snprintf(cmd->path, sizeof(cmd->path), "/proc/%d/task/%d/%s",
		 alive ? (int)tt->pid : NO_SUCH_TASK, alive ? (int)tt->tid : NO_SUCH_TASK,
		 op->code == NPG_OP_WRITE_SETGROUPS ? "setgroups" : gid ? "gid_map" : "uid_map");
	if (alive && (ns = npg_real_task_ns(r, tt)) < 0)
		return npg_real_diverge(b, r, st, "the target is in a user namespace this run did not make");
	if (op->code == NPG_OP_WRITE_SETGROUPS) {
		/* proc_setgroups_write(): "allow" or "deny", then blanks */
		snprintf(cmd->text, sizeof(cmd->text), "%s\n", op->value ? "allow" : "deny");
	} else if (ns > 0 && !r->uns.legacy) {
		if (!map_lines(r, r->userns[ns].parent, gid, map, lines, &n, cmd->text,
			       sizeof(cmd->text), why, sizeof(why)))
			return not_run(b, r, t, st, why);
	} else {
		/*
		 * The initial namespace's map, no task, or a kernel before 3.5,
		 * which has no such file: the kernel refuses before it reads a
		 * line ("if (!ns->parent) return -EPERM" in proc_uid_map_write();
		 * the open's ENOENT), so the lines go as they are
		 */
		size_t at = 0;

		cmd->text[0] = '\0';
		for (int i = 0; i < map->nr && at < sizeof(cmd->text); i++)
			at += (size_t)snprintf(cmd->text + at, sizeof(cmd->text) - at, "%u %u %u\n",
					       map->extent[i].first, map->extent[i].lower_first,
					       map->extent[i].count);
	}
	if (!npg_real_exchange(b, r, t, cmd, -1, t, &m, &res))
		return res;
	if (m.result == NPG_R_OK && op->code == NPG_OP_WRITE_IDMAP && ns > 0 && !r->uns.legacy)
		record_map(&r->userns[ns], gid, map, lines, n);
	return (struct npg_result){ .kind = m.result, .value = m.value };
}

/*
 * sysctl user.max_user_namespaces N: the puppet opens
 * /proc/sys/user/max_user_namespaces, which is its own namespace's
 * (set_lookup(): "&current_user_ns()->set"), and writes N. A task of the
 * initial namespace would write this machine's: on the host, run only when
 * the kernel is sure to refuse it (set_permissions(): mode 0444 without
 * CAP_SYS_RESOURCE over the namespace, so the open is EACCES), never when
 * the task holds CAP_SYS_RESOURCE there. In a kernel booted for the run
 * the machine is the run's: the step runs, and stop writes the value back
 * (npg_real_userns_restore()) so that the next scenario finds the boot's.
 */
static struct npg_result step_max_userns(struct npg_backend *b, struct real_priv *r,
					 struct real_task *t, const struct npg_stmt *st,
					 struct npg_wire_msg *cmd)
{
	static const char path[] = "/proc/sys/user/max_user_namespaces";
	struct npg_proc_task pt;
	struct npg_wire_msg m;
	struct npg_result res;

	/* before 4.9 there is no such file: the open's ENOENT changes nothing */
	if (t->ns == 0 && access(path, F_OK) == 0) {
		if (npg_proc_read_task(t->pid, t->tid, &pt) < 0)
			return npg_real_broken(b, "reading the task before its sysctl");
		if (npg_cap_has(pt.cap_eff, NPG_CAP_SYS_RESOURCE)) {
			if (!r->host->own_kernel)
				return npg_real_diverge(b, r, st, "the task holds CAP_SYS_RESOURCE in the "
					       "initial namespace: the step would change this "
					       "machine's user.max_user_namespaces");
			if (r->init_max_userns < 0 && (r->init_max_userns = npg_read_long(path)) < 0)
				return npg_real_broken(b, "reading user.max_user_namespaces before a "
						       "step writes it");
		}
	}
	snprintf(cmd->path, sizeof(cmd->path), "%s", path);
	snprintf(cmd->text, sizeof(cmd->text), "%llu\n", (unsigned long long)st->op.lim_cur);
	if (!npg_real_exchange(b, r, t, cmd, -1, t, &m, &res))
		return res;
	if (m.result == NPG_R_OK)
		r->userns[t->ns].max_set = true;
	return (struct npg_result){ .kind = m.result, .value = m.value };
}

/*
 * The initial namespace's user.max_user_namespaces back to what it was,
 * once the run's processes are gone. Their namespaces are freed later
 * still (put_user_ns() -> schedule_work(free_user_ns), after the creds'
 * RCU grace period), and until then count at the initial level for their
 * owners, the window's uids the next scenario uses again: wait for that
 * on a kernel where it is quick (one CPU, no other load), so that a limit
 * the next scenario writes there is tested against its own namespaces.
 */
void npg_real_userns_restore(struct real_priv *r)
{
	char text[32];
	int fd;

	if (r->host->own_kernel && r->ns_made > 0)
		nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000 * 1000 }, NULL);
	if (r->init_max_userns < 0)
		return;
	snprintf(text, sizeof(text), "%ld\n", r->init_max_userns);
	fd = open("/proc/sys/user/max_user_namespaces", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		fprintf(stderr, "nprocguard: warning: user.max_user_namespaces could not be set "
			"back to %ld: %s\n", r->init_max_userns, strerror(errno));
	if (fd >= 0)
		close(fd);
	r->init_max_userns = -1;
}

struct npg_result npg_real_step_write_proc(struct npg_backend *b, struct real_priv *r,
					   struct real_task *t, const struct npg_stmt *st)
{
	struct npg_wire_msg cmd;

	npg_real_build_cmd(r, t, st, 0, &cmd);
	if (st->op.code == NPG_OP_MAX_USERNS)
		return step_max_userns(b, r, t, st, &cmd);
	/* a kernel with namespaces of neither modelled form (3.5-3.7's maps, say) */
	if (!r->uns.supported && !r->uns.legacy)
		return not_run(b, r, t, st, r->uns.unsupported);
	return step_write_file(b, r, t, st, &cmd);
}
