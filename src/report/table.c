/* The text report's table (see table.h). */
#include <libsmartcols.h>
#include <stdlib.h>
#include <string.h>

#include "report/buf.h"
#include "report/table.h"

#define FLUSH_AT (64u << 10)	/* bytes of lines handed to stdio at once */
#define BLOCK (256u << 10)	/* bytes of rows per block, unless a row is longer */

struct npg_table_block {
	struct npg_table_block *next;
	size_t used, size;
	char data[];
};

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
	t->len = calloc((size_t)ncols, sizeof(*t->len));
	if (!t->cols || !t->widest || !t->len)
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

/* A block with room for @n more bytes at the end of @t's, or NULL */
static struct npg_table_block *room(struct npg_table *t, size_t n)
{
	struct npg_table_block *b = t->last;

	if (b && b->size - b->used >= n)
		return b;
	b = malloc(sizeof(*b) + (n > BLOCK ? n : BLOCK));
	if (!b)
		return NULL;
	b->next = NULL;
	b->used = 0;
	b->size = n > BLOCK ? n : BLOCK;
	if (t->last)
		t->last->next = b;
	else
		t->first = b;
	t->last = b;
	return b;
}

int npg_table_add_row(struct npg_table *t, const char *const *cells)
{
	struct npg_table_block *b;
	size_t n = 0;

	for (int c = 0; c < t->ncols; c++) {
		if (!plain_text(cells[c] ? cells[c] : "", &t->len[c]))
			t->plain = false;
		if (t->len[c] > t->widest[c])
			t->widest[c] = t->len[c];
		n += t->len[c] + 1;
	}
	b = room(t, n);
	if (!b)
		return -1;
	for (int c = 0; c < t->ncols; c++) {
		memcpy(b->data + b->used, cells[c] ? cells[c] : "", t->len[c] + 1);
		b->used += t->len[c] + 1;
	}
	t->nrows++;
	return 0;
}

/* The row at @p in block *@b, or the next block's first; NULL after the
 * last. Rows in order: p = row_at(&b, first block's data), then row_at()
 * of where each row ends. */
static const char *row_at(const struct npg_table_block **b, const char *p)
{
	while (*b && p == (*b)->data + (*b)->used) {
		*b = (*b)->next;
		p = *b ? (*b)->data : NULL;
	}
	return *b ? p : NULL;
}

static const char *first_row(const struct npg_table *t, const struct npg_table_block **b)
{
	*b = t->first;
	return *b ? row_at(b, (*b)->data) : NULL;
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
	const struct npg_table_block *blk;
	struct npg_buf b = { 0 };
	size_t *width = calloc((size_t)t->ncols, sizeof(*width));
	int rc = 0;

	if (!width)
		return -1;
	for (int c = 0; c < t->ncols; c++) {
		width[c] = column_width(t, c);
		put_cell(&b, t, c, width[c], t->cols[c].name, strlen(t->cols[c].name));
	}
	npg_buf_putc(&b, '\n');
	for (const char *p = first_row(t, &blk); p; p = row_at(&blk, p)) {
		for (int c = 0; c < t->ncols; c++) {
			size_t len = strlen(p);

			put_cell(&b, t, c, width[c], p, len);
			p += len + 1;
		}
		npg_buf_putc(&b, '\n');
		if (b.len >= FLUSH_AT && (rc = npg_buf_flush(&b, out)) < 0)
			break;
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
	const struct npg_table_block *blk;
	int rc = 0;

	if (!tb)
		return -1;
	for (int c = 0; c < t->ncols && rc == 0; c++)
		if (!scols_table_new_column(tb, t->cols[c].name, (double)t->cols[c].whint,
					    t->cols[c].right ? SCOLS_FL_RIGHT : 0))
			rc = -1;
	for (const char *p = first_row(t, &blk); p; p = row_at(&blk, p)) {
		struct libscols_line *ln = rc ? NULL : scols_table_new_line(tb, NULL);

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
	while (t->first) {
		struct npg_table_block *next = t->first->next;

		free(t->first);
		t->first = next;
	}
	free(t->cols);
	free(t->widest);
	free(t->len);
	memset(t, 0, sizeof(*t));
}
