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
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";
	char digits[24], *p = digits + sizeof(digits);
	/* the magnitude as unsigned: -LONG_MIN does not fit a long */
	unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;

	if (v >= 0 && v < 10) {	/* most ids and counts of a run: 0, 1, 2 */
		npg_buf_putc(b, (char)('0' + v));
		return;
	}
	/* two digits at a time: TAP numbers its tests into the millions */
	for (; u >= 100; u /= 100) {
		p -= 2;
		memcpy(p, pairs + u % 100 * 2, 2);
	}
	if (u >= 10) {
		p -= 2;
		memcpy(p, pairs + u * 2, 2);
	} else {
		*--p = (char)('0' + u);
	}
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
