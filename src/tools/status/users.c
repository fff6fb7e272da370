/*
 * status's rows: one per real uid, the scan's figures summed by
 * npg_scan_users(), and what the columns derive from them.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "tools/status/status.h"

bool npg_status_wanted(uint32_t uid, const uint32_t *users, int nusers)
{
	if (nusers == 0)
		return true;
	for (int i = 0; i < nusers; i++)
		if (users[i] == uid)
			return true;
	return false;
}

static int cmp_uid(const void *a, const void *b)
{
	const struct npg_status_user *x = a, *y = b;

	return x->u.uid < y->u.uid ? -1 : x->u.uid > y->u.uid;
}

struct npg_status_user *npg_status_users(const struct npg_scan *s, const uint32_t *users,
					 int nusers, size_t *nrows)
{
	struct npg_scan_user *u;
	struct npg_status_user *rows;
	size_t n;

	if (npg_scan_users(s, &u, &n) < 0)
		return NULL;
	rows = calloc(n ? n : 1, sizeof(*rows));
	for (size_t i = 0; rows && i < n; i++) {
		rows[i].u = u[i];
		rows[i].shown = npg_status_wanted(u[i].uid, users, nusers);
	}
	free(u);
	*nrows = n;
	return rows;
}

void npg_status_name_users(struct npg_usernames *names, struct npg_status_user *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].shown)
			npg_usernames_want(names, rows[i].u.uid);
	npg_usernames_finish(names);
	for (size_t i = 0; i < n; i++) {
		const char *name = npg_usernames_get(names, rows[i].u.uid);

		if (rows[i].shown && name)
			snprintf(rows[i].name, sizeof(rows[i].name), "%s", name);
	}
}

const struct npg_status_user *npg_status_find(const struct npg_status_user *rows, size_t n,
					      uint32_t uid)
{
	struct npg_status_user key = { .u.uid = uid };

	return bsearch(&key, rows, n, sizeof(*rows), cmp_uid);
}

bool npg_status_exempt(const struct npg_status_user *r)
{
	return npg_scan_user_exempt(&r->u);
}

long long npg_status_headroom(const struct npg_status_user *r)
{
	return r->u.nproc_min == UINT64_MAX ? LLONG_MAX : (long long)r->u.nproc_min - r->u.tasks;
}
