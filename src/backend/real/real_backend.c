/*
 * The real backend: every scenario task is a real process or thread on the
 * running kernel (a puppet, see puppet.c), steps are real system calls, and
 * every observation is read back from /proc. Scenario uids other than 0 are
 * mapped into a window of otherwise unused uids, checked empty first, and
 * every process made here is killed and reaped on the way out -- including
 * on SIGINT/SIGTERM, and by the kernel itself (the puppets exit when their
 * controller's socket closes) if this process dies.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/real/creds.h"
#include "backend/real/execdir.h"
#include "backend/real/guestroot.h"
#include "backend/real/idmap.h"
#include "backend/real/lifecycle.h"
#include "backend/real/observe.h"
#include "backend/real/programs.h"
#include "backend/real/real_priv.h"
#include "backend/real/rootcount.h"
#include "backend/real/spawn.h"
#include "backend/real/teardown.h"
#include "backend/real/tracing.h"
#include "backend/real/userns_ops.h"
#include "backend/real/wire.h"
#include "system/procfs.h"

static int real_start(struct npg_backend *b, const struct npg_scenario *sc)
{
	struct real_priv *r = b->priv;
	pid_t busy;

	r->sc = sc;
	r->dumpable_read_task = -1;
	r->exe_fd = r->filler_pipe[0] = r->filler_pipe[1] = -1;
	r->segs = npg_real_window_new(sc);
	r->tasks = calloc((size_t)sc->ntasks + 1, sizeof(*r->tasks));
	r->touched = calloc((size_t)sc->nnames + 1, sizeof(*r->touched));
	r->counts = calloc((size_t)sc->nnames * (1 + (size_t)sc->nuserns) + 1, sizeof(*r->counts));
	r->count_uids = calloc((size_t)sc->nnames + 1, sizeof(*r->count_uids));
	r->file_why = calloc((size_t)sc->nfiles + 1, sizeof(*r->file_why));
	r->userns = calloc((size_t)sc->nuserns + 1, sizeof(*r->userns));
	if (!r->segs || !r->tasks || !r->touched || !r->counts || !r->count_uids ||
	    !r->file_why || !r->userns) {
		snprintf(b->error, sizeof(b->error), "out of memory");
		return -1;
	}
	for (int i = 0; i < sc->ntasks; i++)
		r->tasks[i].sock = r->tasks[i].pidfd = -1;
	for (int i = 0; i <= sc->nuserns; i++)
		r->userns[i].nsfd = -1;
	if (!r->host->root) {
		snprintf(b->error, sizeof(b->error),
			 "the real backend needs root: it creates processes of other users");
		return -1;
	}
	r->bset = npg_scenario_bset(sc, r->host->cap_bnd) & r->host->cap_bnd;
	if ((uint64_t)r->base + NPG_UID_WINDOW >= NPG_ID_NONE || npg_real_window_layout(r) < 0) {
		snprintf(b->error, sizeof(b->error), "uid base %u leaves no room for the "
			 "scenario's ids (%d uids from it)", r->base, NPG_UID_WINDOW);
		return -1;
	}
	if (npg_idmap_probe(&r->uns) < 0) {
		snprintf(b->error, sizeof(b->error), "probing user namespaces: %s", strerror(errno));
		return -1;
	}
	r->userns[0] = (struct real_userns){ .created = true, .nsfd = -1, .ino = r->uns.init_ino,
					     .nproc_max = NPG_RLIM_INFINITY };
	r->policy = b->policy;
	r->ucounts = b->policy->ucounts;
	npg_rules_for_policy(b->policy, b->release, &r->rules);
	/* conform gives the model this machine's Yama (yama_fixed); run --real keeps the file's */
	r->yama_mismatch = !b->yama_fixed && sc->yama_scope != r->host->yama_scope;
	busy = npg_proc_find_uid_in_range(r->base, r->base + NPG_UID_WINDOW);
	if (busy != 0) {
		struct npg_proc_task pt = { 0 };

		if (busy > 0)
			npg_proc_read_task(busy, busy, &pt);
		snprintf(b->error, sizeof(b->error),
			 busy < 0 ? "cannot scan /proc" :
			 "pid %d already runs with a uid in %u..%u%s: pick another --uid-base",
			 (int)busy, r->base, r->base + NPG_UID_WINDOW - 1,
			 pt.state == 'Z' ? " (a zombie its parent has not reaped yet)" : "");
		return -1;
	}
	r->window_ours = true;
	if (npg_real_check_capacity(b, r) < 0)
		return -1;
	for (int u = 0; u < sc->nnames; u++)
		r->count_uids[u] = npg_real_map_id(r, sc->names[u].id);
	/*
	 * Orphans come to us, as to init, so that we reap them at once.
	 * Kernels before 3.4 have no child subreaper (EINVAL): their orphans
	 * go to init, and real_stop() waits for the window to empty instead.
	 */
	r->ucounts_by_euid = npg_charges_euid(r->policy, &r->rules);
	r->subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
	if ((!r->subreaper && errno != EINVAL) ||
	    (r->exe_fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)) < 0 ||
	    pipe2(r->filler_pipe, O_CLOEXEC) < 0) {
		snprintf(b->error, sizeof(b->error), "setting up: %s", strerror(errno));
		return -1;
	}
	npg_teardown_install();
	npg_teardown_set_where(sc->file, 1, "starting the scenario's processes");
	if (npg_real_make_files(b, r) < 0 || npg_real_spawn_fillers(b, r) < 0 ||
	    npg_real_root_take(b, r) < 0)
		return -1;
	for (int i = 0; i < sc->ntasks; i++)
		if (sc->tasks[i].initial && npg_real_spawn_initial(b, r, i) < 0)
			return -1;
	npg_real_mark_touched(r);
	return 0;
}

