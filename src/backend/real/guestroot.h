/*
 * Root's count in a kernel booted for this run alone (guestroot.c): made
 * the scenario's at the start (real_backend.c), watched by every count
 * (observe.c), and then no reason to leave a step uncompared (rootcount.c).
 */
#ifndef NPG_REAL_GUESTROOT_H
#define NPG_REAL_GUESTROOT_H

#include "backend/real/real_priv.h"

/*
 * After the other users' fillers, before the scenario's first task (so
 * that every task charged to root is the machine's): in a guest
 * (host->own_kernel), make
 * root's count the file's with root fillers and set r->root_ours, or say
 * in r->root_why why it cannot be. 0, or -1 with b->error.
 */
int npg_real_root_take(struct npg_backend *b, struct real_priv *r);
/* After a count found r->root_outside_seen: root's count is no longer the
 * file's when a task outside the scenario came or went (r->root_why). */
void npg_real_root_seen(struct real_priv *r);
/*
 * After a count found root's tasks outside the scenario more or fewer than
 * set up (the kernel's threads come and go): root's fillers made or ended
 * to bring them back. 1 done (count again), 0 nothing to do or it cannot
 * be (then npg_real_root_seen()), -1 with b->error.
 */
int npg_real_root_rebalance(struct npg_backend *b, struct real_priv *r);
/* At the run's stop, the filler pipe closed: await root's fillers, then forget them */
void npg_real_root_release(struct real_priv *r);

#endif
