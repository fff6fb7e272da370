/*
 * Process lifecycle steps of the real backend (lifecycle.c): called by
 * the step dispatcher (real_backend.c) and by clone(CLONE_NEWUSER)
 * (userns_ops.c), which makes its child as fork() does.
 */
#ifndef NPG_REAL_LIFECYCLE_H
#define NPG_REAL_LIFECYCLE_H

#include "backend/real/real_priv.h"

/* fork, vfork, thread, clone: the new task as a puppet, its socket passed along */
struct npg_result npg_real_step_new_task(struct npg_backend *b, struct real_priv *r,
					 struct real_task *t, const struct npg_stmt *st);
/* exit: a thread alone, or its process (exit_group) */
struct npg_result npg_real_step_exit(struct npg_backend *b, struct real_priv *r,
				     struct real_task *t, const struct npg_stmt *st);
/* execve of the program the step names (its copy, for a declared file) */
struct npg_result npg_real_step_execve(struct npg_backend *b, struct real_priv *r,
				       struct real_task *t, const struct npg_stmt *st);
/* kill: answered once the target's group has exited (a fatal signal) */
struct npg_result npg_real_step_kill(struct npg_backend *b, struct real_priv *r,
				     struct real_task *t, const struct npg_stmt *st, pid_t target);

#endif
