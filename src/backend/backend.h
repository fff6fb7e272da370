/*
 * One interface, two implementations: the model (a policy's decisions) and
 * the running kernel (real processes and system calls). A scenario runs
 * unchanged on either; the runner only sees results and observations.
 */
#ifndef NPG_BACKEND_BACKEND_H
#define NPG_BACKEND_BACKEND_H

#include "model/model.h"
#include "model/policy.h"
#include "model/release.h"
#include "scenario/scenario.h"

struct npg_backend;

struct npg_backend_ops {
	/* Create the scenario's users and initial tasks. 0, or -1 with b->error. */
	int (*start)(struct npg_backend *b, const struct npg_scenario *sc);
	/* Run one step; an unreproducible step sets b->reason. */
	struct npg_result (*step)(struct npg_backend *b, const struct npg_stmt *st);
	/* What a task looks like now: state, credentials, flag, exit, limits. */
	void (*view)(struct npg_backend *b, int task, struct npg_task *out);
	/*
	 * A user's count: tasks, threads and zombies charged to it -- in
	 * namespace @ns (0: the initial one; else 1 + index into the
	 * scenario's userns): one level of the ucounts chain since 5.14, the
	 * uid's one count before.
	 */
	long (*count)(struct npg_backend *b, int ns, npg_id uid);
	/* May be NULL: can this check be observed faithfully here? If not, sets b->reason. */
	bool (*check_reproducible)(struct npg_backend *b, const struct npg_stmt *st);
	/* Tear everything down; safe after a failed start. */
	void (*stop)(struct npg_backend *b);
};

struct npg_backend {
	const struct npg_backend_ops *ops;
	/* the policy whose expectations apply: the modelled one, or the
	 * running kernel's era */
	const struct npg_policy *policy;
	char label[64];
	char error[256];
	char reason[256];
	uint64_t cap_bset;	/* the capability bounding set tasks start with */
	/* model: cap_bset stands even when the scenario declares 'bounding'
	 * (run --host: the running machine's set, whatever the file says) */
	bool cap_bset_fixed;
	/*
	 * The kernel release the run stands for, or NULL for the policy's own
	 * rules: both backends run by npg_rules_for_policy(policy, release) --
	 * the model decides by them, the real backend reads and compares by
	 * them (which uid a task is charged to, which counts a step decides by)
	 */
	const struct npg_release *release;
	/* model: the scenario's tasks start with no_new_privs, as they do on a
	 * machine whose harness has it (a service under NoNewPrivileges=yes) */
	bool tasks_no_new_privs;
	/* Yama's kernel.yama.ptrace_scope (-1: no Yama) that stands even when
	 * the scenario declares 'yama' (run --host, and conform for both
	 * backends: the running machine's) */
	bool yama_fixed;
	int yama_scope;
	/* model: fs.suid_dumpable (0, the kernel's default, unless run --host
	 * or conform take the running machine's) */
	int suid_dumpable;
	/*
	 * real, in a kernel booted for the run: root's tasks outside the
	 * scenario as the kernel counts them, when the guest's own (its
	 * threads, /init, this controller) are more than the file declares --
	 * the run keeps them, and the model starts from them
	 * (npg_model_backend_root_procs()); 0 when the run keeps the file's
	 */
	long root_raised;
	void *priv;
};

/* The model of @policy; tasks start with bounding set @cap_bset, or the
 * scenario's 'bounding' declaration when it has one (npg_scenario_bset()). */
void npg_model_backend_init(struct npg_backend *b, const struct npg_policy *policy,
			    uint64_t cap_bset);

struct npg_host;
/*
 * The model of @policy (with the rules of @release, or its own when NULL)
 * as it runs on machine @host beside the real backend: its bounding set,
 * no_new_privs of the harness, Yama and fs.suid_dumpable, whatever a
 * scenario declares of them.
 */
void npg_model_backend_as_machine(struct npg_backend *b, const struct npg_policy *policy,
				  const struct npg_release *release, const struct npg_host *host);
/*
 * A model started (not yet stepped) whose root has @procs processes
 * outside the scenario instead of the file's: the count a guest keeps
 * when its own are more (struct npg_backend.root_raised)
 */
void npg_model_backend_root_procs(struct npg_backend *b, const struct npg_scenario *sc,
				  long procs);

/* What the running kernel and this process can do, for the real backend. */
struct npg_host {
	char release[128];		/* uname -r */
	struct npg_release rel;		/* its point release, policy and rules */
	const struct npg_policy *policy;	/* rel.policy, or NULL: unreadable */
	bool root;
	uint64_t cap_bnd, cap_eff;	/* this process's bounding and effective sets */
	/* its bounding set above the model's last capability: the undefined
	 * bits a 3.0-3.15 kernel's CAP_FULL_SET has (none since 3.16) */
	uint64_t cap_beyond;
	uint64_t nproc_hard;		/* this process's hard RLIMIT_NPROC */
	bool no_new_privs;		/* this process has it: every task it makes will */
	int yama_scope;			/* kernel.yama.ptrace_scope, -1 without Yama */
	bool userns;			/* user namespaces exist (/proc/self/ns/user, 3.8+) */
	/* 2.6.39-3.4's user namespaces instead: clone(CLONE_NEWUSER) only, no
	 * maps (its CONFIG_USER_NS shows only when a clone() is tried) */
	bool userns_legacy;
	int suid_dumpable;		/* fs.suid_dumpable */
	/* a kernel booted for this process alone (conform --kernel's guest,
	 * whose /init says so): every root task there is the run's or the
	 * kernel's own, so root's count can be the scenario's */
	bool own_kernel;
	/* there, the file where /init writes "PID STARTTIME STATUS" of each
	 * orphan it reaps (NPG_GUEST_REAPED), or NULL */
	const char *init_reaped;
};

int npg_host_probe(struct npg_host *h);

/* The running kernel. Scenario uids other than 0 map to @uid_base + 1, ... */
void npg_real_backend_init(struct npg_backend *b, const struct npg_host *host,
			   uint32_t uid_base);
/* The uid window the real backend owns, and checks is empty before a run */
#define NPG_UID_WINDOW 4096

/* The bounding set a run of @sc starts with on a machine whose set is @machine */
static inline uint64_t npg_scenario_bset(const struct npg_scenario *sc, uint64_t machine)
{
	return sc->has_bounding ? sc->bounding : machine;
}


#endif
