/* Running `compare --record` on a kernel: under QEMU, or here in a child process. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/capability.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compare/side.h"
#include "runner/random.h"

#define ARGV_MAX 1024	/* what the guest's /init takes */
#define NPG_GUEST_SHARDS_MAX 64	/* NPG_JOBS_MAX: guests at once */

int npg_side_open(struct npg_side *s, const char *arg, const char *cmd)
{
	memset(s, 0, sizeof(*s));
	if (strcmp(arg, "host") == 0) {
		struct utsname u;

		if (uname(&u) < 0) {
			fprintf(stderr, "nprocguard %s: uname: %s\n", cmd, strerror(errno));
			return -1;
		}
		snprintf(s->release, sizeof(s->release), "%s", u.release);
		snprintf(s->version, sizeof(s->version), "%s", u.version);
	} else {
		char why[512];

		/* the argument as given: it is no option's value */
		if (npg_image_check(arg, why, sizeof(why)) < 0) {
			fprintf(stderr, "nprocguard %s: %s: %s (a KERNEL is 'host' or a kernel "
				"image)\n", cmd, arg[0] ? arg : "''", why);
			return -1;
		}
		if (npg_image_release(arg, s->release, sizeof(s->release), s->version,
				      sizeof(s->version)) < 0) {
			fprintf(stderr, "nprocguard %s: %s: not an x86 kernel image (no setup header "
				"with a kernel version)\n", cmd, arg);
			return -1;
		}
		s->image = arg;
	}
	snprintf(s->name, sizeof(s->name), "%s", s->release);
	s->has_rel = npg_release_parse(&s->rel, s->release, s->version) == 0;
	return 0;
}

/* One side's run, or a shard of it */
struct job {
	struct npg_side *side;
	const struct npg_guest_opts *g;
	char *argv[ARGV_MAX];	/* "nprocguard compare --record [--shard=K/N] ..." */
	int argc;
	char *const *files;
	int nfiles;
	int ret;
	char shard[40];
	struct npg_record rec;
};

/* This machine's side: this binary in a child process, its stdout to @fd */
static int run_here(struct job *j, int fd)
{
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int st, sent = 0;
	pid_t pid;

	if (len < 0) {
		fprintf(stderr, "nprocguard compare: cannot find this binary: %s\n", strerror(errno));
		return -1;
	}
	exe[len] = '\0';
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "nprocguard compare: fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		dup2(fd, 1);
		execv(exe, (char **)j->argv);
		_exit(127);
	}
	/* a signal we hold back (npg_guest_catch_signals()) goes on to it */
	while (waitpid(pid, &st, 0) < 0) {
		int sig = npg_guest_pending_signal();

		if (errno != EINTR)
			return -1;
		if (sig && !sent++)
			kill(pid, sig);
	}
	if (npg_guest_pending_signal())
		return -1;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "nprocguard compare: %s: the run here %s %d\n", j->side->name,
			WIFEXITED(st) ? "exited with status" : "was killed by signal",
			WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		return -1;
	}
	return 0;
}

static int run_guest(struct job *j, int fd)
{
	char exe[PATH_MAX], cwd[PATH_MAX];
	struct npg_initramfs_spec spec;
	struct npg_guest_opts g = *j->g;
	struct npg_guest_result res;

	if (npg_guest_self(&spec, exe, sizeof(exe), cwd, sizeof(cwd), "compare") < 0)
		return -1;
	spec.argv = j->argv;
	spec.argc = j->argc;
	spec.files = (char **)j->files;
	spec.nfiles = j->nfiles;
	g.kernel = j->side->image;
	if (npg_guest_boot(&g, &spec, fd, 2, "compare", &res) < 0)
		return -1;
	if (res.out_errno) {
		fprintf(stderr, "nprocguard compare: %s: its record could not be written: %s\n",
			j->side->name, strerror(res.out_errno));
		return -1;
	}
	if (res.signal || res.exit_status != 0) {
		fprintf(stderr, "nprocguard compare: %s: the run in the guest %s %d\n", j->side->name,
			res.signal ? "was killed by signal" : "exited with status",
			res.signal ? res.signal : res.exit_status);
		return -1;
	}
	return 0;
}

