/*
 * conform --kernel --jobs N: N guests at once, each running its shard of
 * the scenarios (conform --shard K/N: scenario I is shard I mod N's, so
 * --random's scenarios are generated in each guest from the same seed and
 * index), their frames (conform_report.h) put back in scenario order here
 * and printed as they complete -- the bytes one guest would have printed,
 * shrunk scenarios included -- then the one summary of the merged totals.
 *
 * Under --accel auto, the first guest alone tries KVM; the others start
 * when it has spoken (under KVM) or KVM has failed (under TCG). A guest
 * that gives no result stops the others: the report so far is printed,
 * and where it stops is said.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/conform_report.h"
#include "guest/guest.h"

#define GUEST_MEMORY_NEED ((NPG_GUEST_MEMORY_MB + 128) * 1024L)	/* kB: the guest and QEMU */
#define FRAME_LINE_MAX 160

int npg_default_jobs(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN), avail = -1;
	char line[256];
	FILE *f = fopen("/proc/meminfo", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &avail) == 1)
			break;
	if (f)
		fclose(f);
	if (cpus < 1)
		cpus = 1;
	if (avail > 0 && cpus > avail / GUEST_MEMORY_NEED)
		cpus = avail / GUEST_MEMORY_NEED;
	return cpus < 1 ? 1 : cpus > NPG_JOBS_MAX ? NPG_JOBS_MAX : (int)cpus;
}

/* One scenario's bytes, from the frame of the shard that ran it */
struct slot {
	char *bytes;		/* its stdout, then its stderr */
	size_t out, err;
	bool have, json;
};

struct shard_run {
	int k;
	struct npg_guest_opts g;
	struct npg_guest_cmd *gc;
	char **argv;
	char arg[40];		/* --shard=K/N */
	int fd[2];		/* its guest's stdout: the frames */
	pthread_t th;
	bool started, eof, totals, bad;
	int ret;		/* npg_guest_boot()'s */
	struct npg_guest_result res;
	char *buf;		/* frames read, not yet whole */
	size_t len, cap;
	char *trailer;		/* what it printed after its last scenario */
	size_t trailer_out, trailer_err;
};

struct jobs {
	int n, nscen, next;
	struct shard_run *s;
	struct slot *slot;
	bool header, json;
	int objects;
	struct npg_conform_totals tot;
	char release[128], spec[1024];
	int accel[2];		/* the first guest's choice under --accel auto */
	int cancel[2];		/* written to stop every guest */
	bool cancelled;
	int culprit;		/* the guest whose failure stopped the others, or -1 */
};

static void *shard_thread(void *arg)
{
	struct shard_run *s = arg;

	s->ret = npg_guest_boot(&s->g, &s->gc->spec, s->fd[1], 2, "conform", &s->res);
	close(s->fd[1]);	/* the end of its frames */
	s->fd[1] = -1;
	return NULL;
}

/* @out bytes to stdout, @err to stderr, in that order */
static void print_bytes(const char *p, size_t out, size_t err)
{
	/* stdout's error is told at exit (closeout) */
	fwrite(p, 1, out, stdout);
	fflush(stdout);
	fwrite(p + out, 1, err, stderr);
}

/* The scenarios whose turn it is */
static void flush_in_order(struct jobs *j)
{
	while (j->header && j->next < j->nscen && j->slot[j->next].have) {
		struct slot *sl = &j->slot[j->next++];

		if (sl->json && j->objects++ > 0)
			fputc(',', stdout);
		print_bytes(sl->bytes, sl->out, sl->err);
		free(sl->bytes);
		sl->bytes = NULL;
	}
}

static void shard_bad(struct jobs *j, struct shard_run *s, const char *why)
{
	char text[NPG_OPTION_TEXT];

	if (!s->bad)
		fprintf(stderr, "nprocguard conform: guest %d of %d: not a shard's frames: %s\n",
			s->k + 1, j->n, npg_option_text(why, strlen(why), text, sizeof(text)));
	s->bad = true;
}

