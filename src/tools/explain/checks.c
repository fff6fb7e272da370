/*
 * The checks a new task must pass, in copy_process()'s order (kernel/fork.c;
 * the order has not changed since the pids controller came in 4.3):
 *
 *   1. RLIMIT_NPROC of the user (is_rlimit_overlimit() on task_ucounts()
 *      since 5.14, atomic_read(&p->real_cred->user->processes) before),
 *      right after copy_creds();
 *   2. nr_threads >= max_threads (kernel.threads-max);
 *   3. alloc_pid() in every pid namespace level (-ENOSPC from
 *      idr_alloc_cyclic() becomes -EAGAIN, kernel/pid.c);
 *   4. cgroup_can_fork() -> pids_can_fork() -> pids_try_charge() on the
 *      task's pids cgroup and every ancestor (kernel/cgroup/pids.c, 4.3+).
 *
 * execve() has one: PF_NPROC_EXCEEDED with the user still over the limit
 * (do_execveat_common(), 3.1+). Whether RLIMIT_NPROC refuses is asked of
 * the model's policy for the running kernel, never restated here.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/config.h"
#include "model/model.h"
#include "model/policy.h"
#include "model/release.h"
#include "tools/explain/explain.h"

int npg_explain_op_parse(const char *s)
{
	if (strcmp(s, "fork") == 0)
		return NPG_EXPLAIN_FORK;
	if (strcmp(s, "thread") == 0)
		return NPG_EXPLAIN_THREAD;
	if (strcmp(s, "execve") == 0)
		return NPG_EXPLAIN_EXECVE;
	return -1;
}

const char *npg_explain_op_name(enum npg_explain_op op)
{
	return op == NPG_EXPLAIN_FORK ? "fork" : op == NPG_EXPLAIN_THREAD ? "thread" : "execve";
}

static struct npg_explain_check *add(struct npg_explain *e, const char *id, const char *kernel)
{
	struct npg_explain_check *c = &e->checks[e->nchecks++];

	memset(c, 0, sizeof(*c));
	c->id = id;
	c->kernel = kernel;
	c->applies = true;
	c->limit = -1;
	return c;
}

static const char *plural(long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static void limit_text(uint64_t v, char *buf, size_t len)
{
	if (v == UINT64_MAX)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
}

/* The count copy_process() compares: the kernel's own counter when the BPF iterator gave it */
static long user_count(const struct npg_explain_facts *f)
{
	return f->kernel_count >= 0 ? (long)f->kernel_count : f->tasks;
}

/*
 * A one-task world of the model holding the user's count, so that the
 * policy of this kernel decides; the task's capabilities count only in
 * the initial user namespace (capable() asks init_user_ns).
 */
static void model_world_at(const struct npg_explain_facts *f, const struct npg_config *m,
			   long count, uint64_t soft, struct npg_world *w)
{
	struct npg_cred cred;

	memset(&cred, 0, sizeof(cred));
	cred.uid = (struct npg_ids){ f->ruid, f->euid, f->euid, f->euid };
	cred.cap_effective = f->init_userns ? f->cap_eff : 0;
	cred.cap_permitted = cred.cap_effective;
	npg_world_init(w, m->policy, 1);
	w->rules = m->rules;
	npg_task_spawn(w, 0, &cred, soft, soft > f->nproc_hard ? soft : f->nproc_hard);
	/* npg_task_spawn() charged the task itself: add the rest of the count */
	npg_count_add(w, w->tasks[0].cred.charged_to, count - 1);
	w->tasks[0].nproc_exceeded = f->flagged;
}

static void model_world(const struct npg_explain_facts *f, const struct npg_config *m,
			struct npg_world *w)
{
	model_world_at(f, m, user_count(f), f->nproc_soft, w);
}

/*
 * How copy_process() compares a count N with the limit L: N >= L before
 * 5.14; N > L in 5.14-5.16 as released (the test before copy_creds());
 * N + 1 > L since 8f2f9c4d82f2 (rule fork_counts_child)
 */
