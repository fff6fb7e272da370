/*
 * The report's escapes and numbers, written in runs and into memory (buf.h,
 * escape.c), against the code they replaced: one call per character, to a
 * stream (main before the reports were written in blocks), on strings of
 * every kind of byte -- plain ASCII, quotes and backslashes, controls and
 * DEL, UTF-8 of every length, C1 controls, overlongs, surrogates, bytes
 * above U+10FFFF, truncated sequences.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "report/buf.h"
#include "report/report.h"
#include "tap.h"

/* ---- the code before: escape.c as it was ---- */

static size_t ref_utf8_valid(const unsigned char *s)
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
			return 0;
	return n;
}

static void ref_json_string(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', out);
	while (s && *s) {
		size_t n = ref_utf8_valid(s);

		if (n == 0) {
			fputs("\\ufffd", out);
			s++;
			continue;
		}
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", out);
		else if (*s == '\t')
			fputs("\\t", out);
		else if (*s < 0x20 || *s == 0x7f)
			fprintf(out, "\\u%04x", *s);
		else
			fwrite(s, 1, n, out);
		s += n;
	}
	fputc('"', out);
}

static bool ref_shown_as_is(const unsigned char *s, size_t n)
{
	if (n == 0)
		return false;
	if (n == 1)
		return *s >= 0x20 && *s != 0x7f && *s != '\\';
	return !(s[0] == 0xc2 && s[1] < 0xa0);
}

static void ref_safe_fputs(const char *str, FILE *out)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");

	while (*s) {
		size_t n = ref_utf8_valid(s);

		if (ref_shown_as_is(s, n)) {
			fwrite(s, 1, n, out);
			s += n;
		} else {
			fprintf(out, "\\x%02x", *s++);
		}
	}
}

/* ---- strings ---- */

static unsigned long rng = 20261207;

static unsigned pick(unsigned n)
{
	rng = rng * 6364136223846793005UL + 1442695040888963407UL;
	return (unsigned)(rng >> 33) % n;
}

/* A string of up to 40 pieces, each a kind of byte or sequence */
static void random_string(char *s, size_t len)
{
	static const char *const pieces[] = {
		"ok", " ", "\"", "\\", "\\x41", "\t", "\n", "\x1b[31m", "\x7f", "\x01",
		"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xc2\x85", "\xc2\xa0",
		"\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xf5",
		"\xff", "\xfe", "\xc3", "\xe2\x82", "\xf0\x9f\x98", "\x80", "\xbf",
		"linux-2.6 for 5.10.223", "/usr/bin/\xc3\xa9" "dit",
	};
	size_t used = 0;

	for (unsigned k = pick(40); k > 0; k--) {
		const char *p = pieces[pick(sizeof(pieces) / sizeof(pieces[0]))];
		char one[2] = { (char)(1 + pick(255)), 0 };

		if (pick(4) == 0)
			p = one;	/* any byte but NUL */
		if (used + strlen(p) + 1 > len)
			break;
		memcpy(s + used, p, strlen(p));
		used += strlen(p);
	}
	s[used] = '\0';
}

/* What @write(@s) wrote to a stream */
static char *to_stream(void (*write)(FILE *, const char *), const char *s, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	write(f, s);
	fclose(f);
	return text;
}

static void json_file(FILE *f, const char *s) { npg_json_string(f, s); }
static void safe_file(FILE *f, const char *s) { npg_safe_fputs(s, f); }
static void ref_safe(FILE *f, const char *s) { ref_safe_fputs(s, f); }

static bool same(const char *what, const char *s, const char *want, size_t want_len,
		 const char *got, size_t got_len)
{
	if (want_len == got_len && memcmp(want, got, got_len) == 0)
		return true;
	printf("# %s differs on:", what);
	for (const char *p = s; *p; p++)
		printf(" %02x", (unsigned char)*p);
	printf("\n#   want %.*s\n#   got  %.*s\n", (int)want_len, want, (int)got_len, got);
	return false;
}

/* @file_new (to a stream) and @buf_new (into @b) write what @ref wrote of @s */
static bool agree(const char *what, void (*ref)(FILE *, const char *),
		  void (*file_new)(FILE *, const char *),
		  void (*buf_new)(struct npg_buf *, const char *), struct npg_buf *b, const char *s)
{
	size_t want_len, got_len;
	char *want = to_stream(ref, s, &want_len), *got = to_stream(file_new, s, &got_len);
	bool ok = same(what, s, want, want_len, got, got_len);

	b->len = 0;
	buf_new(b, s);
	ok = ok && same(what, s, want, want_len, b->data, b->len);
	free(want);
	free(got);
	return ok;
}

int main(void)
{
	struct npg_buf b = { 0 };
	static const long numbers[] = { 0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 65535,
		4294967294L, 4294967295L, 1234567890123L, -1, -9, -10, -100, LONG_MAX,
		LONG_MIN, LONG_MIN + 1 };
	bool json_ok = true, safe_ok = true, long_ok = true;
	char s[256];

	for (int i = 0; i < 20000 && json_ok && safe_ok; i++) {
		random_string(s, sizeof(s));
		json_ok = agree("JSON", ref_json_string, json_file, npg_buf_json, &b, s);
		safe_ok = agree("safe text", ref_safe, safe_file, npg_buf_safe, &b, s);
	}
	tap_ok(json_ok, "JSON strings of 20,000 random byte strings as one character at a time wrote them");
	tap_ok(safe_ok, "terminal-safe text of 20,000 random byte strings as one character at a time wrote it");

	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]) + 20000 && long_ok; i++) {
		long v = i < sizeof(numbers) / sizeof(numbers[0]) ? numbers[i]
			 : (long)(((unsigned long)pick(1u << 31) << 33) ^ pick(1u << 31)) >> pick(64);
		char want[32];

		snprintf(want, sizeof(want), "%ld", v);
		b.len = 0;
		npg_buf_long(&b, v);
		long_ok = same("npg_buf_long", want, want, strlen(want), b.data, b.len);
	}
	tap_ok(long_ok, "numbers as printf's %%ld writes them, the extremes and 20,000 random ones");

	b.len = 0;
	npg_buf_json(&b, NULL);
	tap_ok(b.len == 2 && memcmp(b.data, "\"\"", 2) == 0, "a NULL string is \"\" in JSON");
	b.len = 0;
	npg_buf_safe(&b, NULL);
	tap_ok(b.len == 0, "a NULL string is nothing as safe text");
	npg_buf_free(&b);
	return tap_done();
}
