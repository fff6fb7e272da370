/*
 * A release's rules and policy: which of the dated changes of
 * model/history.c it has, read from the version the kernel and its
 * distribution give.
 *
 * The version is often not enough. Debian (uname -v) and Ubuntu
 * (/proc/version_signature) name the stable point release their package
 * is based on, and it is read; without them the ABI form
 * "5.15.0-91-generic" hides it. An enterprise kernel ("5.14.0-362.8.1.el9_3")
 * carries its vendor's backports, which no number reveals. In both cases
 * the release says so (caveat), and `nprocguard identify` asks the kernel.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "model/config.h"
#include "model/policy.h"
#include "model/release.h"

/*
 * Where version @v's value of a rule comes from: the change that decides
 * it and when @v's branch got it -- "8f2f9c4d82f2, stable 5.15.25",
 * "0258b5fd7c71, mainline 5.16, no 5.15.y backport", "8f2f9c4d82f2, from
 * stable 5.15.25" (a release before it)
 */
static void rule_source(const struct npg_rule_info *ri, const struct npg_version *v, char *buf,
			size_t len)
{
	const struct npg_backport *b;
	const struct npg_change *c;
	int id;

	npg_rule_in_version(ri, v, &id);
	if (id < 0) {
		snprintf(buf, len, "undated");
		return;
	}
	c = &npg_changes[id];
	b = npg_change_backport((enum npg_change_id)id, v->major, v->minor);
	if (npg_version_cmp(v, c->mainline.major, c->mainline.minor, 0) >= 0)
		snprintf(buf, len, "%s, mainline %d.%d", c->commit, c->mainline.major,
			 c->mainline.minor);
	else if (b && v->patch >= b->patch)
		snprintf(buf, len, "%s, stable %d.%d.%d", c->commit, b->major, b->minor, b->patch);
	else if (b)
		snprintf(buf, len, "%s, from stable %d.%d.%d", c->commit, b->major, b->minor,
			 b->patch);
	else
		snprintf(buf, len, "%s, mainline %d.%d, no %d.%d.y backport", c->commit,
			 c->mainline.major, c->mainline.minor, v->major, v->minor);
}

/* printf() at offset *@n of @buf, which stays terminated whatever fits */
static void appendf(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*n >= len)
		return;
	va_start(ap, fmt);
	k = vsnprintf(buf + *n, len - *n, fmt, ap);
	va_end(ap);
	if (k > 0)
		*n = *n + (size_t)k < len ? *n + (size_t)k : len - 1;
}

/* "59ec71575ab4" of "... (59ec71575ab4)": a rule's commits, undated */
static void rule_commits(const struct npg_rule_info *ri, char *buf, size_t len)
{
	const char *open = strrchr(ri->what, '(');
	size_t k = open ? strcspn(open + 1, ")") : 0;

	snprintf(buf, len, "%.*s", (int)k, open ? open + 1 : "");
}

int npg_rules_describe_diff(const struct npg_rules *have, const struct npg_rules *base,
			    const struct npg_version *v, char *buf, size_t len)
{
	size_t n = strlen(buf);
	int count = 0;

	for (int i = 0; i < npg_nrules; i++) {
		const struct npg_rule_info *ri = &npg_rule_infos[i];
		int value = npg_rule_get(have, ri);
		char source[96];

		if (value == npg_rule_get(base, ri))
			continue;
		if (v)
			rule_source(ri, v, source, sizeof(source));
		else
			rule_commits(ri, source, sizeof(source));
		if (ri->is_int)
			appendf(buf, len, &n, "%swith %s=%d (%s)", n ? ", " : "", ri->name, value,
				source);
		else
			appendf(buf, len, &n, "%s%s %s (%s)", n ? ", " : "", value ? "with" : "without",
				ri->name, source);
		count++;
	}
	return count;
}

struct npg_version npg_release_version(const struct npg_release *r)
{
	return (struct npg_version){ r->major, r->minor, r->patch };
}

/*
 * The point release of @major.@minor that a distribution's text names:
 * Ubuntu's /proc/version_signature "Ubuntu 5.15.0-91.101-generic
 * 5.15.131" (its last word, the upstream stable release the package is
 * based on), Debian's uname -v "... Debian 5.10.223-1 (2024-08-10)" or
 * package version "Debian 5.10.223-1". -1 if none.
 */
