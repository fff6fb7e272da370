/* The PATH search of `nprocguard exec`, with execvp()'s errors as a user reads them. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "privdrop/exec.h"

/* execvp(): a file that is not a binary is a shell script without #! */
static void exec_or_script(const char *path, char *const argv[])
{
	int argc = 0;

	execv(path, argv);
	if (errno != ENOEXEC)
		return;
	while (argv[argc])
		argc++;
	{
		char *sh[argc + 2];

		sh[0] = (char *)"/bin/sh";
		sh[1] = (char *)path;
		for (int i = 1; i <= argc; i++)
			sh[i + 1] = argv[i];
		execv("/bin/sh", sh);
		errno = ENOEXEC;
	}
}

int npg_exec_search(const char *file, char *const argv[])
{
	const char *path = getenv("PATH");
	bool found = false;
	size_t flen = strlen(file);

	if (!*file) {
		errno = ENOENT;
		return -1;
	}
	if (strchr(file, '/')) {
		exec_or_script(file, argv);
		return -1;
	}
	if (!path)
		path = "/bin:/usr/bin";	/* glibc's default when PATH is unset */
	for (const char *p = path;; p++) {
		const char *end = strchrnul(p, ':');
		size_t dlen = end > p ? (size_t)(end - p) : 1;
		char *full = malloc(dlen + flen + 2);
		struct stat st;
		int e;

		if (!full)
			return -1;
		/* an empty element is the current directory */
		memcpy(full, end > p ? p : ".", dlen);
		full[dlen] = '/';
		memcpy(full + dlen + 1, file, flen + 1);
		exec_or_script(full, argv);
		e = errno;
		switch (e) {
		case EACCES:
			/* a candidate only if the file is there: a directory of PATH
			 * the user cannot search hides nothing it could run */
			if (stat(full, &st) == 0)
				found = true;
			break;
		case ENOENT: case ENOTDIR: case ESTALE: case ENODEV: case ETIMEDOUT:
		case ELOOP: case ENAMETOOLONG:
			break;	/* not here: glibc's execvp() goes on searching too */
		default:
			/* found, and it failed for a reason of its own (EAGAIN: RLIMIT_NPROC) */
			free(full);
			errno = e;
			return -1;
		}
		free(full);
		if (!*end)
			break;
		p = end;
	}
	errno = found ? EACCES : ENOENT;
	return -1;
}