static struct npg_result real_step_run(struct npg_backend *b, const struct npg_stmt *st);

/*
 * A sanitizer build's vfork() child has a copy of its parent's memory
 * (puppet.c): a step there that may change the credentials or the
 * dumpability changes its copy's dumpability alone, where the kernel's
 * shared mm (CLONE_VM) would change its parent's too. The parent's
 * dumpability is then not the model's: marked unknown.
 */
static void mm_copy_mark(struct real_priv *r, const struct real_task *t, const struct npg_stmt *st)
{
#if defined(__SANITIZE_ADDRESS__)
	switch (st->op.code) {
	case NPG_OP_FORK: case NPG_OP_THREAD: case NPG_OP_VFORK: case NPG_OP_EXIT:
	case NPG_OP_WAIT: case NPG_OP_KILL: case NPG_OP_EXECVE: case NPG_OP_SETRLIMIT:
	case NPG_OP_PRLIMIT: case NPG_OP_PTRACE: case NPG_OP_PTRACER:
		return;
	default:
		break;
	}
	if (t->shares_mm && t->vfork_waiter && t->alive)
		r->tasks[t->vfork_waiter - 1].mm_copy_changed = true;
#else
	(void)r, (void)t, (void)st;
#endif
}

static struct npg_result real_step(struct npg_backend *b, const struct npg_stmt *st)
{
	struct real_priv *r = b->priv;
	struct real_task *t = &r->tasks[st->task];
	const char *unknowable = NULL, *hazard;
	char settle_why[200];
	struct npg_result res;
	int made;

