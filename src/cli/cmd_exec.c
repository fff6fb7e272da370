/*
 * nprocguard exec: run a command as another user, dropped the way CERT
 * POS36-C/POS37-C say (npg_drop_privileges(3)), and told precisely when
 * RLIMIT_NPROC is what stops the execve(). Exit codes as execline's:
 * 100 usage, 111 a system call failed, 126 not executable, 127 not found.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "nprocguard/privdrop.h"
#include "tools/explain/explain.h"
#include "privdrop/exec.h"

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
	       "                        (0 to 1099511627776)\n"
	       " -f, --keep-fds LIST    descriptors above 2 to pass on (comma-separated);\n"
	       "                        every other inherited one is closed\n"
	       " -e, --reset-env        clear the environment but TERM; PATH as setpriv's\n"
	       "                        (HOME, USER, LOGNAME and SHELL are always USER's)\n"
	       " -s, --new-session      run COMMAND in a new session, without a controlling\n"
	       "                        terminal (no TIOCSTI into root's terminal); the\n"
	       "                        default when a standard descriptor is a terminal\n"
	       " -t, --keep-tty         keep the terminal as controlling terminal\n"
	       " -h, --help             display this help\n\n"
	       "--groups may be given more than once; the lists add up, to at most\n"
	       "NGROUPS_MAX (65536) groups. A drop to uid 0 drops nothing and is warned about.\n\n"
	       "Exit status: COMMAND's (128+N if a signal N killed it in a new session), or\n"
	       "100 usage, 111 a system call failed, 126 COMMAND found but not executable,\n"
	       "127 COMMAND not found.\n");
}

/* An argument is echoed at most this long: a 121 KB group list is not */
#define ECHO_MAX 64

static void usage_error(const char *msg, const char *arg)
{
	int n = arg ? (int)strnlen(arg, ECHO_MAX + 1) : 0;

	fprintf(stderr, "nprocguard exec: %s%s%.*s%s\nTry 'nprocguard exec --help' for more "
		"information.\n", msg, arg ? ": " : "", n > ECHO_MAX ? ECHO_MAX : n, arg ? arg : "",
		n > ECHO_MAX ? "..." : "");
	exit(EXIT_USAGE);
}

/* A refused value, named with its option and what is accepted (npg_bad_option()); exit 100 */
#define bad_value(opt, arg, ...) do { \
		npg_bad_option("exec", opt, arg, __VA_ARGS__); \
		fprintf(stderr, "Try 'nprocguard exec --help' for more information.\n"); \
		exit(EXIT_USAGE); \
	} while (0)

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
	if (!*s)
		bad_value("--group", s, "empty (a group name, or a gid from 0 to %u)", (gid_t)-2);
	gr = getgrnam(s);
	if (!gr)
		usage_error("unknown group", s);
	return gr->gr_gid;
}

/* -G LIST, added to what earlier -G gave; no empty element, at most NGROUPS_MAX */
static void add_groups(const char *arg, gid_t **list, size_t *n)
{
	long max = sysconf(_SC_NGROUPS_MAX);
	const char *p = arg;

	if (max <= 0)
		max = 65536;
	for (;;) {
		size_t len = strcspn(p, ",");
		char g[64];

		if (len == 0)
			usage_error("empty group name in --groups", arg);
		if (len >= sizeof(g))
			usage_error("group name too long in --groups", p);
		memcpy(g, p, len);
		g[len] = '\0';
		if ((long)*n >= max) {
			fprintf(stderr, "nprocguard exec: more than %ld groups (NGROUPS_MAX)\n", max);
			exit(EXIT_USAGE);
		}
		gid_t *grown = realloc(*list, (*n + 1) * sizeof(gid_t));

		if (!grown)
			usage_error("out of memory", NULL);
		*list = grown;
		(*list)[(*n)++] = parse_group(g);
		if (!p[len])
			break;
		p += len + 1;
	}
}

