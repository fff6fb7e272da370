/*
 * What a transition reads and writes (footprint.h), from the model's code
 * for each operation. The model reads and writes a task through its index
 * in the world; which indices an operation reaches is decided in
 * src/model/ and summed up here, each class with the functions it rests on
 * (doc/explore-reduction.md, "What a call touches", has the argument; the
 * NPG_EXPLORE_VERIFY check of transition.c tests the claims on every call).
 */
#include <errno.h>
#include <string.h>

#include "explore/footprint.h"

static uint64_t bit(int slot)
{
	return slot >= 0 && slot < 64 ? (uint64_t)1 << slot : 0;
}

void npg_fp_add_task(struct npg_fp *f, int slot)
{
	if (slot < 0)
		return;
	if (slot >= 64)
		f->all = true;
	f->rd |= bit(slot);
	f->wr |= bit(slot);
}

static void add_read(struct npg_fp *f, int slot)
{
	if (slot < 0)
		return;
	if (slot >= 64)
		f->all = true;
	f->rd |= bit(slot);
}

enum npg_fp_class npg_fp_class_of(const struct npg_op *op, int actor)
{
	/* glibc's set*id runs on every thread of the process (glibc_setxid.c) */
	if (op->glibc)
		return NPG_FP_ANY;
	switch (op->code) {
	/*
	 * setid.c: the set*gid family and setfsuid() end in commit_setid()
	 * with gid or fs_only set: no set_user(), no flag_nproc_exceeded(),
	 * no charge moved; commit_creds_dumpable() -> npg_set_dumpable()
	 * reaches the tasks sharing the mm, the caller's threads (no vfork()
	 * in a program: scenario/concurrent.c). setgroups(), prctl(), capset()
	 * and securebits write the caller's cred; prlimit() on itself its
	 * leader's limits.
	 */
	case NPG_OP_SETFSUID:
	case NPG_OP_SETGID:
	case NPG_OP_SETEGID:
	case NPG_OP_SETREGID:
	case NPG_OP_SETRESGID:
	case NPG_OP_SETFSGID:
	case NPG_OP_SETGROUPS:
	case NPG_OP_KEEPCAPS:
	case NPG_OP_CAPSET:
	case NPG_OP_SECUREBITS:
	case NPG_OP_AMBIENT:
	case NPG_OP_NO_NEW_PRIVS:
	case NPG_OP_DUMPABLE:
		return NPG_FP_OWN;
	case NPG_OP_SETRLIMIT:
		return op->target == actor ? NPG_FP_OWN : NPG_FP_ANY;
	/*
	 * commit_setid(): set_user() and flag_nproc_exceeded() read counts
	 * (npg_count_in()), the charge moves when the real user changes, and
	 * set_user()'s SIGSEGV (ow-2006) is npg_task_kill(): the caller's
	 * group and the tasks sharing its mm, its parent's state read by
	 * reaped_by_harness()
	 */
	case NPG_OP_SETUID:
	case NPG_OP_SETEUID:
	case NPG_OP_SETREUID:
	case NPG_OP_SETRESUID:
		return NPG_FP_SETUID;
	/* the policy's execve hook reads counts; de_thread() reaches the threads */
	case NPG_OP_EXECVE:
		return NPG_FP_EXECVE;
	/* npg_copy_process(): the parent's record, the child's slot, counts */
	case NPG_OP_FORK:
	case NPG_OP_THREAD:
		return NPG_FP_FORK;
	/* group_exit(): the group, its children, the parent's state (reaped_by_harness()) */
	case NPG_OP_EXIT:
		return NPG_FP_EXIT;
	default:
		/* kill, wait, prlimit of another, namespaces: another task's record */
		return NPG_FP_ANY;
	}
}

static bool is_self(int i, int leader)
{
	return leader == i || leader == -2;	/* SELF_LEADER in a local */
}

void npg_fp_simple(const struct npg_task *const *t, int n, bool *simple)
{
	for (int i = 0; i < n; i++)
		simple[i] = t[i]->state != NPG_TASK_ABSENT && is_self(i, t[i]->leader);
	for (int i = 0; i < n; i++) {
		if (t[i]->state == NPG_TASK_ABSENT)
			continue;
		if (!is_self(i, t[i]->leader) && t[i]->leader >= 0 && t[i]->leader < n)
			simple[t[i]->leader] = false;
		/* a reaped child keeps its parent: group_exit() rewrites it */
		if (t[i]->parent >= 0 && t[i]->parent < n && t[i]->parent != i)
			simple[t[i]->parent] = false;
	}
}

void npg_fp_static(const struct npg_task *at, bool simple, int actor, const struct npg_op *op,
		   struct npg_fp *f)
{
	enum npg_fp_class cls = npg_fp_class_of(op, actor);

	memset(f, 0, sizeof(*f));
	if (!simple || cls == NPG_FP_ANY) {
		f->all = true;
		return;
	}
	npg_fp_add_task(f, actor);
	switch (cls) {
	case NPG_FP_SETUID:
		f->cread = true;
		f->cadd_all = true;
		add_read(f, at->parent);
		break;
	case NPG_FP_EXECVE:
		f->cread = true;
		break;
	case NPG_FP_FORK:
		npg_fp_add_task(f, op->target);
		f->cread = true;
		f->cadd_all = true;
		break;
	case NPG_FP_EXIT:
		add_read(f, at->parent);
		f->cadd_all = true;
		break;
	case NPG_FP_OWN:
	case NPG_FP_ANY:
		break;
	}
}

void npg_fp_after(struct npg_fp *f, const struct npg_world *pre, const struct npg_world *post,
		  const struct npg_op *op, struct npg_result res, const int *cand, int ncand)
{
	uint64_t wr = 0;

	if (f->all)
		return;
	f->cadd = 0;
	f->cadd_all = false;
	for (int k = 0; k < pre->ncounts; k++)
		if (pre->counts[k].count != post->counts[k].count) {
			if (k >= 64)
				f->cadd_all = true;
			f->cadd |= bit(k);
		}
	for (int j = 0; j < ncand; j++)
		if (memcmp(&pre->tasks[cand[j]], &post->tasks[cand[j]], sizeof(struct npg_task)) != 0)
			wr |= bit(cand[j]);
	/* the actor's counters move whatever its record does */
	f->wr = (f->wr & bit(cand[0])) | wr;
	/*
	 * setid.c: every EPERM and EINVAL of the set*uid family comes from
	 * the permission and id checks before commit_setid(); set_user()
	 * fails with EAGAIN only (every policy's): a refused call read no
	 * count and killed no one
	 */
	if (npg_fp_class_of(op, cand[0]) == NPG_FP_SETUID && res.kind == NPG_R_ERRNO &&
	    (res.value == EPERM || res.value == EINVAL)) {
		f->cread = false;
		f->rd &= bit(cand[0]) | f->wr;
	}
}

bool npg_fp_independent(const struct npg_fp *a, const struct npg_fp *b)
{
	if (a->all || b->all)
		return false;
	if ((a->wr & (b->rd | b->wr)) || (b->wr & a->rd))
		return false;
	/* moves of counts commute with each other (npg_charge() adds), not with reads */
	if (a->cread && (b->cadd || b->cadd_all))
		return false;
	if (b->cread && (a->cadd || a->cadd_all))
		return false;
	return true;
}
