/*
 * Scenario files as programs that need no nprocguard: `nprocguard export`.
 *
 *   exportable.c  which statements an exported test can perform faithfully
 *   kselftest.c   the kselftest format: a C program per file, the runtime
 *                 (every file of kselftest/, linked in as bytes with their
 *                 names by runtime-blob.S) and a Makefile for both builds
 */
#ifndef NPG_EXPORT_EXPORT_H
#define NPG_EXPORT_EXPORT_H

#include <stdio.h>

#include "model/policy.h"
#include "scenario/scenario.h"

/*
 * Can every statement of @sc be exported? Each one that cannot is
 * reported to @err as "file:line:col: cannot export ...: why"; returns
 * how many.
 */
int npg_export_check(const struct npg_scenario *sc, FILE *err);

struct npg_export_options {
	const char *dir;	/* made if missing; files in it are replaced */
	/* whose expectations the tests check: one policy, or NULL for each
	 * policy's, the running kernel's era picked at run time */
	const struct npg_policy *policy;
};

/*
 * The kselftest of each of @scs[0..n) (already checked), the runtime and
 * the Makefile, in o->dir. 0, or -1 with a message on @err; nothing is
 * written if a name clash or a policy the files leave out is found.
 */
int npg_export_kselftest(const struct npg_export_options *o, struct npg_scenario *const *scs,
			 int n, FILE *err);

#endif
