/*
 * Credentials, the controller's side: a declared task's ids, groups,
 * capabilities, bounding set, RLIMIT_NPROC and dumpability set up as
 * the scenario declares them (in the new puppet, before it answers), and
 * glibc's set*id in a threaded process, one thread at a time in glibc's
 * order. A set*id call of one thread is a plain exchange (ask.c).
 * kernel/sys.c, kernel/cred.c, security/commoncap.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backend/real/creds.h"
#include "backend/real/real_priv.h"
#include "backend/real/wire.h"

/*
 * Make the mm fs.suid_dumpable, whatever the set-up's set*id calls did:
 * commit_creds() does "if (... !gid_eq(old->fsgid, new->fsgid) ...)
 * set_dumpable(task->mm, suid_dumpable)", and a set-up that changed no
 * effective id (a root task with another real gid) would otherwise keep
 * the controller's. The fsgid goes to another gid and back (CAP_SETGID is
 * still held); it is the only id a capability does not follow.
 */
static int suid_dumpable_now(const struct real_priv *r, const struct npg_cred *c)
{
	gid_t egid = npg_real_map_id(r, c->gid.eff);

	syscall(SYS_setfsgid, egid ^ 1);
	syscall(SYS_setfsgid, egid);
	/*
	 * setfsgid() returns the old fsgid: asked for egid again it changes
	 * nothing. Not -1: a 3.0 kernel has no gid_valid() test there and
	 * sets the fsgid to -1 for a caller with CAP_SETGID (found on 3.0.8)
	 */
	if ((gid_t)syscall(SYS_setfsgid, egid) != egid) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

int npg_real_apply_initial(const struct real_priv *r, const struct npg_task_decl *d,
			   const struct rlimit *lim)
{
	const struct npg_cred *c = &d->cred;
	gid_t groups[NPG_NGROUPS];
	struct rlimit widest;

	for (int g = 0; g < c->ngroups; g++)
		groups[g] = npg_real_map_id(r, c->groups[g]);
	/*
	 * The scenario's limit is set only after the uid switch, and the
	 * switch happens under the widest limit we may set: switching under a
	 * lower one could set PF_NPROC_EXCEEDED (flag_nproc_exceeded()), and a
	 * task the scenario declares starts without it. The switch clears the
	 * effective capabilities of a task leaving uid 0 (cap_emulate_setxuid()),
	 * so they are raised again from the kept permitted set for the limit:
	 * raising a finite hard limit of root's to the scenario's needs
	 * CAP_SYS_RESOURCE.
	 *
	 * The real uid changes first and alone, the effective and saved ones
	 * after: 5.14-5.16 charge a task to the effective uid it has when its
	 * real user changes (set_cred_ucounts() keys alloc_ucounts() on
	 * new->euid, and only runs when new->user differs), so one
	 * setresuid(r, e, s) from root would charge a declared `uid A euid B`
	 * task to B; the scenario declares it charged to its real user A, as a
	 * set-uid program started by A is.
	 */
	/* 'bounding LIST': PR_CAPBSET_DROP (cap_prctl_drop(), CAP_SETPCAP) while still root */
	for (int cap = 0; cap <= NPG_CAP_LAST; cap++)
		if (npg_cap_has(r->host->cap_bnd & ~r->bset, cap) &&
		    prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0)
			return -1;
	widest.rlim_max = npg_cap_has(r->host->cap_eff, NPG_CAP_SYS_RESOURCE) ?
			  RLIM_INFINITY : (rlim_t)r->host->nproc_hard;
	widest.rlim_cur = widest.rlim_max;
	if (setrlimit(RLIMIT_NPROC, &widest) < 0 ||
	    syscall(SYS_setgroups, c->ngroups, groups) < 0 ||
	    syscall(SYS_setresgid, npg_real_map_id(r, c->gid.real), npg_real_map_id(r, c->gid.eff),
		    npg_real_map_id(r, c->gid.saved)) < 0 ||
	    prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_setresuid, npg_real_map_id(r, c->uid.real), npg_real_map_id(r, c->uid.real),
		    npg_real_map_id(r, c->uid.real)) < 0 ||
	    npg_puppet_capset(r->host->cap_eff | r->host->cap_beyond,
			      r->host->cap_eff | r->host->cap_beyond) < 0 ||
	    syscall(SYS_setresuid, -1, npg_real_map_id(r, c->uid.eff), npg_real_map_id(r, c->uid.saved)) < 0 ||
	    npg_puppet_capset(r->host->cap_eff | r->host->cap_beyond,
			      r->host->cap_eff | r->host->cap_beyond) < 0 ||
	    setrlimit(RLIMIT_NPROC, lim) < 0 || suid_dumpable_now(r, c) < 0)
		return -1;
	/*
	 * what the scenario asks, within what this machine's bounding set
	 * allows; a root task as an execve() makes it, with the bits above the
	 * last capability that a 3.0-3.15 kernel's CAP_FULL_SET still holds
	 * (the model knows none): without them its first execve() would grow
	 * pP and commit_creds() make it non-dumpable (found on 3.0.8)
	 */
	if (npg_puppet_capset((c->cap_effective & (d->caps_explicit ? r->host->cap_bnd : r->bset)) |
			      (!d->caps_explicit && c->cap_effective == r->bset ? r->host->cap_beyond : 0),
			      (c->cap_permitted & (d->caps_explicit ? r->host->cap_bnd : r->bset)) |
			      (!d->caps_explicit && c->cap_permitted == r->bset ? r->host->cap_beyond : 0)) < 0 ||
	    prctl(PR_SET_KEEPCAPS, c->keepcaps, 0, 0, 0) < 0)
		return -1;
	/*
	 * A declared task is as after the execve() that made it: begin_new_exec()
	 * gives SUID_DUMP_USER when "uid_eq(current_euid(), current_uid()) &&
	 * gid_eq(current_egid(), current_gid())", else suid_dumpable (above).
	 * The final capset() keeps within the permitted set (cred_cap_issubset():
	 * no change) and PR_SET_KEEPCAPS changes no id, so this stands.
	 */
	if (c->uid.eff == c->uid.real && c->gid.eff == c->gid.real)
		return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	return 0;
}

