/*
 * Credential steps and set-up of the real backend (creds.c): called by
 * the step dispatcher (real_backend.c) and by the set-up of a declared
 * task.
 */
#ifndef NPG_REAL_CREDS_H
#define NPG_REAL_CREDS_H

#include <stdbool.h>
#include <sys/resource.h>

#include "backend/real/real_priv.h"

/* In a new puppet: its credentials, bounding set and limit as @d declares them. 0, or -1 (errno). */
int npg_real_apply_initial(const struct real_priv *r, const struct npg_task_decl *d,
			   const struct rlimit *lim);

/* A process of the run: the live threads of process @pid (npg_real_live_thread()) */
struct real_group {
	const struct real_priv *r;
	pid_t pid;
};

/* Is task @i a live thread of process @arg (a struct real_group)? For npg_glibc_order(). */
bool npg_real_live_thread(int i, void *arg);
/* glibc's set*id in a threaded process: each thread's raw call in glibc's order */
struct npg_result npg_real_step_glibc_setxid(struct npg_backend *b, struct real_priv *r,
					      struct real_task *t, const struct npg_stmt *st);

#endif
