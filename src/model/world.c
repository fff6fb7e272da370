/* The world: tasks and per-user counts. */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/policy.h"

int npg_world_init(struct npg_world *w, const struct npg_policy *p, int ntasks)
{
	memset(w, 0, sizeof(*w));
	w->policy = p;
	npg_policy_rules(p, &w->rules);
	w->cap_full_set = NPG_CAP_ALL;
	w->yama_scope = -1;
	w->ntasks = ntasks;
	w->tasks = calloc(ntasks > 0 ? (size_t)ntasks : 1, sizeof(*w->tasks));
	if (!w->tasks)
		return -1;
	for (int i = 0; i < ntasks; i++) {
		w->tasks[i].state = NPG_TASK_ABSENT;
		w->tasks[i].leader = i;
		w->tasks[i].parent = NPG_HARNESS;
	}
	return 0;
}

void npg_world_free(struct npg_world *w)
{
	free(w->tasks);
	free(w->counts);
	free(w->userns);
	memset(w, 0, sizeof(*w));
}

static struct npg_count *count_slot(const struct npg_world *w, int ns, npg_id uid)
{
	for (int i = 0; i < w->ncounts; i++)
		if (w->counts[i].uid == uid && w->counts[i].ns == ns)
			return &w->counts[i];
	return NULL;
}

/*
 * 3.8-5.13: a task is charged to its user_struct, one per kernel uid
 * whatever the namespace (kernel/user.c, uidhash_table keyed on kuid).
 * 2.6.39-3.4: every namespace has its own uidhash_table
 * (alloc_uid(current_user_ns(), uid)), so one count per (namespace, uid),
 * as the ucounts of 5.14+ but without their chain.
 */
static int count_ns(const struct npg_world *w, int ns)
{
	return w->policy->ucounts || !w->rules.userns_idmaps ? ns : NPG_USERNS_INITIAL;
}

/* is the count of @ns charged to its creator's in the parent namespace too? */
static bool charged_up_the_chain(const struct npg_world *w, int ns)
{
	return ns != NPG_USERNS_INITIAL && w->policy->ucounts;
}

long npg_count_in(const struct npg_world *w, int ns, npg_id uid)
{
	const struct npg_count *c = count_slot(w, count_ns(w, ns), uid);

	return c ? c->count : 0;
}

long npg_count_of(const struct npg_world *w, npg_id uid)
{
	return npg_count_in(w, NPG_USERNS_INITIAL, uid);
}

static void level_add(struct npg_world *w, int ns, npg_id uid, long delta)
{
	struct npg_count *c = count_slot(w, ns, uid);

	if (!c) {
		struct npg_count *grown = realloc(w->counts, (size_t)(w->ncounts + 1) * sizeof(*grown));

		if (!grown)
			abort();	/* a handful of users: running out here is not recoverable */
		w->counts = grown;
		c = &w->counts[w->ncounts++];
		c->ns = ns;
		c->uid = uid;
		c->count = 0;
	}
	c->count += delta;
}

void npg_count_add(struct npg_world *w, npg_id uid, long delta)
{
	level_add(w, NPG_USERNS_INITIAL, uid, delta);
}

/*
 * kernel/ucount.c, inc_rlimit_ucounts() / dec_rlimit_ucounts() (5.14+):
 *	for (iter = ucounts; iter; iter = iter->ns->ucounts)
 *		atomic_long_add_return(v, &iter->rlimit[type]);
 * where ns->ucounts is the creator's ucounts in the parent namespace
 * (create_user_ns(): inc_user_namespaces(parent_ns, owner)).
 */
void npg_charge(struct npg_world *w, const struct npg_cred *c, long delta)
{
	int ns = count_ns(w, c->userns);
	npg_id uid = c->charged_to;

	for (;;) {
		level_add(w, ns, uid, delta);
		if (!charged_up_the_chain(w, ns))
			return;
		uid = w->userns[ns].owner;
		ns = w->userns[ns].parent;
	}
}

long npg_task_count(const struct npg_world *w, const struct npg_task *t)
{
	return npg_count_in(w, t->cred.userns, t->cred.charged_to);
}

