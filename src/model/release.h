/*
 * A kernel's release, down to the point release where a rule of the model
 * depends on it: stable backports change behaviour inside an era
 * (model/history.c dates each rule, branch by branch).
 */
#ifndef NPG_MODEL_RELEASE_H
#define NPG_MODEL_RELEASE_H

#include <stdbool.h>
#include <stddef.h>

#include "model/history.h"
#include "model/rules.h"

struct npg_policy;

struct npg_release {
	int major, minor, patch;	/* the point release, e.g. 5.10.223 */
	/*
	 * The policy of the release: the one its local version names
	 * ("3.0.8-ow-2006"), else its era -- linux-6 for the 5.15.y and
	 * 5.16.y releases that took the February 2022 fixes
	 */
	const struct npg_policy *policy;
	struct npg_rules rules;		/* as model/history.c dates them in this release */
	int cap_last_cap;		/* CAP_LAST_CAP of this release */
	/*
	 * The release gave no point release: a distribution's ABI form
	 * ("5.10.0-32-amd64", "5.15.0-91-generic") without the package
	 * version (uname -v, /proc/version_signature), taken as X.Y.0
	 */
	bool point_unknown;
	/*
	 * An enterprise kernel ("5.14.0-362.8.1.el9_3.x86_64"): its vendor
	 * backports fixes that no version number reveals
	 */
	bool backports_unknown;
	char vendor[48];		/* "Debian", "Ubuntu", "Red Hat", ... or "" */
	/* why the rules above may be wrong for it (point_unknown,
	 * backports_unknown), and what to do: "" when they can be known */
	char caveat[320];
	/* how the policy was picked and every rule that differs from its own,
	 * with its commit and where it is dated; "" when none */
	char why[1024];
};

/*
 * @release is uname -r; @extra (or NULL) what a distribution says besides
 * it: uname -v ("#1 SMP Debian 5.10.223-1 (2024-08-10)"), Debian's package
 * version ("Debian 5.10.223-1"), or Ubuntu's /proc/version_signature
 * ("Ubuntu 5.15.0-91.101-generic 5.15.131"). The point release it names
 * wins. -1 if no version number can be read.
 */
int npg_release_parse(struct npg_release *r, const char *release, const char *extra);
/* The same for the running kernel (uname(2), /proc/version_signature). */
int npg_running_release(struct npg_release *r);
/*
 * The same for a release given as one argument (run --release): uname -r,
 * optionally followed by what @extra above takes ("$(uname -rv)",
 * "5.15.0-91-generic $(cat /proc/version_signature)"). -1 if unreadable.
 */
int npg_release_parse_arg(struct npg_release *r, const char *arg);
/*
 * "linux-6 for release 5.15.131: 5.15.y took linux-6's RLIMIT_NPROC rules
 * in 5.15.25 (...), without coredump_one_group (...)": the model of @r
 */
void npg_release_model(const struct npg_release *r, char *buf, size_t len);
/* @r's version as a struct npg_version */
struct npg_version npg_release_version(const struct npg_release *r);

struct npg_config;
/*
 * @out stands for configuration @c on a kernel of release @r (NULL: the
 * newest): @c's policy (linux-6 or linux-5.14 by its rules, as a release
 * is named) and rules, @r's version and CAP_LAST_CAP; @why says where it
 * comes from ("identified", "--model").
 */
void npg_release_of_config(struct npg_release *out, const struct npg_config *c,
			   const struct npg_release *r, const char *why);

/*
 * The rules a world of policy @p runs by on a kernel of release @r (NULL:
 * none, @p's own): @r's own when @p is its policy; otherwise @p's
 * RLIMIT_NPROC rules (what a user who names a policy asks for) with @r's
 * credential rules (what the kernel does whatever the policy).
 */
void npg_rules_for_policy(const struct npg_policy *p, const struct npg_release *r,
			  struct npg_rules *out);

/*
 * "with flag_nproc_exceeded (c923a8e7edb0, stable 5.15.25), without
 * coredump_one_group (0258b5fd7c71, mainline 5.16)": the rules of @have
 * that differ from @base, dated for version @v (NULL: undated), appended
 * to @buf. The number of rules written.
 */
int npg_rules_describe_diff(const struct npg_rules *have, const struct npg_rules *base,
			    const struct npg_version *v, char *buf, size_t len);

#endif
