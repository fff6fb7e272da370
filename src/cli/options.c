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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "cli/cli.h"
#include "model/policy.h"
#include "tools/metrics/prometheus.h"

noreturn void npg_usage_error(const char *cmd)
{
	fprintf(stderr, "Try 'nprocguard%s%s --help' for more information.\n", cmd ? " " : "",
		cmd ? cmd : "");
	exit(NPG_EXIT_USAGE);
}

long npg_parse_policy_list(const char *arg)
{
	long mask = 0;
	char *copy = strdup(arg), *save = NULL;

	if (!copy) {
		perror("nprocguard");
		exit(NPG_EXIT_USAGE);
	}
	for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		const struct npg_policy *p = npg_policy_find(name);

		if (strcmp(name, "all") == 0) {
			mask |= (1L << NPG_NPOLICIES) - 1;
		} else if (p) {
			mask |= 1L << npg_policy_index(p);
		} else {
			fprintf(stderr, "nprocguard: unknown policy '%s' (see 'nprocguard policies')\n",
				name);
			free(copy);
			return -1;
		}
	}
	free(copy);
	return mask ? mask : -1;
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
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' ||
	    v + NPG_UID_WINDOW >= NPG_ID_NONE) {
		fprintf(stderr, "nprocguard %s: bad --uid-base '%s' (0 to %u)\n", cmd, arg,
			NPG_ID_NONE - NPG_UID_WINDOW - 1);
		return -1;
	}
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

int npg_parse_count(const char *cmd, const char *opt, const char *arg, unsigned long min,
		    unsigned long max, unsigned long *out)
{
	const char *why;
	uint64_t v = 0;

	why = parse_decimal(arg, &v);
	if (!why && (v < min || v > max))
		why = "out of range";
	if (why) {
		fprintf(stderr, "nprocguard %s: bad %s '%s': %s (a count from %lu to %lu)\n", cmd,
			opt, arg, why, min, max);
		return -1;
	}
	*out = (unsigned long)v;
	return 0;
}

int npg_parse_seed(const char *cmd, const char *opt, const char *arg, uint64_t *out)
{
	const char *why = parse_decimal(arg, out);

	if (why) {
		fprintf(stderr, "nprocguard %s: bad %s '%s': %s (a seed from 0 to %" PRIu64 ")\n",
			cmd, opt, arg, why, UINT64_MAX);
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
