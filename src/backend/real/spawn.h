/* The run's own processes, made at its start and gone at its stop (spawn.c) */
#ifndef NPG_REAL_SPAWN_H
#define NPG_REAL_SPAWN_H

#include <stdbool.h>

#include "backend/real/real_priv.h"

/*
 * Refuse a scenario the machine cannot hold before making any process:
 * 0, or -1 with b->error.
 */
int npg_real_check_capacity(struct npg_backend *b, const struct real_priv *r);
/* Every user's `procs N`, each counted once its uid switch is acknowledged. 0, or -1. */
int npg_real_spawn_fillers(struct npg_backend *b, struct real_priv *r);
/* @n processes of @root that the scenario does not drive (guestroot.c). 0, or -1. */
int npg_real_spawn_root_fillers(struct npg_backend *b, struct real_priv *r,
				const struct npg_name *root, long n);
/* Declared task @idx as a puppet with the credentials the scenario declares. 0, or -1. */
int npg_real_spawn_initial(struct npg_backend *b, struct real_priv *r, int idx);
/* Is @t's process (a leader) still there, and the one the run made? */
bool npg_real_still_there(const struct real_task *t);
/*
 * After the stop killed them: wait until every process of the run is
 * gone (reaped here; without a subreaper, by init). 0, or -1 if some
 * were still there after STOP_TIMEOUT_MS.
 */
int npg_real_await_all_gone(const struct real_priv *r);

#endif
