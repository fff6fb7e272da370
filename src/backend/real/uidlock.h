/*
 * A real run owns a window of NPG_UID_WINDOW uids for its whole length.
 * Checking that nobody uses the window at start is not enough: a second
 * run started a moment later would see it empty too, and both would count
 * each other's processes. So a run holds flock(2) locks on the aligned
 * blocks its window overlaps, under /run/nprocguard/, until it exits.
 */
#ifndef NPG_REAL_UIDLOCK_H
#define NPG_REAL_UIDLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NPG_UID_LOCK_DIR "/run/nprocguard"

/*
 * Lock the window [base, base + NPG_UID_WINDOW). With @wait, block until
 * the holder is done (saying so on stderr once); without, fail at once.
 * Returns 0 (the locks stay held until the process exits), or -1 with a
 * message in @err naming the holder's pid.
 */
int npg_uid_window_lock(uint32_t base, bool wait, char *err, size_t errlen);

#endif