/* --keep-fds LIST: descriptor numbers above 2 */
static void add_fds(const char *arg, int **fds, int *n)
{
	const char *p = arg;

	for (;;) {
		char *end;
		long fd;

		errno = 0;
		fd = strtol(p, &end, 10);
		if (end == p || (*end && *end != ',') || errno || fd < 3 || fd > INT_MAX || *p < '0' ||
		    *p > '9')
			bad_value("--keep-fds", arg, "--keep-fds takes descriptor numbers above 2 "
				  "(FD[,FD...], each from 3 to %d)", INT_MAX);
		int *grown = realloc(*fds, (size_t)(*n + 1) * sizeof(int));

		if (!grown)
			usage_error("out of memory", NULL);
		*fds = grown;
		(*fds)[(*n)++] = (int)fd;
		if (!*end)
			break;
		p = end + 1;
	}
}

static pid_t session_child;

static void forward_signal(int sig)
{
	if (session_child > 0)
		kill(session_child, sig);
}

/*
 * --new-session: the command gets a session of its own, so the terminal is
 * not its controlling terminal and TIOCSTI into it fails (drivers/tty/tty_io.c
 * tiocsti(): "current->signal->tty != tty && !capable(CAP_SYS_ADMIN)").
 * setsid() needs a process that leads no group, hence the fork: the parent
 * (still root, holding nothing) forwards the terminal's signals and exits
 * with the command's status. Returns in the child only.
 */
static void enter_new_session(void)
{
	static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	int status;
	pid_t pid;

	fflush(NULL);
	session_child = fork();
	if (session_child < 0) {
		int err = errno, found = 0;
		char cause[1100];

		/* the cause as `nprocguard explain` names it; when it names none,
		 * say so rather than end the message with a dangling ": " */
		if (err == EAGAIN)
			found = npg_explain_cause(getpid(), NPG_EXPLAIN_FORK, cause, sizeof(cause));
		if (found == 1)
			fprintf(stderr, "nprocguard exec: unable to fork for a new session: %s: %s\n",
				strerror(err), cause);
		else if (found == 0 && err == EAGAIN)
			fprintf(stderr, "nprocguard exec: unable to fork for a new session: %s (no limit "
				"that `nprocguard explain` reads refuses a fork now)\n", strerror(err));
		else
			fprintf(stderr, "nprocguard exec: unable to fork for a new session: %s\n",
				strerror(err));
		exit(EXIT_SYSCALL);
	}
	if (session_child == 0) {
		if (setsid() < 0) {
			fprintf(stderr, "nprocguard exec: unable to start a new session: %s\n",
				strerror(errno));
			_exit(EXIT_SYSCALL);
		}
		return;
	}
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++) {
		struct sigaction sa = { .sa_handler = forward_signal };

		sigemptyset(&sa.sa_mask);
		sigaction(forwarded[i], &sa, NULL);
	}
	while ((pid = waitpid(session_child, &status, 0)) < 0 && errno == EINTR)
		;
	if (pid < 0)
		exit(EXIT_SYSCALL);
	exit(WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status));
}