enum nproc_form { AT_LEAST, OVER, CHILD_FIRST };

static enum nproc_form form_of(const struct npg_config *m)
{
	if (!m->policy->ucounts)
		return AT_LEAST;
	return m->rules.fork_counts_child ? CHILD_FIRST : OVER;
}

/* Who copy_process() lets past the limit, in the words of the source */
static const char *exemption(const struct npg_explain_facts *f)
{
	if (f->ruid == 0)
		return "real uid 0 (INIT_USER) is exempt";
	if (f->init_userns && (f->cap_eff & (1ull << NPG_CAP_SYS_RESOURCE)))
		return "CAP_SYS_RESOURCE in its effective set exempts it";
	if (f->init_userns && (f->cap_eff & (1ull << NPG_CAP_SYS_ADMIN)))
		return "CAP_SYS_ADMIN in its effective set exempts it";
	return NULL;
}

/*
 * The RLIMIT_NPROC verdict: @n (the count before the fork; + 1 for 5.14+,
 * which charges the child first) against @lim. copy_process() asks for an
 * exemption only once the count is over, but the answer holds whatever
 * the count: said either way, as status says it.
 */
static void rlimit_verdict(char *buf, size_t len, long n, enum nproc_form form, uint64_t soft,
			   bool refuses, bool over, const char *ex, const char *what)
{
	const char *plus = form == CHILD_FIRST ? " + 1" : "";
	const char *is_over = form == AT_LEAST ? ">=" : ">", *is_under = form == AT_LEAST ? "<" : "<=";
	char lim[32];

	limit_text(soft, lim, sizeof(lim));
	if (soft == UINT64_MAX)
		snprintf(buf, len, "RLIMIT_NPROC unlimited: ok%s%s", ex ? ", and whatever the limit: " : "",
			 ex ? ex : "");
	else if (refuses)
		snprintf(buf, len, "%ld%s %s %s: %s fails with EAGAIN", n, plus, is_over, lim, what);
	else if (over && ex)
		snprintf(buf, len, "%ld%s %s %s, but %s: ok", n, plus, is_over, lim, ex);
	else if (ex)
		snprintf(buf, len, "%ld%s %s %s: ok, and whatever the count: %s", n, plus, is_under, lim,
			 ex);
	else
		snprintf(buf, len, "%ld%s %s %s: ok (%lld left)", n, plus, is_under, lim,
			 (long long)soft - n + (form == OVER));
}

/* Is @n over @soft in @form? */
static bool nproc_over(enum nproc_form form, long n, uint64_t soft)
{
	return soft != UINT64_MAX && (form == CHILD_FIRST ? npg_count_over(n + 1, soft) :
				      form == OVER ? npg_count_over(n, soft) :
				      npg_count_at_least(n, soft));
}

static void user_subject(const struct npg_explain_facts *f, struct npg_explain_check *c)
{
	char lim[32];

	limit_text(f->nproc_soft, lim, sizeof(lim));
	snprintf(c->subject, sizeof(c->subject),
		 "user %s (uid %u): %ld %s (%ld %s, %ld %s, %ld %s)%s, RLIMIT_NPROC %s (soft, pid %d %s)",
		 f->user, f->ruid, user_count(f), plural(user_count(f), "task", "tasks"), f->procs,
		 plural(f->procs, "process", "processes"), f->threads,
		 plural(f->threads, "thread", "threads"), f->zombies,
		 plural(f->zombies, "zombie", "zombies"),
		 f->kernel_count >= 0 ? " by the kernel's ucounts counter" : "", lim, (int)f->pid,
		 f->comm);
}