	/* which namespace's ids the step's ids are (npg_real_send_cmd()), and whose counts it meets */
	if (t->created && !t->tainted)
		t->ns = npg_real_task_ns(r, t);
	if (!r->diverged[0])
		unknowable = npg_real_decision_on_roots_count(r, t, st);
	if (!r->diverged[0] && !unknowable)
		unknowable = npg_real_decision_on_root_chain(r, t, st);
	/*
	 * A step whose effects would wait for a tracer that cannot act (asleep
	 * in vfork()) would hang here, or be seen half done: not run, and
	 * nothing compared after it, since the model has it done. (An attach
	 * brings a stop of its own, traced or not before.)
	 */
	if ((r->ever_traced || (st->op.code == NPG_OP_PTRACE && st->op.value == NPG_PTRACE_ATTACH)) &&
	    t->created && t->alive && !t->tainted &&
	    (hazard = npg_real_tracing_hazard(r, st))) {
		return npg_real_diverge(b, r, st, hazard);
	}
	/*
	 * Yama decides attaches (yama_ptrace_access_check()) and takes
	 * PR_SET_PTRACER: under another scope than the scenario's the kernel
	 * answers another question, and the links that follow differ.
	 */
	if (r->yama_mismatch && t->created && t->alive && !t->tainted &&
	    ((st->op.code == NPG_OP_PTRACE && st->op.value != NPG_PTRACE_DETACH) ||
	     st->op.code == NPG_OP_PTRACER)) {
		char why[96];

		snprintf(why, sizeof(why), "the scenario's Yama (ptrace_scope %d, -1: none) is not "
			 "this machine's (%d)", r->sc->yama_scope, r->host->yama_scope);
		return npg_real_diverge(b, r, st, why);
	}
	mm_copy_mark(r, t, st);
	res = real_step_run(b, st);
	if (st->op.code == NPG_OP_PTRACE && st->op.value != NPG_PTRACE_DETACH &&
	    res.kind == NPG_R_OK)
		r->ever_traced = true;
	if (r->ever_traced && res.kind != NPG_R_UNREPRODUCIBLE &&
	    npg_real_tracing_settle(r, settle_why, sizeof(settle_why)) < 0)
		return npg_real_diverge(b, r, st, settle_why);
	/* what the model made of a namespace whose unshare or clone was not run is unknown */
	made = st->op.code == NPG_OP_UNSHARE_USER ? st->op.target :
	       st->op.code == NPG_OP_CLONE_USER ? st->op.value : 0;
	if (made > 0 && res.kind == NPG_R_UNREPRODUCIBLE && !r->userns[made].created)
		r->userns[made].unknown = true;

	if (npg_real_collect_vfork_replies(r) < 0)
		return npg_real_broken(b, "the reply of a parent its vfork() child released");
	if (r->diverged[0] && res.kind != NPG_R_UNREPRODUCIBLE)
		return npg_real_unreproducible(b, r->diverged);
	if (!unknowable || res.kind == NPG_R_UNREPRODUCIBLE)
		return res;
	/*
	 * The kernel may have decided otherwise than the model here, and what
	 * follows depends on it (a flag, a task that exists or not, counts):
	 * the steps still run, so that the tasks stay as the scenario drives
	 * them, but nothing more is compared.
	 */
	return npg_real_diverge(b, r, st, unknowable);
}

static struct npg_result real_step_run(struct npg_backend *b, const struct npg_stmt *st)
{
	struct real_priv *r = b->priv;
	struct real_task *t = &r->tasks[st->task];
	struct npg_wire_msg m;
	pid_t target = 0;
	struct npg_result res;

