/*
 * nprocguard audit: run a program under a seccomp user-notification
 * supervisor that makes its privilege drops fail as an old kernel would,
 * and watches what it does next with effective uid 0.
 */
#ifndef NPG_TOOLS_AUDIT_H
#define NPG_TOOLS_AUDIT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "model/config.h"

enum npg_audit_policy {
	NPG_AUDIT_ALWAYS,	/* fail every drop step */
	NPG_AUDIT_ONCE,		/* fail the first drop step only */
	NPG_AUDIT_LINUX_2_6,	/* fail as set_user() of 2.6.0-3.0 would: N >= L */
	NPG_AUDIT_OW_2006,	/* kill with SIGSEGV where linux-2.6 would fail */
	NPG_AUDIT_MODEL,	/* fail where the model of a configuration does (--model) */
};

enum npg_verdict {
	NPG_VERDICT_SAFE = 0,		/* noticed and stopped, or failed cleanly */
	NPG_VERDICT_VULNERABLE = 1,	/* carried on as root after a failed drop */
	NPG_VERDICT_ERROR = 2,		/* usage error or supervisor failure */
	NPG_VERDICT_KILLED = 3,		/* killed by the ow-2006 policy */
	NPG_VERDICT_NO_DROP = 4,	/* never tried to drop */
	NPG_VERDICT_TIMED_OUT = 5,	/* killed at --timeout, no finding before */
	NPG_VERDICT_CANNOT_EXECUTE = 6,	/* the program could not be executed at all */
};

struct npg_finding {
	pid_t pid;
	char syscall[24];
	char args[320];
	double seconds_after;		/* since the failed drop */
	char where[320];		/* binary+offset (symbol) */
	char failed_call[80];		/* the drop that had failed */
	unsigned uids[3];		/* real, effective, saved uid when it acted */
};

struct npg_audit_result {
	enum npg_verdict verdict;
	int drops, failed, notifications;
	char first_failed[80];		/* the first drop the policy failed: "setuid(1000)" */
	bool found;
	struct npg_finding finding;	/* the first one */
	int went_on_as_root;		/* processes that acted holding uid 0 after a failed drop */
	bool exited;			/* exit_status is the program's */
	int exit_status;		/* the program's wait status */
	bool timed_out;
	int exec_errno;			/* execvp() of the program failed with this */
	pid_t killed_pid;
	char error[256];
};

struct npg_audit_options {
	enum npg_audit_policy policy;
	struct npg_config model;	/* NPG_AUDIT_MODEL: its policy and rules */
	char *const *argv;
	double timeout;			/* seconds for the whole run */
};

int npg_audit_run(const struct npg_audit_options *o, struct npg_audit_result *r);

/* Symbolize an address in process @pid: "libc.so.6+0x10e2f4 (__open64)". */
void npg_symbolize(pid_t pid, uint64_t ip, char *buf, size_t len);

/* Load the audit filter on the calling process; returns the listener fd, or -1. */
int npg_audit_load_filter(void);

#endif