/* 1. RLIMIT_NPROC, as the policy of this kernel decides */
static void check_rlimit(const struct npg_explain_facts *f, const struct npg_config *m,
			 enum npg_explain_op op, struct npg_explain *e)
{
	enum nproc_form form = form_of(m);
	struct npg_explain_check *c = add(e, "rlimit_nproc", form == CHILD_FIRST
		? "copy_process(): is_rlimit_overlimit(task_ucounts(p), UCOUNT_RLIMIT_NPROC) after "
		  "copy_creds() (8f2f9c4d82f2)"
		: form == OVER
		? "copy_process(): is_ucounts_overlimit(task_ucounts(p), UCOUNT_RLIMIT_NPROC) before "
		  "copy_creds() (5.14-5.16 before 8f2f9c4d82f2)"
		: "copy_process(): atomic_read(&p->real_cred->user->processes) >= rlimit(RLIMIT_NPROC)");
	struct npg_world w;
	long n = user_count(f);
	const char *what = op == NPG_EXPLAIN_THREAD ? "clone(CLONE_THREAD)" : "fork";
	const char *ex = exemption(f);

	user_subject(f, c);
	c->exempt = ex;
	c->used = n;
	c->limit = f->nproc_soft == UINT64_MAX ? -1 : (long)f->nproc_soft;
	model_world(f, m, &w);
	c->refuses = m->policy->copy_process(&w, &w.tasks[0], &w.tasks[0].cred) == -EAGAIN;
	npg_world_free(&w);
	rlimit_verdict(c->verdict, sizeof(c->verdict), n, form, f->nproc_soft, c->refuses,
		       nproc_over(form, n, f->nproc_soft), ex, what);
}

/*
 * 1, for a task in a child user namespace on 5.14+: is_rlimit_overlimit()
 * walks the task's ucounts up to the initial namespace (kernel/ucount.c:
 * for (iter = ucounts; iter; iter = iter->ns->ucounts)), comparing the
 * count at its own level with its RLIMIT_NPROC, and at each level above
 * with get_userns_rlimit_max(iter->ns): the RLIMIT_NPROC the namespace's
 * creator had at create_user_ns() (set_userns_rlimit_max(), 6.5+;
 * set_rlimit_ucount_max(ns, UCOUNT_RLIMIT_NPROC, ...) 5.14-6.4). The own
 * level is asked of the policy; a level whose limit /proc cannot show is
 * reported with its count and not decided.
 */
static void check_rlimit_userns(const struct npg_explain_facts *f, const struct npg_config *m,
				enum npg_explain_op op, struct npg_explain *e)
{
	enum nproc_form form = form_of(m);
	const char *what = op == NPG_EXPLAIN_THREAD ? "clone(CLONE_THREAD)" : "fork";
	const char *ex = exemption(f);

