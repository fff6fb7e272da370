/* Dropping privileges in CERT POS36-C order, verified (POS37-C), RLIMIT_NPROC aware. */
#include <errno.h>
#include <grp.h>
#include <stdbool.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "nprocguard/privdrop.h"
#include "system/procfs.h"

static int fail(struct npg_privdrop *d, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct npg_privdrop *d, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(d->reason, sizeof(d->reason), fmt, ap);
	va_end(ap);
	if (err && n >= 0 && (size_t)n < sizeof(d->reason))
		snprintf(d->reason + n, sizeof(d->reason) - (size_t)n, ": %s", strerror(err));
	errno = err ? err : EPERM;
	return -1;
}

static int cmp_gid(const void *a, const void *b)
{
	gid_t x = *(const gid_t *)a, y = *(const gid_t *)b;

	return x < y ? -1 : x > y;
}

/* The supplementary groups the kernel should now hold, sorted */
static int expected_groups(struct npg_privdrop *d, gid_t **out, int *n)
{
	*out = NULL;
	*n = 0;
	if (d->groups == NPG_GROUPS_SET) {
		*out = malloc((d->ngroups ? d->ngroups : 1) * sizeof(gid_t));
		if (!*out)
			return -1;
		memcpy(*out, d->group_list, d->ngroups * sizeof(gid_t));
		*n = (int)d->ngroups;
	} else if (d->groups == NPG_GROUPS_INIT) {
		int cap = 64;

		for (;;) {
			gid_t *g = realloc(*out, (size_t)cap * sizeof(gid_t));
			int got = cap;

			if (!g)
				return -1;
			*out = g;
			if (getgrouplist(d->user, d->gid, *out, &got) >= 0) {
				*n = got;
				break;
			}
			cap = got > cap ? got : cap * 2;
		}
	}
	if (*n)
		qsort(*out, (size_t)*n, sizeof(gid_t), cmp_gid);
	return 0;
}

static int verify_groups(struct npg_privdrop *d)
{
	gid_t *want = NULL, *have;
	int nwant = 0, nhave = getgroups(0, NULL), rc = 0;

	if (nhave < 0)
		return fail(d, errno, "getgroups");
	have = malloc(((size_t)nhave + 1) * sizeof(gid_t));
	if (!have)
		return fail(d, ENOMEM, "getgroups");
	nhave = getgroups(nhave, have);
	if (nhave < 0) {
		free(have);
		return fail(d, errno, "getgroups");
	}
	if (expected_groups(d, &want, &nwant) < 0) {
		free(have);
		return fail(d, ENOMEM, "computing the expected groups");
	}
	/* the kernel sorts the list (groups_sort()) and keeps duplicates */
	qsort(have, (size_t)nhave, sizeof(gid_t), cmp_gid);
	if (nhave != nwant || (nhave && memcmp(have, want, (size_t)nhave * sizeof(gid_t)) != 0))
		rc = fail(d, 0, "supplementary groups are not what was set (%d held, %d expected)",
			  nhave, nwant);
	free(want);
	free(have);
	return rc;
}

static int clear_capabilities(struct npg_privdrop *d)
{
	cap_t none = cap_init(), now;
	int equal;

	if (!none)
		return fail(d, errno, "cap_init");
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL) {
		cap_free(none);
		return fail(d, errno, "clearing ambient capabilities");
	}
	if (cap_set_proc(none) < 0) {
		cap_free(none);
		return fail(d, errno, "clearing capabilities");
	}
	now = cap_get_proc();
	equal = now && cap_compare(now, none) == 0;
	cap_free(now);
	cap_free(none);
	if (!equal)
		return fail(d, 0, "capabilities remain after clearing them");
	return 0;
}