	r->counts_valid = false;
	r->dumpable_read_task = -1;
	npg_teardown_set_where(r->sc->file, st->line, NULL);
	if (t->tainted)
		return npg_real_unreproducible(b, t->why);
	if (!t->alive)
		return (struct npg_result){ .kind = NPG_R_DEAD };
	if (t->ns < 0)
		return npg_real_unreproducible(b, NPG_REAL_NS_UNKNOWN);
	/* wait_for_vfork_done(): no call until the child execs or exits (glibc's set*id waits) */
	if (npg_real_vfork_waiting(r, t))
		return (struct npg_result){ .kind = NPG_R_SUSPENDED };
	if (st->op.glibc)
		for (int i = 0; i < r->sc->ntasks; i++)
			if (npg_real_live_thread(i, &(struct real_group){ r, t->pid }) &&
			    npg_real_vfork_waiting(r, &r->tasks[i]))
				return (struct npg_result){ .kind = NPG_R_SUSPENDED };
	if (t->shares_mm && (st->op.glibc || st->op.code == NPG_OP_FORK ||
			     st->op.code == NPG_OP_VFORK || st->op.code == NPG_OP_THREAD ||
			     st->op.code == NPG_OP_CLONE_USER))
		return npg_real_unreproducible(b, "a vfork() child whose execve failed still shares its "
				      "parent's memory: a puppet cannot create tasks there");
	/* unshare's and setns's target is a namespace, clone's the child it makes */
	if (st->op.code == NPG_OP_UNSHARE_USER)
		return npg_real_step_unshare(b, r, t, st);
	if (st->op.code == NPG_OP_SETNS_USER)
		return npg_real_step_setns_user(b, r, t, st);
	if (st->op.code == NPG_OP_CLONE_USER)
		return npg_real_step_clone_user(b, r, t, st);
	if (st->op.target >= 0 && st->op.code != NPG_OP_FORK && st->op.code != NPG_OP_THREAD &&
	    st->op.code != NPG_OP_VFORK) {
		struct real_task *tt = &r->tasks[st->op.target];

		if (tt->tainted)
			return npg_real_unreproducible(b, tt->why);
		/* a pid that cannot exist: the kernel answers ECHILD / ESRCH */
		target = tt->created && !tt->gone ? tt->tid : INT_MAX;
		if (st->op.code == NPG_OP_SETRLIMIT)
			target = 0;
		if (st->op.code != NPG_OP_WAIT && tt->hard_capped &&
		    (st->op.lim_max > r->host->nproc_hard || st->op.lim_cur > r->host->nproc_hard))
			return npg_real_unreproducible(b, "the scenario's hard RLIMIT_NPROC is above this "
					      "process's, and CAP_SYS_RESOURCE is not held here");
	}
	if (st->op.glibc)
		return npg_real_step_glibc_setxid(b, r, t, st);
	switch (st->op.code) {
	case NPG_OP_FORK:
	case NPG_OP_VFORK:
	case NPG_OP_THREAD:
		return npg_real_step_new_task(b, r, t, st);
	case NPG_OP_EXIT:
		return npg_real_step_exit(b, r, t, st);
	case NPG_OP_EXECVE:
		/*
		 * The image the model runs is not there, and what follows may
		 * depend on it in any task (counts, kills, waits): nothing after
		 * it compares. (Tainting only this task let others' forks differ.)
		 */
		if (st->op.file > 0 && r->file_why[st->op.file - 1][0])
			return npg_real_diverge(b, r, st, r->file_why[st->op.file - 1]);
		return npg_real_step_execve(b, r, t, st);
	case NPG_OP_KILL:
		return npg_real_step_kill(b, r, t, st, target);
	case NPG_OP_WRITE_IDMAP:
	case NPG_OP_WRITE_SETGROUPS:
	case NPG_OP_MAX_USERNS:
		return npg_real_step_write_proc(b, r, t, st);
	case NPG_OP_PTRACE:
		if (st->op.value == NPG_PTRACE_DETACH)
			npg_real_detach_stop(t, &r->tasks[st->op.target]);
		break;
	default:
		break;
	}
	if (!npg_real_ask(b, r, t, st, target, t, &m, &res))
		return res;
	if (st->op.code == NPG_OP_WAIT && m.result == NPG_R_OK) {
		struct real_task *child = &r->tasks[st->op.target];

		child->gone = true;
		child->exit_known = true;
		child->exit_status = m.wait_status;
	}
	if (m.result == NPG_R_ID && npg_real_ids_in_window(r, t))
		m.value = npg_real_unmap_id(r, (uint32_t)m.value);
	/*
	 * In a child namespace setfsuid() returns the old fs id in that
	 * namespace's terms, as the scenario names it; an unmapped one reads
	 * as the overflow id, which the model takes to be 65534
	 */
	else if (m.result == NPG_R_ID &&
		 m.value == (st->op.code == NPG_OP_SETFSGID ? r->uns.overflowgid : r->uns.overflowuid) &&
		 m.value != NPG_OVERFLOW_ID)
		return npg_real_unreproducible(b, "this machine's overflow id (kernel.overflowuid, "
				      "kernel.overflowgid) is not 65534");
	return (struct npg_result){ .kind = m.result, .value = m.value };
}

