/* Closing inherited descriptors before a command runs as another user. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "privdrop/exec.h"

static bool kept(const int *keep, int nkeep, int fd)
{
	for (int i = 0; i < nkeep; i++)
		if (keep[i] == fd)
			return true;
	return false;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* Before 5.9: every open descriptor, from the kernel's own list */
static int close_from_proc(const int *keep, int nkeep)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int self;

	if (!d)
		return -1;
	self = dirfd(d);
	while ((e = readdir(d))) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);

		if (*end || end == e->d_name || fd <= 2 || fd == self || kept(keep, nkeep, (int)fd))
			continue;
		close((int)fd);
	}
	closedir(d);
	return 0;
}

int npg_close_fds_except(const int *keep, int nkeep)
{
	int sorted[nkeep > 0 ? nkeep : 1];
	unsigned lo = 3;

	for (int i = 0; i < nkeep; i++)
		sorted[i] = keep[i];
	qsort(sorted, (size_t)nkeep, sizeof(int), cmp_int);
	for (int i = 0; i <= nkeep; i++) {
		/* the gap below the next kept descriptor, or everything above the last */
		unsigned hi = i < nkeep ? (unsigned)sorted[i] - 1 : UINT_MAX;

		if (i < nkeep && (unsigned)sorted[i] < lo) {
			if ((unsigned)sorted[i] + 1 > lo)
				lo = (unsigned)sorted[i] + 1;
			continue;
		}
		if (hi >= lo && syscall(SYS_close_range, lo, hi, 0) < 0) {
			if (errno == ENOSYS)
				return close_from_proc(keep, nkeep);
			return -1;
		}
		if (i < nkeep)
			lo = (unsigned)sorted[i] + 1;
	}
	return 0;
}
