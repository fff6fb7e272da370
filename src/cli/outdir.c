/*
 * The directory of -o/--out, for every subcommand that writes files into
 * one (conform --random, compare --random, explore; export makes its own
 * the same way): one rule, applied before any work -- a directory there is
 * used if we may write into it; when nothing is there one is made, as
 * mkdir(1) without -p makes it (its parent must exist); anything else is
 * refused.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

int npg_out_dir(const char *cmd, const char *opt, const char *dir)
{
	struct stat st;
	const char *why = NULL;

	if (!dir[0]) {
		fprintf(stderr, "nprocguard %s: %s '': no directory named\n", cmd, opt);
		return -1;
	}
	if (lstat(dir, &st) < 0 && errno == ENOENT && mkdir(dir, 0777) < 0)
		why = strerror(errno);
	else if (stat(dir, &st) < 0)
		why = lstat(dir, &st) == 0 && S_ISLNK(st.st_mode) ? "a symbolic link to nothing" :
		      strerror(errno);
	else if (!S_ISDIR(st.st_mode))
		why = strerror(ENOTDIR);
	else if (access(dir, W_OK | X_OK) < 0)
		why = strerror(errno);
	if (why) {
		fprintf(stderr, "nprocguard %s: %s %s: %s\n", cmd, opt, dir, why);
		return -1;
	}
	return 0;
}
