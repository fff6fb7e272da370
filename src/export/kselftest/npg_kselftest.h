/*
 * The runtime of the kernel selftests that `nprocguard export --format
 * kselftest` writes: one program per scenario file, which performs the
 * scenario's steps with plain system calls and checks the expectations of
 * one policy, printing TAP as kselftest does. Nothing of nprocguard is
 * needed to build or run it: this header, the runtime's files beside it
 * (npg_kselftest.c, the npg_kst_*.c and their private npg_kst.h) and the
 * generated file of each scenario are the whole program.
 *
 * Each scenario task is a real process or thread (a "puppet") that runs
 * the system calls its controller -- the test program's first process,
 * root -- sends it over a socket pair, and reports what they returned.
 * What is observed afterwards (ids, the PF_NPROC_EXCEEDED flag, counts,
 * states) is read from /proc by the controller. Scenario uids other than
 * 0 are uids of a window of otherwise unused uids (NPG_UID_BASE, default
 * 3000000000, + 1 ...), checked to be empty first; every process made is
 * killed and reaped on a pass, a failure, a timeout and SIGINT/SIGTERM.
 */
#ifndef NPG_KSELFTEST_H
#define NPG_KSELFTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KST_UNLIMITED UINT64_MAX	/* RLIM_INFINITY */
#define KST_ID_NONE 0xffffffffu	/* "-1": leave an id unchanged */
#define KST_NGROUPS 32
#define KST_MAX_POLICIES 16

/* A step's system call; the values of .value and .caps are said beside each */
enum kst_op {
	KST_FORK, KST_THREAD,
	KST_EXIT,		/* .value: the exit code */
	KST_WAIT,		/* waitpid(.target, WNOHANG) */
	KST_SETUID, KST_SETEUID, KST_SETREUID, KST_SETRESUID, KST_SETFSUID,
	KST_SETGID, KST_SETEGID, KST_SETREGID, KST_SETRESGID, KST_SETFSGID,
	KST_SETGROUPS,		/* .ngroups, .groups */
	KST_SETRLIMIT,		/* RLIMIT_NPROC .lim_cur .lim_max, of the caller */
	KST_PRLIMIT,		/* ... of .target */
	KST_KEEPCAPS,		/* PR_SET_KEEPCAPS .value */
	KST_CAPSET,		/* .value: enum kst_capset, .caps the set named */
	KST_EXECVE,		/* .file: 0 this program again (a plain one), else 1 + index */
	KST_KILL,		/* kill(.target's pid, .value) */
	KST_SECUREBITS,		/* PR_SET_SECUREBITS .value */
	KST_AMBIENT,		/* PR_CAP_AMBIENT .value (PR_CAP_AMBIENT_*), .caps the capability */
	KST_NO_NEW_PRIVS,	/* PR_SET_NO_NEW_PRIVS .value */
	KST_DUMPABLE,		/* PR_SET_DUMPABLE .value */
	KST_VFORK,		/* clone(CLONE_VM | CLONE_VFORK), as posix_spawn() makes it */
};

enum kst_capset { KST_CAPSET_DROP, KST_CAPSET_KEEP, KST_CAPSET_RAISE, KST_CAPSET_LOWER,
		  KST_CAPSET_INHERITABLE };

/* What a check reads */
enum kst_check {
	KST_COUNT,		/* the tasks of .user: threads and zombies too */
	KST_UIDS, KST_RUID, KST_EUID, KST_SUID, KST_FSUID, KST_GIDS,
	KST_FLAG,		/* PF_NPROC_EXCEEDED: bit 0x1000 of field 9 of /proc/PID/stat */
	KST_STATE, KST_EXIT_STATUS,
	KST_CAP,		/* .cap in the effective set */
	KST_NPROC,		/* RLIMIT_NPROC, from /proc/PID/limits */
	KST_NNP,		/* NoNewPrivs */
	KST_DUMPABLE_CHECK,	/* PR_GET_DUMPABLE in the task's process */
};