static int distro_point(const char *extra, int major, int minor, char *vendor, size_t vlen)
{
	const char *p;
	int ma, mi, pa;

	for (p = extra; (p = strstr(p, "Ubuntu ")); p++) {
		char abi[64], base[32];

		if (sscanf(p + 7, "%63s %31s", abi, base) == 2 &&
		    sscanf(base, "%d.%d.%d", &ma, &mi, &pa) == 3 && ma == major && mi == minor) {
			snprintf(vendor, vlen, "Ubuntu");
			return pa;
		}
	}
	if ((p = strstr(extra, "Debian ")) && sscanf(p + 7, "%d.%d.%d", &ma, &mi, &pa) == 3 &&
	    ma == major && mi == minor) {
		snprintf(vendor, vlen, "Debian");
		return pa;
	}
	return -1;
}

/*
 * The vendor of an enterprise kernel, whose local version names a build
 * of its own and whose backports no version number reveals: Red Hat
 * Enterprise Linux and its rebuilds ("5.14.0-362.8.1.el9_3.x86_64"),
 * Oracle's UEK ("5.15.0-200.131.27.el8uek.x86_64"), SUSE Linux Enterprise
 * ("5.14.21-150500.55.39-default"). NULL for any other.
 */
static const char *enterprise_vendor(const char *release)
{
	const char *dash = strchr(release, '-'), *p;

	if (!dash)
		return NULL;
	if (strstr(dash, "uek"))
		return "Oracle Linux (UEK)";
	for (p = dash; (p = strstr(p, ".el")); p++)
		if (p[3] >= '0' && p[3] <= '9')
			return "Red Hat Enterprise Linux (or a rebuild)";
	/* SLE 15 SPn: "-150n00.", a build number of six digits */
	if (strspn(dash + 1, "0123456789") == 6 && dash[1] == '1' && dash[7] == '.')
		return "SUSE Linux Enterprise";
	return NULL;
}

/* Debian's and Ubuntu's ABI form, "5.10.0-32-amd64", "5.15.0-91-generic" */
static bool abi_form(const char *release)
{
	int ma, mi, abi, n = 0;

	return sscanf(release, "%d.%d.0-%d-%n", &ma, &mi, &abi, &n) == 3 && n > 0;
}

static void explain_caveat(struct npg_release *r, const char *release)
{
	const char *flavour = strrchr(release, '-');
	bool ubuntu = flavour && strcmp(flavour, "-amd64") != 0 && strcmp(flavour, "-arm64") != 0 &&
		      strcmp(flavour, "-686-pae") != 0 && strcmp(flavour, "-686") != 0;

	if (r->backports_unknown)
		snprintf(r->caveat, sizeof(r->caveat),
			 "%s is a %s kernel: its vendor backports fixes that no version number "
			 "reveals, so the rules of %d.%d.%d may not be its own; 'nprocguard "
			 "identify' asks the kernel", release, r->vendor, r->major, r->minor, r->patch);
	else if (r->point_unknown)
		snprintf(r->caveat, sizeof(r->caveat),
			 "%s hides its point release (taken as %d.%d.0): %s, or 'nprocguard "
			 "identify' asks the kernel", release, r->major, r->minor,
			 ubuntu ? "Ubuntu names it in /proc/version_signature (\"Ubuntu "
				  "5.15.0-91.101-generic 5.15.131\"): give it after the release" :
				  "Debian names it in uname -v (\"Debian 5.10.223-1\"): give "
				  "\"$(uname -rv)\"");
}

