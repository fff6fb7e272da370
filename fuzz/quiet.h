/*
 * What the harnesses share: the code they drive prints (reports on stdout,
 * refusals on stderr); each input's words go to /dev/null, while
 * libFuzzer's and the sanitizers' reports, written to descriptor 2 by
 * their own means, still show. glibc's stdout and stderr are variables.
 * NPG_FUZZ_VERBOSE=1 in the environment keeps them, to see what an input
 * does when replayed.
 */
#ifndef NPG_FUZZ_QUIET_H
#define NPG_FUZZ_QUIET_H

#include <stdio.h>
#include <stdlib.h>

static FILE *npg_fuzz_null;
static FILE *npg_fuzz_saved[2];

static inline void npg_fuzz_quiet_begin(void)
{
	if (!npg_fuzz_null && !(npg_fuzz_null = fopen("/dev/null", "w")))
		abort();
	npg_fuzz_saved[0] = stdout;
	npg_fuzz_saved[1] = stderr;
	if (getenv("NPG_FUZZ_VERBOSE"))
		return;
	stdout = npg_fuzz_null;
	stderr = npg_fuzz_null;
}

static inline void npg_fuzz_quiet_end(void)
{
	stdout = npg_fuzz_saved[0];
	stderr = npg_fuzz_saved[1];
}

#endif
