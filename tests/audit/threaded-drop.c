/* Three threads running, then an unchecked setuid(): glibc changes every thread. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *idle(void *arg)
{
	(void)arg;
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
	for (int i = 0; i < 3; i++)
		if (pthread_create(&t, NULL, idle, NULL) != 0)
			return 111;
	setuid((uid_t)strtoul(argv[1], NULL, 10));
	f = fopen(argv[2], "w");
	if (!f)
		return 111;
	fprintf(f, "%u %u\n", (unsigned)getuid(), (unsigned)geteuid());
	fclose(f);
	return 0;
}
