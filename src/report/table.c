/* The text report's table (see table.h). */
#include <libsmartcols.h>
#include <stdlib.h>
#include <string.h>

#include "report/table.h"

#define FLUSH_AT (64u << 10)	/* bytes of lines handed to stdio at once */

/* Would libsmartcols (mbs_safe_encode_to_buffer()) print @s as it is, one
 * column per byte? Printable ASCII, and no backslash before an 'x'. */
static bool plain_text(const char *s, size_t *len)
{
	const unsigned char *p = (const unsigned char *)s;
	bool plain = true;
	size_t n;

	for (n = 0; p[n]; n++)
		if (p[n] < 0x20 || p[n] >= 0x7f || (p[n] == '\\' && p[n + 1] == 'x'))
			plain = false;
	*len = n;
	return plain;
}

int npg_table_init(struct npg_table *t, const struct npg_table_column *cols, int ncols)
{
	memset(t, 0, sizeof(*t));
	t->plain = true;
	t->cols = calloc((size_t)ncols, sizeof(*t->cols));
	t->widest = calloc((size_t)ncols, sizeof(*t->widest));
	if (!t->cols || !t->widest)
		return -1;
	t->ncols = ncols;
	for (int c = 0; c < ncols; c++) {
		size_t len;

		t->cols[c] = cols[c];
		if (!plain_text(cols[c].name, &len))
			t->plain = false;
	}
	return 0;
}

int npg_table_add_row(struct npg_table *t, const char *const *cells)
{
	for (int c = 0; c < t->ncols; c++) {
		const char *s = cells[c] ? cells[c] : "";
		size_t len;

		if (!plain_text(s, &len))
			t->plain = false;
		if (len > t->widest[c])
			t->widest[c] = len;
		npg_buf_put(&t->rows, s, len + 1);
	}
	t->nrows++;
	return t->rows.no_memory ? -1 : 0;
}

/* libsmartcols' count_column_width() for a column without flags that
 * matter here: the header's width is the minimum (1 if it is empty), an
 * absolute hint widens a column whose cells reach the header */
static size_t column_width(const struct npg_table *t, int c)
{
	size_t min = strlen(t->cols[c].name), width = t->widest[c];

	if (min == 0)
		min = 1;
	if (width < min)
		width = min;
	else if (width < t->cols[c].whint && min < t->cols[c].whint)
		width = t->cols[c].whint;
	return width;
}

static void pad(struct npg_buf *b, size_t n)
{
	if (n && npg_buf_reserve(b, n)) {
		memset(b->data + b->len, ' ', n);
		b->len += n;
	}
}

/* print_data(): right-aligned cells padded before, the others after but
 * the last column's, a space between columns. @width >= @len: a column is
 * as wide as its widest cell at least. */
static void put_cell(struct npg_buf *b, const struct npg_table *t, int c, size_t width,
		     const char *s, size_t len)
{
	size_t fill = width - len;

	if (t->cols[c].right && len) {
		pad(b, fill);
		fill = 0;
	}
	npg_buf_put(b, s, len);
	if (c == t->ncols - 1)
		return;
	pad(b, fill);
	npg_buf_putc(b, ' ');
}

static int print_plain(struct npg_table *t, FILE *out)
{
	struct npg_buf b = { 0 };
	const char *p = t->rows.data;
	size_t *width = calloc((size_t)t->ncols, sizeof(*width));
	int rc = 0;

	if (!width)
		return -1;
	for (int c = 0; c < t->ncols; c++) {
		width[c] = column_width(t, c);
		put_cell(&b, t, c, width[c], t->cols[c].name, strlen(t->cols[c].name));
	}
	npg_buf_putc(&b, '\n');
	for (size_t r = 0; r < t->nrows && rc == 0; r++) {
		for (int c = 0; c < t->ncols; c++) {
			size_t len = strlen(p);

			put_cell(&b, t, c, width[c], p, len);
			p += len + 1;
		}
		npg_buf_putc(&b, '\n');
		if (b.len >= FLUSH_AT)
			rc = npg_buf_flush(&b, out);
	}
	if (rc == 0)
		rc = npg_buf_flush(&b, out);
	npg_buf_free(&b);
	free(width);
	return rc;
}

/* Anything libsmartcols must escape or measure: the table as it was always
 * printed, every row in libsmartcols at once */
static int print_scols(struct npg_table *t, FILE *out)
{
	struct libscols_table *tb = scols_new_table();
	const char *p = t->rows.data;
	int rc = 0;

	if (!tb)
		return -1;
	for (int c = 0; c < t->ncols && rc == 0; c++)
		if (!scols_table_new_column(tb, t->cols[c].name, (double)t->cols[c].whint,
					    t->cols[c].right ? SCOLS_FL_RIGHT : 0))
			rc = -1;
	for (size_t r = 0; r < t->nrows && rc == 0; r++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);

		if (!ln) {
			rc = -1;
			break;
		}
		for (int c = 0; c < t->ncols; c++) {
			if (*p && scols_line_set_data(ln, (size_t)c, p) < 0)
				rc = -1;
			p += strlen(p) + 1;
		}
	}
	if (rc == 0) {
		scols_table_set_stream(tb, out);
		if (scols_print_table(tb) < 0 && !ferror(out))
			rc = -1;
	}
	scols_unref_table(tb);
	return rc;
}

int npg_table_print(struct npg_table *t, FILE *out)
{
	if (t->nrows == 0)
		return 0;	/* scols_print_table() prints no header without a line */
	return t->plain ? print_plain(t, out) : print_scols(t, out);
}

void npg_table_free(struct npg_table *t)
{
	free(t->cols);
	free(t->widest);
	npg_buf_free(&t->rows);
	memset(t, 0, sizeof(*t));
}