	for (int i = 0; i < f->nuserns; i++) {
		const struct npg_userns_level *l = &f->userns[i];
		struct npg_explain_check *c = add(e, "rlimit_nproc", i == 0
			? "copy_process(): is_rlimit_overlimit(task_ucounts(p), UCOUNT_RLIMIT_NPROC) (5.14+), "
			  "the task's own user namespace"
			: "copy_process(): is_rlimit_overlimit(): get_userns_rlimit_max(), a parent "
			  "user namespace (kernel/ucount.c, 5.14+)");
		char inside[48] = "", lim[32];
		bool over;

		if (l->uid_inside >= 0 && (uint32_t)l->uid_inside != l->uid)
			snprintf(inside, sizeof(inside), ", %lld inside", (long long)l->uid_inside);
		c->used = l->count;
		c->limit = l->limit >= 0 ? (long)l->limit : -1;
		c->exempt = ex;
		if (i == 0) {
			limit_text(f->nproc_soft, lim, sizeof(lim));
			snprintf(c->subject, sizeof(c->subject),
				 "user namespace %llu (level %d, the task's own): uid %u%s: %ld %s charged "
				 "here, RLIMIT_NPROC %s (soft, pid %d %s)", l->inode, l->level, l->uid,
				 inside, l->count, plural(l->count, "task", "tasks"), lim, (int)f->pid,
				 f->comm);
		} else
			snprintf(c->subject, sizeof(c->subject),
				 "user namespace %llu (level %d%s): uid %u%s, owner of namespace %llu: %ld "
				 "%s charged here, limit the RLIMIT_NPROC its creator had when namespace %llu "
				 "was made", l->inode, l->level, l->level == 0 ? ", initial" : "", l->uid,
				 inside, f->userns[i - 1].inode, l->count, plural(l->count, "task", "tasks"),
				 f->userns[i - 1].inode);
		if (l->count < 0) {
			snprintf(c->verdict, sizeof(c->verdict), "count unreadable: not checked");
			c->applies = false;
			continue;
		}
		if (i > 0) {
			snprintf(c->verdict, sizeof(c->verdict), "%ld + 1 against a limit at creation not "
				 "visible (ns->rlimit_max is not in /proc): not checked", l->count);
			c->applies = false;
			continue;
		}
		if (f->nproc_soft == UINT64_MAX) {
			rlimit_verdict(c->verdict, sizeof(c->verdict), l->count, form, f->nproc_soft,
				       false, false, ex, what);
			continue;
		}
		{
			struct npg_world w;

			model_world_at(f, m, l->count, f->nproc_soft, &w);
			c->refuses = m->policy->copy_process(&w, &w.tasks[0], &w.tasks[0].cred) ==
				     -EAGAIN;
			npg_world_free(&w);
		}
		over = nproc_over(form, l->count, f->nproc_soft);
		rlimit_verdict(c->verdict, sizeof(c->verdict), l->count, form, f->nproc_soft, c->refuses,
			       over, ex, what);
	}
}

/* 2. kernel.threads-max */
static void check_threads(const struct npg_explain_facts *f, struct npg_explain *e)
{
	struct npg_explain_check *c = add(e, "threads_max",
					  "copy_process(): data_race(nr_threads >= max_threads)");

	c->used = f->nr_threads;
	c->limit = f->threads_max;
	snprintf(c->subject, sizeof(c->subject), "kernel.threads-max %ld, tasks %ld", f->threads_max,
		 f->nr_threads);
	if (f->threads_max < 0) {
		snprintf(c->verdict, sizeof(c->verdict), "unreadable: not checked");
		c->applies = false;
		return;
	}
	c->refuses = f->nr_threads >= f->threads_max;
	snprintf(c->verdict, sizeof(c->verdict), c->refuses ? "%ld >= %ld: fails with EAGAIN"
			 : "%ld < %ld: ok", f->nr_threads, f->threads_max);
}

