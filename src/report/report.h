/*
 * Reports of a run: text (trace or side-by-side table), JSON, TAP. They
 * are sinks of the runner: JSON and TAP are written statement by statement
 * as the run goes, one fwrite() each; the text table keeps one compact row
 * of cell strings per statement (a column is as wide as its widest cell,
 * known only when the run ends: table.h) and is printed when the run ends.
 */
#ifndef NPG_REPORT_REPORT_H
#define NPG_REPORT_REPORT_H

#include <stdio.h>

#include "report/buf.h"
#include "report/progress.h"
#include "runner/run.h"

enum npg_format { NPG_FORMAT_TEXT, NPG_FORMAT_JSON, NPG_FORMAT_TAP };

int npg_format_parse(const char *name, enum npg_format *out);

/* Returned by a report's sink to stop a run */
#define NPG_REPORT_WRITE_ERROR 1
#define NPG_REPORT_NO_MEMORY 2

struct npg_text;
struct npg_json;

struct npg_report {
	FILE *out;		/* the report */
	FILE *err;		/* "file:line: column: expected X, got Y" lines */
	enum npg_format fmt;
	struct npg_progress *progress;	/* may be NULL */
	int tap_number;		/* TAP numbering continues across runs */
	bool json_started;	/* a run is already in the JSON document */
	struct npg_buf buf;	/* TAP and JSON: the statement being written */
	struct npg_buf scratch;	/* TAP: what its lines share */
	struct npg_json *json;	/* JSON: the run's keys, encoded once */
	/* text: the table being filled, and the mismatch lines held back
	 * until it is printed (so they follow it, as they did) */
	struct npg_text *text;
	FILE *held;
	char *held_buf;
	size_t held_len;
	bool no_memory;
	int write_errno;	/* why the report could not be written, when it was seen */
};

/* Set @r up for @fmt */
void npg_report_init(struct npg_report *r, enum npg_format fmt, FILE *out, FILE *err);
/* The sink that writes @r's report of a run */
struct npg_sink npg_report_sink(struct npg_report *r);
/* After npg_run_scenario(): the text table, the summary, the held-back lines. 0, or
 * NPG_REPORT_WRITE_ERROR / NPG_REPORT_NO_MEMORY. */
int npg_report_finish_run(struct npg_report *r, const struct npg_run *run);
/* Frees what a run stopped half way left behind */
void npg_report_discard_run(struct npg_report *r);

/* A JSON document holding several runs: begin, the runs, end. */
void npg_report_json_begin(FILE *out, const char *what);
void npg_report_json_end(FILE *out, int expectations, int failed, int unreproducible);
void npg_report_tap_end(FILE *out, int number);

/* Statement @s's failed and unreproducible observations, one line each */
void npg_report_mismatches(FILE *out, const struct npg_run *run, int s,
			   const struct npg_obs *obs);

/*
 * A JSON string of any bytes, valid UTF-8 whatever they are: valid UTF-8
 * is copied, control characters and DEL become \u00XX (\n, \t, \" and \\
 * the short way), and each byte that is not part of valid UTF-8 becomes
 * \ufffd (U+FFFD REPLACEMENT CHARACTER).
 */
void npg_json_string(FILE *out, const char *s);
void npg_buf_json(struct npg_buf *b, const char *s);
/*
 * Text safe for a terminal, as util-linux's mbs_safe_encode() writes it:
 * control characters, DEL, C1 controls (U+0080-U+009F), a backslash and
 * each byte that is not part of valid UTF-8 become \xHH. npg_safe_text()
 * writes at most @len - 1 bytes and a NUL (whole escapes only); returns @buf.
 */
char *npg_safe_text(const char *s, char *buf, size_t len);
void npg_safe_fputs(const char *s, FILE *out);
void npg_buf_safe(struct npg_buf *b, const char *s);

#endif
