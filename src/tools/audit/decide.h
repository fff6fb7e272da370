/*
 * The audit's decision on one trapped set*id call, asked of the model.
 * The supervisor describes the calling thread as /proc shows it; the
 * decision puts that thread into a one-task model world, applies the call
 * under the policy's hooks (src/model/policy/), and reads back the
 * outcome. No kernel rule is written here a second time.
 */
#ifndef NPG_TOOLS_AUDIT_DECIDE_H
#define NPG_TOOLS_AUDIT_DECIDE_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"
#include "tools/audit/audit.h"

/* The set*id system calls the audit filter traps, in the model's terms */
enum npg_audit_call_kind {
	NPG_CALL_SETUID,	/* setuid, setgid */
	NPG_CALL_SETREUID,	/* setreuid, setregid */
	NPG_CALL_SETRESUID,	/* setresuid, setresgid (seteuid, setegid in glibc) */
	NPG_CALL_SETFSUID,	/* setfsuid, setfsgid: never fail, return the old fs id */
	NPG_CALL_SETGROUPS,
};

struct npg_audit_call {
	enum npg_audit_call_kind kind;
	bool gid;		/* the gid twin of the call */
	npg_id id[3];		/* NPG_ID_NONE for -1 */
};

/* Users whose counts a decision may read: the caller's real and effective uid and 3 arguments */
#define NPG_AUDIT_MAX_COUNTS 5

/* The calling thread, as /proc/PID/task/TID/{status,stat} and /proc/PID/limits show it */
struct npg_audit_caller {
	struct npg_ids uid, gid;
	uint64_t cap_effective, cap_permitted, cap_bset;
	uint64_t nproc_cur, nproc_max;	/* RLIMIT_NPROC of its process */
	bool nproc_exceeded;		/* PF_NPROC_EXCEEDED */
	int ncounts;
	struct npg_count counts[NPG_AUDIT_MAX_COUNTS];	/* tasks per real uid, the caller's own included */
};

enum npg_audit_action {
	NPG_AUDIT_PASS,		/* not a privilege drop: let it run, uncounted */
	NPG_AUDIT_ALLOW,	/* a drop the policy lets through */
	NPG_AUDIT_FAIL,		/* fail it: return -1 with errno = error */
	NPG_AUDIT_KILL,		/* ow-2006: SIGSEGV to the caller, then fail it */
};

struct npg_audit_decision {
	enum npg_audit_action action;
	int error;		/* for FAIL and KILL */
	/* setfsuid/setfsgid cannot fail: a refused one returns the old fs id */
	bool returns_id;
	npg_id id;
};

/*
 * The call a trapped system call @name (as libseccomp names it) with
 * arguments @args makes. @legacy16: the i386 16-bit calls (setuid, not
 * setuid32), whose -1 is 0xffff. Returns false for a name that is not a
 * set*id call.
 */
bool npg_audit_call_of(const char *name, const uint64_t *args, bool legacy16,
		       struct npg_audit_call *out);

/* The uids whose counts a decision on @call reads (at most NPG_AUDIT_MAX_COUNTS) */
int npg_audit_count_uids(const struct npg_audit_caller *c, const struct npg_audit_call *call,
			 npg_id *uids);

/* Does @p need the users' counts at all (a kernel era's set_user())? */
bool npg_audit_policy_reads_counts(enum npg_audit_policy p);

/*
 * Decide @call by @c under audit policy @p (NPG_AUDIT_MODEL: by @model). @failed_before: how many drops
 * the policy has already failed in this run (the "once" policy). Returns 0,
 * or -1 when the model could not be set up (out of memory).
 */
int npg_audit_decide(enum npg_audit_policy p, const struct npg_config *model, int failed_before,
		     const struct npg_audit_caller *c, const struct npg_audit_call *call,
		     struct npg_audit_decision *out);

#endif