/* 3. alloc_pid() at each pid namespace level, innermost first as the kernel walks them */
static void check_pids(const struct npg_explain_facts *f, struct npg_explain *e)
{
	for (int i = f->npidns - 1; i >= 0; i--) {
		const struct npg_pidns_level *l = &f->pidns[i];
		struct npg_explain_check *c = add(e, "pid_max",
			"alloc_pid(): idr_alloc_cyclic() -ENOSPC -> -EAGAIN (kernel/pid.c)");
		char level[64];

		if (l->level == 0)
			snprintf(level, sizeof(level), "init");
		else if (i == f->npidns - 1)
			snprintf(level, sizeof(level), "level %d, the task's own", l->level);
		else
			snprintf(level, sizeof(level), "level %d", l->level);
		c->used = l->used;
		c->limit = l->pid_max;
		snprintf(c->subject, sizeof(c->subject),
			 "pid namespace (%s): kernel.pid_max %ld, pids in use %ld", level, l->pid_max,
			 l->used);
		/* the probe into this level takes a pid here and at every level
		 * above: it tells this level apart only if the one above let a
		 * probe through */
		if (l->pid_max == -2 && i > 1 && f->pidns[i - 1].pid_max == -2) {
			snprintf(c->subject, sizeof(c->subject),
				 "pid namespace (%s): kernel.pid_max unreadable, pids in use %ld", level,
				 l->used);
			snprintf(c->verdict, sizeof(c->verdict), "a probe fork into it failed with EAGAIN, "
				 "as did one into the level above: which of them is full is not known "
				 "here: not checked");
			c->applies = false;
			continue;
		}
		if (l->pid_max == -2) {
			/* the reader of pid_max had to be forked inside: alloc_pid() refused it */
			snprintf(c->subject, sizeof(c->subject),
				 "pid namespace (%s): kernel.pid_max unreadable, pids in use %ld", level,
				 l->used);
			c->refuses = true;
			snprintf(c->verdict, sizeof(c->verdict), "a probe fork into this namespace just "
				 "failed with EAGAIN: no free pid below its pid_max (%ld in use): fails "
				 "with EAGAIN", l->used);
			continue;
		}
		if (l->pid_max < 0 || l->used < 0) {
			snprintf(c->verdict, sizeof(c->verdict),
				 "not readable from here (needs root to enter the namespace): not checked");
			c->applies = false;
			continue;
		}
		/* pids 1 .. pid_max-1; once the counter wraps, those below 300
		 * (RESERVED_PIDS) are not handed out again */
		c->refuses = l->used >= l->pid_max - 1;
		snprintf(c->verdict, sizeof(c->verdict),
			 c->refuses ? "%ld pids in use, %ld available (1 to pid_max - 1): fails with EAGAIN"
				    : "%ld pids in use, %ld available (1 to pid_max - 1): ok",
			 l->used, l->pid_max - 1);
	}
}

/* 4. the pids controller: every cgroup up the chain */
static void check_cgroups(const struct npg_explain_facts *f, struct npg_explain *e)
{
	bool limited = false;

	for (int i = 0; i < f->ncgroups; i++) {
		const struct npg_pids_cgroup *g = &f->cgroups[i];
		struct npg_explain_check *c;
		char refused[200] = "";

		/* the task's own cgroup is always shown; ancestors only with a limit */
		if (g->max < 0 && i > 0)
			continue;
		c = add(e, "pids_cgroup", "cgroup_can_fork() -> pids_can_fork(): pids_try_charge() "
					   "(kernel/cgroup/pids.c, 4.3+)");
		c->used = g->current;
		c->limit = g->max;
		/* what the counter means on this kernel: pids_event() (kernel/cgroup/pids.c) */
		if (g->refused >= 0 && g->events_scope == NPG_PIDS_EVENTS_SUBTREE)
			snprintf(refused, sizeof(refused), "; pids.events: %ld %s so far by pids.max here "
				 "or below, %ld by this one (pids.events.local)", g->refused,
				 plural(g->refused, "refusal", "refusals"), g->refused_local);
		else if (g->refused >= 0)
			snprintf(refused, sizeof(refused), "; pids.events: %ld %s of tasks in this cgroup "
				 "refused so far, by its or an ancestor's pids.max", g->refused,
				 plural(g->refused, "fork", "forks"));
		if (g->max < 0) {
			snprintf(c->subject, sizeof(c->subject), "cgroup %s (pids, v%d): pids.current %ld, "
				 "pids.max max", g->path, g->version, g->current);
			snprintf(c->verdict, sizeof(c->verdict), "no limit here%s", refused);
			continue;
		}
		limited = true;
		snprintf(c->subject, sizeof(c->subject), "cgroup %s (pids, v%d): pids.current %ld, "
			 "pids.max %ld", g->path, g->version, g->current, g->max);
		/* pids_try_charge(): new = counter + 1; if (new > limit) fail */
		c->refuses = g->current + 1 > g->max;
		snprintf(c->verdict, sizeof(c->verdict), "%ld + 1 %s %ld: %s%s", g->current,
			 c->refuses ? ">" : "<=", g->max, c->refuses ? "fails with EAGAIN" : "ok",
			 refused);
	}
	(void)limited;
}

