/*
 * nprocguard status: how close each user is to RLIMIT_NPROC, as the
 * kernel counts (threads and zombies included, by real uid), and which
 * tasks carry PF_NPROC_EXCEEDED and will fail their next execve(). The
 * tasks are read from the BPF iterator or /proc (source.c), summed per
 * user (users.c), and --check decides what to report (check.c);
 * src/cli/cmd_status.c parses the options and prints.
 */
#ifndef NPG_TOOLS_STATUS_H
#define NPG_TOOLS_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "system/procscan.h"
#include "system/usernames.h"

/* One user's row: the scan's figures, whether --user selects it, its name */
struct npg_status_user {
	struct npg_scan_user u;	/* npg_scan_users(): counts and limits */
	bool shown;		/* selected by --user (or no --user) */
	char name[64];		/* looked up only if a column or message needs it */
};

/*
 * Every task of the system into @scan from @source ("auto", "bpf" or
 * "proc"); the soft RLIMIT_NPROC too with @want_limits. *partial is set
 * when /proc hides other users' tasks (hidepid). Reports on stderr and
 * returns -1 if the tasks cannot be read.
 */
int npg_status_scan(struct npg_scan *scan, const char *source, bool want_limits, bool *partial);

/* Is @uid among @users (every uid when @nusers is 0)? */
bool npg_status_wanted(uint32_t uid, const uint32_t *users, int nusers);
/* One row per real uid of @s, sorted by uid, shown as --user selects; NULL on ENOMEM */
struct npg_status_user *npg_status_users(const struct npg_scan *s, const uint32_t *users,
					 int nusers, size_t *nrows);
/* The shown rows' names, from @names once every lookup is done */
void npg_status_name_users(struct npg_usernames *names, struct npg_status_user *rows, size_t n);
/* The row of @uid in @rows (sorted by uid), or NULL */
const struct npg_status_user *npg_status_find(const struct npg_status_user *rows, size_t n,
					      uint32_t uid);
/* Not at risk: root's ucounts, or every live task holds CAP_SYS_RESOURCE/CAP_SYS_ADMIN */
bool npg_status_exempt(const struct npg_status_user *r);
/* Forks left to the user's most limited process; LLONG_MAX when unlimited */
long long npg_status_headroom(const struct npg_status_user *r);

/*
 * One finding of --check: @kind is "user", "exempt", "refused", "machine"
 * or "task"; @tid is 0 for a user; @text the sentence.
 */
typedef void npg_status_finding_fn(void *ctx, const char *kind, uint32_t uid, pid_t tid,
				   const char *text);

/*
 * --check: every shown user at @percent % of its limit or more, the
 * machine's limits as explain walks them, and every flagged task, each
 * given to @emit in that order (at the limit, the cause as `nprocguard
 * explain` names it). 1 if any is a problem (an exempt user is said, not
 * alarmed), else 0.
 */
int npg_status_check(struct npg_status_user *rows, size_t n, const struct npg_scan *s,
		     double percent, const uint32_t *users, int nusers,
		     npg_status_finding_fn *emit, void *ctx);

#endif
