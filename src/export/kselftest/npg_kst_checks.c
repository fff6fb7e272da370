/*
 * The checks: what a task looks like now, from /proc, in the form the
 * scenario's expectations take; or why it cannot be read here.
 */
#include "npg_kst.h"

#include <stdio.h>
#include <string.h>

/* why no count can be compared from some statement on (5.14-5.16) */
static char charged_unknown[300];

/*
 * What a task looks like now, from /proc. Also follows, for 5.14-5.16,
 * the uid its ucounts are keyed on: set_cred_ucounts() takes the
 * effective uid when the real user changes, which /proc does not show.
 */
void kst_view(int task, struct view *out)
{
	struct ktask *t = &kst_tasks[task];
	struct proc_task pt;

	memset(out, 0, sizeof(*out));
	out->state = ABSENT;
	if (!t->created)
		return;
	if (t->gone || kst_read_task(t->pid, t->tid, &pt) < 0) {
		out->state = REAPED;
	} else {
		out->state = pt.state == 'Z' || pt.state == 'X' ? ZOMBIE : RUNNING;
		if (out->state == ZOMBIE && !t->exit_known && t->tid == t->pid && pt.has_exit_code) {
			t->exit_known = true;
			t->exit_status = pt.exit_code;
		}
		for (int i = 0; i < 4; i++) {
			out->uid[i] = kst_unmap_id(pt.uid[i]);
			out->gid[i] = kst_unmap_id(pt.gid[i]);
		}
		out->cap_eff = pt.cap_eff & CAP_ALL;
		out->flag = (pt.flags & PF_NPROC_EXCEEDED) != 0;
		out->no_new_privs = pt.no_new_privs;
		if (kst_kernel_era && kst_kernel_era->ucounts_by_euid && !charged_unknown[0] &&
		    pt.uid[0] != pt.uid[1] && (!t->ruid_seen || t->last_ruid != pt.uid[0]))
			snprintf(charged_unknown, sizeof(charged_unknown), "5.14-5.16 charge a task "
				 "to its effective uid at its last real uid change "
				 "(set_cred_ucounts()), which /proc does not show: '%.40s' has real "
				 "uid %u, effective %u", kst_sc->tasks[task].name, kst_unmap_id(pt.uid[0]),
				 kst_unmap_id(pt.uid[1]));
		if (t->ruid_seen && t->last_ruid != pt.uid[0]) {
			t->key = pt.uid[1];
			t->key_known = true;
		}
		t->ruid_seen = true;
		t->last_ruid = pt.uid[0];
		kst_read_nproc(t->pid, &out->nproc_cur, &out->nproc_max);
	}
	if (t->exit_known) {
		if (WIFSIGNALED(t->exit_status))
			out->exit_signal = WTERMSIG(t->exit_status);
		else
			out->exit_code = WEXITSTATUS(t->exit_status);
	}
}

static int count_one(pid_t pid, pid_t tid, const uint32_t *ids, void *arg)
{
	(void)pid, (void)tid, (void)arg;
	for (int u = 0; u < kst_sc->nusers; u++)
		if (!kst_sc->users[u].group && kst_map_id(kst_sc->users[u].id) == ids[0])
			kst_counts[u]++;
	return 0;
}

/* A user's count: the tasks of the machine whose real uid is its (threads, zombies) */
static long count_of(uint32_t user)
{
	if (!kst_counts_valid) {
		memset(kst_counts, 0, (size_t)kst_sc->nusers * sizeof(*kst_counts));
		if (kst_for_each_task(count_one, NULL) < 0)
			return -1;
		kst_counts_valid = true;
	}
	for (int u = 0; u < kst_sc->nusers; u++)
		if (!kst_sc->users[u].group && kst_sc->users[u].id == user)
			return kst_counts[u];
	return 0;
}

/*
 * PR_GET_DUMPABLE of @task's memory, asked of a thread of its process or
 * of a vfork() child still in that memory -- one that can answer now: not
 * asleep in vfork(). -1 if none does.
 */
static int ask_dumpable(int task)
{
	for (int i = 0; i < kst_sc->ntasks; i++) {
		struct ktask *x = &kst_tasks[i];
		struct msg m = { .kind = MSG_DUMPABLE };
		bool same_mm = x->pid == kst_tasks[task].pid ||
			       (x->shares_mm && x->vfork_waiter &&
				kst_tasks[x->vfork_waiter - 1].pid == kst_tasks[task].pid);

		if (!x->created || x->gone || !x->alive || x->sock < 0 || x->tainted || !same_mm ||
		    kst_vfork_waiting(x))
			continue;
		if (kst_send_msg(x->sock, &m, -1) == 0 && kst_recv_timed(x->sock, &m, NULL) > 0 &&
		    m.kind == MSG_RESULT && m.result == RES_OK)
			return (int)m.rvalue;
	}
	return -1;
}

