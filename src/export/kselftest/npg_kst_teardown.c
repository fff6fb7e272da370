/*
 * The end: on a pass, a failure, a set-up that cannot go on, the test's
 * timeout or SIGINT/SIGTERM, every process the test made is killed and
 * reaped, and its private directory removed.
 */
#include "npg_kst.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

unsigned long long kst_start_time_of(pid_t pid)
{
	struct proc_task pt;

	return kst_read_task(pid, pid, &pt) == 0 ? pt.starttime : 0;
}

/* Is @t's process (a leader) still there, and the one the test made? */
static bool still_there(const struct ktask *t)
{
	struct proc_task pt;

	return kst_read_task(t->pid, t->pid, &pt) == 0 &&
	       (t->starttime == 0 || pt.starttime == t->starttime);
}

/*
 * Reap until no child is left: every puppet, filler and (as a subreaper,
 * 3.4+) orphan of the test ends up our child once its parent is gone.
 * The window is killed again now and then, in case a task forked after
 * the last sweep. 0, or -1 if some were still there after STOP_TIMEOUT_MS.
 */
static int reap_everything(void)
{
	for (int ms = 0; ms < STOP_TIMEOUT_MS; ) {
		pid_t pid = waitpid(-1, NULL, WNOHANG | __WALL);

		if (pid < 0 && errno == ECHILD)
			return 0;
		if (pid > 0)
			continue;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		if (++ms % 100 == 0 && kst_window_ours)
			kst_kill_uid_range(kst_uid_base, kst_uid_base + UID_WINDOW);
	}
	return -1;
}

/*
 * Before 3.4 there is no child subreaper: init reaps the orphans, whose
 * uid may be root's, outside the window. Wait until the window is empty
 * and each process whose start time was taken is gone (or its pid is
 * another process's). 0, or -1 after STOP_TIMEOUT_MS.
 */
static int await_init_reaped(void)
{
	for (int i = 0; i < STOP_TIMEOUT_MS / 2; i++) {
		bool left = kst_window_ours &&
			    kst_find_uid_in_range(kst_uid_base, kst_uid_base + UID_WINDOW) != 0;

		for (int k = 0; k < kst_sc->ntasks && !left; k++) {
			const struct ktask *t = &kst_tasks[k];

			if (t->created && !t->gone && t->tid == t->pid && t->starttime &&
			    still_there(t)) {
				left = true;
				if (i % 50 == 0)
					kill(t->pid, SIGKILL);
			}
		}
		if (!left)
			return 0;
		if (i % 50 == 0 && kst_window_ours)
			kst_kill_uid_range(kst_uid_base, kst_uid_base + UID_WINDOW);
		nanosleep(&(struct timespec){ 0, 2000000 }, NULL);
	}
	return -1;
}

/*
 * The private directory and every file in it; its nosuid mount detached
 * first (MNT_DETACH: a task killed but not yet reaped may still hold a
 * file of it), never followed if it became a link
 */
static void remove_execdir(void)
{
	DIR *d;
	struct dirent *e;

	if (kst_nosuid_dir[0]) {
		umount2(kst_nosuid_dir, MNT_DETACH | UMOUNT_NOFOLLOW);
		rmdir(kst_nosuid_dir);
		kst_nosuid_dir[0] = '\0';
	}
	if (!kst_execdir[0])
		return;
	if ((d = opendir(kst_execdir))) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	rmdir(kst_execdir);
	kst_execdir[0] = '\0';
}

/* Everything made goes; 0, or -1 if something was still there at the end */
int kst_teardown(void)
{
	int rc = 0;

	kst_tearing_down = true;
	for (int i = 0; kst_tasks && i < kst_sc->ntasks; i++) {
		struct ktask *t = &kst_tasks[i];

		/* a pid that init reaped and gave to another process is not killed */
		if (t->created && !t->gone && t->tid == t->pid && still_there(t))
			kill(t->pid, SIGKILL);
		if (t->sock >= 0)
			close(t->sock);
		if (t->pidfd >= 0)
			close(t->pidfd);
		t->sock = t->pidfd = -1;
	}
	for (long i = 0; i < kst_nfillers; i++)
		kill(kst_fillers[i], SIGKILL);
	for (int i = 0; i < 2; i++)
		if (kst_filler_pipe[i] >= 0)
			close(kst_filler_pipe[i]);
	kst_filler_pipe[0] = kst_filler_pipe[1] = -1;
	if (kst_window_ours)
		kst_kill_uid_range(kst_uid_base, kst_uid_base + UID_WINDOW);
	if (reap_everything() < 0 || (!kst_subreaper && await_init_reaped() < 0) ||
	    (kst_window_ours && kst_find_uid_in_range(kst_uid_base, kst_uid_base + UID_WINDOW) != 0))
		rc = -1;
	remove_execdir();
	return rc;
}

void kst_finish_stopped(void)
{
	int sig = kst_stop_sig;
	bool clean = kst_teardown() == 0;

	fflush(stdout);
	if (sig == SIGALRM) {
		printf("Bail out! %s:%d: the test did not end within its timeout%s\n", kst_sc->file,
		       kst_cur_line, clean ? "; every task of the test was killed and reaped" :
		       "; some of its tasks could not be reaped");
		fflush(stdout);
		exit(KSFT_FAIL);
	}
	printf("Bail out! interrupted by %s at %s:%d; %s\n", sig == SIGINT ? "SIGINT" :
	       sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "SIGQUIT", kst_sc->file,
	       kst_cur_line, clean ? "every task of the test was killed and reaped" :
	       "some of its tasks could not be reaped");
	fflush(stdout);
	signal(sig, SIG_DFL);
	raise(sig);
	exit(KSFT_FAIL);
}

/* A set-up that cannot go on: clean up, say why, fail */

void kst_bail_out(const char *fmt, ...)
{
	va_list ap;

	kst_teardown();
	printf("Bail out! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	exit(KSFT_FAIL);
}
