/* Forks first; the child drops (unchecked) and does the work; the parent waits. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	pid_t pid;
	int status = 0;

	if (argc != 3)
		return 100;
	pid = fork();
	if (pid == 0) {
		FILE *f;

		setuid((uid_t)strtoul(argv[1], NULL, 10));
		f = fopen(argv[2], "w");
		if (!f)
			_exit(111);
		fprintf(f, "%u %u\n", (unsigned)getuid(), (unsigned)geteuid());
		fclose(f);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 111;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