static void render_limit(uint64_t v, char *buf, size_t len)
{
	if (v == KST_UNLIMITED)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
}

static const char *const state_names[] = { "absent", "running", "zombie", "reaped" };

/* What check @st reads, in the form expectations take; false (kst_skip_why) if it cannot be read */
bool kst_observe_check(const struct kst_stmt *st, char *buf, size_t len)
{
	struct ktask *t = st->task >= 0 ? &kst_tasks[st->task] : NULL;
	char a[64], b[64], c[64];
	struct view v;

	if (kst_diverged[0]) {
		kst_skip(kst_diverged);
		return false;
	}
	if (st->what == KST_COUNT) {
		long n;

		if (charged_unknown[0]) {
			kst_skip(charged_unknown);
			return false;
		}
		if (st->user == 0) {
			kst_skip("root's count here includes the machine's own processes");
			return false;
		}
		for (int u = 0; u < kst_sc->nusers; u++)
			if (kst_sc->users[u].id == st->user && kst_touched[u]) {
				kst_skip("a task that cannot be made here acts on this user");
				return false;
			}
		if ((n = count_of(st->user)) < 0) {
			kst_skip("/proc cannot be read");
			return false;
		}
		snprintf(buf, len, "%ld", n);
		return true;
	}
	if (t->tainted) {
		kst_skip(t->why);
		return false;
	}
	kst_view(st->task, &v);
	if (st->what == KST_NPROC && t->hard_capped) {
		kst_skip("hard RLIMIT_NPROC is capped here");
		return false;
	}
	switch (st->what) {
	case KST_COUNT:
		break;
	case KST_UIDS:
	case KST_GIDS: {
		const uint32_t *ids = st->what == KST_UIDS ? v.uid : v.gid;

		kst_render_id(ids[0], st->what == KST_GIDS, a, sizeof(a));
		kst_render_id(ids[1], st->what == KST_GIDS, b, sizeof(b));
		kst_render_id(ids[2], st->what == KST_GIDS, c, sizeof(c));
		snprintf(buf, len, "%s %s %s", a, b, c);
		break;
	}
	case KST_RUID:
	case KST_EUID:
	case KST_SUID:
	case KST_FSUID:
		kst_render_id(v.uid[st->what - KST_RUID], false, buf, len);
		break;
	case KST_FLAG:
		snprintf(buf, len, "%s", v.flag ? "set" : "clear");
		break;
	case KST_STATE:
		snprintf(buf, len, "%s", state_names[v.state]);
		break;
	case KST_EXIT_STATUS:
		if (v.state != ZOMBIE && v.state != REAPED) {
			snprintf(buf, len, "none");
		} else if (v.state == ZOMBIE && !t->exit_known) {
			kst_skip(EXIT_UNKNOWABLE);	/* before 3.5 only its parent learns it */
			return false;
		} else if (v.exit_signal) {
			kst_render_signal(v.exit_signal, a, sizeof(a));
			snprintf(buf, len, "killed %s", a);
		} else {
			snprintf(buf, len, "exited %d", v.exit_code);
		}
		break;
	case KST_CAP:
		snprintf(buf, len, "%s", kst_cap_has(v.cap_eff, st->cap) ? "yes" : "no");
		break;
	case KST_NPROC:
		render_limit(v.nproc_cur, a, sizeof(a));
		render_limit(v.nproc_max, b, sizeof(b));
		snprintf(buf, len, "%s %s", a, b);
		break;
	case KST_NNP:
		snprintf(buf, len, "%s", v.no_new_privs ? "yes" : "no");
		break;
	case KST_DUMPABLE_CHECK: {
		int d;

		/* an exited task has no mm, so no dumpability */
		if (v.state != RUNNING || !t->alive) {
			snprintf(buf, len, "none");
			break;
		}
		if ((d = ask_dumpable(st->task)) < 0) {
			kst_skip("no thread of the process answered PR_GET_DUMPABLE");
			return false;
		}
		snprintf(buf, len, "%d", d);
		break;
	}
	}
	return true;
}
