/*
 * What the files of an exported kselftest's runtime share, and nothing
 * else: the generated programs include only npg_kselftest.h. Each file of
 * the runtime includes this header first (it defines _GNU_SOURCE before
 * any libc header). Every name the files share begins with kst_, so that
 * a static link with any libc meets none of its names.
 *
 *   npg_kselftest.c      the test: kst_main(), each statement in turn
 *   npg_kst_state.c      the controller's state
 *   npg_kst_wire.c       one command, one answer, over SOCK_SEQPACKET
 *   npg_kst_wait.c       waiting, in slices that notice an interruption
 *   npg_kst_caps.c       capget()/capset(), capabilities by name
 *   npg_kst_puppet.c     the puppets: the system calls a task is sent
 *   npg_kst_proc.c       reading /proc
 *   npg_kst_ids.c        the scenario's ids and the kernel's
 *   npg_kst_tap.c        TAP, and what a step yields as text
 *   npg_kst_teardown.c   the end: every process made is killed and reaped
 *   npg_kst_tasks.c      tasks going away; what a step yields
 *   npg_kst_setup.c      the host, the uid window, the users' processes, the initial tasks
 *   npg_kst_files.c      the private directory of the scenario's declared files
 *   npg_kst_steps.c      the steps
 *   npg_kst_checks.c     the checks
 */
#ifndef NPG_KST_H
#define NPG_KST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* pipe2(), dprintf(), F_DUPFD_CLOEXEC, MSG_CMSG_CLOEXEC */
#endif
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>

#include "npg_kselftest.h"

/* what an older libc's headers lack */
#ifndef PR_SET_NO_NEW_PRIVS
#define PR_SET_NO_NEW_PRIVS 38
#endif
#ifndef PR_SET_CHILD_SUBREAPER
#define PR_SET_CHILD_SUBREAPER 36
#endif
#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#endif
#ifndef PR_CAP_AMBIENT_CLEAR_ALL
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif
#ifndef PR_CAPBSET_DROP
#define PR_CAPBSET_DROP 24
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#if !defined(SYS_execveat) && defined(__x86_64__)
#define SYS_execveat 322
#endif
#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif
#ifndef __WALL
#define __WALL 0x40000000
#endif
#ifndef UMOUNT_NOFOLLOW
#define UMOUNT_NOFOLLOW 8
#endif

#define KSFT_PASS 0
#define KSFT_FAIL 1
#define KSFT_SKIP 4

#define PUPPET_ARG "__npg_kselftest_puppet"
#define EXE_FD 3		/* this program, for a puppet's execve() of itself */
#define SOCK_FD 4		/* a process's own socket, kept across execve() */
#define UID_WINDOW 4096		/* uids base .. base + 4095 belong to the test */
#define DEFAULT_UID_BASE 3000000000u
#define ANSWER_TIMEOUT_MS 10000	/* a puppet answers a command within this */
#define STOP_TIMEOUT_MS 30000	/* every process is gone within this at the end */
#define DEFAULT_TIMEOUT_S 120	/* the whole test (NPG_KSELFTEST_TIMEOUT) */
#define LOCK_DIR "/run/nprocguard"	/* shared with nprocguard's own real runs */
#define PF_NPROC_EXCEEDED 0x00001000u	/* include/linux/sched.h, field 9 of stat */
#define CAP_LAST 40		/* CAP_CHECKPOINT_RESTORE: the last one named */
#define CAP_ALL ((UINT64_C(1) << (CAP_LAST + 1)) - 1)
#define CAP_SYS_ADMIN_BIT 21
#define CAP_SYS_RESOURCE_BIT 24

/* --- the wire: one command, one answer, over SOCK_SEQPACKET --- */

enum msg_kind { MSG_CMD, MSG_RESULT, MSG_HELLO, MSG_DUMPABLE, MSG_ABORT };

/* What a step yields (TAP renders it as nprocguard does) */
enum res_kind { RES_OK, RES_ERRNO, RES_ID, RES_KILLED, RES_RUNNING, RES_DEAD, RES_SKIP,
		RES_SUSPENDED };

