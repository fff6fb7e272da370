/* The model backend: steps go to the model core and its policy. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/model_step.h"

struct model_priv {
	struct npg_world world;
};

static int model_start(struct npg_backend *b, const struct npg_scenario *sc)
{
	struct model_priv *m = calloc(1, sizeof(*m));
	/* the machine's set, or the one the scenario declares (unless run --host) */
	uint64_t bset = b->cap_bset_fixed ? b->cap_bset : npg_scenario_bset(sc, b->cap_bset);

	if (!m || npg_world_init(&m->world, b->policy, sc->ntasks) < 0) {
		free(m);
		snprintf(b->error, sizeof(b->error), "out of memory");
		return -1;
	}
	b->priv = m;
	npg_rules_for_policy(b->policy, b->release, &m->world.rules);
	if (b->release)
		m->world.cap_full_set = (NPG_CAP(b->release->cap_last_cap) << 1) - 1;
	/* the machine's Yama and fs.suid_dumpable, or the scenario's Yama */
	m->world.yama_scope = b->yama_fixed ? b->yama_scope : sc->yama_scope;
	m->world.suid_dumpable = b->suid_dumpable;
	for (int i = 0; i < sc->nnames; i++)
		if (!sc->names[i].group && sc->names[i].procs)
			npg_count_add(&m->world, sc->names[i].id, sc->names[i].procs);
	for (int i = 0; i < sc->ntasks; i++) {
		const struct npg_task_decl *d = &sc->tasks[i];
		struct npg_cred cred = d->cred;

		if (!d->initial)
			continue;
		/* an explicit set is taken as written; root's implicit one is
		 * whatever the bounding set allows */
		cred.cap_bset = bset;
		if (!d->caps_explicit) {
			cred.cap_permitted &= bset;
			cred.cap_effective &= bset;
		}
		npg_task_spawn(&m->world, i, &cred, d->nproc_cur, d->nproc_max);
		m->world.tasks[i].no_new_privs = b->tasks_no_new_privs;
	}
	return 0;
}

static struct npg_result model_step(struct npg_backend *b, const struct npg_stmt *st)
{
	return npg_model_step(&((struct model_priv *)b->priv)->world, st);
}

/* The explorer runs steps on worlds of its own (model_step.h) */
struct npg_world *npg_model_world(struct npg_backend *b)
{
	return b->priv ? &((struct model_priv *)b->priv)->world : NULL;
}

static struct npg_result sys_call(struct npg_world *w, int t, const void *arg);

struct npg_result npg_model_step(struct npg_world *w, const struct npg_stmt *st)
{
	struct npg_result r;
	int *order;

	if (!npg_alive(&w->tasks[st->task]))
		return (struct npg_result){ .kind = NPG_R_DEAD };
	/*
	 * kernel/fork.c, wait_for_vfork_done(): a task in vfork() makes no call
	 * until its child execs or exits; glibc's set*id waits for every thread
	 * of the process (__nptl_setxid()), so it waits for that one too.
	 */
	if (npg_vfork_waiting(w, st->task))
		return (struct npg_result){ .kind = NPG_R_SUSPENDED };
	if (st->op.glibc)
		for (int i = 0; i < w->ntasks; i++)
			if (w->tasks[i].leader == w->tasks[st->task].leader &&
			    npg_alive(&w->tasks[i]) && npg_vfork_waiting(w, i))
				return (struct npg_result){ .kind = NPG_R_SUSPENDED };
	if (!st->op.glibc)
		return sys_call(w, st->task, &st->op);
	order = calloc((size_t)w->ntasks + 1, sizeof(*order));
	if (!order)
		return (struct npg_result){ .kind = NPG_R_ERRNO, .value = ENOMEM };
	r = npg_glibc_setxid(w, st->task, order, sys_call, &st->op);
	free(order);
	return r;
}

/* One raw system call, @arg the operation, by task @t */
static struct npg_result sys_call(struct npg_world *w, int t, const void *arg)
{
	const struct npg_op *op = arg;
	uint64_t eff, prm, inh;

