/*
 * identify's probes: the scenarios of scenarios/identify/, linked into the
 * binary (probes-blob.S) so that identify needs no file, in a guest too.
 * Each names in its header the pairs of configurations it was found to
 * tell apart ("# separates: linux-6 | linux-6,-setresuid_noop_fastpath"),
 * which tests/unit/test-identify.c holds it to.
 */
#ifndef NPG_IDENTIFY_PROBES_H
#define NPG_IDENTIFY_PROBES_H

#include <stdio.h>

#include "model/config.h"
#include "scenario/scenario.h"

#define NPG_PROBE_DIR "scenarios/identify"

struct npg_probe_pair {
	struct npg_config a, b;
};

struct npg_probe {
	char file[128];			/* "scenarios/identify/NAME.npg" */
	struct npg_scenario *sc;
	int npairs;
	struct npg_probe_pair *pairs;	/* what its header says it separates */
};

struct npg_probes {
	int n;
	struct npg_probe *p;
};

/* Every linked-in probe, parsed; -1 (said on @err) for one that does not parse */
int npg_probes_load(struct npg_probes *out, FILE *err);
/* The same for a probe's text: its header's pairs too */
int npg_probe_parse(struct npg_probe *p, const char *file, const char *text, size_t len,
		    FILE *err);
void npg_probes_free(struct npg_probes *ps);

#endif
