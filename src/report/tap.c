/* The TAP report: one test per expectation, written as each statement is observed. */
#include "report/report_impl.h"

void npg_tap_statement(struct npg_report *r, const struct npg_run *run, int s,
		       const struct npg_obs *obs)
{
	const struct npg_scenario *sc = run->sc;
	const struct npg_stmt *st = &sc->stmts[s];
	FILE *out = r->out;
	char label[160];

	npg_stmt_label(sc, st, label, sizeof(label));
	for (int c = 0; c < run->ncols; c++) {
		const struct npg_obs *o = &obs[c];
		const char *col = run->cols[c].backend->label;

		if (!run->cols[c].started) {
			/* each expectation it would have checked fails */
			if (npg_expect_for(&st->expect, run->cols[c].policy_index))
				fprintf(out, "not ok %d - %s:%d %s: %s # backend did not start: %s\n",
					++r->tap_number, sc->file, st->line, col, label,
					run->cols[c].error);
			continue;
		}
		if (o->unreproducible)
			fprintf(out, "ok %d - %s:%d %s: %s # SKIP unreproducible here: %s\n",
				++r->tap_number, sc->file, st->line, col, label, o->reason);
		else if (o->expected)
			fprintf(out, "%sok %d - %s:%d %s: %s => %s\n", o->ok ? "" : "not ",
				++r->tap_number, sc->file, st->line, col, label, o->expected);
		if (!o->ok)
			fprintf(out, "#   got %s\n", o->text);
	}
}

void npg_report_tap_end(FILE *out, int number)
{
	fprintf(out, "1..%d\n", number);
}
