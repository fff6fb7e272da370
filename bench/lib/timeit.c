/*
 * timeit N COMMAND [ARG...]: run COMMAND N times (stdout to /dev/null,
 * posix_spawn: no shell, no fork of a large parent) and print the median
 * wall time in milliseconds. Every benchmark times both sides with it, so
 * that the harness costs each the same.
 */
#include <err.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	posix_spawn_file_actions_t fa;
	double *ms;
	int n, status;
	pid_t pid;

	if (argc < 3 || (n = atoi(argv[1])) < 1)
		errx(2, "usage: timeit N COMMAND [ARG...]");
	ms = calloc((size_t)n, sizeof(*ms));
	if (!ms)
		err(1, "calloc");
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	for (int i = 0; i < n; i++) {
		double t0 = now_ms();
		int rc = posix_spawnp(&pid, argv[2], &fa, NULL, argv + 2, environ);

		if (rc != 0)
			errx(1, "%s: %s", argv[2], strerror(rc));
		if (waitpid(pid, &status, 0) < 0)
			err(1, "waitpid");
		ms[i] = now_ms() - t0;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			errx(1, "%s failed (status %#x)", argv[2], status);
	}
	qsort(ms, (size_t)n, sizeof(*ms), cmp_double);
	printf("%.2f\n", ms[n / 2]);
	free(ms);
	return 0;
}