/* One whole frame: its line @kind/@index and @out + @err bytes at @p */
static void frame(struct jobs *j, struct shard_run *s, const char *kind, int index, char *p,
		  size_t out, size_t err, bool json)
{
	if (strcmp(kind, "header") == 0) {
		/* every guest prints it; the first one's is the report's */
		if (s->k == 0 && !j->header) {
			print_bytes(p, out, err);
			j->header = true;
		}
	} else if (strcmp(kind, "scenario") == 0) {
		struct slot *sl;

		if (index < 0 || index >= j->nscen || index % j->n != s->k || j->slot[index].have) {
			shard_bad(j, s, "a scenario out of its shard");
			return;
		}
		sl = &j->slot[index];
		if (!(sl->bytes = malloc(out + err + 1))) {
			shard_bad(j, s, "out of memory");
			return;
		}
		memcpy(sl->bytes, p, out + err);
		*sl = (struct slot){ sl->bytes, out, err, true, json };
	} else if (strcmp(kind, "trailer") == 0 && !s->trailer) {
		if ((s->trailer = malloc(out + err + 1)))
			memcpy(s->trailer, p, out + err);
		s->trailer_out = s->trailer ? out : 0;
		s->trailer_err = s->trailer ? err : 0;
	} else if (strcmp(kind, "totals") == 0 && !s->totals) {
		if (npg_conform_totals_read(p, out, &j->tot, j->release, sizeof(j->release), j->spec,
					    sizeof(j->spec)) < 0)
			shard_bad(j, s, "its totals do not read");
		else
			s->totals = true;
	} else {
		shard_bad(j, s, kind);
	}
	flush_in_order(j);
}

/* The whole frames in @s->buf, consumed */
static void frames(struct jobs *j, struct shard_run *s)
{
	size_t at = 0;

	while (!s->bad && at < s->len) {
		char *nl = memchr(s->buf + at, '\n', s->len - at), kind[16], line[FRAME_LINE_MAX];
		size_t out, err, linelen;
		int index, json, n = -1;

		if (!nl) {
			if (s->len - at >= FRAME_LINE_MAX)
				shard_bad(j, s, "a line too long");
			break;
		}
		linelen = (size_t)(nl - (s->buf + at));
		if (linelen >= sizeof(line)) {
			shard_bad(j, s, "a line too long");
			break;
		}
		memcpy(line, s->buf + at, linelen);
		line[linelen] = '\0';
		if (sscanf(line, "npg-shard %15s %d %zu %zu %d%n", kind, &index, &out, &err, &json,
			   &n) != 5 || n != (int)linelen || out > SIZE_MAX / 2 || err > SIZE_MAX / 2) {
			shard_bad(j, s, line);
			break;
		}
		if (s->len - at - linelen - 1 < out + err)
			break;	/* its bytes are still to come */
		frame(j, s, kind, index, nl + 1, out, err, json != 0);
		at += linelen + 1 + out + err;
	}
	memmove(s->buf, s->buf + at, s->len - at);
	s->len -= at;
}

static void cancel_all(struct jobs *j)
{
	char c = 1;

	if (!j->cancelled && write(j->cancel[1], &c, 1) == 1)
		j->cancelled = true;
}

/* Read what guest @s sent; at its end, its thread is joined */
static void pump(struct jobs *j, struct shard_run *s)
{
	ssize_t n;

	if (s->cap - s->len < 65536) {
		char *b = realloc(s->buf, s->cap + 65536 * 2);

		if (!b) {
			shard_bad(j, s, "out of memory");
			s->len = 0;	/* what it sends is dropped from now on */
		} else {
			s->buf = b;
			s->cap += 65536 * 2;
		}
	}
	n = read(s->fd[0], s->buf + s->len, s->cap - s->len);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n > 0) {
		s->len += (size_t)n;
		if (!s->bad)
			frames(j, s);
		/* frames we cannot read: that guest, and so the run, is stopped; read on to its end */
		if (s->bad) {
			s->len = 0;
			if (!j->cancelled)
				j->culprit = s->k;
			cancel_all(j);
		}
		return;
	}
	s->eof = true;
	pthread_join(s->th, NULL);
	if (s->len > 0 && !s->bad)
		shard_bad(j, s, "a frame cut short");
	/* a guest without its totals gave no result: the others are stopped */
	if (s->ret < 0 || !s->totals || s->bad) {
		if (!j->cancelled)
			j->culprit = s->k;
		cancel_all(j);
	}
}

