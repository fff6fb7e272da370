/* The world: tasks and per-user counts. */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/policy.h"

int npg_world_init(struct npg_world *w, const struct npg_policy *p, int ntasks)
{
	memset(w, 0, sizeof(*w));
	w->policy = p;
	w->setresuid_noop_fastpath = p->setresuid_noop_fastpath;
	w->ambient_caps = p->ambient_caps;
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
	memset(w, 0, sizeof(*w));
}

static struct npg_count *count_slot(const struct npg_world *w, npg_id uid)
{
	for (int i = 0; i < w->ncounts; i++)
		if (w->counts[i].uid == uid)
			return &w->counts[i];
	return NULL;
}

long npg_count_of(const struct npg_world *w, npg_id uid)
{
	const struct npg_count *c = count_slot(w, uid);

	return c ? c->count : 0;
}

void npg_count_add(struct npg_world *w, npg_id uid, long delta)
{
	struct npg_count *c = count_slot(w, uid);

	if (!c) {
		struct npg_count *grown = realloc(w->counts, (size_t)(w->ncounts + 1) * sizeof(*grown));

		if (!grown)
			abort();	/* a handful of users: running out here is not recoverable */
		w->counts = grown;
		c = &w->counts[w->ncounts++];
		c->uid = uid;
		c->count = 0;
	}
	c->count += delta;
}

long npg_task_count(const struct npg_world *w, const struct npg_task *t)
{
	return npg_count_of(w, t->cred.charged_to);
}

/* task_rlimit(): the limit lives in signal_struct, shared by the thread group */
uint64_t npg_rlimit_nproc(const struct npg_world *w, const struct npg_task *t)
{
	return w->tasks[t->leader].nproc_cur;
}

/* capable(): the effective set of the calling task's credentials */
bool npg_capable(const struct npg_task *t, int cap)
{
	return npg_cap_has(t->cred.cap_effective, cap);
}

bool npg_alive(const struct npg_task *t)
{
	return t->state == NPG_TASK_RUNNING;
}

void npg_task_spawn(struct npg_world *w, int idx, const struct npg_cred *cred,
		    uint64_t nproc_cur, uint64_t nproc_max)
{
	struct npg_task *t = &w->tasks[idx];

	t->cred = *cred;
	t->cred.charged_to = cred->uid.real;
	t->state = NPG_TASK_RUNNING;
	t->leader = idx;
	t->parent = NPG_HARNESS;
	t->nproc_cur = nproc_cur;
	t->nproc_max = nproc_max;
	npg_count_add(w, t->cred.charged_to, 1);
}