struct msg {
	int32_t kind;
	/* a command */
	int32_t op, value, ngroups, file;
	uint32_t id[3];
	uint32_t groups[KST_NGROUPS];
	uint64_t lim_cur, lim_max, caps;
	int64_t target_pid;
	char path[256];
	/* an answer */
	int32_t result;
	int64_t rvalue;
	int32_t wait_status;
	/* a hello */
	int32_t pid, tid;
};

struct res {
	enum res_kind kind;
	long value;
};

/* --- reading /proc --- */

struct proc_task {
	char state;			/* R, S, D, Z, X ... */
	uint32_t uid[4], gid[4];	/* real, effective, saved, fs */
	uint64_t cap_eff, cap_prm, cap_bnd;
	unsigned long flags;		/* field 9 of stat */
	unsigned long long starttime;	/* field 22: tells a reused pid apart */
	int exit_code;			/* field 52: a zombie's wait status (3.5+) */
	bool has_exit_code;
	bool no_new_privs;		/* NoNewPrivs (4.10+) */
};

/* --- the controller --- */

struct ktask {
	pid_t pid, tid;		/* thread-group id and task id */
	int sock;		/* the controller's end, or -1 */
	int pidfd;		/* a process's (5.3+), or -1 */
	bool created, alive, gone;
	bool tainted;		/* cannot be made here: its steps and checks are skipped */
	char why[240];
	bool hard_capped;	/* hard RLIMIT_NPROC lower here than the scenario says */
	bool exit_known;
	int exit_status;	/* a wait status */
	unsigned long long starttime;
	/* 5.14-5.16: the uid whose ucounts it is charged to, as far as /proc tells */
	bool ruid_seen, key_known;
	uint32_t last_ruid, key;
	/* a vfork() child: 1 + the task whose answer waits for its exec or exit; 0: none */
	int vfork_waiter;
	bool shares_mm;		/* a vfork() child that has not exec'd: its parent's memory */
};

/* The scenario's checks, as the controller reads them */
enum state { ABSENT, RUNNING, ZOMBIE, REAPED };

struct view {
	enum state state;
	uint32_t uid[4], gid[4];	/* as the scenario names them */
	uint64_t cap_eff;
	bool flag, no_new_privs;
	uint64_t nproc_cur, nproc_max;
	int exit_code, exit_signal;
};

/* why a death's signal is not known (a step's, or check ... exit) */
#define EXIT_UNKNOWABLE "how the process ended: this kernel's /proc/PID/stat has no exit " \
			"code (3.5+), and its parent is a task of the scenario, not the test"

/* --- the controller's state (npg_kst_state.c) --- */

extern const struct kst_scenario *kst_sc;
extern struct ktask *kst_tasks;		/* per scenario task (kst_sc->tasks): as made here */
extern const struct kst_era *kst_kernel_era;	/* the running kernel's */
extern uint32_t kst_uid_base;		/* scenario id offset N is uid kst_uid_base + N */
extern uint64_t kst_host_bnd, kst_host_nproc_hard;	/* this process's bounding set, hard limit */
extern uint64_t kst_bset;	/* what tasks start with: the scenario's, within the machine's */
extern bool kst_subreaper;
extern bool kst_window_ours;	/* checked empty: what is in it now is the test's to kill */
extern int kst_exe_fd, kst_filler_pipe[2];
extern char kst_execdir[256];
extern char kst_nosuid_dir[300];	/* its nosuid tmpfs, once mounted */
extern char (*kst_file_why)[240];	/* per declared file: why it cannot be made here, or "" */
extern bool *kst_touched;	/* per user: a task that cannot be made here acts on it */
extern long *kst_counts;	/* per user, read once after each step */
extern bool kst_counts_valid;
extern char kst_diverged[400];	/* why nothing is checked from some step on */
extern int kst_cur_line;	/* the statement being run, for an interruption's message */
/* processes made outside the scenario's tasks (the users' `procs`) */
extern pid_t *kst_fillers;
extern long kst_nfillers;
extern int kst_npass, kst_nfail, kst_nskip;
extern volatile sig_atomic_t kst_stop_sig;
extern bool kst_tearing_down;
/* why the last statement was skipped (npg_kst_tasks.c) */
extern char kst_skip_why[400];

