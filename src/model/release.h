/*
 * A running kernel's release, down to the point release where a rule of
 * the model depends on it: stable backports change behaviour inside an era.
 */
#ifndef NPG_MODEL_RELEASE_H
#define NPG_MODEL_RELEASE_H

#include <stdbool.h>
#include <stddef.h>

#include "model/rules.h"

struct npg_policy;

struct npg_release {
	int major, minor, patch;	/* the point release, e.g. 5.10.223 */
	/* the era, or the policy the local version names ("3.0.8-ow-2006"):
	 * npg_policy_for_release() */
	const struct npg_policy *policy;
	/* the era's rules, less those younger than this release */
	struct npg_rules rules;
	int cap_last_cap;		/* CAP_LAST_CAP of this release */
	/* the release gave no point release: Debian's ABI form "5.10.0-32-amd64"
	 * without uname -v's "Debian 5.10.223-1", taken as 5.10.0 */
	bool point_unknown;
	char why[200];			/* where the point release changed a rule, or "" */
};

/*
 * @release is uname -r, @version uname -v (or NULL). Distribution kernels
 * often keep the point release out of uname -r (Debian: "5.10.0-32-amd64")
 * and put it in uname -v ("#1 SMP Debian 5.10.223-1 (2024-08-10)"); that
 * one wins when present. -1 if no version number can be read.
 */
int npg_release_parse(struct npg_release *r, const char *release, const char *version);
/* The same for the running kernel (uname(2)). */
int npg_running_release(struct npg_release *r);
/*
 * The same for a release given as one argument (run --release): uname -r,
 * optionally followed by uname -v ("$(uname -rv)") or by Debian's package
 * version alone ("5.10.0-32-amd64 Debian 5.10.223-1"). -1 if unreadable.
 */
int npg_release_parse_arg(struct npg_release *r, const char *arg);
/* "linux-3.1 with the setresuid() no-op fast path of ...": the model of @r */
void npg_release_model(const struct npg_release *r, char *buf, size_t len);

#endif
