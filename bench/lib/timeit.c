/*
 * timeit [-o FILE] [-c] N COMMAND [ARG...]: run COMMAND N times (stdout to
 * /dev/null, or to FILE, removed before each run so that freeing the last
 * run's pages is not charged to the next one; posix_spawn: no shell,
 * no fork of a large parent) and print the median wall time in
 * milliseconds; with -c also the median CPU time (user + system, from
 * wait4()), which other jobs on the machine disturb less. Every benchmark
 * times both sides with it, so that the harness costs each the same.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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

static double tv_ms(struct timeval tv)
{
	return (double)tv.tv_sec * 1e3 + (double)tv.tv_usec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	posix_spawn_file_actions_t fa;
	const char *out = NULL;
	bool cpu = false;
	double *ms, *cpu_ms;
	int n, c, status;
	pid_t pid;

	while ((c = getopt(argc, argv, "+o:c")) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'c':
			cpu = true;
			break;
		default:
			errx(2, "usage: timeit [-o FILE] [-c] N COMMAND [ARG...]");
		}
	}
	argv += optind;
	argc -= optind;
	if (argc < 2 || (n = atoi(argv[0])) < 1)
		errx(2, "usage: timeit [-o FILE] [-c] N COMMAND [ARG...]");
	ms = calloc((size_t)n, sizeof(*ms));
	cpu_ms = calloc((size_t)n, sizeof(*cpu_ms));
	if (!ms || !cpu_ms)
		err(1, "calloc");
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, out ? out : "/dev/null",
					 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	for (int i = 0; i < n; i++) {
		double t0;
		int rc;
		struct rusage ru;

		if (out && unlink(out) < 0 && errno != ENOENT)
			err(1, "%s", out);
		t0 = now_ms();
		rc = posix_spawnp(&pid, argv[1], &fa, NULL, argv + 1, environ);
		if (rc != 0)
			errx(1, "%s: %s", argv[1], strerror(rc));
		if (wait4(pid, &status, 0, &ru) < 0)
			err(1, "wait4");
		ms[i] = now_ms() - t0;
		cpu_ms[i] = tv_ms(ru.ru_utime) + tv_ms(ru.ru_stime);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			errx(1, "%s failed (status %#x)", argv[1], status);
	}
	qsort(ms, (size_t)n, sizeof(*ms), cmp_double);
	qsort(cpu_ms, (size_t)n, sizeof(*cpu_ms), cmp_double);
	if (cpu)
		printf("%.2f %.2f\n", ms[n / 2], cpu_ms[n / 2]);
	else
		printf("%.2f\n", ms[n / 2]);
	free(ms);
	free(cpu_ms);
	return 0;
}
