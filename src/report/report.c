/*
 * A report as a sink of the runner: each statement goes to its format's
 * writer as it is observed, and a write error or a failed allocation stops
 * the run instead of running on into the void.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_impl.h"

void npg_report_init(struct npg_report *r, enum npg_format fmt, FILE *out, FILE *err)
{
	memset(r, 0, sizeof(*r));
	r->fmt = fmt;
	r->out = out;
	r->err = err;
}

static int check_streams(struct npg_report *r)
{
	if (r->no_memory)
		return NPG_REPORT_NO_MEMORY;
	if (ferror(r->out) || ferror(r->err)) {
		/* the failed write was the last call that could set errno */
		if (!r->write_errno)
			r->write_errno = errno;
		return NPG_REPORT_WRITE_ERROR;
	}
	if (r->held && ferror(r->held))
		return NPG_REPORT_NO_MEMORY;	/* a memory stream fails only to grow */
	return 0;
}

static int sink_begin(void *arg, const struct npg_run *run)
{
	struct npg_report *r = arg;

	npg_progress_begin(r->progress, run->sc->file, run->sc->nstmts, "steps");

	switch (r->fmt) {
	case NPG_FORMAT_TEXT:
		/* mismatch lines follow the table, which is printed at the end */
		r->held = open_memstream(&r->held_buf, &r->held_len);
		if (!r->held)
			return NPG_REPORT_NO_MEMORY;
		return npg_text_begin(r, run);
	case NPG_FORMAT_JSON:
		if (npg_json_run_begin(r, run))
			return NPG_REPORT_NO_MEMORY;
		break;
	case NPG_FORMAT_TAP:
		break;
	}
	return check_streams(r);
}

static int sink_statement(void *arg, const struct npg_run *run, int s, const struct npg_obs *obs)
{
	struct npg_report *r = arg;
	int rc = 0;

	/* text writes nothing until the end; the others write now */
	if (r->fmt != NPG_FORMAT_TEXT || run->done == run->sc->nstmts)
		npg_progress_clear(r->progress);
	switch (r->fmt) {
	case NPG_FORMAT_TEXT:
		rc = npg_text_statement(r, run, s, obs);
		npg_report_mismatches(r->held, run, s, obs);
		break;
	case NPG_FORMAT_JSON:
		rc = npg_json_statement(r, run, s, obs);
		npg_report_mismatches(r->err, run, s, obs);
		break;
	case NPG_FORMAT_TAP:
		rc = npg_tap_statement(r, run, s, obs);
		npg_report_mismatches(r->err, run, s, obs);
		break;
	}
	/* not after the last: what follows the steps (--then) may write */
	if (run->done < run->sc->nstmts)
		npg_progress_update(r->progress, run->done);
	return rc ? rc : check_streams(r);
}

struct npg_sink npg_report_sink(struct npg_report *r)
{
	return (struct npg_sink){ .begin = sink_begin, .statement = sink_statement, .arg = r };
}

int npg_report_finish_run(struct npg_report *r, const struct npg_run *run)
{
	int rc = 0;

	npg_progress_clear(r->progress);
	switch (r->fmt) {
	case NPG_FORMAT_TEXT:
		rc = npg_text_finish(r, run);
		if (rc)
			break;
		if (!r->held || fclose(r->held) != 0) {
			r->held = NULL;
			rc = NPG_REPORT_NO_MEMORY;
			break;
		}
		r->held = NULL;
		fflush(r->out);	/* the table first, then what went wrong in it */
		fwrite(r->held_buf, 1, r->held_len, r->err);
		break;
	case NPG_FORMAT_JSON:
		npg_json_run_finish(r, run);
		break;
	case NPG_FORMAT_TAP:
		break;
	}
	if (!rc)
		rc = check_streams(r);
	npg_report_discard_run(r);
	return rc;
}

void npg_report_discard_run(struct npg_report *r)
{
	npg_progress_clear(r->progress);
	if (r->held)
		fclose(r->held);
	r->held = NULL;
	free(r->held_buf);
	r->held_buf = NULL;
	r->held_len = 0;
	npg_text_discard(r);
	npg_json_discard(r);
	npg_buf_free(&r->buf);
	npg_buf_free(&r->scratch);
}

void npg_report_mismatches(FILE *out, const struct npg_run *run, int s,
			   const struct npg_obs *obs)
{
	const struct npg_stmt *st = &run->sc->stmts[s];

	for (int c = 0; c < run->ncols; c++) {
		const struct npg_obs *o = &obs[c];
		char label[160];

		if (!run->cols[c].started || (!o->unreproducible && o->ok))
			continue;
		/* all of it may come from the scenario file: no escape sequences */
		npg_safe_fputs(run->sc->file, out);
		fprintf(out, ":%d: ", st->line);
		npg_safe_fputs(run->cols[c].backend->label, out);
		if (o->unreproducible) {
			fputs(": unreproducible here: ", out);
			npg_safe_fputs(o->reason, out);
		} else {
			npg_stmt_label(run->sc, st, label, sizeof(label));
			fputs(": ", out);
			npg_safe_fputs(label, out);
			fputs(": expected ", out);
			npg_safe_fputs(o->expected, out);
			fputs(", got ", out);
			npg_safe_fputs(o->text, out);
		}
		fputc('\n', out);
	}
}