int npg_drop_privileges(struct npg_privdrop *d)
{
	uid_t ru, eu, su;
	gid_t rg, eg, sg;

	d->reason[0] = '\0';
	if (d->groups == NPG_GROUPS_INIT && !d->user)
		return fail(d, EINVAL, "initgroups needs a user name");
	/* the limit first, as pam_limits does: set*uid() decides PF_NPROC_EXCEEDED
	 * against the limit in force when the uid changes */
	if (d->rlimit_nproc >= 0) {
		struct rlimit lim = { (rlim_t)d->rlimit_nproc, (rlim_t)d->rlimit_nproc };

		if (setrlimit(RLIMIT_NPROC, &lim) < 0)
			return fail(d, errno, "setrlimit(RLIMIT_NPROC, %lld)", d->rlimit_nproc);
	}
	/* POS36-C: groups, then gid, then uid -- each needs the privilege the next one drops */
	switch (d->groups) {
	case NPG_GROUPS_CLEAR:
		if (setgroups(0, NULL) < 0)
			return fail(d, errno, "setgroups(0)");
		break;
	case NPG_GROUPS_SET:
		if (setgroups(d->ngroups, d->group_list) < 0)
			return fail(d, errno, "setgroups(%zu groups)", d->ngroups);
		break;
	case NPG_GROUPS_INIT:
		if (initgroups(d->user, d->gid) < 0)
			return fail(d, errno, "initgroups(%s, %u)", d->user, (unsigned)d->gid);
		break;
	}
	if (setresgid(d->gid, d->gid, d->gid) < 0)
		return fail(d, errno, "setresgid(%u, %u, %u)", (unsigned)d->gid, (unsigned)d->gid,
			    (unsigned)d->gid);
	if (setresuid(d->uid, d->uid, d->uid) < 0)
		return fail(d, errno, "setresuid(%u, %u, %u)", (unsigned)d->uid, (unsigned)d->uid,
			    (unsigned)d->uid);
	/* POS37-C: believe the ids, not the return values */
	if (getresgid(&rg, &eg, &sg) < 0)
		return fail(d, errno, "getresgid");
	if (rg != d->gid || eg != d->gid || sg != d->gid)
		return fail(d, 0, "setresgid reported success but the gids are %u %u %u",
			    (unsigned)rg, (unsigned)eg, (unsigned)sg);
	if (getresuid(&ru, &eu, &su) < 0)
		return fail(d, errno, "getresuid");
	if (ru != d->uid || eu != d->uid || su != d->uid)
		return fail(d, 0, "setresuid reported success but the uids are %u %u %u",
			    (unsigned)ru, (unsigned)eu, (unsigned)su);
	if (verify_groups(d) < 0)
		return -1;
	if (d->uid != 0) {
		if (setuid(0) == 0)
			return fail(d, 0, "setuid(0) succeeded after the drop: root can be regained");
		if (d->gid != 0 && setgid(0) == 0)
			return fail(d, 0, "setgid(0) succeeded after the drop: gid 0 can be regained");
		if (clear_capabilities(d) < 0)
			return -1;
	}
	if (d->flags & NPG_PRIVDROP_NO_NEW_PRIVS) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			return fail(d, errno, "prctl(PR_SET_NO_NEW_PRIVS)");
		if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
			return fail(d, 0, "no_new_privs is not set after setting it");
	}
	return 0;
}

int npg_nproc_execve_verdict(char *buf, size_t len)
{
	struct npg_proc_task self;
	struct rlimit lim;
	uint32_t uid = (uint32_t)getuid();
	long count;
	struct passwd *pw;
	char who[64];
	bool flagged;

	if (npg_proc_read_task(getpid(), getpid(), &self) < 0 || getrlimit(RLIMIT_NPROC, &lim) < 0)
		return -1;
	if (uid == 0 || lim.rlim_cur == RLIM_INFINITY)
		return 0;
	if (npg_proc_count_by_ruid(&uid, 1, &count) < 0)
		return -1;
	if ((unsigned long long)count <= (unsigned long long)lim.rlim_cur)
		return 0;
	pw = getpwuid(uid);
	if (pw)
		snprintf(who, sizeof(who), "%s", pw->pw_name);
	else
		snprintf(who, sizeof(who), "%u", uid);
	/* fs/exec.c: refused only when flagged and the user is still over the limit */
	flagged = self.flags & NPG_PF_NPROC_EXCEEDED;
	if (flagged)
		snprintf(buf, len, "user %s has %ld tasks, RLIMIT_NPROC is %llu: execve would fail "
			 "with EAGAIN (PF_NPROC_EXCEEDED)", who, count, (unsigned long long)lim.rlim_cur);
	else
		snprintf(buf, len, "user %s has %ld tasks, RLIMIT_NPROC is %llu: over the limit, but "
			 "execve is allowed (PF_NPROC_EXCEEDED is not set: the kernel flags a switch "
			 "only when the user was already over the limit)", who, count,
			 (unsigned long long)lim.rlim_cur);
	return flagged ? 1 : 2;
}
