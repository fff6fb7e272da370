/*
 * nprocguard exec: run a command as another user, dropped the way CERT
 * POS36-C/POS37-C say (npg_drop_privileges(3)), and told precisely when
 * RLIMIT_NPROC is what stops the execve(). Exit codes as execline's:
 * 100 usage, 111 a system call failed, 126 not executable, 127 not found.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <stdbool.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "nprocguard/privdrop.h"

#define EXIT_USAGE 100
#define EXIT_SYSCALL 111
#define EXIT_NOEXEC 126
#define EXIT_NOTFOUND 127

static void usage(void)
{
	printf("Usage:\n nprocguard exec --user USER [options] -- COMMAND [ARGS...]\n\n"
	       "Drop to USER (supplementary groups, then gid, then uid, each checked, then\n"
	       "all verified, setuid(0) verified to fail, capabilities cleared) and execute\n"
	       "COMMAND, saying precisely when RLIMIT_NPROC makes the execve() fail.\n\n"
	       "Options:\n"
	       " -u, --user USER        name or uid (required)\n"
	       " -g, --group GROUP      name or gid (default: USER's primary group)\n"
	       " -G, --groups LIST      exactly these supplementary groups (comma-separated)\n"
	       " -i, --init-groups      USER's groups from the group database (default for a\n"
	       "                        named user)\n"
	       " -c, --clear-groups     no supplementary group (default for a bare uid)\n"
	       " -k, --keep-caps none   capabilities to keep: none is the only choice\n"
	       " -n, --no-new-privs     set PR_SET_NO_NEW_PRIVS\n"
	       " -l, --rlimit-nproc N   set RLIMIT_NPROC (soft and hard) before the switch\n"
	       " -h, --help             display this help\n\n"
	       "Exit status: COMMAND's, or 100 usage, 111 a system call failed, 126 COMMAND\n"
	       "not executable, 127 COMMAND not found.\n");
}

static void usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, "nprocguard exec: %s%s%s\nTry 'nprocguard exec --help' for more "
		"information.\n", msg, arg ? ": " : "", arg ? arg : "");
	exit(EXIT_USAGE);
}

static bool parse_number(const char *s, unsigned long long max, unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	return *s && !*end && !errno && s[0] != '-' && *out <= max;
}

static gid_t parse_group(const char *s)
{
	unsigned long long v;
	struct group *gr;

	if (parse_number(s, (gid_t)-2, &v))
		return (gid_t)v;
	gr = getgrnam(s);
	if (!gr)
		usage_error("unknown group", s);
	return gr->gr_gid;
}

int npg_cmd_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "user", required_argument, NULL, 'u' },
		{ "group", required_argument, NULL, 'g' },
		{ "groups", required_argument, NULL, 'G' },
		{ "init-groups", no_argument, NULL, 'i' },
		{ "clear-groups", no_argument, NULL, 'c' },
		{ "keep-caps", required_argument, NULL, 'k' },
		{ "no-new-privs", no_argument, NULL, 'n' },
		{ "rlimit-nproc", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct npg_privdrop d = { .rlimit_nproc = -1 };
	const char *user = NULL, *group = NULL, *groups = NULL;
	gid_t list[256];
	int c, nmodes = 0, verdict;
	bool have_mode = false;
	char why[256], name[64];
	unsigned long long v;
	struct passwd *pw;

	while ((c = getopt_long(argc, argv, "+u:g:G:ick:nl:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'u': user = optarg; break;
		case 'g': group = optarg; break;
		case 'G': groups = optarg; d.groups = NPG_GROUPS_SET; nmodes++; break;
		case 'i': d.groups = NPG_GROUPS_INIT; nmodes++; break;
		case 'c': d.groups = NPG_GROUPS_CLEAR; nmodes++; break;
		case 'k':
			if (strcmp(optarg, "none") != 0)
				usage_error("--keep-caps takes only 'none'", optarg);
			break;
		case 'n': d.flags |= NPG_PRIVDROP_NO_NEW_PRIVS; break;
		case 'l':
			if (!parse_number(optarg, 1ULL << 40, &v))
				usage_error("bad --rlimit-nproc", optarg);
			d.rlimit_nproc = (long long)v;
			break;
		case 'h': usage(); return 0;
		default: usage_error("bad usage", NULL);
		}
	}
	have_mode = nmodes > 0;
	if (nmodes > 1)
		usage_error("--groups, --init-groups and --clear-groups exclude each other", NULL);
	if (!user)
		usage_error("--user is required", NULL);
	if (optind >= argc)
		usage_error("no command given", NULL);
	pw = getpwnam(user);
	if (!pw && parse_number(user, (uid_t)-2, &v))
		pw = getpwuid((uid_t)v);
	if (pw) {
		d.uid = pw->pw_uid;
		d.gid = pw->pw_gid;
		snprintf(name, sizeof(name), "%s", pw->pw_name);
		d.user = name;
	} else if (parse_number(user, (uid_t)-2, &v)) {
		d.uid = (uid_t)v;
		if (!group)
			usage_error("uid has no passwd entry: give --group", user);
		if (d.groups == NPG_GROUPS_INIT)
			usage_error("--init-groups needs a user with a name", user);
	} else {
		usage_error("unknown user", user);
	}
	if (group)
		d.gid = parse_group(group);
	if (!have_mode)
		d.groups = pw ? NPG_GROUPS_INIT : NPG_GROUPS_CLEAR;
	if (groups) {
		char *copy = strdup(groups), *save = NULL;

		if (!copy)
			usage_error("out of memory", NULL);
		for (char *g = strtok_r(copy, ",", &save); g; g = strtok_r(NULL, ",", &save)) {
			if (d.ngroups == sizeof(list) / sizeof(list[0]))
				usage_error("too many groups", groups);
			list[d.ngroups++] = parse_group(g);
		}
		free(copy);
		d.group_list = list;
	}
	if (npg_drop_privileges(&d) < 0) {
		fprintf(stderr, "nprocguard exec: unable to drop privileges: %s\n", d.reason);
		return EXIT_SYSCALL;
	}
	verdict = npg_nproc_execve_verdict(why, sizeof(why));
	if (verdict == 1)
		fprintf(stderr, "nprocguard exec: warning: %s\n", why);
	else if (verdict == 2)
		fprintf(stderr, "nprocguard exec: note: %s\n", why);
	execvp(argv[optind], argv + optind);
	c = errno;
	if (c == EAGAIN && npg_nproc_execve_verdict(why, sizeof(why)) == 1) {
		fprintf(stderr, "nprocguard exec: unable to execute %s: %s\n", argv[optind], why);
		return EXIT_SYSCALL;
	}
	fprintf(stderr, "nprocguard exec: unable to execute %s: %s\n", argv[optind], strerror(c));
	if (c == ENOENT)
		return EXIT_NOTFOUND;
	if (c == EACCES || c == ENOEXEC || c == EISDIR || c == EPERM)
		return EXIT_NOEXEC;
	return EXIT_SYSCALL;
}
