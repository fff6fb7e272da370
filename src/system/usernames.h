/*
 * User names for uids, looked up through NSS on worker threads while the
 * caller goes on reading tasks: a uid that no NSS source knows costs a
 * miss in every source (about 0.15 ms here with nss-systemd), and
 * container hosts have many such uids.
 */
#ifndef NPG_SYSTEM_USERNAMES_H
#define NPG_SYSTEM_USERNAMES_H

#include <stddef.h>
#include <stdint.h>

struct npg_usernames;

/* One lookup, on this thread: the user name, or the uid in decimal. */
void npg_user_name(uint32_t uid, char *name, size_t len);

/* NULL on ENOMEM. */
struct npg_usernames *npg_usernames_new(void);
/* Queue @uid for lookup unless already known. One caller thread at a time. */
void npg_usernames_want(struct npg_usernames *u, uint32_t uid);
/* Wait until every queued uid has its name (helping with the lookups). */
void npg_usernames_finish(struct npg_usernames *u);
/* After finish: the user name, or the uid in decimal if NSS knows none; NULL if never wanted. */
const char *npg_usernames_get(const struct npg_usernames *u, uint32_t uid);
void npg_usernames_free(struct npg_usernames *u);

#endif
