/*
 * A puppet as a tracer: what it does for the tasks it attached to with
 * PTRACE_SEIZE or PTRACE_ATTACH, so that a tracee lives and dies as it would untraced (the
 * model's harness, "strace passing every signal on"). Puppet side only.
 */
#ifndef NPG_REAL_TRACER_H
#define NPG_REAL_TRACER_H

#include <stdbool.h>
#include <sys/types.h>

#include "scenario/scenario.h"

/* How long an idle tracer sleeps on its socket between looks at its tracees */
#define NPG_TRACER_TICK_MS 1

struct npg_tracee {
	pid_t tid;	/* what ptrace() and waitid() name: changes when a thread execs */
	pid_t tgid;	/* its process: the tid it takes over by exec'ing from a thread */
	pid_t ppid;	/* its process's real parent */
	bool held;	/* stopped on the controller's SIGSTOP, for the detach that follows */
};

/*
 * Per puppet task (ptrace links tasks), on serve()'s stack; the entries
 * are mapped at the first seize (NPG_MAX_TASKS of them): serve() frames
 * nest on a thread's small stack with every fork, so they stay small.
 */
struct npg_tracees {
	int n;
	struct npg_tracee *t;	/* NULL until the first */
};

/*
 * The environment variable that carries a tracer's list across its own
 * execve() (the links survive it: the tracer is the task, not the image).
 */
#define NPG_TRACEES_ENV "NPG_TRACEES"

/* Block SIGCHLD in the calling thread (see tracer.c for why). 0 or -1. */
int npg_tracer_block_sigchld(void);

/* Take the list a previous image of this task passed (and drop the variable). */
void npg_tracer_inherit(struct npg_tracees *tr);

/*
 * The environment for an execve() of this task: environ without an old
 * NPG_TRACEES, plus the current list. NULL if out of memory; free with
 * npg_tracer_env_free().
 */
char **npg_tracer_env(const struct npg_tracees *tr);
void npg_tracer_env_free(char **env);

/* Acknowledge every pending stop and exit of the tracees (never blocks). */
void npg_tracer_service(struct npg_tracees *tr);

/*
 * The step: PTRACE_SEIZE or PTRACE_ATTACH (its SIGSTOP stop taken and
 * resumed with no signal) of @tid (process @tgid, whose real parent is
 * @ppid), or a debugger's detach from the SIGSTOP the controller sent.
 * The result's errno, or 0.
 */
int npg_tracer_seize(struct npg_tracees *tr, pid_t tid, pid_t tgid, pid_t ppid);
int npg_tracer_attach(struct npg_tracees *tr, pid_t tid, pid_t tgid, pid_t ppid);
int npg_tracer_detach(struct npg_tracees *tr, pid_t tid);

/*
 * A stop that a wait for a child of ours met instead of its exit: a
 * traced child of ours reports its ptrace stops to any wait. Passed on as
 * the loop would. True if @status was such a stop.
 */
bool npg_tracer_pass_stop(pid_t pid, int status);

#endif
