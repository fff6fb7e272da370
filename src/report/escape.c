/*
 * Scenario text reaches reports unchanged: titles, sources, file names and
 * the statements as written may hold any byte but NUL and newline. JSON
 * must stay valid UTF-8 for strict parsers, and text must not hand escape
 * sequences from a file to the terminal that shows it.
 */
#include <string.h>

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

void npg_json_string(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', out);
	while (s && *s) {
		size_t n = utf8_valid(s);

		if (n == 0) {
			fputs("\\ufffd", out);	/* one replacement per byte that is not UTF-8 */
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

void npg_safe_fputs(const char *str, FILE *out)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");

	while (*s) {
		size_t n = utf8_valid(s);

		if (shown_as_is(s, n)) {
			fwrite(s, 1, n, out);
			s += n;
		} else {
			fprintf(out, "\\x%02x", *s++);
		}
	}
}
