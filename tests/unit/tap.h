/* A minimal TAP producer for the unit tests, read by prove. */
#ifndef NPG_TESTS_TAP_H
#define NPG_TESTS_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int tap_number, tap_failed;

static inline bool tap_ok(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline bool tap_ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_number);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_failed++;
	return cond;
}

#define tap_is(got, want, ...) \
	(tap_ok((long)(got) == (long)(want), __VA_ARGS__) || \
	 (printf("#   got %ld, want %ld\n", (long)(got), (long)(want)), false))

static inline int tap_done(void)
{
	printf("1..%d\n", tap_number);
	return tap_failed ? 1 : 0;
}

#endif
