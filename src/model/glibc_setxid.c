/*
 * glibc's set*id wrappers in a threaded process (nptl/nptl_setxid.c,
 * __nptl_setxid(), glibc 2.3 - 2.3x): the kernel's set*id calls change
 * only the calling thread's credentials, so glibc signals every other
 * thread (SIGSETXID), whose handler makes the same raw call on itself,
 * waits for all of them, and makes the call itself last ("This must be
 * last, otherwise the current thread might not have permissions to send
 * SIGSETXID syscall to the other threads"). Each result goes through
 * setxid_error(): a thread whose error differs from an earlier one's is
 * "Fatal glibc error: failure in setxid" -- abort(), SIGABRT.
 *
 * Threads are signalled in list order -- GL(dl_stack_used), where
 * list_add() puts the newest first, then GL(dl_stack_user), where the
 * main thread is -- but their handlers run concurrently. The model (and
 * the real backend, which drives each thread's raw call in turn) takes
 * them one at a time in that order: the measured 6.18 rule, "the i-th
 * thread to switch is flagged iff K + i > L", holds whatever the order,
 * and a fixed order makes the outcome repeatable.
 */
#include <signal.h>

#include "model/model.h"

int npg_glibc_order(int ntasks, int caller, int leader, bool (*live_thread)(int i, void *arg),
		    void *arg, int *order)
{
	int n = 0;

	for (int i = ntasks - 1; i >= 0; i--)	/* tasks are numbered in creation order */
		if (i != caller && i != leader && live_thread(i, arg))
			order[n++] = i;
	if (caller != leader && live_thread(leader, arg))
		order[n++] = leader;
	order[n++] = caller;
	return n;
}

struct group_of {
	const struct npg_world *w;
	int leader;
};

static bool live_in_group(int i, void *arg)
{
	const struct group_of *g = arg;

	return g->w->tasks[i].leader == g->leader && npg_alive(&g->w->tasks[i]);
}

int npg_glibc_setxid_order(const struct npg_world *w, int t, int *order)
{
	struct group_of g = { w, w->tasks[t].leader };

	return npg_glibc_order(w->ntasks, t, g.leader, live_in_group, &g, order);
}

static int error_of(struct npg_result r)
{
	return r.kind == NPG_R_ERRNO ? (int)r.value : 0;
}

struct npg_result npg_glibc_setxid(struct npg_world *w, int t, int *order,
				   struct npg_result (*raw)(struct npg_world *w, int t,
							    const void *arg),
				   const void *arg)
{
	int n = npg_glibc_setxid_order(w, t, order), first_error = -1;
	struct npg_result r = { .kind = NPG_R_OK };

	for (int k = 0; k < n; k++) {
		r = raw(w, order[k], arg);
		if (r.kind == NPG_R_KILLED)	/* ow-2006: the whole process is gone */
			return r;
		if (first_error >= 0 && error_of(r) != first_error) {
			npg_task_kill(w, t, SIGABRT);
			return (struct npg_result){ .kind = NPG_R_KILLED, .value = SIGABRT };
		}
		first_error = error_of(r);
	}
	return r;	/* the caller's own, the same as every other thread's */
}
