/*
 * One transition of the explorer: a task's next instruction run on the
 * model from a decoded state, and the properties checked after it.
 */
#include <stdio.h>
#include <string.h>

#include "backend/model_step.h"
#include "explore/explorer.h"
#include "explore/reduce.h"
#include "explore/search.h"

bool npg_xp_enabled(const struct xp *x, const uint32_t *v, int slot)
{
	const struct local *l;

	if (slot < 0)
		return v[0] < (uint32_t)x->cp->seq.ninstr;
	l = &x->locals[v[1 + slot]];
	return l->task.state == NPG_TASK_RUNNING && l->pc < (uint32_t)x->cp->progs[slot].ninstr;
}

/*
 * Slot @slot (or the sequential program, -1) takes its next step from
 * vbase/base: the successor goes to vnew (not canonical), the world after
 * it to work, the step to ctx. false if out of memory or a uid escaped.
 */
bool npg_xp_step(struct xp *x, int slot)
{
	const struct local *al;
	const struct npg_instr *in;
	unsigned amon, cmon;
	uint32_t pc, apend;
	bool failed;
	int actor;

	memcpy(x->work.tasks, x->base.tasks, sizeof(*x->work.tasks) * (size_t)x->ntasks);
	memcpy(x->work.counts, x->base.counts, sizeof(*x->work.counts) * (size_t)x->nuids);
	if (slot < 0) {
		pc = x->vbase[0];
		in = &x->cp->seq.instr[pc];
	} else {
		pc = x->locals[x->vbase[1 + slot]].pc;
		in = &x->cp->progs[slot].instr[pc];
	}
	actor = in->st.task;
	al = &x->locals[x->vbase[1 + actor]];
	apend = al->pend;	/* interning below may move the locals */
	x->ctx = (struct npg_step_ctx){ .cp = x->cp, .pre = &x->base, .post = &x->work,
					.actor = actor, .op = &in->st.op, .mon = al->mon };
	x->last_st = &in->st;
	x->last_private = x->por && npg_reduce_private_pre(&x->red, &x->base, actor, &in->st.op);
	x->ctx.result = npg_model_step(&x->work, &in->st);
	x->last_private = x->last_private &&
		npg_reduce_private_post(&x->red, &x->base, &x->work, actor, &in->st.op, x->ctx.result);
	/* a step a property judges is visible (no-root-after-failed-drop judges
	 * every call of a task whose drop failed while its euid is 0) */
	for (int c = 0; x->last_private && c < x->o->nprops; c++)
		x->last_private = !npg_prop_step(&x->o->props[c], &x->ctx, x->msg, sizeof(x->msg));
	if (x->work.ncounts != x->nuids) {
		snprintf(x->err, x->errlen, "internal error: a count for a uid the state does not hold");
		x->failed = true;
		return false;
	}
	failed = x->ctx.result.kind == NPG_R_ERRNO || x->ctx.result.kind == NPG_R_KILLED;
	npg_monitor_step(&x->ctx, &amon, &cmon);
	x->child = -1;
	if ((in->st.op.code == NPG_OP_FORK || in->st.op.code == NPG_OP_THREAD) &&
	    x->ctx.result.kind == NPG_R_OK)
		x->child = in->st.op.target;
	x->vnew[0] = slot < 0 ? pc + 1 : x->vbase[0];	/* a sequential file has no guards */
	for (int i = 0; i < x->ntasks; i++) {
		const struct local *l = &x->locals[x->vbase[1 + i]];
		uint32_t id;

		if (i == actor)
			id = npg_xp_encode_task(x, &x->work, i, slot < 0 ? 0 : pc + 1, slot < 0 ? false : failed,
						amon, x->last_private ? apend + 1 : 0);
		else if (i == x->child)
			id = npg_xp_encode_task(x, &x->work, i, 0, false, cmon, 0);
		else if (memcmp(&x->work.tasks[i], &x->base.tasks[i], sizeof(struct npg_task)) != 0)
			id = npg_xp_encode_task(x, &x->work, i, l->pc, l->failed, l->mon, l->pend);
		else
			id = x->vbase[1 + i];
		if (id == UINT32_MAX)
			return false;
		x->vnew[1 + i] = id;
	}
	for (int k = 0; k < x->nuids; k++)
		x->vnew[1 + x->ntasks + k] = (uint32_t)x->work.counts[k].count;
	return true;
}

const struct npg_prop *npg_xp_builtin(const struct xp *x, int c)
{
	return c < x->o->nprops ? &x->o->props[c] : NULL;
}

static const struct npg_user_prop *user(const struct xp *x, int c)
{
	return c >= x->o->nprops ? &x->cp->always[c - x->o->nprops] : NULL;
}

/* Does the state in @w break check @c? */
bool npg_xp_state_broken(const struct xp *x, int c, const struct npg_world *w, char *msg,
			 size_t len)
{
	if (npg_xp_builtin(x, c))
		return npg_prop_state(npg_xp_builtin(x, c), x->cp, w, msg, len);
	return npg_user_prop_broken(x->cp, user(x, c), w, msg, len);
}

/* The pending private steps of state @v: a counterexample ending there drops them */
int npg_xp_pending(const struct xp *x, const uint32_t *v)
{
	int n = 0;

	for (int i = 0; i < x->ntasks; i++)
		n += (int)x->locals[v[1 + i]].pend;
	return n;
}

/*
 * Is every check's shortest counterexample known, when the states left are
 * @depth steps deep or deeper? A path of d steps ending with p pending
 * private steps gives a counterexample of d - p, and p is at most pmax.
 */
bool npg_xp_all_settled(const struct xp *x, int depth)
{
	int pmax = x->por ? x->red.pmax : 0;

	for (int c = 0; c < x->nchecks; c++)
		if (!x->viol[c].found || x->viol[c].steps - x->viol[c].pend > depth - pmax)
			return false;
	return true;
}

/* Could a violation of check @c found @depth steps deep be a shorter counterexample? */
bool npg_xp_wanted(const struct xp *x, int c, int depth)
{
	return !x->viol[c].found ||
	       x->viol[c].steps - x->viol[c].pend > depth - (x->por ? x->red.pmax : 0);
}

void npg_xp_record(struct xp *x, int c, uint32_t pre, int via, int steps, int pend)
{
	const struct violation *v = &x->viol[c];

	if (v->found && v->steps - v->pend <= steps - pend)
		return;
	x->viol[c] = (struct violation){ .found = true, .pre = pre, .via = via, .steps = steps,
					 .pend = pend };
}