static void *run_job(void *arg)
{
	struct job *j = arg;
	char path[PATH_MAX], err[256];
	const char *tmpdir = getenv("TMPDIR");
	int fd;
	FILE *f;

	j->ret = -1;
	snprintf(path, sizeof(path), "%s/nprocguard-record.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "nprocguard compare: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	unlink(path);	/* ours alone, and gone whatever happens */
	if ((j->side->image ? run_guest(j, fd) : run_here(j, fd)) < 0) {
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f || fseek(f, 0, SEEK_SET) < 0) {
		fprintf(stderr, "nprocguard compare: %s: reading its record: %s\n", j->side->name,
			strerror(errno));
		if (f)
			fclose(f);
		else
			close(fd);
		return NULL;
	}
	if (npg_record_read(f, &j->rec, err, sizeof(err)) < 0)
		fprintf(stderr, "nprocguard compare: %s: its record, line %s\n", j->side->name, err);
	else if (!j->rec.complete)
		fprintf(stderr, "nprocguard compare: %s: its record stops after %d scenarios\n",
			j->side->name, j->rec.nscen);
	else
		j->ret = 0;
	fclose(f);
	return NULL;
}

/* The scenarios of @args (--random N) or @nfiles files */
static int scenario_count(char *const *args, int nargs, int nfiles)
{
	for (int i = 0; i + 1 < nargs; i++)
		if (strcmp(args[i], "--random") == 0)
			return atoi(args[i + 1]);
	return nfiles;
}

int npg_sides_run(struct npg_side *sides, int nsides, int jobs, const struct npg_guest_opts *g,
		  char *const *args, int nargs, char *const *files, int nfiles, uint32_t uid_base)
{
	char *argv[ARGV_MAX], base[16], bounding[24], err[256];
	struct job *job;
	pthread_t *th;
	int argc = 0, ret = 0, nimage = 0, shards, njobs = 0, at, nscen;
	bool here = false;
	uint64_t bset = 0;

	if (nsides > 2 || nargs + nfiles > ARGV_MAX - 10) {
		fprintf(stderr, "nprocguard compare: more than %d scenario files at once\n",
			ARGV_MAX - 10 - nargs);
		return -1;
	}
	snprintf(base, sizeof(base), "%u", uid_base);
	argv[argc++] = "nprocguard";
	argv[argc++] = "compare";
	argv[argc++] = "--record";
	argv[argc++] = "--uid-base";
	argv[argc++] = base;
	/*
	 * This machine's bounding set for both: a guest's root has every
	 * capability, ours may not (CAP_SYS_RESOURCE here), and every step's
	 * capability sets would differ by the machines alone
	 */
	for (int i = 0; i < nsides; i++) {
		here |= !sides[i].image;
		nimage += sides[i].image != NULL;
	}
	for (int cap = 0; here && cap < 64; cap++)
		if (cap_get_bound((cap_value_t)cap) > 0)
			bset |= 1ull << cap;
	if (here) {
		snprintf(bounding, sizeof(bounding), "%" PRIx64, bset);
		argv[argc++] = "--bounding";
		argv[argc++] = bounding;
	}
	for (int i = 0; i < nargs; i++)
		argv[argc++] = args[i];
	/*
	 * @jobs guests at once: each kernel image's scenarios in as many
	 * shards as the guests left for it (scenario I in shard I mod S); this
	 * machine's side in one run
	 */
	nscen = scenario_count(args, nargs, nfiles);
	/* two runs here would share one uid window: one after the other */
	if (nimage == 0)
		jobs = 1;
	shards = nimage ? jobs / nimage : 1;
	if (shards > nscen)
		shards = nscen;
	if (shards < 1)
		shards = 1;
	job = calloc((size_t)nsides * (size_t)shards, sizeof(*job));
	th = calloc((size_t)nsides * (size_t)shards, sizeof(*th));
	if (!job || !th) {
		fprintf(stderr, "nprocguard compare: out of memory\n");
		free(job), free(th);
		return -1;
	}
	for (int i = 0; i < nsides; i++) {
		int n = sides[i].image ? shards : 1;

		npg_record_free(&sides[i].rec);
		for (int k = 0; k < n; k++) {
			struct job *j = &job[njobs++];
			int c = argc;

			*j = (struct job){ .side = &sides[i], .g = g, .files = files, .nfiles = nfiles,
					   .ret = -1 };
			memcpy(j->argv, argv, (size_t)argc * sizeof(char *));
			if (n > 1) {
				snprintf(j->shard, sizeof(j->shard), "--shard=%d/%d", k, n);
				j->argv[c++] = j->shard;
			}
			j->argv[c++] = "--";
			for (int f = 0; f < nfiles; f++)
				j->argv[c++] = files[f];
			j->argv[c] = NULL;
			j->argc = c;
		}
	}
	/* @jobs at a time: each guest takes a host core under TCG */
	for (at = 0; at < njobs && !npg_guest_pending_signal(); at += jobs) {
		bool *on = calloc((size_t)jobs, sizeof(*on));

		for (int k = at; k < njobs && k < at + jobs; k++) {
			if (jobs == 1 || !on || pthread_create(&th[k], NULL, run_job, &job[k]) != 0)
				run_job(&job[k]);
			else
				on[k - at] = true;
		}
		for (int k = at; on && k < njobs && k < at + jobs; k++)
			if (on[k - at])
				pthread_join(th[k], NULL);
		free(on);
	}
	/* each side's record: its shards' put together */
	for (int i = 0, k = 0; i < nsides; i++) {
		int n = sides[i].image ? shards : 1;
		struct npg_record parts[NPG_GUEST_SHARDS_MAX];
		bool ok = true;

		for (int s = 0; s < n; s++) {
			ok &= job[k + s].ret == 0;
			parts[s] = job[k + s].rec;
		}
		if (!ok) {
			ret = -1;
		} else if (npg_record_merge(&sides[i].rec, parts, n, err, sizeof(err)) < 0) {
			fprintf(stderr, "nprocguard compare: %s: its record: %s\n", sides[i].name, err);
			ret = -1;
		}
		for (int s = 0; s < n; s++)
			npg_record_free(&parts[s]);
		k += n;
	}
	free(job);
	free(th);
	return npg_guest_pending_signal() ? -1 : ret;
}

static unsigned flags_of(const struct npg_side *s)
{
	const struct npg_release *r = &s->rel;

	if (!s->has_rel || r->major > 3 || (r->major == 3 && r->minor >= 8))
		return 0;
	/* 2.6.39's clone(CLONE_NEWUSER) up to 3.7 */
	if (r->major == 3 || (r->major == 2 && r->minor == 6 && r->patch >= 39))
		return NPG_RANDOM_USERNS_2_6_39;
	return NPG_RANDOM_NO_USERNS;
}

unsigned npg_sides_random_flags(const struct npg_side *sides, int nsides)
{
	unsigned flags = 0;

	for (int i = 0; i < nsides; i++) {
		unsigned f = flags_of(&sides[i]);

		if (f == NPG_RANDOM_NO_USERNS || flags == NPG_RANDOM_NO_USERNS)
			flags = NPG_RANDOM_NO_USERNS;
		else
			flags |= f;
	}
	return flags;
}

void npg_side_free(struct npg_side *s)
{
	npg_record_free(&s->rec);
}
