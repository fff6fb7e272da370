/*
 * Tasks going away -- exited, killed, reaped -- as the controller follows
 * them, and what a step yields when it cannot be compared: skipped,
 * diverged, a task lost, or a death.
 */
#include "npg_kst.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ktask *kst_task_by_pid(pid_t pid)
{
	/* not gone: after an execve from a thread, the old leader's entry had this pid */
	for (int i = 0; i < kst_sc->ntasks; i++) {
		struct ktask *t = &kst_tasks[i];

		if (t->created && !t->gone && t->pid == pid && t->tid == pid)
			return t;
	}
	return NULL;
}

void kst_mark_group_gone(pid_t tgid, bool keep_leader)
{
	for (int i = 0; i < kst_sc->ntasks; i++) {
		struct ktask *t = &kst_tasks[i];

		if (!t->created || t->pid != tgid || t->gone || (keep_leader && t->tid == tgid))
			continue;
		t->alive = false;
		if (t->tid != tgid) {
			t->gone = true;		/* threads are released at once */
			if (t->sock >= 0)
				close(t->sock);
			t->sock = -1;
		}
	}
}

/* As init would: reap whatever became our child (top-level tasks, orphans) */
void kst_reap_children(void)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG | __WALL)) > 0) {
		struct ktask *t = kst_task_by_pid(pid);

		if (!t)
			continue;	/* a filler */
		t->exit_known = true;
		t->exit_status = status;
		t->alive = false;
		t->gone = true;
		kst_mark_group_gone(pid, false);
	}
}

/* Until @t's /proc entry is gone or, unless @want_gone, a zombie: 0, -1 on timeout */
int kst_wait_task_settled(const struct ktask *t, bool want_gone)
{
	struct timespec start;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		struct proc_task pt;

		if (kst_read_task(t->pid, t->tid, &pt) < 0)
			return 0;
		if (!want_gone && (pt.state == 'Z' || pt.state == 'X'))
			return 0;
		if (kst_elapsed_ms(&start) > ANSWER_TIMEOUT_MS)
			return -1;
		kst_nap_ms(1);
	}
}

/*
 * Until a process has exited: a zombie whose other threads are released
 * (exit_notify() has reparented its children), or reaped. A pidfd polls
 * readable then (5.3+); before, /proc is asked. 0, or -1 on timeout.
 */
int kst_wait_process_exited(const struct ktask *t)
{
	struct timespec start;
	char path[64];

	if (t->pidfd >= 0) {
		struct pollfd p = { .fd = t->pidfd, .events = POLLIN };

		return kst_poll_slices(&p, 1, ANSWER_TIMEOUT_MS) > 0 ? 0 : -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/task", (int)t->pid);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		DIR *d;
		struct dirent *e;
		int others = 0;

		if (kst_wait_task_settled(t, false) < 0)
			return -1;
		if (!(d = opendir(path)))
			return 0;	/* reaped */
		while ((e = readdir(d)))
			if (e->d_name[0] != '.' && atoi(e->d_name) != t->pid)
				others++;
		closedir(d);
		if (others == 0)
			return 0;
		if (kst_elapsed_ms(&start) > ANSWER_TIMEOUT_MS)
			return -1;
		kst_nap_ms(1);
	}
}

/* --- what a step yields --- */

char kst_skip_why[400];

struct res kst_skip(const char *why)
{
	snprintf(kst_skip_why, sizeof(kst_skip_why), "%s", why);
	return (struct res){ RES_SKIP, 0 };
}

/* Nothing is checked from @st on: the steps still run, so the tasks stay as driven */
struct res kst_diverge(const struct kst_stmt *st, const char *why)
{
	if (!kst_diverged[0])
		snprintf(kst_diverged, sizeof(kst_diverged), "%.300s (line %d); nothing is checked "
			 "after it", why, st->line);
	return kst_skip(kst_diverged);
}

/* The test lost a task it drives: errno says how */
struct res kst_broken(const char *what)
{
	char why[200];

	snprintf(why, sizeof(why), "the test lost its task: %s: %s", what, strerror(errno));
	return kst_skip(why);
}

/* A process died under a step: by which signal? */
struct res kst_died(struct ktask *t)
{
	struct proc_task pt;
	bool readable = false;
	int status = 0;

	if (kst_wait_process_exited(t) < 0)
		return kst_broken("a task that died did not exit");
	if (kst_read_task(t->pid, t->pid, &pt) == 0 && pt.state == 'Z' && pt.has_exit_code) {
		status = pt.exit_code;
		readable = true;
	}
	kst_reap_children();
	if (t->exit_known)
		status = t->exit_status;
	kst_mark_group_gone(t->pid, true);
	t->alive = false;
	if (!readable && !t->exit_known)
		return kst_skip(EXIT_UNKNOWABLE);
	if (WIFSIGNALED(status))
		return (struct res){ RES_KILLED, WTERMSIG(status) };
	return (struct res){ RES_DEAD, 0 };
}

void kst_taint(struct ktask *t, const char *why)
{
	char copy[sizeof(t->why)];

	snprintf(copy, sizeof(copy), "%s", why);	/* @why may be another task's */
	t->tainted = true;
	memcpy(t->why, copy, sizeof(copy));
}
