/*
 * One of the two kernels `nprocguard compare` runs scenarios on: a kernel
 * image booted under QEMU, or this machine's ("host"). Either way the
 * scenarios run as `nprocguard compare --record` there, and what comes back
 * is that kernel's record (record.h).
 */
#ifndef NPG_COMPARE_SIDE_H
#define NPG_COMPARE_SIDE_H

#include "compare/record.h"
#include "guest/guest.h"
#include "model/release.h"

struct npg_side {
	const char *image;		/* NULL: this machine */
	char name[160];			/* what reports call it: its uname -r */
	char release[128], version[256];	/* known before it runs */
	struct npg_release rel;		/* its point release and era */
	bool has_rel;			/* rel could be read from release/version */
	struct npg_record rec;		/* after npg_side_run() */
};

/*
 * @arg is "host" or a kernel image (its release read from its header).
 * -1, said as `nprocguard @cmd`, when it is neither.
 */
int npg_side_open(struct npg_side *s, const char *arg, const char *cmd);

/*
 * Run `compare --record @args -- @files` on each side (the files are read
 * there at the same paths) into their records, @jobs guests at a time
 * (1 to 64): with more guests than kernel images, each image's scenarios
 * are split among several guests (--shard), their records put together
 * in order; uids from @uid_base. 0, or -1 when a side gave no record or was
 * interrupted (said on stderr).
 */
int npg_sides_run(struct npg_side *sides, int nsides, int jobs, const struct npg_guest_opts *g,
		  char *const *args, int nargs, char *const *files, int nfiles, uint32_t uid_base);

/* The generator's flags for scenarios both kernels can run (runner/random.h) */
unsigned npg_sides_random_flags(const struct npg_side *sides, int nsides);

void npg_side_free(struct npg_side *s);

#endif
