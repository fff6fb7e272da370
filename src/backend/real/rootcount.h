/*
 * Decisions the kernel takes by root's count (rootcount.c): asked by the
 * step dispatcher (real_backend.c) before each step.
 */
#ifndef NPG_REAL_ROOTCOUNT_H
#define NPG_REAL_ROOTCOUNT_H

#include <stdbool.h>

#include "backend/real/real_priv.h"

/* Why @st's outcome is decided by root's count at the top of @t's ucounts chain, or NULL */
const char *npg_real_decision_on_root_chain(const struct real_priv *r, const struct real_task *t,
					    const struct npg_stmt *st);
/* Why @st's outcome is decided by root's count, which 5.14-5.16 charge @t to, or NULL */
const char *npg_real_decision_on_roots_count(struct real_priv *r, const struct real_task *t,
					     const struct npg_stmt *st);

#endif
