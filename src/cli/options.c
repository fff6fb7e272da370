/*
 * What the subcommands' option parsers share: the usage error, the
 * --policy list, the --uid-base window and the strict numbers (counts,
 * seeds). main.c dispatches to the subcommands and they call these, so
 * they live apart from it.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "cli/cli.h"
#include "model/policy.h"
#include "report/report.h"
#include "tools/metrics/prometheus.h"

noreturn void npg_usage_error(const char *cmd)
{
	fprintf(stderr, "Try 'nprocguard%s%s --help' for more information.\n", cmd ? " " : "",
		cmd ? cmd : "");
	exit(NPG_EXIT_USAGE);
}

#define ECHO_MAX 64	/* bytes of a refused value echoed: a 1 MB value is not */

const char *npg_option_text(const char *s, size_t len, char *buf, size_t buflen)
{
	char head[ECHO_MAX + 1];
	size_t used;

	snprintf(head, sizeof(head), "%.*s", (int)(len < ECHO_MAX ? len : ECHO_MAX), s);
	npg_safe_text(head, buf, buflen);
	used = strlen(buf);
	if (len > ECHO_MAX && used + 3 < buflen)
		memcpy(buf + used, "...", 4);
	return buf;
}

void npg_bad_option(const char *cmd, const char *opt, const char *arg, const char *fmt, ...)
{
	char shown[NPG_OPTION_TEXT];
	va_list ap;

	fprintf(stderr, "nprocguard %s: bad %s '%s': ", cmd, opt,
		npg_option_text(arg, strlen(arg), shown, sizeof(shown)));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* "linux-2.4, linux-2.6, ..., linux-6": what --policy accepts */
static const char *policy_names(void)
{
	static char names[512];
	size_t used = 0;

	for (int i = 0; npg_policies[i] && used < sizeof(names); i++)
		used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s", i ? ", " : "",
					 npg_policies[i]->name);
	return names;
}

/* Splits "A,B" at commas; an empty element ("", ",", "A,,B", "A,") is one too */
long npg_parse_policy_list(const char *cmd, const char *arg)
{
	long mask = 0;
	const char *p = arg;

	for (;;) {
		size_t len = strcspn(p, ",");
		char name[64], shown[NPG_OPTION_TEXT];
		const struct npg_policy *pol;

		snprintf(name, sizeof(name), "%.*s", (int)(len < sizeof(name) ? len : sizeof(name) - 1),
			 p);
		pol = len < sizeof(name) ? npg_policy_find(name) : NULL;
		if (len == 0) {
			npg_bad_option(cmd, "--policy", arg, "%s (NAME[,NAME...] or all; the "
				       "policies: %s)", *arg ? "an empty name" : "empty", policy_names());
			return -1;
		}
		if (len < sizeof(name) && strcmp(name, "all") == 0) {
			mask |= (1L << NPG_NPOLICIES) - 1;
		} else if (pol) {
			mask |= 1L << npg_policy_index(pol);
		} else {
			npg_bad_option(cmd, "--policy", arg, "unknown policy '%s' (NAME[,NAME...] or "
				       "all; the policies: %s)", npg_option_text(p, len, shown,
				       sizeof(shown)), policy_names());
			return -1;
		}
		if (!p[len])
			return mask;
		p += len + 1;
	}
}

const struct npg_policy *npg_parse_policy(const char *cmd, const char *arg)
{
	const struct npg_policy *pol = npg_policy_find(arg);

	if (!pol)
		npg_bad_option(cmd, "--policy", arg, "%s (one of %s)",
			       *arg ? "unknown policy" : "empty", policy_names());
	return pol;
}

/*
 * Users of the password database (getpwent: /etc/passwd, and LDAP or the
 * like through NSS) whose uid is in the window above @base: a warning, not
 * an error -- the real backend refuses to start anyway if one of them has
 * a process, but their files and a later login would meet our tasks' uids.
 */
