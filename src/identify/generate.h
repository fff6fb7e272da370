/*
 * Finding identify's probes from the model itself (`make identify-probes`):
 * for each configuration of the history and each of its neighbours (a
 * policy's other hooks, one rule otherwise), a smallest scenario whose
 * outcome tells the two apart -- searched among the scenario files given
 * and the random scenarios of conform --random, then shrunk line by line
 * as conform shrinks a difference.
 */
#ifndef NPG_IDENTIFY_GENERATE_H
#define NPG_IDENTIFY_GENERATE_H

#include <stdint.h>
#include <stdio.h>

struct npg_generate_opts {
	const char *outdir;		/* where the probes are written (emptied of *.npg first) */
	char *const *seeds;		/* scenario files searched first */
	int nseeds;
	int random;			/* random scenarios searched after them */
	int mutations;			/* then the seeds with a step or two added */
	uint64_t seed;			/* of the random scenarios */
	FILE *log;			/* progress, one line per probe (may be NULL) */
};

/*
 * Write the probes, and outdir/UNSEPARATED: the pairs no scenario searched
 * told apart. 0, or -1 with the reason on stderr.
 */
int npg_identify_generate(const struct npg_generate_opts *o);

#endif
