/*
 * A policy is one kernel era's answer to the few questions that changed
 * between eras. Each hook is named after the kernel function whose
 * decision it reproduces; each policy lives in its own file under
 * policy/ and cites its source on every rule.
 */
#ifndef NPG_MODEL_POLICY_H
#define NPG_MODEL_POLICY_H

#include "model/history.h"
#include "model/model.h"
#include "model/rules.h"

/* set_user() may ask for the caller to be killed instead of failing */
#define NPG_SET_USER_KILL_SIGSEGV 1

struct npg_policy {
	const char *name;
	const char *kernels;	/* which kernels behaved this way */
	const char *source;	/* where the rules come from */
	const char *summary;	/* one line */
	bool has_flag;		/* whether PF_NPROC_EXCEEDED exists in this era */
	/*
	 * The release whose rules it has (npg_policy_rules(): those
	 * model/history.c dates in it): the era's newest mainline state,
	 * without the stable branches' backports of the next era's fixes --
	 * 5.16 for linux-5.14, whose 5.15.y and 5.16.y later took linux-6's
	 * RLIMIT_NPROC rules (model/release.c names those linux-6)
	 */
	struct npg_version release;
	/*
	 * RLIMIT_NPROC lives in ucounts (21d1c5e386bc, 5.14): one count per
	 * (user namespace, uid), checked up the chain of namespaces; before,
	 * one count per kernel uid (user_struct) across all namespaces.
	 */
	bool ucounts;

	/*
	 * copy_process(): may @parent create one more task (fork or thread)?
	 * Called after the child has been duplicated (so it has inherited the
	 * parent's flags) and before the child is charged to any count.
	 * Returns 0 or -EAGAIN; may clear the parent's flag on success.
	 */
	int (*copy_process)(struct npg_world *w, struct npg_task *parent,
			    const struct npg_cred *charged);
	/*
	 * set_user(): the real uid of @cur changes to new->uid.real. Returns 0,
	 * -EAGAIN, or NPG_SET_USER_KILL_SIGSEGV; may set or clear the flag.
	 * @new->charged_to is still the old one here (set_cred_ucounts() runs
	 * later), which is what made 5.14-5.16 compare the wrong count.
	 */
	int (*set_user)(struct npg_world *w, struct npg_task *cur, const struct npg_cred *new);

	/* flag_nproc_exceeded(): after set_cred_ucounts() (5.17, and the
	 * 5.15.y/5.16.y backports). May be NULL. */
	void (*flag_nproc_exceeded)(struct npg_world *w, struct npg_task *cur,
				    const struct npg_cred *new);

	/* do_execveat_common(): 0 or -EAGAIN before anything else; may clear the flag. */
	int (*execve)(struct npg_world *w, struct npg_task *cur);
};

extern const struct npg_policy npg_policy_linux_2_4;
extern const struct npg_policy npg_policy_linux_2_6;
extern const struct npg_policy npg_policy_ow_2006;
extern const struct npg_policy npg_policy_kulikov_2011;
extern const struct npg_policy npg_policy_brown_flag_2011;
extern const struct npg_policy npg_policy_linux_3_1;
extern const struct npg_policy npg_policy_linux_5_14;
extern const struct npg_policy npg_policy_linux_6;

/* All policies in historical order; NULL-terminated. */
extern const struct npg_policy *const npg_policies[];
#define NPG_NPOLICIES 8

const struct npg_policy *npg_policy_find(const char *name);
/* The rules of @p's own release (npg_policy.release), as model/history.c dates them */
static inline void npg_policy_rules(const struct npg_policy *p, struct npg_rules *out)
{
	npg_rules_of_version(&p->release, out);
}
int npg_policy_index(const struct npg_policy *p);
/*
 * The era of release @release (uname -r): the policy its local version
 * names, if any (npg_policy_named_by_release(), kernels built from
 * kernel/patches/), else its major.minor's. A kernel's policy is
 * npg_release_parse()'s, which also reads the point release.
 */
const struct npg_policy *npg_policy_for_release(const char *release);
/* The policy @release's local version names ("3.0.8-ow-2006"), or NULL. */
const struct npg_policy *npg_policy_named_by_release(const char *release);

/*
 * Count against limit, as the kernel compares them: an int or long count
 * against an unsigned rlim_t, so a count that has gone negative compares
 * as over any limit (atomic_t promoted to unsigned long up to 5.13;
 * "if (val < 0 || val > max)" in is_rlimit_overlimit() since 5.14).
 */
static inline bool npg_count_at_least(long n, uint64_t limit)
{
	return n < 0 || (uint64_t)n >= limit;
}

static inline bool npg_count_over(long n, uint64_t limit)
{
	return n < 0 || (uint64_t)n > limit;
}

/*
 * Does set_cred_ucounts() charge a task to its effective uid (5.14-5.16 as
 * released: ucounts without a55d07294f1e)? The real backend and the
 * exported tests read /proc by it.
 */
static inline bool npg_charges_euid(const struct npg_policy *p, const struct npg_rules *r)
{
	return p->ucounts && !r->ucounts_real_uid;
}

/* Rules shared by several eras, defined once in policy/common.c. */
int npg_copy_process_2_6(struct npg_world *w, struct npg_task *parent,
			 const struct npg_cred *charged);
bool npg_over_limit_at_set_user(const struct npg_world *w, const struct npg_task *cur,
				const struct npg_cred *new);
/* The ucounts eras' hooks (policy/ucounts.c): linux-5.14 and linux-6 are
 * the same functions under different rules */
int npg_ucounts_copy_process(struct npg_world *w, struct npg_task *parent,
			     const struct npg_cred *charged);
int npg_ucounts_set_user(struct npg_world *w, struct npg_task *cur, const struct npg_cred *new);
void npg_ucounts_flag_nproc_exceeded(struct npg_world *w, struct npg_task *cur,
				     const struct npg_cred *new);
int npg_ucounts_execve(struct npg_world *w, struct npg_task *cur);

#endif