/*
 * kernel/ucount.c, is_ucounts_overlimit() of 5.14.0 (21d1c5e386bc), before
 * 59ec71575ab4:
 *	if (get_ucounts_value(ucounts, type) > max)
 *		return true;
 *	for (iter = ucounts; iter; iter = iter->ns->ucounts) {
 *		max = READ_ONCE(iter->ns->ucount_max[type]);
 *		if (get_ucounts_value(iter, type) > max)
 *			return true;
 *	}
 * @max an unsigned long: a count gone negative compares as over. Each
 * level meets its own namespace's record (the initial namespace's is
 * RLIM_INFINITY since 5ddf994fa22f, also 5.14), not the one above it.
 */
static bool ucounts_over_5_14(const struct npg_world *w, int ns, npg_id uid, uint64_t rlimit,
			      long extra)
{
	if ((uint64_t)(npg_count_in(w, ns, uid) + extra) > rlimit)
		return true;
	for (;;) {
		uint64_t max = ns == NPG_USERNS_INITIAL ? NPG_RLIM_INFINITY : w->userns[ns].nproc_max;

		if ((uint64_t)(npg_count_in(w, ns, uid) + extra) > max)
			return true;
		if (!charged_up_the_chain(w, ns))
			return false;
		uid = w->userns[ns].owner;
		ns = w->userns[ns].parent;
	}
}

/*
 * kernel/ucount.c, is_rlimit_overlimit() (6.x; is_ucounts_overlimit() in
 * 5.14-5.16), in this form since 59ec71575ab4 (ucounts_max_parent: 5.16,
 * 5.15.12):
 *	long max = rlimit;
 *	if (rlimit > LONG_MAX) max = LONG_MAX;
 *	for (iter = ucounts; iter; iter = iter->ns->ucounts) {
 *		long val = get_rlimit_value(iter, type);
 *		if (val < 0 || val > max) return true;
 *		max = get_userns_rlimit_max(iter->ns, type);
 *	}
 * The caller's own limit for its own level, each namespace's recorded
 * limit for the level above it. "val < 0" is 0cbae9e24fa7's
 * (ucounts_wrap_check: 5.17, 5.15.25, 5.16.11): from 59ec71575ab4 to it
 * a negative count compared signed, as under any limit.
 */
bool npg_ucounts_over(const struct npg_world *w, const struct npg_cred *c, uint64_t rlimit,
		      long extra)
{
	int ns = count_ns(w, c->userns);
	npg_id uid = c->charged_to;
	uint64_t max = rlimit;

	if (!w->rules.ucounts_max_parent)
		return ucounts_over_5_14(w, ns, uid, rlimit, extra);
	for (;;) {
		long n = npg_count_in(w, ns, uid) + extra;

		if (w->rules.ucounts_wrap_check ? npg_count_over(n, max) : n >= 0 && npg_count_over(n, max))
			return true;
		if (!charged_up_the_chain(w, ns))
			return false;
		max = w->userns[ns].nproc_max;
		uid = w->userns[ns].owner;
		ns = w->userns[ns].parent;
	}
}

/*
 * kernel/cred.c, set_cred_ucounts(): the ucounts a task with credentials
 * @new is charged to -- alloc_ucounts(new->user_ns, new->uid) since
 * a55d07294f1e (ucounts_real_uid), new->euid before it (5.14-5.16 as
 * released). Before 5.14 the user_struct of the real uid.
 */
npg_id npg_set_cred_ucounts(const struct npg_world *w, const struct npg_cred *new)
{
	return w->policy->ucounts && !w->rules.ucounts_real_uid ? new->uid.eff : new->uid.real;
}

/* task_rlimit(): the limit lives in signal_struct, shared by the thread group */
uint64_t npg_rlimit_nproc(const struct npg_world *w, const struct npg_task *t)
{
	return w->tasks[t->leader].nproc_cur;
}

/*
 * capable() is ns_capable(&init_user_ns, cap): cap_capable() finds the
 * capability only in a task of the initial namespace, whatever a child
 * namespace's task holds there (no namespace is the initial one's parent).
 */
bool npg_capable(const struct npg_task *t, int cap)
{
	return t->cred.userns == NPG_USERNS_INITIAL && npg_cap_has(t->cred.cap_effective, cap);
}

bool npg_capable_own_ns(const struct npg_task *t, int cap)
{
	return npg_cap_has(t->cred.cap_effective, cap);
}

bool npg_alive(const struct npg_task *t)
{
	return t->state == NPG_TASK_RUNNING;
}
