/*
 * What identify found for this boot of this kernel, kept so that
 * `--model identified` does not probe again: one file in nprocguard's
 * cache directory (NPROCGUARD_CACHE, else XDG_CACHE_HOME/nprocguard,
 * ~/.cache/nprocguard), valid for the boot id
 * (/proc/sys/kernel/random/boot_id) and the release it was written for.
 */
#ifndef NPG_IDENTIFY_CACHE_H
#define NPG_IDENTIFY_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "model/config.h"
#include "model/release.h"

struct npg_identified;

/* Keep @id for this boot of kernel @release. -1 (errno) if it cannot be written. */
int npg_identified_save(const struct npg_identified *id, const char *release);
/*
 * The configuration kept for this boot of kernel @release: 1 and @c (and
 * the file's path in @path), 0 when there is none or it is another boot's
 * or release's, -1 when it cannot be read or does not parse (@why)
 */
int npg_identified_load(struct npg_config *c, const char *release, char *path, size_t pathlen,
			char *why, size_t whylen);

/*
 * When what identify found for this boot of kernel @release is not what
 * its version says (@version): 1, and "identify found X for this boot of
 * kernel R, where its version says Y" in @buf; 0 when they agree or
 * nothing is kept (or it cannot be read)
 */
int npg_identified_differs(const struct npg_release *version, const char *release, char *buf,
			   size_t len);

#endif
