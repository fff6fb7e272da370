/*
 * Synthetic load for the status benchmark: NPROCS processes spread over
 * NUIDS uids from BASE+1, each with one extra thread; every tenth thread
 * switches its own real uid (raw setresuid: that thread only) to the next
 * uid, so that per-task credentials matter. Prints "ready" when all tasks
 * exist, then holds them until standard input closes, and reaps them.
 */
#include <err.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static unsigned thread_uid;	/* the uid the extra thread runs under */
static int ready[2];

static void *thread_main(void *arg)
{
	(void)arg;
	if (syscall(SYS_setresgid, thread_uid, thread_uid, thread_uid) < 0 ||
	    syscall(SYS_setresuid, thread_uid, thread_uid, thread_uid) < 0)
		_exit(111);
	if (write(ready[1], "t", 1) != 1)
		_exit(111);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	int nprocs, nuids;
	unsigned base;
	pid_t *pids;
	char c;

	if (argc != 4)
		errx(100, "usage: load NPROCS NUIDS BASE");
	nprocs = atoi(argv[1]);
	nuids = atoi(argv[2]);
	base = (unsigned)strtoul(argv[3], NULL, 10);
	pids = calloc((size_t)nprocs, sizeof(*pids));
	if (!pids || pipe(ready) < 0)
		err(111, "setting up");
	for (int i = 0; i < nprocs; i++) {
		pid_t pid = fork();

		if (pid < 0)
			err(111, "fork");
		pids[i] = pid;
		if (pid == 0) {
			unsigned uid = base + 1 + (unsigned)(i % nuids);
			pthread_t th;

			/* every tenth thread runs under the next uid; it switches
			 * itself while it still has CAP_SETUID */
			thread_uid = i % 10 ? uid : base + 1 + (unsigned)((i + 1) % nuids);
			if (pthread_create(&th, NULL, thread_main, NULL))
				_exit(111);
			if (syscall(SYS_setresgid, uid, uid, uid) < 0 ||
			    syscall(SYS_setresuid, uid, uid, uid) < 0)
				_exit(111);
			prctl(PR_SET_PDEATHSIG, SIGKILL);	/* cleared by the uid change: set after */
			if (getppid() == 1)
				_exit(0);
			for (;;)
				pause();
		}
	}
	for (int i = 0; i < nprocs; i++)
		if (read(ready[0], &c, 1) != 1)
			err(111, "a task did not start");
	printf("ready\n");
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	/* kill and reap them ourselves: left to init, zombies linger */
	for (int i = 0; i < nprocs; i++)
		kill(pids[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	return 0;
}
