/* ptrace on the controller's side (tracing.c): asked by the step dispatcher (real_backend.c) */
#ifndef NPG_REAL_TRACING_H
#define NPG_REAL_TRACING_H

#include <stddef.h>

#include "backend/real/real_priv.h"

/* Why @st cannot run here because of a tracer that cannot act, or NULL */
const char *npg_real_tracing_hazard(struct real_priv *r, const struct npg_stmt *st);
/* After a step: every traced exit acknowledged as the model has it. 0 or -1. */
int npg_real_tracing_settle(struct real_priv *r, char *why, size_t len);
/* ptrace detach by @t: the SIGSTOP that brings its tracee @tt to a stop to detach from */
void npg_real_detach_stop(const struct real_task *t, const struct real_task *tt);

#endif