/* npg_kst_wire.c */
int kst_send_msg(int sock, const struct msg *m, int fd);
int kst_recv_msg(int sock, struct msg *m, int *fd);
pid_t kst_my_tid(void);
void kst_close_from(int first);

/* npg_kst_wait.c */
void kst_check_stop(void);
long kst_elapsed_ms(const struct timespec *start);
void kst_nap_ms(long ms);
int kst_poll_slices(struct pollfd *p, int n, long ms);
int kst_recv_timed(int sock, struct msg *m, int *fd);

/* npg_kst_caps.c */
int kst_caps_get(uint64_t *eff, uint64_t *prm, uint64_t *inh);
long kst_caps_set(uint64_t eff, uint64_t prm, uint64_t inh);
bool kst_cap_has(uint64_t set, int cap);
void kst_cap_list(uint64_t set, char *buf, size_t len);

/* npg_kst_puppet.c */
void kst_puppet_main(int sock) __attribute__((noreturn));

/* npg_kst_proc.c */
ssize_t kst_read_small(const char *path, char *buf, size_t len);
int kst_read_task(pid_t pid, pid_t tid, struct proc_task *out);
int kst_read_nproc(pid_t pid, uint64_t *soft, uint64_t *hard);
int kst_for_each_task(int (*fn)(pid_t, pid_t, const uint32_t *, void *), void *arg);
pid_t kst_find_uid_in_range(uint32_t lo, uint32_t hi);
void kst_kill_uid_range(uint32_t lo, uint32_t hi);
long kst_count_all_tasks(void);

/* npg_kst_ids.c */
uint32_t kst_map_id(uint32_t id);
uint32_t kst_unmap_id(uint32_t real);
void kst_render_id(uint32_t id, bool gid, char *buf, size_t len);

/* npg_kst_tap.c */
void kst_put_safe(const char *s);
void kst_tap_result(bool ok, const struct kst_stmt *st, const char *expected,
		    const char *got);
void kst_tap_skip(const struct kst_stmt *st, const char *why);
void kst_render_signal(int sig, char *buf, size_t len);
void kst_render_result(const struct kst_stmt *st, struct res r, char *buf, size_t len);

/* npg_kst_teardown.c */
unsigned long long kst_start_time_of(pid_t pid);
int kst_teardown(void);
void kst_finish_stopped(void) __attribute__((noreturn));
void kst_bail_out(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* npg_kst_tasks.c */
struct ktask *kst_task_by_pid(pid_t pid);
void kst_mark_group_gone(pid_t tgid, bool keep_leader);
void kst_reap_children(void);
int kst_wait_task_settled(const struct ktask *t, bool want_gone);
int kst_wait_process_exited(const struct ktask *t);
struct res kst_skip(const char *why);
struct res kst_diverge(const struct kst_stmt *st, const char *why);
struct res kst_broken(const char *what);
struct res kst_died(struct ktask *t);
void kst_taint(struct ktask *t, const char *why);

/* npg_kst_setup.c */
int kst_probe_host(void);
void kst_claim_window(void);
void kst_check_capacity(void);
void kst_spawn_fillers(void);
void kst_spawn_initial(int idx);
void kst_mark_touched(void);

/* npg_kst_files.c */
void kst_file_path(int file, char *buf, size_t len);
void kst_make_execdir(void);

/* npg_kst_steps.c */
bool kst_vfork_waiting(const struct ktask *t);
struct res kst_step(const struct kst_stmt *st);

/* npg_kst_checks.c */
void kst_view(int task, struct view *out);
bool kst_observe_check(const struct kst_stmt *st, char *buf, size_t len);

#endif
