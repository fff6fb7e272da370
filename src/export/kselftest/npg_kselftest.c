/*
 * The runtime of an exported kselftest (see npg_kselftest.h): the test
 * itself, kst_main(), which sets up, runs each statement in turn and
 * ends; the controller, its puppets, the /proc readers, the uid window
 * and the teardown are the npg_kst_*.c beside it (npg_kst.h says which is
 * where). Written by `nprocguard export --format kselftest` beside the
 * generated file of each scenario; it needs a C11 compiler, glibc or
 * another libc with pthreads, and Linux 3.0 or later at run time (no
 * pidfd, subreaper, execveat or close_range() is required: each is used
 * when the kernel has it).
 */
#include "npg_kst.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

static int pol = -1;		/* the policy checked: index into kst_sc->policies */
static char release[128];

static void on_signal(int sig)
{
	if (!kst_stop_sig)
		kst_stop_sig = sig;
}

/*
 * The policy of kernel release @rel, as nprocguard conform picks it from
 * the point release (5.15.y took linux-6's rules in 5.15.25): its index,
 * or -1. The eras are in release order; the last one at or before @rel
 * holds.
 */
static int policy_of_release(const char *rel)
{
	int major = 0, minor = 0, patch = 0, found = -1;

	if (sscanf(rel, "%d.%d.%d", &major, &minor, &patch) < 2)
		return -1;
	kst_kernel_era = NULL;
	for (int i = 0; i < kst_sc->neras; i++) {
		const struct kst_era *e = &kst_sc->eras[i];

		if (major > e->major || (major == e->major && (minor > e->minor ||
		    (minor == e->minor && patch >= e->patch))))
			kst_kernel_era = e;
	}
	for (int i = 0; kst_kernel_era && i < kst_sc->npolicies; i++)
		if (strcmp(kst_sc->policies[i], kst_kernel_era->policy) == 0)
			found = i;
	return found;
}

/* The highest uid base: uids BASE..BASE+UID_WINDOW-1 are uids, below (uid_t)-1 */
#define UID_BASE_MAX (KST_ID_NONE - UID_WINDOW - 1)
/* alarm()'s seconds, and a time_t of 32 bits: INT_MAX */
#define TIMEOUT_MAX 2147483647ULL
#define DELAY_MS_MAX 3600000ULL

static void usage(const char *prog)
{
	printf("Usage: %s [-u BASE]\n\n"
	       "The kselftest of %s, exported by nprocguard: run as root.\n"
	       " -u BASE  scenario uids are BASE+1 ... (default $NPG_UID_BASE, else %u);\n"
	       "          uids BASE..BASE+%d must be unused; 0 to %u\n"
	       " -h       display this help\n"
	       "Environment: NPG_KSELFTEST_TIMEOUT (seconds, 1 to %llu, default %d).\n"
	       "Exit status: 0 pass, 1 fail (a bad option or value too), 4 skip.\n", prog,
	       kst_sc->file, DEFAULT_UID_BASE, UID_WINDOW - 1, UID_BASE_MAX, TIMEOUT_MAX,
	       DEFAULT_TIMEOUT_S);
}

