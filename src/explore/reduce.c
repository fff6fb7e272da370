/*
 * Local calls (reduce.h). A call is local when its operation writes only
 * the caller's record (footprint.h: NPG_FP_OWN, or a set*uid call of a
 * task with no thread and no child, whose only other effects are through
 * counts and a kill) and, having run, it read no count, moved none, and
 * changed no field another task's call or a property reads: the ids, the
 * charge, the flag, the state, the exit status, the family links, and the
 * limits when a property reads them. No other task's call names the
 * caller (kill, prlimit, wait would read its ids or state), and it has no
 * thread (which would share its limits and its mm). What another task can
 * still do to the caller's record -- its parent's exit rewrites its
 * parent field -- touches no field a local call reads or writes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "explore/expr.h"
#include "explore/footprint.h"
#include "explore/reduce.h"

/* Can @op of task @t ever be local, whatever the state? */
static bool local_capable(const struct npg_reduce *r, const struct npg_op *op, int t)
{
	enum npg_fp_class cls = npg_fp_class_of(op, t);

	return !r->named[t] && (cls == NPG_FP_OWN || cls == NPG_FP_SETUID);
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

		for (int i = 0; i < pg->ninstr; i++) {
			const struct npg_op *op = &pg->instr[i].st.op;

			/* unshare's target is a namespace (and refused in programs) */
			if (op->code != NPG_OP_FORK && op->code != NPG_OP_THREAD &&
			    op->code != NPG_OP_VFORK && op->code != NPG_OP_UNSHARE_USER &&
			    op->target >= 0 && op->target != t)
				r->named[op->target] = true;
		}
	}
	for (int t = 0; t < n; t++) {
		const struct npg_prog *pg = &cp->progs[t];
		int run = 0, most = 0;

		for (int i = 0; i < pg->ninstr; i++) {
			const struct npg_instr *in = &pg->instr[i];

			/* a skipped guarded call does not end a run of local ones */
			if (local_capable(r, &in->st.op, t))
				run++;
			else if (in->guard == NPG_GUARD_NONE)
				run = 0;
			if (run > most)
				most = run;
		}
		r->pmax += most;
		if (most > r->maxrun)
			r->maxrun = most;
	}
	return 0;
}

void npg_reduce_free(struct npg_reduce *r)
{
	free(r->named);
	r->named = NULL;
}

bool npg_reduce_local_op(const struct npg_reduce *r, const struct npg_world *w, int actor,
			 const struct npg_op *op)
{
	enum npg_fp_class cls = npg_fp_class_of(op, actor);

	if (!local_capable(r, op, actor) || w->tasks[actor].leader != actor)
		return false;
	for (int i = 0; i < w->ntasks; i++) {
		const struct npg_task *t = &w->tasks[i];

		if (i == actor || t->state == NPG_TASK_ABSENT)
			continue;
		/* a thread shares its limits and its mm */
		if (t->leader == actor)
			return false;
		/* set*uid's kill would reach a child (group_exit() reparents it) */
		if (cls == NPG_FP_SETUID && t->parent == actor)
			return false;
	}
	return true;
}

bool npg_reduce_local_after(const struct npg_reduce *r, const struct npg_world *pre,
			    const struct npg_world *post, int actor, const struct npg_op *op,
			    struct npg_result res)
{
	const struct npg_task *a = &pre->tasks[actor], *b = &post->tasks[actor];

	if (res.kind != NPG_R_OK && res.kind != NPG_R_ERRNO && res.kind != NPG_R_ID)
		return false;
	/*
	 * A set*uid call that got past its permission checks read counts
	 * (set_user(), flag_nproc_exceeded()); the refused ones, EPERM and
	 * EINVAL, did not (footprint.c)
	 */
	if (npg_fp_class_of(op, actor) == NPG_FP_SETUID &&
	    !(res.kind == NPG_R_ERRNO && (res.value == EPERM || res.value == EINVAL)))
		return false;
	for (int k = 0; k < pre->ncounts; k++)
		if (pre->counts[k].count != post->counts[k].count)
			return false;
	if (memcmp(&a->cred.uid, &b->cred.uid, sizeof(a->cred.uid)) != 0 ||
	    a->cred.charged_to != b->cred.charged_to || a->cred.userns != b->cred.userns ||
	    a->state != b->state || a->nproc_exceeded != b->nproc_exceeded ||
	    a->parent != b->parent || a->leader != b->leader || a->exit_code != b->exit_code ||
	    a->exit_signal != b->exit_signal || a->vforked_by != b->vforked_by ||
	    a->tracer != b->tracer)
		return false;
	if ((a->nproc_cur != b->nproc_cur || a->nproc_max != b->nproc_max) &&
	    (op->code != NPG_OP_SETRLIMIT || r->limits_visible))
		return false;
	return true;
}
