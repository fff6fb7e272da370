/*
 * Observation of the real backend (observe.c): its view, count and
 * check_reproducible operations (backend.h), in real_backend.c's table.
 */
#ifndef NPG_REAL_OBSERVE_H
#define NPG_REAL_OBSERVE_H

#include <stdbool.h>

#include "backend/real/real_priv.h"

/* Task @task as the kernel has it now, in the scenario's ids */
void npg_real_view(struct npg_backend *b, int task, struct npg_task *out);
/* User @uid's count at namespace @ns's level (0 for one not made), or -1 */
long npg_real_count(struct npg_backend *b, int ns, npg_id uid);
/* Can check @st be compared here? If not, why in b->reason. */
bool npg_real_check_reproducible(struct npg_backend *b, const struct npg_stmt *st);

#endif