/* @s as a decimal number in [@lo, @hi], all of it: digits only */
static bool parse_number(const char *s, unsigned long long lo, unsigned long long hi,
			 unsigned long long *out)
{
	char *end;
	unsigned long long v;

	if (s[0] < '0' || s[0] > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/*
 * A value the test cannot take: said, with what it takes, on stderr, and
 * the test fails (kselftest's 1) before it starts: a misconfigured run is
 * no skip, and no silent default.
 */
static int bad_value(const char *prog, const char *what, const char *value, const char *range)
{
	fprintf(stderr, "%s: %s: bad value '%s' (%s)\n", prog, what, value, range);
	return KSFT_FAIL;
}

static int try_help(const char *prog)
{
	fprintf(stderr, "Try '%s -h' for more information.\n", prog);
	return KSFT_FAIL;
}

/* An environment variable; an empty one is as unset */
static const char *env_value(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

/*
 * The command line and the environment: -1 to go on, or the exit status.
 * -u overrides NPG_UID_BASE (which is then not read).
 */
static int take_arguments(int argc, char **argv, long *timeout, long *delay_ms)
{
	const char *base = NULL, *env;
	char range[96];
	unsigned long long v;
	int opt;

	opterr = 1;
	while ((opt = getopt(argc, argv, "+hu:")) != -1) {
		if (opt == 'h') {
			usage(argv[0]);
			return KSFT_PASS;
		}
		if (opt != 'u')
			return try_help(argv[0]);
		base = optarg;
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[optind]);
		return try_help(argv[0]);
	}
	snprintf(range, sizeof(range), "a uid base, 0 to %u: uids BASE..BASE+%d are the test's",
		 UID_BASE_MAX, UID_WINDOW - 1);
	if (base && !parse_number(base, 0, UID_BASE_MAX, &v))
		return bad_value(argv[0], "-u", base, range);
	if (!base && (base = env_value("NPG_UID_BASE")) && !parse_number(base, 0, UID_BASE_MAX, &v))
		return bad_value(argv[0], "NPG_UID_BASE", base, range);
	if (base)
		kst_uid_base = (uint32_t)v;
	snprintf(range, sizeof(range), "seconds, 1 to %llu", TIMEOUT_MAX);
	if ((env = env_value("NPG_KSELFTEST_TIMEOUT"))) {
		if (!parse_number(env, 1, TIMEOUT_MAX, &v))
			return bad_value(argv[0], "NPG_KSELFTEST_TIMEOUT", env, range);
		*timeout = (long)v;
	}
	/* tests of the exporter only: a pause before each statement */
	snprintf(range, sizeof(range), "milliseconds, 0 to %llu", DELAY_MS_MAX);
	if ((env = env_value("NPG_KSELFTEST_DELAY_MS"))) {
		if (!parse_number(env, 0, DELAY_MS_MAX, &v))
			return bad_value(argv[0], "NPG_KSELFTEST_DELAY_MS", env, range);
		*delay_ms = (long)v;
	}
	return -1;
}

/*
 * Descriptors 0-2 exist before any socket or pipe is made. true when
 * standard output was closed: what the test says would be lost.
 */
static bool ensure_std_fds(void)
{
	bool out_closed = fcntl(1, F_GETFD) < 0;

	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) != fd)
			exit(KSFT_FAIL);
	return out_closed;
}

static void catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM };
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART: waits see EINTR */

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* Exit with the kselftest status after the last line; nothing is left behind */
static int finish(void)
{
	if (kst_teardown() < 0) {
		printf("Bail out! processes with uids %u..%u were still there %d s after the "
		       "test\n", kst_uid_base, kst_uid_base + UID_WINDOW - 1, STOP_TIMEOUT_MS / 1000);
		fflush(stdout);
		return KSFT_FAIL;
	}
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n", kst_npass, kst_nfail,
	       kst_nskip);
	return kst_nfail ? KSFT_FAIL : kst_npass == 0 && kst_nskip > 0 ? KSFT_SKIP : KSFT_PASS;
}

static void run_statement(const struct kst_stmt *st, long delay_ms)
{
	const char *want = pol >= 0 ? st->expect[pol] : NULL;
	char got[256];
	bool observed;

	kst_cur_line = st->line;
	if (delay_ms > 0)
		kst_nap_ms(delay_ms);
	kst_check_stop();
	if (st->check) {
		observed = kst_observe_check(st, got, sizeof(got));
	} else {
		struct res r = kst_step(st);
		struct view ignored;

		observed = r.kind != RES_SKIP;
		kst_render_result(st, r, got, sizeof(got));
		/* as nprocguard observes the actor after every statement (5.14's key) */
		if (kst_tasks[st->task].created && !kst_tasks[st->task].tainted)
			kst_view(st->task, &ignored);
	}
	if (want && !observed)
		kst_tap_skip(st, kst_skip_why);
	else if (want)
		kst_tap_result(strcmp(want, got) == 0, st, want, got);
	else if (observed)
		printf("# %d: %s => %s (%s expects nothing here)\n", st->line, st->text, got,
		       kst_sc->policies[pol]);
	else
		printf("# %d: %s: skipped: %s\n", st->line, st->text, kst_skip_why);
	fflush(stdout);
}

static int run(const struct kst_scenario *sc, int argc, char **argv);

/* Started as a puppet of this test: its socket is there (the test made it so) */
static bool is_puppet(void)
{
	struct stat st;

	return fstat(SOCK_FD, &st) == 0 && S_ISSOCK(st.st_mode);
}

/*
 * The test, and then its output: what it said but could not write (a full
 * disk, a closed pipe, a closed standard output) fails it, said on stderr,
 * whatever the test found -- a pass or a skip that nobody can read is not
 * kselftest's pass or skip.
 */
