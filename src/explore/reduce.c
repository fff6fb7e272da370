/*
 * Private steps (reduce.h). A step is private when its operation only
 * changes what the kernel keeps for the calling process alone and no
 * property reads: its group ids and supplementary groups (setgid and
 * family, setgroups), its capability sets and keep-caps bit (capset,
 * prctl), and its RLIMIT_NPROC (setrlimit) when no checked property reads
 * limits. Nothing another task does reads or writes those fields, except a
 * step that names the task (kill and prlimit check its ids; wait, its
 * state) or a thread of the same process (glibc's set*id broadcast, a
 * thread's execve, the shared signal->rlim) -- hence the conditions on the
 * task. Each private step is also checked after it runs: it must have
 * changed nothing outside those fields, or it is not treated as private.
 */
#include <stdlib.h>
#include <string.h>

#include "explore/expr.h"
#include "explore/reduce.h"

static bool private_op(const struct npg_op *op, int actor, bool limits_visible)
{
	if (op->glibc)
		return false;
	switch (op->code) {
	case NPG_OP_SETGID:
	case NPG_OP_SETEGID:
	case NPG_OP_SETREGID:
	case NPG_OP_SETRESGID:
	case NPG_OP_SETFSGID:
	case NPG_OP_SETGROUPS:
	case NPG_OP_KEEPCAPS:
	case NPG_OP_CAPSET:
		return true;
	case NPG_OP_SETRLIMIT:
		return !limits_visible && op->target == actor;
	default:
		return false;
	}
}

int npg_reduce_init(struct npg_reduce *r, const struct npg_cprog *cp,
		    const struct npg_prop *props, int nprops)
{
	int n = cp->sc->ntasks;

	memset(r, 0, sizeof(*r));
	for (int i = 0; i < nprops; i++)
		r->limits_visible |= props[i].kind == NPG_P_LIMIT_HOLDS;
	for (int i = 0; i < cp->nalways; i++)
		r->limits_visible |= npg_expr_reads_limit(cp->always[i].expr);
	r->named = calloc((size_t)n + 1, sizeof(bool));
	if (!r->named)
		return -1;
	for (int t = 0; t < n; t++) {
		const struct npg_prog *pg = &cp->progs[t];
		int run = 0, most = 0;

		for (int i = 0; i < pg->ninstr; i++) {
			const struct npg_instr *in = &pg->instr[i];
			const struct npg_op *op = &in->st.op;

			/* unshare's target is a namespace (and refused in programs) */
			if (op->code != NPG_OP_FORK && op->code != NPG_OP_THREAD &&
			    op->code != NPG_OP_VFORK && op->code != NPG_OP_UNSHARE_USER &&
			    op->target >= 0 && op->target != t)
				r->named[op->target] = true;
			/* a skipped guarded step does not end a run of private ones */
			if (private_op(op, t, r->limits_visible))
				run++;
			else if (in->guard == NPG_GUARD_NONE)
				run = 0;
			if (run > most)
				most = run;
		}
		r->pmax += most;
	}
	return 0;
}

void npg_reduce_free(struct npg_reduce *r)
{
	free(r->named);
	r->named = NULL;
}

bool npg_reduce_private_pre(const struct npg_reduce *r, const struct npg_world *w, int actor,
			    const struct npg_op *op)
{
	if (!private_op(op, actor, r->limits_visible) || r->named[actor] ||
	    w->tasks[actor].leader != actor)
		return false;
	/* alone in its process: no thread shares its limit or can exec over it */
	for (int i = 0; i < w->ntasks; i++)
		if (i != actor && w->tasks[i].leader == actor &&
		    (w->tasks[i].state == NPG_TASK_RUNNING || w->tasks[i].state == NPG_TASK_ZOMBIE))
			return false;
	return true;
}

bool npg_reduce_private_post(const struct npg_reduce *r, const struct npg_world *pre,
			     const struct npg_world *post, int actor, const struct npg_op *op,
			     struct npg_result res)
{
	const struct npg_task *a = &pre->tasks[actor], *b = &post->tasks[actor];

	if (res.kind != NPG_R_OK && res.kind != NPG_R_ERRNO && res.kind != NPG_R_ID)
		return false;
	for (int k = 0; k < pre->ncounts; k++)
		if (pre->counts[k].count != post->counts[k].count)
			return false;
	for (int i = 0; i < pre->ntasks; i++)
		if (i != actor && memcmp(&pre->tasks[i], &post->tasks[i], sizeof(*a)) != 0)
			return false;
	if (memcmp(&a->cred.uid, &b->cred.uid, sizeof(a->cred.uid)) != 0 ||
	    a->cred.charged_to != b->cred.charged_to || a->state != b->state ||
	    a->nproc_exceeded != b->nproc_exceeded || a->parent != b->parent ||
	    a->leader != b->leader || a->exit_code != b->exit_code ||
	    a->exit_signal != b->exit_signal || a->vforked_by != b->vforked_by)
		return false;
	if ((a->nproc_cur != b->nproc_cur || a->nproc_max != b->nproc_max) &&
	    (op->code != NPG_OP_SETRLIMIT || r->limits_visible))
		return false;
	return true;
}
