/*
 * Root's count in a kernel booted for this run alone (conform --kernel).
 *
 * On a machine, root's count is the machine's: every root process there
 * counts, so a step the kernel decides by it is not compared. In a guest
 * we booted, the only root tasks are the kernel's own threads, /init and
 * this controller: the run makes root's count exactly what the scenario
 * declares (`user root 0 procs N`: N tasks outside the scenario), with
 * root fillers as for any other user, and compares those steps. It
 * refuses, saying why, only when N is below what the guest needs to run.
 *
 * The count the kernel compares includes a task /proc does not show: the
 * boot CPU's idle task (init_task; one more per CPU that fork_idle()
 * made). 5.14+ compare root's count (init_ucounts, kernel/ucount.c), so
 * the difference is measured at the start of each run -- 1 on 5.15.24,
 * 6.1.176 and 6.12.117 under QEMU -- and counted in. Before 5.14,
 * root_user.processes starts at 1 for it too (kernel/user.c), but no
 * decision compares root's count there (fork and set_user() exempt
 * INIT_USER, and a switch to root clears the flag): the count observed
 * is /proc's, as for every user.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>

#include "backend/real/guestroot.h"
#include "backend/real/spawn.h"
#include "backend/real/teardown.h"
#include "system/procfs.h"

struct outside_scan {
	const struct real_priv *r;
	long n;
};

static int count_outside(pid_t pid, pid_t tid, uint32_t ruid, uint64_t ino, void *arg)
{
	struct outside_scan *s = arg;

	(void)pid, (void)ino;
	if (ruid == 0 && npg_real_task_of_tid(s->r, tid) < 0)
		s->n++;
	return 0;
}

/* Root's tasks in /proc that are not the scenario's (its fillers included), or -1 */
static long root_outside(const struct real_priv *r)
{
	struct outside_scan s = { r, 0 };

	return npg_proc_for_each_ruid(false, count_outside, &s) < 0 ? -1 : s.n;
}

/*
 * Does a fork fail in a namespace made with RLIMIT_NPROC @limit by a task
 * of real uid @uid and effective uid 0? 1 yes (EAGAIN), 0 no, -1 the probe
 * could not be made. The namespace records @limit (create_user_ns():
 * set_userns_rlimit_max(), 5.17+ for a real uid other than 0;
 * set_rlimit_ucount_max(), 5.14-5.16, always), and is owned by root, so
 * is_rlimit_overlimit() compares root's count at the initial level with
 * it -- the prober and its child included -- and capable() exempts
 * nothing once CAP_SYS_RESOURCE and CAP_SYS_ADMIN are out of the
 * effective set.
 */
static int fork_fails_at(uint32_t uid, long limit)
{
	int p[2];
	char c = '?';
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]), close(p[1]);
		return -1;
	}
	if (pid == 0) {
		struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct d[2];
		struct rlimit rl = { (rlim_t)limit, (rlim_t)limit };
		pid_t k;

		close(p[0]);
		if (setrlimit(RLIMIT_NPROC, &rl) < 0 || syscall(SYS_setresuid, uid, 0, 0) < 0 ||
		    syscall(SYS_capget, &h, d) < 0)
			_exit(1);
		d[0].effective &= ~((1u << CAP_SYS_ADMIN) | (1u << CAP_SYS_RESOURCE));
		if (syscall(SYS_capset, &h, d) < 0 || unshare(CLONE_NEWUSER) < 0)
			_exit(1);
		k = fork();
		if (k == 0)
			_exit(0);
		c = k > 0 ? 'o' : errno == EAGAIN ? 'E' : 'e';
		if (k > 0)
			waitpid(k, NULL, 0);
		(void)!write(p[1], &c, 1);
		_exit(0);
	}
	close(p[1]);
	npg_teardown_remember(pid);
	while (read(p[0], &c, 1) < 0 && errno == EINTR)
		;
	close(p[0]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return c == 'E' ? 1 : c == 'o' ? 0 : -1;
}

/*
 * The smallest limit the run's copy_process() lets a fork through at,
 * less the count with the child, asked of its model: 0 under the rule
 * fork_counts_child (5.17, 5.15.25, 5.16.11), -1 before it, which
 * allowed RLIMIT_NPROC + 1 (8f2f9c4d82f2).
 */
static long fork_slack(const struct real_priv *r)
{
	const long count = 10;	/* the parent's user's, the parent included */
	struct npg_cred cred;
	long limit;

	memset(&cred, 0, sizeof(cred));
	cred.uid = (struct npg_ids){ 1, 1, 1, 1 };
	for (limit = 1; limit < 2 * count; limit++) {
		struct npg_world w;
		int rc;

		if (npg_world_init(&w, r->policy, 1) < 0)
			return 0;
		w.rules = r->rules;
		npg_task_spawn(&w, 0, &cred, (uint64_t)limit, (uint64_t)limit);
		npg_count_add(&w, w.tasks[0].cred.charged_to, count - 1);
		rc = r->policy->copy_process(&w, &w.tasks[0], &w.tasks[0].cred);
		npg_world_free(&w);
		if (rc != -EAGAIN)
			break;
	}
	return limit - (count + 1);
}

/*
 * 5.14+: root's count as the kernel keeps it, less the root tasks /proc
 * shows: the smallest limit a fork gets through gives root's count with
 * the prober and its child, by the era's rule; 0 or more, or -1 if it
 * cannot be measured here (no user namespaces, or a count far from /proc's).
 */