int kst_main(const struct kst_scenario *sc, int argc, char **argv)
{
	int rc, err = 0;

	if (argc == 2 && strcmp(argv[1], PUPPET_ARG) == 0 && is_puppet())
		kst_puppet_main(SOCK_FD);
	if (ensure_std_fds()) {
		fprintf(stderr, "%s: standard output is closed: the test's TAP would be lost\n",
			argv[0]);
		return KSFT_FAIL;
	}
	rc = run(sc, argc, argv);
	if (fflush(stdout) != 0)
		err = errno;
	if (!err && !ferror(stdout))
		return rc;
	/*
	 * A line buffer's failed write is not kept with its errno: the reason
	 * is asked of the descriptor again, with a blank line (TAP ignores one)
	 */
	if (!err && write(STDOUT_FILENO, "\n", 1) < 0)
		err = errno;
	fprintf(stderr, "%s: write error: %s\n", argv[0], err ? strerror(err) :
		"an earlier write to standard output failed");
	return KSFT_FAIL;
}

static int run(const struct kst_scenario *sc, int argc, char **argv)
{
	long timeout = DEFAULT_TIMEOUT_S, delay_ms = 0;
	struct utsname u;
	int plan = 0, rc;

	kst_sc = sc;
	if ((rc = take_arguments(argc, argv, &timeout, &delay_ms)) >= 0)
		return rc;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n# ");
	kst_put_safe(kst_sc->file);
	if (kst_sc->title) {
		printf(": ");
		kst_put_safe(kst_sc->title);
	}
	putchar('\n');
	if (kst_sc->source) {
		printf("# source: ");
		kst_put_safe(kst_sc->source);
		putchar('\n');
	}
	snprintf(release, sizeof(release), "%s", uname(&u) == 0 ? u.release : "unknown");
	if (kst_sc->fixed) {
		pol = 0;
		policy_of_release(release);	/* the era, for what /proc cannot tell on 5.14-5.16 */
		printf("# kernel %s; expectations of policy %s (exported with --policy)\n", release,
		       kst_sc->policies[0]);
	} else if ((pol = policy_of_release(release)) >= 0) {
		printf("# kernel %s; expectations of policy %s, this kernel's era\n", release,
		       kst_sc->policies[pol]);
	} else {
		printf("1..0 # SKIP no policy of nprocguard models kernel %s\n", release);
		return KSFT_SKIP;
	}
	if (!kst_sc->in_file[pol]) {
		printf("1..0 # SKIP the scenario's policies leave out %s: it expects nothing of "
		       "it\n", kst_sc->policies[pol]);
		return KSFT_SKIP;
	}
	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root: it makes processes of other users and sets their "
		       "credentials\n");
		return KSFT_SKIP;
	}
	if (!(kst_tasks = calloc((size_t)kst_sc->ntasks + 1, sizeof(*kst_tasks))) ||
	    !(kst_touched = calloc((size_t)kst_sc->nusers + 1, sizeof(*kst_touched))) ||
	    !(kst_counts = calloc((size_t)kst_sc->nusers + 1, sizeof(*kst_counts)))) {
		printf("Bail out! out of memory\n");
		return KSFT_FAIL;
	}
	for (int i = 0; i < kst_sc->ntasks; i++)
		kst_tasks[i].sock = kst_tasks[i].pidfd = -1;
	if (kst_probe_host() < 0) {
		printf("Bail out! cannot read this process's state from /proc: %s\n", strerror(errno));
		return KSFT_FAIL;
	}
	kst_bset = (kst_sc->has_bounding ? kst_sc->bounding : kst_host_bnd) & kst_host_bnd;
	catch_signals();
	alarm((unsigned)timeout);
	printf("# uids %u..%u; every process of the test is killed and reaped at its end\n",
	       kst_uid_base + 1, kst_uid_base + UID_WINDOW - 1);
	kst_claim_window();
	kst_check_capacity();
	/*
	 * Orphans come to us, as to init, so that we reap them at once.
	 * Before 3.4 there is no child subreaper (EINVAL): they go to init,
	 * and the end waits for the window to empty instead.
	 */
	kst_subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
	if ((kst_exe_fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)) < 0)
		kst_bail_out("opening /proc/self/exe: %s", strerror(errno));
	if (kst_sc->nfiles > 0)
		kst_make_execdir();
	kst_spawn_fillers();
	for (int i = 0; i < kst_sc->ntasks; i++)
		if (kst_sc->tasks[i].initial)
			kst_spawn_initial(i);
	kst_mark_touched();
	for (int s = 0; s < kst_sc->nstmts; s++)
		plan += kst_sc->stmts[s].expect[pol] != NULL;
	printf("1..%d\n", plan);
	for (int s = 0; s < kst_sc->nstmts; s++)
		run_statement(&kst_sc->stmts[s], delay_ms);
	kst_cur_line = 0;
	alarm(0);
	return finish();
}
