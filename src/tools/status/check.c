/*
 * status --check: what a monitor should hear of -- users near their
 * RLIMIT_NPROC, a machine limit that refuses forks here, tasks flagged
 * PF_NPROC_EXCEEDED -- each with the cause explain names at the limit.
 */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "tools/explain/explain.h"
#include "tools/status/status.h"

struct sink {
	npg_status_finding_fn *emit;
	void *ctx;
};

static void finding(const struct sink *k, const char *kind, uint32_t uid, pid_t tid,
		    const char *fmt, ...)
{
	char text[1400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	k->emit(k->ctx, kind, uid, tid, text);
}

int npg_status_check(struct npg_status_user *rows, size_t n, const struct npg_scan *s,
		     double percent, const uint32_t *users, int nusers,
		     npg_status_finding_fn *emit, void *ctx)
{
	const struct sink k = { emit, ctx };
	int found = 0;
	char cause[1100];

	for (size_t i = 0; i < n; i++) {
		struct npg_status_user *r = &rows[i];
		bool exempt;

		if (!r->shown)
			continue;
		if (r->u.nproc_min != UINT64_MAX && r->u.nproc_min > 0 &&
		    (double)r->u.tasks * 100.0 >= percent * (double)r->u.nproc_min) {
			npg_user_name(r->u.uid, r->name, sizeof(r->name));
			exempt = npg_status_exempt(r);
			/* copy_process() skips the limit for these: said, not alarmed */
			finding(&k, exempt ? "exempt" : "user", r->u.uid, 0,
				"user %s (uid %u): %ld tasks, %.0f%% of RLIMIT_NPROC %llu%s%s", r->name,
				r->u.uid, r->u.tasks, (double)r->u.tasks * 100.0 / (double)r->u.nproc_min,
				(unsigned long long)r->u.nproc_min,
				exempt ? "; not at risk: copy_process() exempts " : "",
				!exempt ? "" : r->u.uid == 0 ? "root"
				: "its tasks (CAP_SYS_RESOURCE or CAP_SYS_ADMIN)");
			found |= !exempt;
			/* at the limit: the same sentence as `nprocguard explain --pid` */
			if (!exempt && r->u.nproc_pid > 0 &&
			    npg_explain_cause(r->u.nproc_pid, NPG_EXPLAIN_FORK, cause, sizeof(cause)) == 1)
				finding(&k, "refused", r->u.uid, r->u.nproc_pid,
					"pid %d: fork fails with EAGAIN: %s", (int)r->u.nproc_pid, cause);
		}
	}
	/* the machine's limits (threads-max, pid_max, our pids cgroup), as explain walks them */
	if (npg_explain_cause(getpid(), NPG_EXPLAIN_FORK, cause, sizeof(cause)) == 1) {
		finding(&k, "machine", (uint32_t)getuid(), 0, "a fork here fails with EAGAIN: %s", cause);
		found = 1;
	}
	for (size_t i = 0; i < s->ntasks; i++) {
		const struct npg_scan_task *t = &s->tasks[i];

		if (!t->flagged || !npg_status_wanted(t->ruid, users, nusers))
			continue;
		finding(&k, "task", t->ruid, t->tid, "task %d (%s, uid %u) has PF_NPROC_EXCEEDED: its "
			"next execve() fails with EAGAIN while the user is over RLIMIT_NPROC", (int)t->tid,
			t->comm, t->ruid);
		if (npg_explain_cause(t->pid, NPG_EXPLAIN_EXECVE, cause, sizeof(cause)) == 1)
			finding(&k, "refused", t->ruid, t->tid, "pid %d: execve fails with EAGAIN: %s",
				(int)t->pid, cause);
		found = 1;
	}
	return found;
}