static int start(struct jobs *j, struct shard_run *s, const char *accel)
{
	if (pipe2(s->fd, O_CLOEXEC) < 0) {
		fprintf(stderr, "nprocguard conform: pipe: %s\n", strerror(errno));
		return -1;
	}
	s->g.accel = accel;
	s->g.cancel_fd = j->cancel[0];
	s->g.quiet_stop = true;
	if (pthread_create(&s->th, NULL, shard_thread, s) != 0) {
		fprintf(stderr, "nprocguard conform: cannot start a thread for guest %d\n", s->k + 1);
		close(s->fd[0]), close(s->fd[1]);
		return -1;
	}
	s->started = true;
	return 0;
}

/* The guests' argument vectors: ours with --shard=K/N among the options */
static int prepare(struct jobs *j, const struct npg_guest_opts *g, int argc, char **argv,
		   int optind_)
{
	for (int k = 0; k < j->n; k++) {
		struct shard_run *s = &j->s[k];
		int rc;

		s->k = k;
		s->fd[0] = s->fd[1] = -1;
		s->g = *g;
		s->argv = calloc((size_t)argc + 2, sizeof(char *));
		s->gc = malloc(sizeof(*s->gc));
		if (!s->argv || !s->gc) {
			fprintf(stderr, "nprocguard conform: out of memory\n");
			return NPG_GUEST_NO_RESULT;
		}
		snprintf(s->arg, sizeof(s->arg), "--shard=%d/%d", k, j->n);
		memcpy(s->argv, argv, (size_t)optind_ * sizeof(char *));
		s->argv[optind_] = s->arg;
		memcpy(s->argv + optind_ + 1, argv + optind_, (size_t)(argc - optind_) * sizeof(char *));
		if ((rc = npg_guest_cmd_init(s->gc, &s->g, "conform", argc + 1, s->argv, optind_ + 1)))
			return rc;
	}
	return 0;
}

/* Poll the guests' frames (and the first one's choice of accelerator) until all have ended */
static void run(struct jobs *j, const char *accel)
{
	bool waiting = strcmp(accel, "auto") == 0;	/* for the first guest's choice */
	int running;

	if (start(j, &j->s[0], accel) < 0)
		return;
	for (int k = 1; !waiting && k < j->n; k++)
		if (start(j, &j->s[k], accel) < 0)
			break;
	do {
		struct pollfd p[NPG_JOBS_MAX + 1];
		int map[NPG_JOBS_MAX + 1], np = 0;

		for (int k = 0; k < j->n; k++)
			if (j->s[k].started && !j->s[k].eof)
				p[np] = (struct pollfd){ .fd = j->s[k].fd[0], .events = POLLIN },
				map[np++] = k;
		if (waiting)
			p[np] = (struct pollfd){ .fd = j->accel[0], .events = POLLIN }, map[np++] = -1;
		if (poll(p, (nfds_t)np, 1000) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < np; i++) {
			char line[16] = "";
			ssize_t n;

			if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (map[i] >= 0) {
				pump(j, &j->s[map[i]]);
				continue;
			}
			/* "kvm" or "tcg": the others start under it */
			n = read(j->accel[0], line, sizeof(line) - 1);
			if (n <= 0)
				continue;
			line[n] = '\0';
			line[strcspn(line, "\n")] = '\0';
			waiting = false;
			for (int k = 1; k < j->n && !j->cancelled && !npg_guest_pending_signal(); k++)
				if (start(j, &j->s[k], strcmp(line, "kvm") == 0 ? "kvm" : "tcg") < 0)
					break;
		}
		running = 0;
		for (int k = 0; k < j->n; k++)
			running += j->s[k].started && !j->s[k].eof;
	} while (running > 0);
}

