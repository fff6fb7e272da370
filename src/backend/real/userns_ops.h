/* User namespace steps on the controller's side (userns_ops.c), for the step dispatcher */
#ifndef NPG_REAL_USERNS_OPS_H
#define NPG_REAL_USERNS_OPS_H

#include "backend/real/real_priv.h"

/* unshare user NS, clone CHILD user NS, setns user NS */
struct npg_result npg_real_step_unshare(struct npg_backend *b, struct real_priv *r,
					struct real_task *t, const struct npg_stmt *st);
struct npg_result npg_real_step_clone_user(struct npg_backend *b, struct real_priv *r,
					   struct real_task *t, const struct npg_stmt *st);
struct npg_result npg_real_step_setns_user(struct npg_backend *b, struct real_priv *r,
					   struct real_task *t, const struct npg_stmt *st);
/* write TASK uid_map|gid_map|setgroups, sysctl user.max_user_namespaces: by the puppet */
struct npg_result npg_real_step_write_proc(struct npg_backend *b, struct real_priv *r,
					   struct real_task *t, const struct npg_stmt *st);
/* At stop, the run's processes gone: a guest's initial user.max_user_namespaces as it was */
void npg_real_userns_restore(struct real_priv *r);

#endif
