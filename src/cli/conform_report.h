/*
 * The end of conform's report -- its totals, the lines that sum them up,
 * its exit status -- written by one printer whether the scenarios ran in
 * one process or in several guests at once (conform --kernel --jobs N).
 *
 * Over several guests, each runs the scenarios of its shard (the hidden
 * option --shard K/N: scenario I is shard I mod N's) and writes, instead of
 * its report, frames that the host puts back in scenario order
 * (conform_jobs.c): what conform printed, byte for byte, cut where each
 * scenario ends. One frame:
 *
 *   npg-shard KIND INDEX OUT ERR JSON\n  then OUT bytes of its stdout, ERR of its stderr
 *
 * KIND is "header" (what was printed before the first scenario), "scenario"
 * (INDEX: the scenario's place in the whole run; JSON 1: the bytes are one
 * object of the "scenarios" array, written without the comma before it),
 * "trailer" (what was printed after the last one: an error, if anything)
 * and last "totals" (the shard's totals as text lines, OUT bytes of them:
 * npg_conform_totals_read()).
 */
#ifndef NPG_CLI_CONFORM_REPORT_H
#define NPG_CLI_CONFORM_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/report.h"
#include "runner/conform.h"
#include "runner/reasons.h"

/* The file's own expectations (`=> ...`), checked on both sides, as `run` does */
struct npg_expectation_stats {
	int checked, held, failed;
	int unchecked;		/* decided by a machine the file does not describe */
};

struct npg_conform_totals {
	int scenarios;
	struct npg_conform_stats stats;
	struct npg_expectation_stats expect;
	bool broken;		/* an internal error: exit 2 */
	bool not_started;	/* a scenario could not start: exit 3 */
	bool stopped;		/* out of memory or stdout failed: no point going on */
	bool first_json;
	int json_objects;	/* scenarios written as JSON objects */
	struct npg_reasons reasons;	/* why statements were unreproducible */
	int attempted;		/* scenarios given to conform_one(), for the tally */
};

/* What the summary says besides the totals */
struct npg_conform_end {
	enum npg_format fmt;
	bool quiet;
	long random_n;		/* --random N, or -1 */
	uint64_t seed;
	double seconds;		/* --random's run */
	const char *release;	/* the kernel's */
	const char *spec;	/* the model's policy and rules, as --model takes them */
};

/* The lines after the scenarios (reasons sorted first); stdout */
void npg_conform_summary(struct npg_conform_totals *tot, const struct npg_conform_end *e);
/* conform's exit status for @tot */
int npg_conform_status(const struct npg_conform_totals *tot);

/* --- a guest's shard --- */
struct npg_shard {
	int k, n;		/* shard K of N; n 0: not a shard */
	int saved[2];		/* the real stdout and stderr */
	int cap[2];		/* what is printed meanwhile: two unlinked files */
};

/* "K/N", 0 <= K < N <= 1024: 0, or -1 (said as @cmd's bad option) */
int npg_shard_parse(struct npg_shard *sh, const char *cmd, const char *arg);
/* Is scenario @i this shard's? (every one when not a shard) */
bool npg_shard_mine(const struct npg_shard *sh, int i);
/* From now on stdout and stderr are captured. 0, or -1 (said). */
int npg_shard_start(struct npg_shard *sh);
/* What was captured since, as a frame of @kind; capturing goes on. 0, or -1. */
int npg_shard_frame(struct npg_shard *sh, const char *kind, int index, bool json);
/* The end: stdout and stderr back, the totals frame written. 0, or -1. */
int npg_shard_finish(struct npg_shard *sh, const struct npg_conform_totals *tot,
		     const char *release, const char *spec);

/*
 * The totals frame's text @buf[0..len) added to @tot, its release and
 * spec into @release and @spec (from the first shard that has them). 0, or
 * -1 when it is not one (or out of memory).
 */
int npg_conform_totals_read(const char *buf, size_t len, struct npg_conform_totals *tot,
			    char *release, size_t rlen, char *spec, size_t slen);

/* --- the host: several guests at once (conform_jobs.c) --- */
struct npg_guest_opts;
/*
 * conform --kernel in @n guests at once: @argv as conform_in_guest() gives
 * it one guest (options before @optind_, then the files), @nscen scenarios
 * (files, or --random's). The report on stdout, conform's exit status.
 */
int npg_conform_jobs(const struct npg_guest_opts *g, int n, int argc, char **argv, int optind_,
		     int nscen, const struct npg_conform_end *end);

#endif