	switch (op->code) {
	case NPG_OP_FORK:
	case NPG_OP_THREAD:
		return npg_sys_fork(w, t, op->target, op->code == NPG_OP_THREAD);
	case NPG_OP_VFORK:
		return npg_sys_vfork(w, t, op->target);
	case NPG_OP_EXIT:
		return npg_sys_exit(w, t, op->value);
	case NPG_OP_WAIT:
		return npg_sys_wait(w, t, op->target);
	case NPG_OP_SETUID:
	case NPG_OP_SETGID:
		return npg_sys_setuid(w, t, op->code == NPG_OP_SETGID, op->id[0]);
	case NPG_OP_SETEUID:	/* glibc: setresuid(-1, euid, -1) */
	case NPG_OP_SETEGID:
		return npg_sys_setresuid(w, t, op->code == NPG_OP_SETEGID, NPG_ID_NONE, op->id[0],
					 NPG_ID_NONE);
	case NPG_OP_SETREUID:
	case NPG_OP_SETREGID:
		return npg_sys_setreuid(w, t, op->code == NPG_OP_SETREGID, op->id[0], op->id[1]);
	case NPG_OP_SETRESUID:
	case NPG_OP_SETRESGID:
		return npg_sys_setresuid(w, t, op->code == NPG_OP_SETRESGID, op->id[0], op->id[1],
					 op->id[2]);
	case NPG_OP_SETFSUID:
	case NPG_OP_SETFSGID:
		return npg_sys_setfsuid(w, t, op->code == NPG_OP_SETFSGID, op->id[0]);
	case NPG_OP_SETGROUPS:
		return npg_sys_setgroups(w, t, op->ngroups, op->groups);
	case NPG_OP_SETRLIMIT:
	case NPG_OP_PRLIMIT:
		return npg_sys_prlimit(w, t, op->target, op->lim_cur, op->lim_max);
	case NPG_OP_KEEPCAPS:
		return npg_sys_keepcaps(w, t, op->value);
	case NPG_OP_CAPSET:
		npg_capset_compute(op, w->tasks[t].cred.cap_effective,
				   w->tasks[t].cred.cap_permitted, w->tasks[t].cred.cap_inheritable,
				   &eff, &prm, &inh);
		return npg_sys_capset(w, t, eff, prm, inh);
	case NPG_OP_SECUREBITS:
		return npg_sys_securebits(w, t, (uint32_t)op->value);
	case NPG_OP_AMBIENT:
		return npg_sys_ambient(w, t, op->value, (int)op->caps);
	case NPG_OP_EXECVE:
		return npg_sys_execve_file(w, t, op->file ? &op->exec : NULL);
	case NPG_OP_KILL:
		return npg_sys_kill(w, t, op->target, op->value);
	case NPG_OP_NO_NEW_PRIVS:
		return npg_sys_no_new_privs(w, t, op->value);
	case NPG_OP_UNSHARE_USER:
		return npg_sys_unshare_user(w, t, op->target, &op->uid_map, &op->gid_map);
	case NPG_OP_PTRACE:
		return op->value == NPG_PTRACE_DETACH ? npg_sys_ptrace_detach(w, t, op->target) :
		       op->value == NPG_PTRACE_ATTACH ? npg_sys_ptrace_attach(w, t, op->target) :
							npg_sys_ptrace_seize(w, t, op->target);
	case NPG_OP_DUMPABLE:
		return npg_sys_dumpable(w, t, op->value);
	case NPG_OP_PTRACER:
		return npg_sys_ptracer(w, t, op->value, op->target);
	case NPG_OP_CLONE_USER:
		return npg_sys_clone_user(w, t, op->target, op->value, &op->uid_map, &op->gid_map);
	case NPG_OP_SETNS_USER:
		return npg_sys_setns_user(w, t, op->target);
	case NPG_OP_WRITE_IDMAP:
		return npg_sys_write_idmap(w, t, op->target, op->value,
					   op->value ? &op->gid_map : &op->uid_map);
	case NPG_OP_WRITE_SETGROUPS:
		return npg_sys_write_setgroups(w, t, op->target, op->value);
	case NPG_OP_MAX_USERNS:
		return npg_sys_max_user_namespaces(w, t, op->lim_cur > INT32_MAX ? -1 :
							 (long)op->lim_cur);
	}
	return (struct npg_result){ .kind = NPG_R_ERRNO, .value = ENOSYS };
}

static void model_view(struct npg_backend *b, int task, struct npg_task *out)
{
	const struct npg_world *w = &((struct model_priv *)b->priv)->world;

	/* a task never made has nothing to show: not the parent's copy that
	 * a failed fork left in its slot (as the real backend's view) */
	if (w->tasks[task].state == NPG_TASK_ABSENT) {
		*out = (struct npg_task){ .state = NPG_TASK_ABSENT, .leader = task,
					  .parent = NPG_HARNESS };
		return;
	}
	*out = w->tasks[task];
	/* the link as /proc's TracerPid shows it */
	out->tracer = npg_tracer_of(w, task) + 1;
	/* limits live in the thread group's signal_struct */
	out->nproc_cur = w->tasks[out->leader].nproc_cur;
	out->nproc_max = w->tasks[out->leader].nproc_max;
}

/* a namespace not created (yet, or under this policy) has no counts */
static long model_count(struct npg_backend *b, int ns, npg_id uid)
{
	const struct npg_world *w = &((struct model_priv *)b->priv)->world;

	if (ns != NPG_USERNS_INITIAL && (!w->userns || !w->userns[ns].exists))
		return 0;
	return npg_count_in(w, ns, uid);
}

static void model_stop(struct npg_backend *b)
{
	struct model_priv *m = b->priv;

	if (!m)
		return;
	npg_world_free(&m->world);
	free(m);
	b->priv = NULL;
}

static const struct npg_backend_ops model_ops = {
	.start = model_start,
	.step = model_step,
	.view = model_view,
	.count = model_count,
	.stop = model_stop,
};

void npg_model_backend_init(struct npg_backend *b, const struct npg_policy *policy,
			    uint64_t cap_bset)
{
	memset(b, 0, sizeof(*b));
	b->ops = &model_ops;
	b->policy = policy;
	b->cap_bset = cap_bset;
	snprintf(b->label, sizeof(b->label), "%s", policy->name);
}

void npg_model_backend_as_machine(struct npg_backend *b, const struct npg_policy *policy,
				  const struct npg_release *release, const struct npg_host *host)
{
	npg_model_backend_init(b, policy, host->cap_bnd);
	b->release = release;
	b->tasks_no_new_privs = host->no_new_privs;
	/* the machine's Yama and fs.suid_dumpable: the real side runs under them */
	b->yama_fixed = true;
	b->yama_scope = host->yama_scope;
	b->suid_dumpable = host->suid_dumpable;
}

void npg_model_backend_root_procs(struct npg_backend *b, const struct npg_scenario *sc,
				  long procs)
{
	struct model_priv *m = b->priv;
	long declared = 0;

	for (int i = 0; i < sc->nnames; i++)
		if (!sc->names[i].group && sc->names[i].id == 0)
			declared = sc->names[i].procs;
	npg_count_add(&m->world, 0, procs - declared);
}