/*
 * Returns only when every process of the run is gone -- after a failed
 * start too -- so that the next run finds the window empty.
 */
static void real_stop(struct npg_backend *b)
{
	struct real_priv *r = b->priv;

	if (!r)
		return;
	if (r->sc)
		npg_teardown_set_where(r->sc->file, 0, "stopping");
	if (r->tasks)
		for (int i = 0; r->sc && i < r->sc->ntasks; i++) {
			struct real_task *t = &r->tasks[i];

			/* a pid that init reaped and gave to another process is not killed */
			if (t->created && !t->gone && t->tid == t->pid &&
			    (t->starttime == 0 || npg_real_still_there(t)))
				kill(t->pid, SIGKILL);
			if (t->sock >= 0)
				close(t->sock);
			if (t->pidfd >= 0)
				close(t->pidfd);
		}
	/* the fillers end on EOF of their pipe; killing them is faster */
	if (r->filler_pipe[1] >= 0)
		close(r->filler_pipe[1]);
	if (r->filler_pipe[0] >= 0)
		close(r->filler_pipe[0]);
	npg_real_root_release(r);
	if (r->exe_fd >= 0)
		close(r->exe_fd);
	for (int i = 1; r->userns && r->sc && i <= r->sc->nuserns; i++)
		if (r->userns[i].nsfd >= 0)
			close(r->userns[i].nsfd);
	/* a start refused for a busy window kills nothing there: not ours */
	if (r->window_ours)
		npg_proc_kill_uid_range(r->base, r->base + NPG_UID_WINDOW);
	if (r->execdir[0])
		npg_execdir_remove(r->execdir);
	if (r->window_ours && npg_real_await_all_gone(r) < 0)
		fprintf(stderr, "nprocguard: warning: processes of uids %u..%u were still "
			"there %d s after the run ended\n", r->base, r->base + NPG_UID_WINDOW - 1,
			STOP_TIMEOUT_MS / 1000);
	npg_real_userns_restore(r);
	npg_teardown_forget_all();
	free(r->segs);
	free(r->userns);
	free(r->tasks);
	free(r->touched);
	free(r->counts);
	free(r->count_uids);
	free(r->file_why);
	free(r);
	b->priv = NULL;
}

static const struct npg_backend_ops real_ops = {
	.start = real_start,
	.step = real_step,
	.view = npg_real_view,
	.count = npg_real_count,
	.check_reproducible = npg_real_check_reproducible,
	.stop = real_stop,
};

void npg_real_backend_init(struct npg_backend *b, const struct npg_host *host,
			   uint32_t uid_base)
{
	struct real_priv *r = calloc(1, sizeof(*r));

	if (!r) {
		perror("nprocguard");
		exit(2);
	}
	memset(b, 0, sizeof(*b));
	r->host = host;
	r->base = uid_base;
	r->init_max_userns = -1;
	b->ops = &real_ops;
	b->priv = r;
	b->policy = host->policy ? host->policy : &npg_policy_linux_6;
	b->release = host->policy ? &host->rel : NULL;
	b->cap_bset = host->cap_bnd;
	snprintf(b->label, sizeof(b->label), "kernel %.50s", host->release);
}
