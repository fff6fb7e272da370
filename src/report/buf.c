/* Report bytes built in memory (see buf.h). */
#include <stdlib.h>

#include "report/buf.h"

bool npg_buf_reserve(struct npg_buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *p;

	if (b->no_memory)
		return false;
	while (cap - b->len < n) {
		if (cap > ((size_t)-1) / 2) {
			b->no_memory = true;
			return false;
		}
		cap *= 2;
	}
	if (cap == b->cap)
		return true;
	p = realloc(b->data, cap);
	if (!p) {
		b->no_memory = true;
		return false;
	}
	b->data = p;
	b->cap = cap;
	return true;
}

void npg_buf_long(struct npg_buf *b, long v)
{
	char digits[24], *p = digits + sizeof(digits);
	/* the magnitude as unsigned: -LONG_MIN does not fit a long */
	unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;

	do
		*--p = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		*--p = '-';
	npg_buf_put(b, p, (size_t)(digits + sizeof(digits) - p));
}

int npg_buf_flush(struct npg_buf *b, FILE *out)
{
	int rc = b->no_memory ? -1 : 0;

	if (b->len && !b->no_memory)
		fwrite(b->data, 1, b->len, out);
	b->len = 0;
	b->no_memory = false;
	return rc;
}

void npg_buf_free(struct npg_buf *b)
{
	free(b->data);
	*b = (struct npg_buf){ 0 };
}
