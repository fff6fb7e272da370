/*
 * A syscall-heavy workload with a few privilege drops: LOOPS rounds of
 * cheap system calls the audit filter never traps (getppid, a read of
 * /dev/zero, a pipe round trip), and DROPS children that each drop with a
 * checked setuid() and exit.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long loops = argc > 1 ? atol(argv[1]) : 500000;
	int drops = argc > 2 ? atoi(argv[2]) : 20;
	int zero = open("/dev/zero", O_RDONLY), p[2];
	char c = 0;

	if (zero < 0 || pipe(p) < 0)
		return 111;
	for (long i = 0; i < loops; i++) {
		getppid();
		if (read(zero, &c, 1) != 1 || write(p[1], &c, 1) != 1 || read(p[0], &c, 1) != 1)
			return 111;
	}
	for (int i = 0; i < drops; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(setuid(3000840001u) == 0 ? 0 : 1);
		if (pid < 0 || waitpid(pid, NULL, 0) < 0)
			return 111;
	}
	return 0;
}
