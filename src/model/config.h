/*
 * A configuration of the model: a policy's hooks under a set of rules --
 * what a kernel follows, whether a release's rules (model/release.c) or
 * a combination `nprocguard identify` found. Written as text relative to
 * the policy's own rules: "linux-6", "linux-6,-coredump_one_group",
 * "linux-3.1,+setresuid_noop_fastpath,ptrace_seize=1".
 */
#ifndef NPG_MODEL_CONFIG_H
#define NPG_MODEL_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "model/rules.h"

struct npg_policy;

struct npg_config {
	const struct npg_policy *policy;
	struct npg_rules rules;
};

/* @p under its own rules */
void npg_config_of_policy(struct npg_config *c, const struct npg_policy *p);
bool npg_config_equal(const struct npg_config *a, const struct npg_config *b);
/* "linux-6,-coredump_one_group": @c as text, relative to its policy's own rules */
void npg_config_format(const struct npg_config *c, char *buf, size_t len);
/*
 * The reverse; -1 with a message in @err (which word, and why) for an
 * unknown policy or rule, a rule given twice or a value out of range
 */
int npg_config_parse(struct npg_config *c, const char *text, char *err, size_t errlen);
/* @c with the comma-separated changes of @text ("+RULE,-RULE,RULE=N"); -1 as above */
int npg_config_apply(struct npg_config *c, const char *text, char *err, size_t errlen);
/*
 * The policy a reader names @c by: its own, except that the ucounts hooks
 * under flag_nproc_exceeded are linux-6 and without it linux-5.14, as a
 * release's are (npg_release_parse())
 */
const struct npg_policy *npg_config_policy_name(const struct npg_config *c);

#endif