static char *copy_or_null(const char *s)
{
	char *c;

	if (!s)
		return NULL;
	c = strdup(s);
	if (!c)
		usage_error("out of memory", NULL);
	return c;
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
		{ "keep-fds", required_argument, NULL, 'f' },
		{ "reset-env", no_argument, NULL, 'e' },
		{ "new-session", no_argument, NULL, 's' },
		{ "keep-tty", no_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct npg_privdrop d = { .rlimit_nproc = -1 };
	const char *user = NULL, *group = NULL;
	gid_t *list = NULL;
	int *keep_fds = NULL, nkeep = 0;
	int c, verdict, session = -1;	/* -1: new session if a standard fd is a terminal */
	bool by_groups = false, by_init = false, by_clear = false, reset_env = false;
	char why[256], cause[1100];
	unsigned long long v;
	struct passwd *pw;
	struct npg_exec_user target = { 0 };
	const char *const *groups_args = NULL;
	int ngroups_args = 0;

	while ((c = getopt_long(argc, argv, "+u:g:G:ick:nl:f:esth", longopts, NULL)) != -1) {
		switch (c) {
		case 'u': user = optarg; break;
		case 'g': group = optarg; break;
		case 'G':
			/* resolved once the options are read: group names need no order */
			by_groups = true;
			groups_args = realloc((void *)groups_args, (size_t)(ngroups_args + 1) * sizeof(char *));
			if (!groups_args)
				usage_error("out of memory", NULL);
			((const char **)groups_args)[ngroups_args++] = optarg;
			break;
		case 'i': by_init = true; break;
		case 'c': by_clear = true; break;
		case 'f': add_fds(optarg, &keep_fds, &nkeep); break;
		case 'e': reset_env = true; break;
		case 's': session = 1; break;
		case 't': session = 0; break;
		case 'k':
			if (strcmp(optarg, "none") != 0)
				bad_value("--keep-caps", optarg, "--keep-caps takes only 'none'");
			break;
		case 'n': d.flags |= NPG_PRIVDROP_NO_NEW_PRIVS; break;
		case 'l':
			if (!parse_number(optarg, 1ULL << 40, &v) || *optarg < '0' || *optarg > '9')
				bad_value("--rlimit-nproc", optarg, "a count from 0 to %llu", 1ULL << 40);
			d.rlimit_nproc = (long long)v;
			break;
		case 'h': usage(); return 0;
		default: usage_error("bad usage", NULL);
		}
	}
	if (by_groups + by_init + by_clear > 1)
		usage_error("--groups, --init-groups and --clear-groups exclude each other", NULL);
	d.groups = by_groups ? NPG_GROUPS_SET : by_init ? NPG_GROUPS_INIT : NPG_GROUPS_CLEAR;
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
		/* copies: the group lookups below may reuse getpwnam()'s buffer */
		target.name = d.user = copy_or_null(pw->pw_name);
		target.dir = copy_or_null(pw->pw_dir);
		target.shell = copy_or_null(pw->pw_shell);
	} else if (parse_number(user, (uid_t)-2, &v)) {
		d.uid = (uid_t)v;
		if (!group)
			usage_error("uid has no passwd entry: give --group", user);
		if (by_init)
			usage_error("--init-groups needs a user with a name", user);
	} else {
		bad_value("--user", user, "%s (a user name, or a uid from 0 to %u)",
			  *user ? "unknown user" : "empty", (uid_t)-2);
	}
	target.uid = d.uid;
	if (group)
		d.gid = parse_group(group);
	if (!by_groups && !by_init && !by_clear)
		d.groups = pw ? NPG_GROUPS_INIT : NPG_GROUPS_CLEAR;
	for (int i = 0; i < ngroups_args; i++)
		add_groups(groups_args[i], &list, &d.ngroups);
	free((void *)groups_args);
	d.group_list = list;
	/* descriptors root opened (3</etc/shadow) must not reach the user's command */
	if (npg_close_fds_except(keep_fds, nkeep) < 0) {
		fprintf(stderr, "nprocguard exec: unable to close inherited descriptors: %s\n",
			strerror(errno));
		return EXIT_SYSCALL;
	}
	free(keep_fds);
	if (d.uid == 0)
		fprintf(stderr, "nprocguard exec: warning: %s is uid 0: nothing is dropped, the "
			"command keeps root's capabilities\n", user);
	if (session < 0)
		session = isatty(STDIN_FILENO) || isatty(STDOUT_FILENO) || isatty(STDERR_FILENO);
	if (session)
		enter_new_session();
	if (npg_drop_privileges(&d) < 0) {
		fprintf(stderr, "nprocguard exec: unable to drop privileges: %s\n", d.reason);
		return EXIT_SYSCALL;
	}
	verdict = npg_nproc_execve_verdict(why, sizeof(why));
	if (verdict == 1)
		fprintf(stderr, "nprocguard exec: warning: %s\n", why);
	else if (verdict == 2)
		fprintf(stderr, "nprocguard exec: note: %s\n", why);
	if (npg_exec_environment(&target, reset_env) < 0) {
		fprintf(stderr, "nprocguard exec: unable to set the environment: %s\n", strerror(errno));
		return EXIT_SYSCALL;
	}
	npg_exec_search(argv[optind], argv + optind);
	c = errno;
	/* the same answer as `nprocguard explain --op execve` */
	if (c == EAGAIN && npg_explain_cause(getpid(), NPG_EXPLAIN_EXECVE, cause, sizeof(cause)) == 1) {
		fprintf(stderr, "nprocguard exec: unable to execute %s: %s: %s\n", argv[optind],
			strerror(c), cause);
		return EXIT_SYSCALL;
	}
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
