#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "runner/reasons.h"

/*
 * The reason with what differs from one occurrence to the next taken out:
 * "(line 5)" and "; the run is not compared after it" (where, not why),
 * every run of digits as "N" (counts, uids of the window, line numbers).
 */
static void normalize(const char *in, char *out, size_t len)
{
	size_t o = 0;

	for (const char *p = in; *p && o + 2 < len;) {
		if (strncmp(p, " (line ", 7) == 0 && isdigit((unsigned char)p[7])) {
			const char *q = p + 7;

			while (isdigit((unsigned char)*q))
				q++;
			if (*q == ')') {
				p = q + 1;
				continue;
			}
		}
		if (strncmp(p, "; the run is not compared after it", 34) == 0) {
			p += 34;
			continue;
		}
		if (isdigit((unsigned char)*p)) {
			out[o++] = 'N';
			while (isdigit((unsigned char)*p))
				p++;
			continue;
		}
		out[o++] = *p++;
	}
	out[o] = '\0';
}

/* The tally of @key, added (with no statement yet) if new; NULL out of memory */
static struct npg_reason_count *tally(struct npg_reasons *rs, const char *key)
{
	struct npg_reason_count *c;

	for (int i = 0; i < rs->n; i++)
		if (strcmp(rs->r[i].reason, key) == 0)
			return &rs->r[i];
	if (rs->n == rs->cap) {
		int cap = rs->cap ? 2 * rs->cap : 16;
		struct npg_reason_count *r = realloc(rs->r, (size_t)cap * sizeof(*r));

		if (!r)
			return NULL;
		rs->r = r;
		rs->cap = cap;
	}
	c = &rs->r[rs->n];
	*c = (struct npg_reason_count){ .reason = strdup(key), .last_scenario = -1 };
	if (!c->reason)
		return NULL;
	rs->n++;
	return c;
}

int npg_reasons_add(struct npg_reasons *rs, int scenario, const char *reason)
{
	char key[256];
	struct npg_reason_count *c;

	normalize(reason && *reason ? reason : "(no reason given)", key, sizeof(key));
	if (!(c = tally(rs, key)))
		return -1;
	c->statements++;
	if (c->last_scenario != scenario) {
		c->scenarios++;
		c->last_scenario = scenario;
	}
	return 0;
}

int npg_reasons_merge(struct npg_reasons *rs, const char *reason, long statements, long scenarios)
{
	struct npg_reason_count *c = tally(rs, reason);

	if (!c)
		return -1;
	c->statements += statements;
	c->scenarios += scenarios;
	return 0;
}

static int by_statements(const void *a, const void *b)
{
	const struct npg_reason_count *x = a, *y = b;

	if (x->statements != y->statements)
		return x->statements < y->statements ? 1 : -1;
	return strcmp(x->reason, y->reason);
}

void npg_reasons_sort(struct npg_reasons *rs)
{
	if (rs->n > 1)
		qsort(rs->r, (size_t)rs->n, sizeof(*rs->r), by_statements);
}

void npg_reasons_free(struct npg_reasons *rs)
{
	for (int i = 0; i < rs->n; i++)
		free(rs->r[i].reason);
	free(rs->r);
	*rs = (struct npg_reasons){ 0 };
}