int npg_conform_jobs(const struct npg_guest_opts *g, int n, int argc, char **argv, int optind_,
		     int nscen, const struct npg_conform_end *end)
{
	struct jobs j = { .n = n, .nscen = nscen, .json = end->fmt == NPG_FORMAT_JSON,
			  .accel = { -1, -1 }, .cancel = { -1, -1 }, .culprit = -1 };
	struct npg_conform_end e = *end;
	struct timespec t0, t1;
	const char *accel;
	bool whole, lost = false;
	int ret = NPG_GUEST_NO_RESULT, rc;

	if (npg_guest_check_image(g->kernel, "conform", "--kernel") < 0)
		return NPG_EXIT_USAGE;
	j.s = calloc((size_t)n, sizeof(*j.s));
	j.slot = calloc((size_t)nscen, sizeof(*j.slot));
	if (!j.s || !j.slot || pipe2(j.accel, O_CLOEXEC) < 0 || pipe2(j.cancel, O_CLOEXEC) < 0) {
		fprintf(stderr, "nprocguard conform: %s\n", strerror(errno ? errno : ENOMEM));
		goto out;
	}
	if ((rc = prepare(&j, g, argc, argv, optind_)) != 0) {
		ret = rc;
		goto out;
	}
	/* said once for all the guests; the first one tries KVM */
	accel = npg_guest_accel(g, "conform");
	j.s[0].g.accel_fd = j.accel[1];
	npg_guest_catch_signals();
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	run(&j, accel);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	e.seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	whole = j.next == nscen && j.header;
	for (int k = 0; k < n; k++) {
		whole &= j.s[k].totals && j.s[k].ret == 0;
		lost |= j.s[k].res.lost_files;
	}
	if (whole) {
		for (int k = 0; k < n; k++)
			if (j.s[k].trailer)
				print_bytes(j.s[k].trailer, j.s[k].trailer_out, j.s[k].trailer_err);
		e.release = j.release;
		e.spec = j.spec;
		npg_conform_summary(&j.tot, &e);
		ret = npg_conform_status(&j.tot);
	} else if (npg_guest_pending_signal()) {
		fprintf(stderr, "nprocguard conform: interrupted: the guests were stopped\n");
	} else {
		int k = j.culprit;

		fprintf(stderr, "nprocguard conform: the report stops before scenario %d of %d: ",
			j.next + 1, nscen);
		if (k < 0)
			fprintf(stderr, "a guest stopped early (said above)\n");
		else if (j.s[k].ret == 0 && !j.s[k].bad)
			fprintf(stderr, "guest %d of %d ended (its conform's exit status %d) "
				"without its totals\n", k + 1, n, j.s[k].res.exit_status);
		else
			fprintf(stderr, "guest %d of %d gave no result\n", k + 1, n);
	}
	/* a shrunk scenario lost here is lost output, as a write error */
	if (lost && ret != NPG_GUEST_NO_RESULT)
		ret = NPG_EXIT_USAGE;
	npg_guest_release_signals();
out:
	for (int k = 0; j.s && k < n; k++) {
		if (j.s[k].fd[0] >= 0)
			close(j.s[k].fd[0]);
		free(j.s[k].argv);
		free(j.s[k].gc);
		free(j.s[k].buf);
		free(j.s[k].trailer);
	}
	for (int i = 0; j.slot && i < nscen; i++)
		free(j.slot[i].bytes);
	for (int i = 0; i < 2; i++) {
		if (j.accel[i] >= 0)
			close(j.accel[i]);
		if (j.cancel[i] >= 0)
			close(j.cancel[i]);
	}
	npg_reasons_free(&j.tot.reasons);
	free(j.s);
	free(j.slot);
	return ret;
}
