/*
 * A report's next bytes, built in memory and handed to stdio with one
 * fwrite(): a TAP or JSON statement is a few dozen small pieces (names,
 * escaped text, numbers), and one stdio call per piece cost more than the
 * model's step. The bytes and their order are what the pieces would have
 * written one by one; the stream's buffering (and so where its writes
 * fall) is unchanged.
 */
#ifndef NPG_REPORT_BUF_H
#define NPG_REPORT_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct npg_buf {
	char *data;
	size_t len, cap;
	bool no_memory;		/* an append failed: what was appended is incomplete */
};

/* Room for @n more bytes; false (and no_memory) when it cannot grow */
bool npg_buf_reserve(struct npg_buf *b, size_t n);

static inline void npg_buf_put(struct npg_buf *b, const void *s, size_t n)
{
	if (b->cap - b->len < n && !npg_buf_reserve(b, n))
		return;
	memcpy(b->data + b->len, s, n);
	b->len += n;
}

static inline void npg_buf_puts(struct npg_buf *b, const char *s)
{
	npg_buf_put(b, s, strlen(s));
}

static inline void npg_buf_putc(struct npg_buf *b, char c)
{
	if (b->cap == b->len && !npg_buf_reserve(b, 1))
		return;
	b->data[b->len++] = c;
}

/* @v in decimal, as printf's %ld */
void npg_buf_long(struct npg_buf *b, long v);

/* Write the bytes to @out and empty the buffer. 0, or -1 if out of memory
 * on the way (the stream's own errors are its ferror()). */
int npg_buf_flush(struct npg_buf *b, FILE *out);
void npg_buf_free(struct npg_buf *b);

#endif
