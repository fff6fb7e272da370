/* The end of conform's report, and a guest's shard of a run over several (conform_report.h) */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/conform_report.h"

/* the reasons of unreproducible statements listed in text, the rest summed */
#define REASONS_SHOWN 12

/* The unreproducible statements' reasons, most frequent first, the rest summed */
static void print_reasons(const struct npg_reasons *rs, int max)
{
	long rest = 0;

	if (rs->n == 0)
		return;
	printf("unreproducible here, by reason:\n");
	for (int i = 0; i < rs->n; i++) {
		if (i >= max) {
			rest += rs->r[i].statements;
			continue;
		}
		printf("  %ld statements in %ld scenarios: ", rs->r[i].statements, rs->r[i].scenarios);
		/* a reason may quote a file's names: no escape sequences */
		npg_safe_fputs(rs->r[i].reason, stdout);
		putchar('\n');
	}
	if (rest)
		printf("  %ld statements for %d other reasons\n", rest, rs->n - max);
}

void npg_conform_summary(struct npg_conform_totals *tot, const struct npg_conform_end *e)
{
	const struct npg_conform_stats *st = &tot->stats;
	const struct npg_expectation_stats *ex = &tot->expect;

	if (e->random_n > 0 && e->fmt == NPG_FORMAT_TEXT)
		printf("random: %ld scenarios (seed %llu) in %.1f s\n", e->random_n,
		       (unsigned long long)e->seed, e->seconds);
	npg_reasons_sort(&tot->reasons);
	if (e->fmt == NPG_FORMAT_JSON) {
		printf("\n  ],\n  \"summary\": {\"scenarios\": %d, \"statements\": %d, \"agree\": %d, "
		       "\"differ\": %d, \"unreproducible\": %d, \"unreproducible_reasons\": [",
		       tot->scenarios, st->statements, st->agree, st->differ, st->unreproducible);
		for (int i = 0; i < tot->reasons.n; i++) {
			printf("%s\n    {\"reason\": ", i ? "," : "");
			npg_json_string(stdout, tot->reasons.r[i].reason);
			printf(", \"statements\": %ld, \"scenarios\": %ld}", tot->reasons.r[i].statements,
			       tot->reasons.r[i].scenarios);
		}
		printf("], \"expectations\": %d, \"expectations_held\": %d, \"expectations_failed\": %d, "
		       "\"expectations_unchecked\": %d}\n}\n", ex->checked, ex->held, ex->failed,
		       ex->unchecked);
		return;
	}
	/* per statement they are told only without --quiet, and never for --random */
	if (e->random_n > 0 || e->quiet)
		print_reasons(&tot->reasons, REASONS_SHOWN);
	if (ex->checked || ex->unchecked)
		printf("expectations of the files: %d checked, %d held, %d failed, %d not "
		       "checked (another machine's: Yama, no_new_privs, root's count)\n",
		       ex->checked, ex->held, ex->failed, ex->unchecked);
	/* the policy and every rule that differs from its own: what was compared */
	printf("conform: %d scenarios, %d statements, %d differences, %d unreproducible here, "
	       "kernel %s, model %s\n", tot->scenarios, st->statements, st->differ,
	       st->unreproducible, e->release, e->spec);
}

int npg_conform_status(const struct npg_conform_totals *tot)
{
	if (tot->broken)
		return NPG_EXIT_USAGE;
	/* a scenario that did not run leaves the answer incomplete: that outranks a difference */
	if (tot->not_started)
		return NPG_EXIT_NOT_RUN;
	/* an expectation the kernel (or the model) contradicts fails the run, as in `run` */
	return tot->stats.differ || tot->expect.failed ? NPG_EXIT_FAILED : NPG_EXIT_OK;
}

/* --- a guest's shard --- */

int npg_shard_parse(struct npg_shard *sh, const char *cmd, const char *arg)
{
	int k, n, len = -1;

	if (sscanf(arg, "%d/%d%n", &k, &n, &len) != 2 || len < 0 || arg[len] || k < 0 || n < 1 ||
	    n > 1024 || k >= n || arg[0] < '0' || arg[0] > '9') {
		npg_bad_option(cmd, "--shard", arg, "K/N, 0 <= K < N <= 1024");
		return -1;
	}
	sh->k = k;
	sh->n = n;
	return 0;
}

bool npg_shard_mine(const struct npg_shard *sh, int i)
{
	return sh->n == 0 || i % sh->n == sh->k;
}