static long measure_delta(const struct real_priv *r)
{
	long prev = -1;

	/* a thread of the kernel's that comes or goes meanwhile (a worker
	 * freeing the probes' namespaces) moves the count: measured until two
	 * rounds agree with /proc unchanged around each */
	for (int round = 0; round < 6; round++) {
		long before = root_outside(r), lo = 1, hi, after, delta;

		if (before < 0)
			return -1;
		hi = before + 64;
		if (fork_fails_at(r->base, hi) != 0)
			return -1;
		while (lo < hi) {
			long mid = lo + (hi - lo) / 2;
			int f = fork_fails_at(r->base, mid);

			if (f < 0)
				return -1;
			if (f)
				lo = mid + 1;
			else
				hi = mid;
		}
		after = root_outside(r);
		/* root's count with the child; the prober (real uid @base, charged at
		 * root's level) and its child are not among the tasks shown */
		delta = lo - fork_slack(r) - 2 - before;
		if (after != before || delta < 0)
			continue;
		if (delta == prev)
			return delta;
		prev = delta;
	}
	return -1;
}

int npg_real_root_take(struct npg_backend *b, struct real_priv *r)
{
	static const struct npg_name implicit_root = { .name = "root", .id = 0 };
	const struct npg_scenario *sc = r->sc;
	static long delta = -2;	/* the kernel's: measured once per process */
	const struct npg_name *root = NULL;
	long declared = 0, outside;

	r->root_ours = false;
	r->root_why[0] = '\0';
	if (!r->host->own_kernel)
		return 0;
	for (int u = 0; u < sc->nnames; u++)
		if (!sc->names[u].group && sc->names[u].id == 0)
			root = &sc->names[u];
	if (root)
		declared = root->procs;
	else
		root = &implicit_root;	/* a file without a root line: its fillers are root's all the same */
	r->root_delta = 0;
	if (r->ucounts && delta == -2)
		delta = measure_delta(r);
	if (r->ucounts && (r->root_delta = delta) < 0) {
		snprintf(r->root_why, sizeof(r->root_why), "root's count as this kernel keeps it "
			 "could not be measured here (a fork in a namespace root owns, made with "
			 "a limit; no user namespaces?)");
		return 0;
	}
	outside = root_outside(r);
	if (outside < 0) {
		snprintf(b->error, sizeof(b->error), "cannot scan /proc");
		return -1;
	}
	/*
	 * More than the file declares: the run keeps the guest's own and the
	 * model starts from them (conform: npg_model_backend_root_procs()), so
	 * that what root's count decides is still compared, model against
	 * kernel; the file's expectations, written for its count, are not
	 */
	if (outside + r->root_delta > declared) {
		b->root_raised = outside + r->root_delta;
		declared = b->root_raised;
	}
	/* room for those, and for as many again should the kernel's threads go */
	r->root_pids_cap = 2 * declared + 1;
	r->root_pids = calloc((size_t)r->root_pids_cap, sizeof(*r->root_pids));
	if (!r->root_pids) {
		snprintf(b->error, sizeof(b->error), "out of memory");
		return -1;
	}
	if (npg_real_spawn_root_fillers(b, r, root, declared - outside - r->root_delta) < 0)
		return -1;
	r->root_name = root;
	r->root_outside = r->root_outside_seen = declared - r->root_delta;
	r->root_ours = true;
	return 0;
}

/* End root's last filler made and reap it: the kernel
 * uncounts a task at release_task(), when its parent has waited for it */
static void end_root_filler(struct real_priv *r)
{
	pid_t pid = r->root_pids[--r->nroot_pids];

	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
		;
}

/*
 * The kernel's own threads come and go (a worker made for a queue that
 * got busy, one idle for minutes ending): root's tasks outside the
 * scenario are brought back to what the file declares with fillers made
 * or ended, and the count taken again. Root's count is then the file's
 * at every statement; within a step, a thread of the kernel's that came
 * or went would still be seen only at the next count.
 */
int npg_real_root_rebalance(struct npg_backend *b, struct real_priv *r)
{
	long more = r->root_outside - r->root_outside_seen;

	if (!r->root_ours || more == 0)
		return 0;
	if (more > 0 && r->nroot_pids + more <= r->root_pids_cap) {
		if (npg_real_spawn_root_fillers(b, r, r->root_name, more) < 0)
			return -1;
		return 1;
	}
	if (more < 0 && -more <= r->nroot_pids) {
		while (more++ < 0)
			end_root_filler(r);
		return 1;
	}
	npg_real_root_seen(r);
	return 0;
}

void npg_real_root_release(struct real_priv *r)
{
	struct timespec pause = { 0, 2000000 };

	/* they end on EOF of the filler pipe, closed by now: awaited, so that
	 * the next run's count of root's tasks outside it does not see them */
	for (long i = 0; i < r->nroot_pids; i++) {
		int tries = 0;
		pid_t w;

		while ((w = waitpid(r->root_pids[i], NULL, __WALL | WNOHANG)) == 0 && tries++ < 2500)
			nanosleep(&pause, NULL);
		if (w == 0) {
			kill(r->root_pids[i], SIGKILL);
			waitpid(r->root_pids[i], NULL, __WALL);
		}
	}
	free(r->root_pids);
	r->root_pids = NULL;
	r->nroot_pids = r->root_pids_cap = 0;
}

void npg_real_root_seen(struct real_priv *r)
{
	if (!r->root_ours || r->root_outside_seen == r->root_outside)
		return;
	r->root_ours = false;
	snprintf(r->root_why, sizeof(r->root_why), "root's tasks outside the scenario went from "
		 "%ld to %ld in this guest (a thread of the kernel's own came or went): its count "
		 "is no longer the file's", r->root_outside, r->root_outside_seen);
}
