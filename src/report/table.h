/*
 * The text report's table: rows kept compactly as the run goes, printed
 * when it ends, byte for byte as libsmartcols prints them (util-linux
 * 2.38's scols_print_table() of a table whose columns have absolute width
 * hints and no flag but SCOLS_FL_RIGHT). A column's width depends on
 * every row, so nothing can be printed before the last one: a policy's
 * column is as wide as its header unless a cell is wider, and a failed
 * expectation's cell ("ok (want EAGAIN)", 10 columns at least) is wider
 * than most headers -- whether one fails is what the run finds out.
 *
 * When every cell and header is printable ASCII without a "\x" (which
 * libsmartcols would escape), a cell's width is its length and the table
 * is printed here, a line at a time, with the widths libsmartcols'
 * calculation gives (calculate.c, count_column_width()): on a terminal
 * too, since with such columns libsmartcols neither truncates nor pads
 * the last column. Otherwise (UTF-8, bytes it escapes) libsmartcols
 * prints the table itself from the kept rows, as the report always did.
 */
#ifndef NPG_REPORT_TABLE_H
#define NPG_REPORT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct npg_table_block;

struct npg_table_column {
	const char *name;
	size_t whint;		/* libsmartcols' absolute width hint, >= 1 */
	bool right;		/* SCOLS_FL_RIGHT */
};

struct npg_table {
	int ncols;
	struct npg_table_column *cols;
	size_t *widest;		/* per column, the longest cell so far, in bytes */
	bool plain;		/* every cell so far printable ASCII without "\x" */
	size_t nrows;
	/* the rows, each ncols cells ending in a NUL, in blocks filled in
	 * turn (a row is never split): growing one buffer copied it over
	 * and over */
	struct npg_table_block *first, *last;
	size_t *len;		/* [ncols]: the row being added */
};

/* 0, or -1 when out of memory (npg_table_free() in either case) */
int npg_table_init(struct npg_table *t, const struct npg_table_column *cols, int ncols);
/* @cells[ncols]: a NULL cell is an empty one. 0, or -1 when out of memory. */
int npg_table_add_row(struct npg_table *t, const char *const *cells);
/* Header and rows, each line ending in a newline; nothing for a table
 * without rows. 0, or -1 when out of memory (write errors: ferror(@out)). */
int npg_table_print(struct npg_table *t, FILE *out);
void npg_table_free(struct npg_table *t);

#endif
