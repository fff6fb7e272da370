/* The TAP report: one test per expectation, written as each statement is observed. */
#include "report/report_impl.h"

/* "N - file:line column: statement": every part of it may come from the scenario */
static void tap_line(FILE *out, bool ok, int number, const struct npg_run *run,
		     const struct npg_stmt *st, int c, const char *label)
{
	fprintf(out, "%sok %d - ", ok ? "" : "not ", number);
	npg_safe_fputs(run->sc->file, out);
	fprintf(out, ":%d ", st->line);
	npg_safe_fputs(run->cols[c].backend->label, out);
	fputs(": ", out);
	npg_safe_fputs(label, out);
}

/* the rest of a line: @a then @b, escaped */
static void tap_tail(FILE *out, const char *a, const char *b)
{
	fputs(a, out);
	npg_safe_fputs(b, out);
	fputc('\n', out);
}

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

		if (!run->cols[c].started) {
			/* each expectation it would have checked fails */
			if (npg_expect_for(&st->expect, run->cols[c].policy_index)) {
				tap_line(out, false, ++r->tap_number, run, st, c, label);
				tap_tail(out, " # backend did not start: ", run->cols[c].error);
			}
			continue;
		}
		if (o->unreproducible) {
			tap_line(out, true, ++r->tap_number, run, st, c, label);
			tap_tail(out, " # SKIP unreproducible here: ", o->reason);
		} else if (o->expected) {
			tap_line(out, o->ok, ++r->tap_number, run, st, c, label);
			tap_tail(out, " => ", o->expected);
		}
		if (!o->ok)
			tap_tail(out, "#   got ", o->text);
	}
}

void npg_report_tap_end(FILE *out, int number)
{
	fprintf(out, "1..%d\n", number);
}