static void warn_known_users(const char *cmd, uint32_t base)
{
	struct passwd *pw;
	char first[64] = "";
	unsigned long n = 0;

	setpwent();
	while ((pw = getpwent()) != NULL) {
		if (pw->pw_uid <= base || pw->pw_uid > base + NPG_UID_WINDOW)
			continue;
		if (n++ == 0)
			snprintf(first, sizeof(first), "%s (%u)", pw->pw_name, pw->pw_uid);
	}
	endpwent();
	if (n)
		fprintf(stderr, "nprocguard %s: warning: --uid-base %u: uids %u-%u include "
			"user %s%s; pick a window no account uses\n", cmd, base, base + 1,
			base + NPG_UID_WINDOW, first, n > 1 ? " and others" : "");
}

int npg_parse_uid_base(const char *cmd, const char *arg, uint32_t *out)
{
	unsigned long v;

	if (npg_parse_number(cmd, "--uid-base", arg, "a uid", 0, NPG_ID_NONE - NPG_UID_WINDOW - 1,
			     &v) < 0)
		return -1;
	*out = (uint32_t)v;
	warn_known_users(cmd, *out);
	return 0;
}

/*
 * A decimal number of digits only, into @out: NULL, or why not. strtoull()
 * alone is too kind for an option -- it takes "" as 0, skips leading
 * blanks, takes a sign (and "-1" as 2^64-1) -- so a typo would run with a
 * number nobody gave.
 */
static const char *parse_decimal(const char *arg, uint64_t *out)
{
	uint64_t v = 0;

	if (!*arg)
		return "empty";
	if (*arg < '0' || *arg > '9')
		return "not a decimal number";
	for (const char *p = arg; *p; p++) {
		if (*p < '0' || *p > '9')
			return "junk after the number";
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return "out of range";
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*out = v;
	return NULL;
}

int npg_parse_number(const char *cmd, const char *opt, const char *arg, const char *what,
		     unsigned long min, unsigned long max, unsigned long *out)
{
	const char *why;
	uint64_t v = 0;

	why = parse_decimal(arg, &v);
	if (!why && (v < min || v > max))
		why = "out of range";
	if (why) {
		npg_bad_option(cmd, opt, arg, "%s (%s from %lu to %lu)", why, what, min, max);
		return -1;
	}
	*out = (unsigned long)v;
	return 0;
}

int npg_parse_count(const char *cmd, const char *opt, const char *arg, unsigned long min,
		    unsigned long max, unsigned long *out)
{
	return npg_parse_number(cmd, opt, arg, "a count", min, max, out);
}

int npg_parse_seed(const char *cmd, const char *opt, const char *arg, uint64_t *out)
{
	const char *why = parse_decimal(arg, out);

	if (why) {
		npg_bad_option(cmd, opt, arg, "%s (a seed from 0 to %" PRIu64 ")", why, UINT64_MAX);
		return -1;
	}
	return 0;
}

int npg_check_textfile(const char *cmd, const char *path)
{
	char why[PATH_MAX + 256];

	if (npg_prometheus_check_target(path, why, sizeof(why)) < 0) {
		fprintf(stderr, "nprocguard %s: --textfile %s\n", cmd, why);
		return -1;
	}
	return 0;
}

void npg_textfile_failed(const char *cmd, const char *why)
{
	if (errno)
		fprintf(stderr, "nprocguard %s: %s: %s\n", cmd, why, strerror(errno));
	else
		fprintf(stderr, "nprocguard %s: --textfile %s\n", cmd, why);
}

int npg_parse_user(const char *cmd, const char *arg, uint32_t *uid)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	uint64_t v;

	/* digits only are a uid (not " 5", "+5"), anything else a name */
	if (!parse_decimal(arg, &v) && v < UINT32_MAX) {
		*uid = (uint32_t)v;
		return 0;
	}
	if (*arg && getpwnam_r(arg, &pw, buf, sizeof(buf), &res) == 0 && res) {
		*uid = res->pw_uid;
		return 0;
	}
	npg_bad_option(cmd, "--user", arg, "%s (a user name, or a uid from 0 to %u)",
		       *arg ? "unknown user" : "empty", UINT32_MAX - 1);
	return -1;
}