/* An unlinked temporary file */
static int scratch(void)
{
	const char *tmpdir = getenv("TMPDIR");
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/nprocguard-shard.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

int npg_shard_start(struct npg_shard *sh)
{
	fflush(stdout);
	fflush(stderr);
	for (int i = 0; i < 2; i++) {
		sh->saved[i] = fcntl(i + 1, F_DUPFD_CLOEXEC, 3);
		sh->cap[i] = scratch();
		if (sh->saved[i] < 0 || sh->cap[i] < 0 || dup2(sh->cap[i], i + 1) < 0) {
			fprintf(stderr, "nprocguard conform: --shard: %s\n", strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* Copy @len bytes of @from (from its start) to @to; the file emptied. 0 or -1. */
static int drain(int from, int to, off_t len)
{
	char buf[65536];

	if (lseek(from, 0, SEEK_SET) < 0)
		return -1;
	while (len > 0) {
		ssize_t n = read(from, buf, sizeof(buf));

		if (n <= 0)
			return -1;
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(to, buf + off, (size_t)(n - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return -1;
			off += w;
		}
		len -= n;
	}
	return ftruncate(from, 0) < 0 || lseek(from, 0, SEEK_SET) < 0 ? -1 : 0;
}

/* A frame's line and its bytes on the real stdout */
static int write_frame(struct npg_shard *sh, const char *kind, int index, const off_t len[2],
		       bool json)
{
	char line[160];
	int n = snprintf(line, sizeof(line), "npg-shard %s %d %lld %lld %d\n", kind, index,
			 (long long)len[0], (long long)len[1], json);

	if (write(sh->saved[0], line, (size_t)n) != n)
		return -1;
	for (int i = 0; i < 2; i++)
		if (drain(sh->cap[i], sh->saved[0], len[i]) < 0)
			return -1;
	return 0;
}

int npg_shard_frame(struct npg_shard *sh, const char *kind, int index, bool json)
{
	struct stat st[2];
	off_t len[2];

	fflush(stdout);
	fflush(stderr);
	for (int i = 0; i < 2; i++) {
		if (fstat(sh->cap[i], &st[i]) < 0)
			return -1;
		len[i] = st[i].st_size;
	}
	if (write_frame(sh, kind, index, len, json) < 0) {
		dprintf(sh->saved[1], "nprocguard conform: --shard: writing a frame: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

/* @s with backslash and newline escaped, on @f */
static void put_escaped(FILE *f, const char *s)
{
	for (; *s; s++)
		if (*s == '\\' || *s == '\n')
			fputs(*s == '\\' ? "\\\\" : "\\n", f);
		else
			fputc(*s, f);
}

static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++)
		if (*s == '\\' && s[1])
			*o++ = *++s == 'n' ? '\n' : *s;
		else
			*o++ = *s;
	*o = '\0';
}

int npg_shard_finish(struct npg_shard *sh, const struct npg_conform_totals *tot,
		     const char *release, const char *spec)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int ret = 0;

	/* what was printed after the last scenario (nothing, unless an error): one more frame */
	if (npg_shard_frame(sh, "trailer", -1, false) < 0)
		ret = -1;
	for (int i = 0; i < 2; i++) {
		dup2(sh->saved[i], i + 1);
		close(sh->saved[i]);
		close(sh->cap[i]);
	}
	if (!(f = open_memstream(&buf, &len)))
		return -1;
	fprintf(f, "scenarios %d\nstats %d %d %d %d\nexpect %d %d %d %d\nflags %d %d %d\n",
		tot->scenarios, tot->stats.statements, tot->stats.agree, tot->stats.differ,
		tot->stats.unreproducible, tot->expect.checked, tot->expect.held, tot->expect.failed,
		tot->expect.unchecked, tot->broken, tot->not_started, tot->stopped);
	fputs("release ", f);
	put_escaped(f, release);
	fputs("\nspec ", f);
	put_escaped(f, spec);
	fputc('\n', f);
	for (int i = 0; i < tot->reasons.n; i++) {
		fprintf(f, "reason %ld %ld ", tot->reasons.r[i].statements, tot->reasons.r[i].scenarios);
		put_escaped(f, tot->reasons.r[i].reason);
		fputc('\n', f);
	}
	if (fclose(f) != 0) {
		free(buf);
		return -1;
	}
	printf("npg-shard totals -1 %zu 0 0\n", len);
	fwrite(buf, 1, len, stdout);
	free(buf);
	return fflush(stdout) != 0 ? -1 : ret;
}

int npg_conform_totals_read(const char *buf, size_t len, struct npg_conform_totals *tot,
			    char *release, size_t rlen, char *spec, size_t slen)
{
	char *text = strndup(buf, len), *save = NULL, *line;
	struct npg_conform_totals t = { 0 };
	int broken = 0, not_started = 0, stopped = 0, seen = 0, ret = 0;

	if (!text)
		return -1;
	for (line = strtok_r(text, "\n", &save); line && ret == 0;
	     line = strtok_r(NULL, "\n", &save)) {
		long st, sc;
		int n = -1;

		if (sscanf(line, "scenarios %d", &t.scenarios) == 1) {
			seen |= 1;
		} else if (sscanf(line, "stats %d %d %d %d", &t.stats.statements, &t.stats.agree,
				  &t.stats.differ, &t.stats.unreproducible) == 4) {
			seen |= 2;
		} else if (sscanf(line, "expect %d %d %d %d", &t.expect.checked, &t.expect.held,
				  &t.expect.failed, &t.expect.unchecked) == 4) {
			seen |= 4;
		} else if (sscanf(line, "flags %d %d %d", &broken, &not_started, &stopped) == 3) {
			seen |= 8;
		} else if (strncmp(line, "release ", 8) == 0) {
			unescape(line + 8);
			if (!*release)
				snprintf(release, rlen, "%s", line + 8);
		} else if (strncmp(line, "spec ", 5) == 0) {
			unescape(line + 5);
			if (!*spec)
				snprintf(spec, slen, "%s", line + 5);
		} else if (sscanf(line, "reason %ld %ld %n", &st, &sc, &n) == 2 && n > 0) {
			unescape(line + n);
			if (npg_reasons_merge(&tot->reasons, line + n, st, sc) < 0)
				ret = -1;
		} else {
			ret = -1;
		}
	}
	free(text);
	if (ret < 0 || seen != 15)
		return -1;
	tot->scenarios += t.scenarios;
	tot->stats.statements += t.stats.statements;
	tot->stats.agree += t.stats.agree;
	tot->stats.differ += t.stats.differ;
	tot->stats.unreproducible += t.stats.unreproducible;
	tot->expect.checked += t.expect.checked;
	tot->expect.held += t.expect.held;
	tot->expect.failed += t.expect.failed;
	tot->expect.unchecked += t.expect.unchecked;
	tot->broken |= broken != 0;
	tot->not_started |= not_started != 0;
	tot->stopped |= stopped != 0;
	return 0;
}
