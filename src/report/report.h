/* Reports of a run: text (trace or side-by-side table), JSON, TAP. */
#ifndef NPG_REPORT_REPORT_H
#define NPG_REPORT_REPORT_H

#include <stdio.h>

#include "runner/run.h"

enum npg_format { NPG_FORMAT_TEXT, NPG_FORMAT_JSON, NPG_FORMAT_TAP };

int npg_format_parse(const char *name, enum npg_format *out);

/* One column: a step-by-step trace. Several: one column per backend. */
void npg_report_text(FILE *out, const struct npg_run *run);

/* A JSON document holding several runs: begin, one call per run, end. */
void npg_report_json_begin(FILE *out, const char *what);
void npg_report_json_run(FILE *out, const struct npg_run *run, bool first);
void npg_report_json_end(FILE *out, int expectations, int failed, int unreproducible);

/* TAP: one test per expectation; numbering continues across runs. */
void npg_report_tap_run(FILE *out, const struct npg_run *run, int *number);
void npg_report_tap_end(FILE *out, int number);

/* "file:line: column: expected X, got Y" for each failed expectation */
void npg_report_mismatches(FILE *out, const struct npg_run *run);

/* JSON string escaping, shared with other JSON writers */
void npg_json_string(FILE *out, const char *s);

#endif