bool npg_real_live_thread(int i, void *arg)
{
	const struct real_group *g = arg;
	const struct real_task *t = &g->r->tasks[i];

	return t->created && t->alive && !t->gone && t->pid == g->pid;
}

/*
 * glibc's set*id in a threaded process: the raw call on each thread in
 * glibc's signalling order, the caller last (npg_glibc_order()), one at a
 * time -- glibc's handlers run concurrently, and the order they happen to
 * take would make the counts each thread meets vary from run to run. A
 * thread whose result differs from an earlier one's makes glibc abort():
 * the caller is told to raise SIGABRT, and dies of it.
 */
struct npg_result npg_real_step_glibc_setxid(struct npg_backend *b, struct real_priv *r,
					      struct real_task *t, const struct npg_stmt *st)
{
	struct real_group g = { r, t->pid };
	struct real_task *leader = npg_real_task_by_pid(r, t->pid);
	int *order = calloc((size_t)r->sc->ntasks + 1, sizeof(*order));
	int n, first_error = -1;
	struct npg_result res = { .kind = NPG_R_OK };

	if (!order)
		return npg_real_broken(b, "out of memory");
	n = npg_glibc_order(r->sc->ntasks, st->task, leader ? (int)(leader - r->tasks) : st->task,
			    npg_real_live_thread, &g, order);
	for (int k = 0; k < n; k++) {
		struct real_task *th = &r->tasks[order[k]];
		struct npg_wire_msg m;
		int error;

		if (!npg_real_ask(b, r, th, st, 0, leader ? leader : t, &m, &res)) {
			free(order);
			return res;
		}
		res = (struct npg_result){ .kind = m.result, .value = m.value };
		error = m.result == NPG_R_ERRNO ? (int)m.value : 0;
		if (first_error >= 0 && error != first_error) {
			struct npg_stmt abort_st = *st;

			abort_st.op.code = NPG_OP_KILL;
			abort_st.op.value = SIGABRT;
			free(order);
			if (npg_real_send_cmd(r, t, &abort_st, t->pid, -1) < 0)
				return npg_real_broken(b, "send");
			/* its death, not an answer, is expected; either way wait for it */
			if (npg_real_recv_timed(t->sock, &m, NULL) < 0)
				return npg_real_broken(b, "abort");
			return npg_real_died(b, r, leader ? leader : t);
		}
		first_error = error;
	}
	free(order);
	return res;
}