int npg_release_parse(struct npg_release *r, const char *release, const char *extra)
{
	const struct npg_policy *era;
	struct npg_rules own;
	struct npg_version v;
	const char *vendor;

	memset(r, 0, sizeof(*r));
	if (sscanf(release, "%d.%d.%d", &r->major, &r->minor, &r->patch) < 2 || r->major < 0 ||
	    r->minor < 0 || r->patch < 0)
		return -1;
	if (extra) {
		int point = distro_point(extra, r->major, r->minor, r->vendor, sizeof(r->vendor));

		if (point >= 0)
			r->patch = point;
	}
	r->point_unknown = r->patch == 0 && !r->vendor[0] && abi_form(release);
	if ((vendor = enterprise_vendor(release))) {
		r->backports_unknown = true;
		snprintf(r->vendor, sizeof(r->vendor), "%s", vendor);
	}
	explain_caveat(r, release);
	v = npg_release_version(r);
	npg_rules_of_version(&v, &r->rules);
	/* the era of the version, or the policy the local version names */
	era = npg_policy_for_release(release);
	if (!era)
		return -1;
	r->policy = era;
	if (npg_policy_named_by_release(release))
		snprintf(r->why, sizeof(r->why), "named by its local version");
	/* 5.15.y and 5.16.y took the February 2022 series: linux-6's rules */
	if (era == &npg_policy_linux_5_14 && r->rules.flag_nproc_exceeded) {
		const struct npg_backport *b =
			npg_change_backport(NPG_CH_FLAG_NPROC_EXCEEDED, r->major, r->minor);

		r->policy = &npg_policy_linux_6;
		if (b)
			snprintf(r->why, sizeof(r->why), "%d.%d.y took linux-6's RLIMIT_NPROC rules "
				 "in %d.%d.%d (8f2f9c4d82f2, a55d07294f1e, c16bdeb5a39f, "
				 "c923a8e7edb0, 0cbae9e24fa7)", b->major, b->minor, b->major,
				 b->minor, b->patch);
	}
	npg_policy_rules(r->policy, &own);
	npg_rules_describe_diff(&r->rules, &own, &v, r->why, sizeof(r->why));
	/*
	 * include/uapi/linux/capability.h: CAP_CHECKPOINT_RESTORE (40) came in
	 * 5.9, CAP_PERFMON and CAP_BPF (38, 39) in 5.8, CAP_AUDIT_READ (37) in
	 * 3.16, CAP_BLOCK_SUSPEND (36) in 3.5; CAP_FULL_SET, what a new user
	 * namespace gives, is every one of them up to CAP_LAST_CAP
	 */
	if (npg_version_cmp(&v, 5, 9, 0) >= 0)
		r->cap_last_cap = 40;
	else if (npg_version_cmp(&v, 5, 8, 0) >= 0)
		r->cap_last_cap = 39;
	else if (npg_version_cmp(&v, 3, 16, 0) >= 0)
		r->cap_last_cap = 37;
	else if (npg_version_cmp(&v, 3, 5, 0) >= 0)
		r->cap_last_cap = 36;
	else
		r->cap_last_cap = 35;
	return 0;
}

/* /proc/version_signature (Ubuntu's), or "" */
static void version_signature(char *buf, size_t len)
{
	FILE *f = fopen("/proc/version_signature", "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

int npg_running_release(struct npg_release *r)
{
	char extra[sizeof(((struct utsname *)0)->version) + 160];
	struct utsname u;
	size_t n;

	if (uname(&u) < 0)
		return -1;
	n = (size_t)snprintf(extra, sizeof(extra), "%s ", u.version);
	if (n < sizeof(extra))
		version_signature(extra + n, sizeof(extra) - n);
	return npg_release_parse(r, u.release, extra);
}

int npg_release_parse_arg(struct npg_release *r, const char *arg)
{
	char release[128];
	size_t n = strcspn(arg, " \t");

	if (n == 0 || n >= sizeof(release))
		return -1;
	memcpy(release, arg, n);
	release[n] = '\0';
	return npg_release_parse(r, release, arg[n] ? arg + n : NULL);
}

void npg_release_model(const struct npg_release *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s for release %d.%d.%d%s%s", r->policy->name, r->major, r->minor,
		 r->patch, r->why[0] ? ": " : "", r->why);
}

void npg_rules_for_policy(const struct npg_policy *p, const struct npg_release *r,
			  struct npg_rules *out)
{
	struct npg_rules own;

	if (!r) {
		npg_policy_rules(p, out);
		return;
	}
	*out = r->rules;
	if (p == r->policy)
		return;
	npg_policy_rules(p, &own);
	for (int i = 0; i < npg_nrules; i++)
		if (npg_rule_infos[i].family == NPG_RULE_NPROC)
			npg_rule_set(out, &npg_rule_infos[i], npg_rule_get(&own, &npg_rule_infos[i]));
}

void npg_release_of_config(struct npg_release *out, const struct npg_config *c,
			   const struct npg_release *r, const char *why)
{
	struct npg_rules own;

	memset(out, 0, sizeof(*out));
	if (r) {
		out->major = r->major, out->minor = r->minor, out->patch = r->patch;
		out->cap_last_cap = r->cap_last_cap;
	} else {
		out->major = npg_policy_linux_6.release.major;
		out->minor = npg_policy_linux_6.release.minor;
		out->cap_last_cap = 40;
	}
	out->policy = npg_config_policy_name(c);
	out->rules = c->rules;
	snprintf(out->why, sizeof(out->why), "%s", why);
	npg_policy_rules(out->policy, &own);
	npg_rules_describe_diff(&out->rules, &own, NULL, out->why, sizeof(out->why));
}
