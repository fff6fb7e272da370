/*
 * Text reports, tables as util-linux tools print them (libsmartcols'
 * layout, table.h): a step-by-step trace for one column, a side-by-side
 * table for several. A row of cell strings is kept per statement as the
 * run goes, and the table printed when the run ends.
 */
#include <stdlib.h>
#include <string.h>

#include "report/report_impl.h"
#include "report/table.h"

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

enum { COL_LINE, COL_TASK, COL_STEP, COL_RESULT, COL_EXPECTED, COL_UIDS, COL_FLAG, COL_COUNTS,
       NTRACE };

/* The cells every row has: LINE, TASK, STEP. @line and @text hold them. */
static void statement_cells(const char **cells, const struct npg_run *run, int s,
			    char *line, size_t line_len, char *text, size_t text_len)
{
	const struct npg_stmt *st = &run->sc->stmts[s];

	snprintf(line, line_len, "%d", st->line);
	cells[COL_LINE] = line;
	if (st->kind == NPG_STMT_STEP) {
		cells[COL_TASK] = run->sc->tasks[st->task].name;
		cells[COL_STEP] = st->text;
	} else {
		snprintf(text, text_len, "check %s", st->text);
		cells[COL_TASK] = "";
		cells[COL_STEP] = text;
	}
}

/* A run's table, and room for one row's cells */
struct npg_text {
	struct npg_table table;
	const char **cells;	/* [table.ncols] */
	char (*want)[256];	/* [table.ncols]: "X (want Y)" cells */
};

int npg_text_begin(struct npg_report *r, const struct npg_run *run)
{
	static const struct npg_table_column trace[NTRACE] = {
		{ "LINE", 4, true }, { "TASK", 8, false }, { "STEP", 24, false },
		{ "RESULT", 8, false }, { "EXPECTED", 8, false }, { "UIDS", 14, false },
		{ "FLAG", 5, false }, { "COUNTS", 20, false },
	};
	int ncols = run->ncols == 1 ? NTRACE : COL_RESULT + run->ncols;
	struct npg_table_column *cols = calloc((size_t)ncols, sizeof(*cols));
	struct npg_text *t = calloc(1, sizeof(*t));
	int rc = -1;

	r->text = t;
	if (t && cols) {
		memcpy(cols, trace, (size_t)(run->ncols == 1 ? NTRACE : COL_RESULT) * sizeof(*cols));
		for (int c = 0; run->ncols > 1 && c < run->ncols; c++)
			cols[COL_RESULT + c] = (struct npg_table_column){
				run->cols[c].backend->label, 8, false };
		t->cells = calloc((size_t)ncols, sizeof(*t->cells));
		t->want = calloc((size_t)ncols, sizeof(*t->want));
		if (t->cells && t->want)
			rc = npg_table_init(&t->table, cols, ncols);
	}
	free(cols);
	return rc < 0 ? NPG_REPORT_NO_MEMORY : 0;
}

/* RESULT ... COUNTS of a trace; @buf holds them */
static void trace_cells(const char **cells, const struct npg_run *run, int s,
			const struct npg_obs *o, char (*buf)[256])
{
	const struct npg_stmt *st = &run->sc->stmts[s];

	if (!run->cols[0].started)
		return;
	cell_text(o, buf[0], sizeof(buf[0]));
	cells[COL_RESULT] = o->unreproducible ? "unreproducible" : o->text;
	cells[COL_EXPECTED] = !o->expected ? "" : o->ok ? o->expected : buf[0];
	if (st->task >= 0 && o->actor.state != NPG_TASK_ABSENT) {
		char ru[32], eu[32], su[32];

		npg_render_uid(run->sc, o->actor.cred.uid.real, false, ru, sizeof(ru));
		npg_render_uid(run->sc, o->actor.cred.uid.eff, false, eu, sizeof(eu));
		npg_render_uid(run->sc, o->actor.cred.uid.saved, false, su, sizeof(su));
		snprintf(buf[1], sizeof(buf[1]), "%s %s %s", ru, eu, su);
		cells[COL_UIDS] = buf[1];
		cells[COL_FLAG] = o->actor.nproc_exceeded ? "set" : "-";
	}
	render_counts(run, o, buf[2], sizeof(buf[2]));
	cells[COL_COUNTS] = buf[2];
}

int npg_text_statement(struct npg_report *r, const struct npg_run *run, int s,
		       const struct npg_obs *obs)
{
	struct npg_text *t = r->text;
	const char **cells = t->cells;
	char line[16], text[160];

	memset(cells, 0, (size_t)t->table.ncols * sizeof(*cells));
	statement_cells(cells, run, s, line, sizeof(line), text, sizeof(text));
	if (run->ncols == 1)
		trace_cells(cells, run, s, &obs[0], t->want);
	for (int c = 0; run->ncols > 1 && c < run->ncols; c++) {
		const struct npg_obs *o = &obs[c];

		if (!run->cols[c].started) {
			cells[COL_RESULT + c] = "-";
		} else if (o->unreproducible || o->ok) {
			cells[COL_RESULT + c] = o->unreproducible ? "unreproducible" : o->text;
		} else {
			cell_text(o, t->want[c], sizeof(t->want[c]));
			cells[COL_RESULT + c] = t->want[c];
		}
	}
	return npg_table_add_row(&t->table, cells) < 0 ? NPG_REPORT_NO_MEMORY : 0;
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
	if (r->text && npg_table_print(&r->text->table, out) < 0)
		return NPG_REPORT_NO_MEMORY;
	fprintf(out, "%d expectations: %d held, %d failed", run->expectations, run->held,
		run->failed);
	if (run->unreproducible)
		fprintf(out, ", %d unreproducible here", run->unreproducible);
	fprintf(out, "\n\n");
	return 0;
}

void npg_text_discard(struct npg_report *r)
{
	struct npg_text *t = r->text;

	if (!t)
		return;
	npg_table_free(&t->table);
	free(t->cells);
	free(t->want);
	free(t);
	r->text = NULL;
}
