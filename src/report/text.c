/*
 * Text reports through libsmartcols, as util-linux tools print tables: a
 * step-by-step trace for one column, a side-by-side table for several. The
 * table is filled one row per statement as the run goes, from the compact
 * cell strings only, and printed when the run ends.
 */
#include <libsmartcols.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_impl.h"

static void render_counts(const struct npg_run *run, const struct npg_obs *o, char *buf,
			  size_t len)
{
	const struct npg_scenario *sc = run->sc;
	size_t used = 0;

	buf[0] = '\0';
	for (int k = 0; k < npg_ncounts(sc) && used < len; k++) {
		char name[160];

		if (!npg_count_label(sc, k, name, sizeof(name)))
			continue;
		/* a namespace's level: only the users it counts */
		if (k >= sc->nnames && o->counts[k] == 0)
			continue;
		if (o->counts[k] == NPG_COUNT_UNKNOWN)
			used += (size_t)snprintf(buf + used, len - used, "%s%s=?", used ? " " : "",
						 name);
		else
			used += (size_t)snprintf(buf + used, len - used, "%s%s=%ld", used ? " " : "",
						 name, o->counts[k]);
	}
}

static void cell_text(const struct npg_obs *o, char *buf, size_t len)
{
	if (o->unreproducible)
		snprintf(buf, len, "unreproducible");
	else if (!o->ok)
		snprintf(buf, len, "%s (want %s)", o->text, o->expected);
	else
		snprintf(buf, len, "%s", o->text);
}

/* libsmartcols copies each cell; any failure there is a failed allocation */
static int set_cell(struct libscols_line *ln, size_t col, const char *text)
{
	return scols_line_set_data(ln, col, text) < 0 ? NPG_REPORT_NO_MEMORY : 0;
}

static int statement_cells(struct libscols_line *ln, const struct npg_run *run, int s)
{
	const struct npg_stmt *st = &run->sc->stmts[s];
	char line[16], text[160];
	int rc = 0;

	snprintf(line, sizeof(line), "%d", st->line);
	rc |= set_cell(ln, 0, line);
	if (st->kind == NPG_STMT_STEP) {
		rc |= set_cell(ln, 1, run->sc->tasks[st->task].name);
		rc |= set_cell(ln, 2, st->text);
	} else {
		snprintf(text, sizeof(text), "check %s", st->text);
		rc |= set_cell(ln, 1, "");
		rc |= set_cell(ln, 2, text);
	}
	return rc;
}

int npg_text_begin(struct npg_report *r, const struct npg_run *run)
{
	static const struct { const char *name; double whint; int flags; } trace[] = {
		{ "LINE", 4, SCOLS_FL_RIGHT }, { "TASK", 8, 0 }, { "STEP", 24, 0 },
		{ "RESULT", 8, 0 }, { "EXPECTED", 8, 0 }, { "UIDS", 14, 0 }, { "FLAG", 5, 0 },
		{ "COUNTS", 20, 0 },
	};
	struct libscols_table *tb = scols_new_table();

	if (!tb)
		return NPG_REPORT_NO_MEMORY;
	r->table = tb;
	if (run->ncols == 1) {
		for (size_t i = 0; i < sizeof(trace) / sizeof(trace[0]); i++)
			if (!scols_table_new_column(tb, trace[i].name, trace[i].whint, trace[i].flags))
				return NPG_REPORT_NO_MEMORY;
		return 0;
	}
	for (size_t i = 0; i < 3; i++)
		if (!scols_table_new_column(tb, trace[i].name, trace[i].whint, trace[i].flags))
			return NPG_REPORT_NO_MEMORY;
	for (int c = 0; c < run->ncols; c++)
		if (!scols_table_new_column(tb, run->cols[c].backend->label, 8, 0))
			return NPG_REPORT_NO_MEMORY;
	return 0;
}

static int trace_cells(struct libscols_line *ln, const struct npg_run *run, int s,
		       const struct npg_obs *o)
{
	const struct npg_stmt *st = &run->sc->stmts[s];
	char buf[256];
	int rc = 0;

	if (!run->cols[0].started)
		return 0;
	cell_text(o, buf, sizeof(buf));
	rc |= set_cell(ln, 3, o->unreproducible ? "unreproducible" : o->text);
	rc |= set_cell(ln, 4, !o->expected ? "" : o->ok ? o->expected : buf);
	if (st->task >= 0 && o->actor.state != NPG_TASK_ABSENT) {
		char ru[32], eu[32], su[32];

		npg_render_uid(run->sc, o->actor.cred.uid.real, false, ru, sizeof(ru));
		npg_render_uid(run->sc, o->actor.cred.uid.eff, false, eu, sizeof(eu));
		npg_render_uid(run->sc, o->actor.cred.uid.saved, false, su, sizeof(su));
		snprintf(buf, sizeof(buf), "%s %s %s", ru, eu, su);
		rc |= set_cell(ln, 5, buf);
		rc |= set_cell(ln, 6, o->actor.nproc_exceeded ? "set" : "-");
	}
	render_counts(run, o, buf, sizeof(buf));
	rc |= set_cell(ln, 7, buf);
	return rc;
}

int npg_text_statement(struct npg_report *r, const struct npg_run *run, int s,
		       const struct npg_obs *obs)
{
	struct libscols_line *ln = scols_table_new_line(r->table, NULL);
	char buf[256];
	int rc;

	if (!ln)
		return NPG_REPORT_NO_MEMORY;
	rc = statement_cells(ln, run, s);
	if (run->ncols == 1)
		return rc | trace_cells(ln, run, s, &obs[0]);
	for (int c = 0; c < run->ncols; c++) {
		cell_text(&obs[c], buf, sizeof(buf));
		rc |= set_cell(ln, (size_t)(3 + c), run->cols[c].started ? buf : "-");
	}
	return rc;
}

int npg_text_finish(struct npg_report *r, const struct npg_run *run)
{
	const struct npg_scenario *sc = run->sc;
	FILE *out = r->out;

	/* the table's cells are escaped by libsmartcols; these lines by us */
	npg_safe_fputs(sc->file, out);
	if (sc->title) {
		fputs(": ", out);
		npg_safe_fputs(sc->title, out);
	}
	fputc('\n', out);
	if (sc->source) {
		fputs("source: ", out);
		npg_safe_fputs(sc->source, out);
		fputc('\n', out);
	}
	for (int c = 0; c < run->ncols; c++) {
		if (run->cols[c].started)
			continue;
		npg_safe_fputs(run->cols[c].backend->label, out);
		fputs(": could not start: ", out);
		npg_safe_fputs(run->cols[c].error, out);
		fputc('\n', out);
	}
	if (run->ncols == 1) {
		fputs("backend: ", out);
		npg_safe_fputs(run->cols[0].backend->label, out);
		if (run->cols[0].policy_index < 0)
			fputs(" (its era is not among the file's policies: nothing expected)", out);
		fputc('\n', out);
	}
	if (r->table) {
		scols_table_set_stream(r->table, out);
		if (scols_print_table(r->table) < 0 && !ferror(out))
			return NPG_REPORT_NO_MEMORY;
	}
	fprintf(out, "%d expectations: %d held, %d failed", run->expectations, run->held,
		run->failed);
	if (run->unreproducible)
		fprintf(out, ", %d unreproducible here", run->unreproducible);
	fprintf(out, "\n\n");
	return 0;
}

void npg_text_discard(struct npg_report *r)
{
	scols_unref_table(r->table);
	r->table = NULL;
}
