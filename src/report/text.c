/* Text reports through libsmartcols, as util-linux tools print tables. */
#include <libsmartcols.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

static void render_counts(const struct npg_run *run, const struct npg_obs *o, char *buf,
			  size_t len)
{
	const struct npg_scenario *sc = run->sc;
	size_t used = 0;

	buf[0] = '\0';
	for (int u = 0; u < sc->nnames && used < len; u++) {
		if (sc->names[u].group)
			continue;
		if (o->counts[u] == NPG_COUNT_UNKNOWN)
			used += (size_t)snprintf(buf + used, len - used, "%s%s=?", used ? " " : "",
						 sc->names[u].name);
		else
			used += (size_t)snprintf(buf + used, len - used, "%s%s=%ld", used ? " " : "",
						 sc->names[u].name, o->counts[u]);
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

static struct libscols_table *new_table(void)
{
	struct libscols_table *tb = scols_new_table();

	if (!tb) {
		perror("nprocguard");
		exit(2);
	}
	return tb;
}

static void add_column(struct libscols_table *tb, const char *name, double whint, int flags)
{
	if (!scols_table_new_column(tb, name, whint, flags)) {
		perror("nprocguard");
		exit(2);
	}
}

static struct libscols_line *new_line(struct libscols_table *tb)
{
	struct libscols_line *ln = scols_table_new_line(tb, NULL);

	if (!ln) {
		perror("nprocguard");
		exit(2);
	}
	return ln;
}

static void statement_cells(struct libscols_line *ln, const struct npg_run *run, int s)
{
	const struct npg_stmt *st = &run->sc->stmts[s];
	char line[16];

	snprintf(line, sizeof(line), "%d", st->line);
	scols_line_set_data(ln, 0, line);
	if (st->kind == NPG_STMT_STEP) {
		scols_line_set_data(ln, 1, run->sc->tasks[st->task].name);
		scols_line_set_data(ln, 2, st->text);
	} else {
		char text[160];

		snprintf(text, sizeof(text), "check %s", st->text);
		scols_line_set_data(ln, 1, "");
		scols_line_set_data(ln, 2, text);
	}
}

static void print_header(FILE *out, const struct npg_run *run)
{
	const struct npg_scenario *sc = run->sc;

	fprintf(out, "%s%s%s\n", sc->file, sc->title ? ": " : "", sc->title ? sc->title : "");
	if (sc->source)
		fprintf(out, "source: %s\n", sc->source);
}

static void print_trace(FILE *out, const struct npg_run *run)
{
	const struct npg_column *col = &run->cols[0];
	struct libscols_table *tb = new_table();
	char buf[256];

	fprintf(out, "backend: %s\n", col->backend->label);
	add_column(tb, "LINE", 4, SCOLS_FL_RIGHT);
	add_column(tb, "TASK", 8, 0);
	add_column(tb, "STEP", 24, 0);
	add_column(tb, "RESULT", 8, 0);
	add_column(tb, "EXPECTED", 8, 0);
	add_column(tb, "UIDS", 14, 0);
	add_column(tb, "FLAG", 5, 0);
	add_column(tb, "COUNTS", 20, 0);
	for (int s = 0; s < run->sc->nstmts; s++) {
		const struct npg_obs *o = npg_run_obs(run, s, 0);
		const struct npg_stmt *st = &run->sc->stmts[s];
		struct libscols_line *ln = new_line(tb);

		statement_cells(ln, run, s);
		cell_text(o, buf, sizeof(buf));
		scols_line_set_data(ln, 3, o->unreproducible ? "unreproducible" : o->text);
		scols_line_set_data(ln, 4, !o->expected ? "" : o->ok ? o->expected : buf);
		if (st->task >= 0 && o->actor.state != NPG_TASK_ABSENT) {
			char r[32], e[32], sv[32];

			npg_render_uid(run->sc, o->actor.cred.uid.real, false, r, sizeof(r));
			npg_render_uid(run->sc, o->actor.cred.uid.eff, false, e, sizeof(e));
			npg_render_uid(run->sc, o->actor.cred.uid.saved, false, sv, sizeof(sv));
			snprintf(buf, sizeof(buf), "%s %s %s", r, e, sv);
			scols_line_set_data(ln, 5, buf);
			scols_line_set_data(ln, 6, o->actor.nproc_exceeded ? "set" : "-");
		}
		render_counts(run, o, buf, sizeof(buf));
		scols_line_set_data(ln, 7, buf);
	}
	scols_table_set_stream(tb, out);
	scols_print_table(tb);
	scols_unref_table(tb);
}

static void print_side_by_side(FILE *out, const struct npg_run *run)
{
	struct libscols_table *tb = new_table();
	char buf[256];

	add_column(tb, "LINE", 4, SCOLS_FL_RIGHT);
	add_column(tb, "TASK", 8, 0);
	add_column(tb, "STEP", 24, 0);
	for (int c = 0; c < run->ncols; c++)
		add_column(tb, run->cols[c].backend->label, 8, 0);
	for (int s = 0; s < run->sc->nstmts; s++) {
		struct libscols_line *ln = new_line(tb);

		statement_cells(ln, run, s);
		for (int c = 0; c < run->ncols; c++) {
			cell_text(npg_run_obs(run, s, c), buf, sizeof(buf));
			scols_line_set_data(ln, (size_t)(3 + c), run->cols[c].started ? buf : "-");
		}
	}
	scols_table_set_stream(tb, out);
	scols_print_table(tb);
	scols_unref_table(tb);
}

void npg_report_text(FILE *out, const struct npg_run *run)
{
	print_header(out, run);
	for (int c = 0; c < run->ncols; c++)
		if (!run->cols[c].started)
			fprintf(out, "%s: could not start: %s\n", run->cols[c].backend->label,
				run->cols[c].error);
	if (run->ncols == 1)
		print_trace(out, run);
	else
		print_side_by_side(out, run);
	fprintf(out, "%d expectations: %d held, %d failed", run->expectations, run->held,
		run->failed);
	if (run->unreproducible)
		fprintf(out, ", %d unreproducible here", run->unreproducible);
	fprintf(out, "\n\n");
}

void npg_report_mismatches(FILE *out, const struct npg_run *run)
{
	for (int s = 0; s < run->sc->nstmts; s++) {
		const struct npg_stmt *st = &run->sc->stmts[s];

		for (int c = 0; c < run->ncols; c++) {
			const struct npg_obs *o = npg_run_obs(run, s, c);

			if (o->unreproducible && run->cols[c].started)
				fprintf(out, "%s:%d: %s: unreproducible here: %s\n", run->sc->file,
					st->line, run->cols[c].backend->label, o->reason);
			if (!o->ok && run->cols[c].started) {
				char label[160];

				npg_stmt_label(run->sc, st, label, sizeof(label));
				fprintf(out, "%s:%d: %s: %s: expected %s, got %s\n", run->sc->file,
					st->line, run->cols[c].backend->label, label, o->expected,
					o->text);
			}
		}
	}
}
