/* The TAP report: one test per expectation, written as each statement is observed. */
#include "report/buf.h"
#include "report/report_impl.h"

/*
 * What a statement's lines share, escaped once for all its columns:
 * "file:line " from 0 to @label, then the statement's label to the end
 */
struct stmt_text {
	const struct npg_buf *b;
	size_t label;
};

/* "N - file:line column: statement": every part of it may come from the scenario */
static void tap_line(struct npg_buf *b, bool ok, int number, const struct npg_run *run,
		     const struct stmt_text *t, int c)
{
	if (!ok)
		npg_buf_put(b, "not ", 4);
	npg_buf_put(b, "ok ", 3);
	npg_buf_long(b, number);
	npg_buf_put(b, " - ", 3);
	npg_buf_put(b, t->b->data, t->label);
	npg_buf_safe(b, run->cols[c].backend->label);
	npg_buf_put(b, ": ", 2);
	npg_buf_put(b, t->b->data + t->label, t->b->len - t->label);
}

/* the rest of a line: @a then @b, escaped */
static void tap_tail(struct npg_buf *b, const char *a, const char *s)
{
	npg_buf_puts(b, a);
	npg_buf_safe(b, s);
	npg_buf_putc(b, '\n');
}

int npg_tap_statement(struct npg_report *r, const struct npg_run *run, int s,
		      const struct npg_obs *obs)
{
	const struct npg_scenario *sc = run->sc;
	const struct npg_stmt *st = &sc->stmts[s];
	struct npg_buf *b = &r->buf;
	struct stmt_text t = { .b = &r->scratch };
	char label[160];

	npg_stmt_label(sc, st, label, sizeof(label));
	r->scratch.len = 0;
	npg_buf_safe(&r->scratch, sc->file);
	npg_buf_putc(&r->scratch, ':');
	npg_buf_long(&r->scratch, st->line);
	npg_buf_putc(&r->scratch, ' ');
	t.label = r->scratch.len;
	npg_buf_safe(&r->scratch, label);
	if (r->scratch.no_memory)
		return NPG_REPORT_NO_MEMORY;
	for (int c = 0; c < run->ncols; c++) {
		const struct npg_obs *o = &obs[c];

		if (!run->cols[c].started) {
			/* each expectation it would have checked fails */
			if (npg_expect_for(&st->expect, run->cols[c].policy_index)) {
				tap_line(b, false, ++r->tap_number, run, &t, c);
				tap_tail(b, " # backend did not start: ", run->cols[c].error);
			}
			continue;
		}
		if (o->unreproducible) {
			tap_line(b, true, ++r->tap_number, run, &t, c);
			tap_tail(b, " # SKIP unreproducible here: ", o->reason);
		} else if (o->expected) {
			tap_line(b, o->ok, ++r->tap_number, run, &t, c);
			tap_tail(b, " => ", o->expected);
		}
		if (!o->ok)
			tap_tail(b, "#   got ", o->text);
	}
	/* the statement's lines in one piece, before its mismatch lines on stderr */
	return npg_buf_flush(b, r->out) < 0 ? NPG_REPORT_NO_MEMORY : 0;
}

void npg_report_tap_end(FILE *out, int number)
{
	fprintf(out, "1..%d\n", number);
}