/* An id the scenario names, and the kernel id it is here: base + offset (0 stays 0) */
struct kst_id {
	uint32_t id;
	uint32_t offset;
	const char *uname;	/* how a uid is shown (NULL: its number) */
	const char *gname;	/* how a gid is shown */
};

/* user NAME ID [procs N] / group NAME ID */
struct kst_user {
	const char *name;
	uint32_t id;
	long procs;		/* processes of the user outside the scenario */
	bool group;
};

struct kst_task {
	const char *name;
	int line;
	bool initial;		/* declared with `task`; else made by a step */
	bool thread;
	/* initial tasks: as declared, capabilities as the language gives them */
	uint32_t uid[3], gid[3];	/* real, effective, saved */
	int ngroups;
	uint32_t groups[KST_NGROUPS];
	uint64_t nproc_cur, nproc_max;
	uint64_t cap_eff, cap_prm;
	bool caps_explicit;	/* `caps LIST`: exactly these, if this machine has them */
	bool keepcaps;
};

/*
 * file PATH ...: what execve() of PATH finds -- nothing (`missing`: ENOENT,
 * after the RLIMIT_NPROC test), or a copy of this program with the owner,
 * group, set-id bits and security.capability (v2) declared, on a tmpfs
 * mounted nosuid for `nosuid`
 */
struct kst_file {
	const char *path;
	bool missing;
	bool setuid, setgid;	/* S_ISUID of owner .uid, S_ISGID of group .gid */
	uint32_t uid, gid;
	bool has_fcaps;		/* fP .fcap_permitted, fI .fcap_inheritable, fE */
	uint64_t fcap_permitted, fcap_inheritable;
	bool fcap_effective;
	bool nosuid;
};

struct kst_stmt {
	int line;
	const char *text;	/* "TASK: OPERATION ARGS" or "check ..." */
	bool check;
	int task;		/* the acting task, the task checked, -1 for a count */
	/* a step */
	enum kst_op op;
	int target;		/* new task, waited child, prlimit or kill target; -1 none */
	uint32_t id[3];
	uint64_t lim_cur, lim_max;
	int value;
	uint64_t caps;
	int ngroups;
	uint32_t groups[KST_NGROUPS];
	int file;
	bool glibc;		/* glibc's set*id: the call on every thread of the process */
	/* a check */
	enum kst_check what;
	uint32_t user;		/* count */
	int cap;		/* cap */
	/* what each policy expects (NULL: nothing), in the order of kst_scenario.policies */
	const char *expect[KST_MAX_POLICIES];
};

/* From release MAJOR.MINOR on (until the next one), kernels are of policy NAME's era */
struct kst_era {
	int major, minor, patch;	/* the first release of it: stable branches move inside */
	const char *policy;
	/* set_cred_ucounts() charges a task to its effective uid (5.14-5.16) */
	bool ucounts_by_euid;
};

struct kst_scenario {
	const char *file;	/* the scenario file, as given to nprocguard export */
	const char *title, *source;
	int npolicies;
	const char *policies[KST_MAX_POLICIES];
	bool in_file[KST_MAX_POLICIES];	/* the file's `policies` include it */
	bool fixed;		/* exported with --policy: policies[0], whatever the kernel */
	int neras;
	const struct kst_era *eras;
	bool has_bounding;	/* `bounding LIST`: the machine's set the scenario assumes */
	uint64_t bounding;
	int nids;
	const struct kst_id *ids;
	int nusers;
	const struct kst_user *users;
	int ntasks;
	const struct kst_task *tasks;
	int nfiles;
	const struct kst_file *files;
	int nstmts;
	const struct kst_stmt *stmts;
};

/*
 * The whole test: argv may hold -u BASE (the uid window; else
 * $NPG_UID_BASE, else 3000000000) and -h. Also the entry of the puppets
 * that re-execute this program. Returns the kselftest exit status: 0 pass,
 * 1 fail, 4 skip.
 */
int kst_main(const struct kst_scenario *sc, int argc, char **argv);

#endif