/* execve(): the flag, and the re-check of the limit */
static void check_execve(const struct npg_explain_facts *f, const struct npg_config *m,
			 struct npg_explain *e)
{
	const struct npg_policy *p = m->policy;
	struct npg_explain_check *c = add(e, "nproc_exceeded",
		"do_execveat_common(): PF_NPROC_EXCEEDED && is_rlimit_overlimit() (3.1+)");
	struct npg_world w;
	/* in a child user namespace (5.14+) the re-check starts at the task's own level */
	bool own = f->nuserns > 1 && f->userns[0].count >= 0;
	long n = own ? f->userns[0].count : user_count(f);
	char lim[32];

	user_subject(f, c);
	if (own)
		snprintf(c->subject, sizeof(c->subject), "user namespace %llu (level %d, the task's "
			 "own): uid %u: %ld %s charged here, RLIMIT_NPROC %s (soft, pid %d %s)",
			 f->userns[0].inode, f->userns[0].level, f->ruid, n, plural(n, "task", "tasks"),
			 f->nproc_soft == UINT64_MAX ? "unlimited" : (limit_text(f->nproc_soft, lim,
			 sizeof(lim)), lim), (int)f->pid, f->comm);
	c->used = n;
	c->limit = f->nproc_soft == UINT64_MAX ? -1 : (long)f->nproc_soft;
	limit_text(f->nproc_soft, lim, sizeof(lim));
	if (!p->execve) {
		snprintf(c->verdict, sizeof(c->verdict), "this kernel (%s) has no execve check: ok",
			 p->name);
		return;
	}
	model_world_at(f, m, n, f->nproc_soft, &w);
	c->refuses = p->execve(&w, &w.tasks[0]) == -EAGAIN;
	npg_world_free(&w);
	if (c->refuses)
		snprintf(c->verdict, sizeof(c->verdict), "PF_NPROC_EXCEEDED is set and %ld > %s: "
			 "execve fails with EAGAIN", n, lim);
	else if (f->flagged)
		snprintf(c->verdict, sizeof(c->verdict), "PF_NPROC_EXCEEDED is set, but %ld <= %s now: "
			 "execve clears the flag and goes on: ok", n, lim);
	else
		snprintf(c->verdict, sizeof(c->verdict), "PF_NPROC_EXCEEDED is not set: execve does not "
			 "re-check the limit: ok");
}

void npg_explain_decide(const struct npg_explain_facts *f, const struct npg_release *model,
			enum npg_explain_op op, struct npg_explain *e)
{
	struct npg_release rel;
	struct npg_config m;
	bool pids_controller = true;

	memset(e, 0, sizeof(*e));
	e->op = op;
	e->first_refusal = -1;
	if (!model && npg_release_parse(&rel, f->release, f->version[0] ? f->version : NULL) == 0)
		model = &rel;
	if (model) {
		m.policy = model->policy;
		npg_rules_for_policy(model->policy, model, &m.rules);
		pids_controller = model->major > 4 || (model->major == 4 && model->minor >= 3);
	} else {
		npg_config_of_policy(&m, &npg_policy_linux_6);
	}
	e->policy = m.policy->name;
	npg_config_format(&m, e->model, sizeof(e->model));
	if (op == NPG_EXPLAIN_EXECVE) {
		if (f->have_task)
			check_execve(f, &m, e);
	} else {
		/* 5.14+ count per user namespace level; before, per user_struct only */
		if (f->have_task && f->nuserns > 1 && m.policy->ucounts)
			check_rlimit_userns(f, &m, op, e);
		else if (f->have_task)
			check_rlimit(f, &m, op, e);
		check_threads(f, e);
		check_pids(f, e);
		if (pids_controller)
			check_cgroups(f, e);
	}
	for (int i = 0; i < e->nchecks; i++)
		if (e->checks[i].refuses && e->first_refusal < 0)
			e->first_refusal = i;
}
