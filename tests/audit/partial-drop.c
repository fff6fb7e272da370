/*
 * A drop that reaches only some threads: the idle threads each load a
 * seccomp filter (on themselves only: no TSYNC) under which setuid()
 * returns 0 and does nothing. glibc's broadcast then reports success while
 * those threads keep uid 0.
 */
#include <pthread.h>
#include <seccomp.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static sem_t loaded;

static void *idle(void *arg)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	(void)arg;
	if (!ctx || seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) < 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(0), SCMP_SYS(setuid), 0) < 0 ||
	    seccomp_load(ctx) < 0)
		exit(111);
	seccomp_release(ctx);
	sem_post(&loaded);
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	FILE *f;

	if (argc != 3)
		return 100;
	sem_init(&loaded, 0, 0);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t, NULL, idle, NULL) != 0)
			return 111;
	for (int i = 0; i < 2; i++)
		sem_wait(&loaded);
	setuid((uid_t)strtoul(argv[1], NULL, 10));
	f = fopen(argv[2], "w");
	if (!f)
		return 111;
	fprintf(f, "%u %u\n", (unsigned)getuid(), (unsigned)geteuid());
	fclose(f);
	return 0;
}
