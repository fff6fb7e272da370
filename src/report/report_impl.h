/* Between the report dispatcher (report.c) and each format's writer. */
#ifndef NPG_REPORT_REPORT_IMPL_H
#define NPG_REPORT_REPORT_IMPL_H

#include "report/report.h"

int npg_text_begin(struct npg_report *r, const struct npg_run *run);
int npg_text_statement(struct npg_report *r, const struct npg_run *run, int s,
		       const struct npg_obs *obs);
int npg_text_finish(struct npg_report *r, const struct npg_run *run);
void npg_text_discard(struct npg_report *r);

int npg_json_run_begin(struct npg_report *r, const struct npg_run *run);
int npg_json_statement(struct npg_report *r, const struct npg_run *run, int s,
		       const struct npg_obs *obs);
void npg_json_run_finish(struct npg_report *r, const struct npg_run *run);
void npg_json_discard(struct npg_report *r);

int npg_tap_statement(struct npg_report *r, const struct npg_run *run, int s,
		      const struct npg_obs *obs);

#endif
