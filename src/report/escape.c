/*
 * Scenario text reaches reports unchanged: titles, sources, file names and
 * the statements as written may hold any byte but NUL and newline. JSON
 * must stay valid UTF-8 for strict parsers, and text must not hand escape
 * sequences from a file to the terminal that shows it.
 */
#include <string.h>

#include "report/buf.h"
#include "report/report.h"

/* Length of the valid UTF-8 sequence at @s (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF), or 0 if it is not one. */
static size_t utf8_valid(const unsigned char *s)
{
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;	/* a NUL ends the string here too */
	return n;
}

/* Where the escaped form of a string goes, a piece at a time */
typedef void put_fn(void *ctx, const char *s, size_t n);

static void put_file(void *ctx, const char *s, size_t n)
{
	fwrite(s, 1, n, ctx);
}

static void put_buf(void *ctx, const char *s, size_t n)
{
	npg_buf_put(ctx, s, n);
}

static const char hex[] = "0123456789abcdef";

/* Each run of bytes copied as they are goes out in one piece: a report's
 * text is mostly plain ASCII, and a call per character was most of a
 * TAP or JSON run's time. */
static void json_encode(const char *str, put_fn *put, void *ctx)
{
	const unsigned char *s = (const unsigned char *)(str ? str : ""), *run;

	put(ctx, "\"", 1);
	for (run = s; *s;) {
		char esc[6] = { '\\', 'u', '0', '0' };
		size_t n;

		if (*s >= 0x20 && *s < 0x7f && *s != '"' && *s != '\\') {
			s++;
			continue;
		}
		n = utf8_valid(s);
		if (n > 1) {
			s += n;
			continue;
		}
		if (s > run)
			put(ctx, (const char *)run, (size_t)(s - run));
		if (n == 0) {
			put(ctx, "\\ufffd", 6);	/* one replacement per byte that is not UTF-8 */
		} else if (*s == '"' || *s == '\\') {
			esc[1] = (char)*s;
			put(ctx, esc, 2);
		} else if (*s == '\n') {
			put(ctx, "\\n", 2);
		} else if (*s == '\t') {
			put(ctx, "\\t", 2);
		} else {
			/* the other control characters and DEL */
			esc[4] = hex[*s >> 4];
			esc[5] = hex[*s & 0xf];
			put(ctx, esc, 6);
		}
		run = ++s;
	}
	if (s > run)
		put(ctx, (const char *)run, (size_t)(s - run));
	put(ctx, "\"", 1);
}

void npg_json_string(FILE *out, const char *str)
{
	json_encode(str, put_file, out);
}

void npg_buf_json(struct npg_buf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t n = 0;

	/* most strings of a report need no escape: one piece, quotes and all */
	while (s[n] >= 0x20 && s[n] < 0x7f && s[n] != '"' && s[n] != '\\')
		n++;
	if (s[n] == '\0' && npg_buf_reserve(b, n + 2)) {
		b->data[b->len++] = '"';
		memcpy(b->data + b->len, s, n);
		b->len += n;
		b->data[b->len++] = '"';
		return;
	}
	json_encode(str, put_buf, b);
}

/* Bytes @s[0..n) of one character: shown as they are, or as \xHH each */
static bool shown_as_is(const unsigned char *s, size_t n)
{
	if (n == 0)
		return false;
	if (n == 1)
		return *s >= 0x20 && *s != 0x7f && *s != '\\';
	return !(s[0] == 0xc2 && s[1] < 0xa0);	/* C1 controls, U+0080-U+009F */
}

char *npg_safe_text(const char *str, char *buf, size_t len)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t used = 0;

	while (*s) {
		size_t n = utf8_valid(s);

		if (shown_as_is(s, n)) {
			if (used + n >= len)
				break;
			memcpy(buf + used, s, n);
			used += n;
			s += n;
		} else {
			if (used + 4 >= len)
				break;
			snprintf(buf + used, 5, "\\x%02x", *s);
			used += 4;
			s++;
		}
	}
	if (len)
		buf[used < len ? used : len - 1] = '\0';
	return buf;
}

static void safe_encode(const char *str, put_fn *put, void *ctx)
{
	const unsigned char *s = (const unsigned char *)(str ? str : ""), *run;

	for (run = s; *s;) {
		char esc[4] = { '\\', 'x' };
		size_t n;

		if (*s >= 0x20 && *s < 0x7f && *s != '\\') {
			s++;
			continue;
		}
		n = utf8_valid(s);
		if (n > 1 && shown_as_is(s, n)) {
			s += n;
			continue;
		}
		if (s > run)
			put(ctx, (const char *)run, (size_t)(s - run));
		esc[2] = hex[*s >> 4];
		esc[3] = hex[*s & 0xf];
		put(ctx, esc, 4);
		run = ++s;
	}
	if (s > run)
		put(ctx, (const char *)run, (size_t)(s - run));
}

void npg_safe_fputs(const char *str, FILE *out)
{
	safe_encode(str, put_file, out);
}

void npg_buf_safe(struct npg_buf *b, const char *str)
{
	safe_encode(str, put_buf, b);
}
