/*
 * A BPF task iterator (kernel/bpf/task_iter.c, Linux 5.8+) that writes one
 * fixed-size record per task: what /proc/PID/task/TID/{status,stat} and
 * /proc/PID/limits would tell, plus the kernel's own RLIMIT_NPROC counter,
 * which /proc does not show at all. Built with CO-RE: only the fields read
 * are declared here and libbpf relocates them against the running kernel's
 * BTF, so no vmlinux.h from the build machine is needed.
 */
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "system/taskiter-record.h"

char LICENSE[] SEC("license") = "GPL";	/* bpf_seq_write() is GPL-only */

typedef struct { unsigned int val; } kuid_t;
typedef struct { long counter; } atomic_long_t;
typedef struct { int counter; } atomic_t;

struct rlimit { __u64 rlim_cur, rlim_max; } __attribute__((preserve_access_index));
struct signal_struct {
	int nr_threads;
	struct rlimit rlim[16];
} __attribute__((preserve_access_index));

struct user_namespace { int level; } __attribute__((preserve_access_index));

/* 6.2+: rlimit counts split out of ucount[] (include/linux/user_namespace.h) */
struct ucounts {
	struct user_namespace *ns;
	kuid_t uid;
	atomic_long_t rlimit[4];
} __attribute__((preserve_access_index));
enum rlimit_type { UCOUNT_RLIMIT_NPROC = 0 };

/* 5.14 to 6.1: one ucount[] array, UCOUNT_RLIMIT_NPROC an enum ucount_type index */
struct ucounts___514 {
	struct user_namespace *ns;
	kuid_t uid;
	atomic_long_t ucount[16];
} __attribute__((preserve_access_index));
enum ucount_type___514 { UCOUNT_RLIMIT_NPROC___514 = 0 };

/* before 5.14: user_struct.processes, one per kuid (kernel/user.c) */
struct user_struct { atomic_t processes; } __attribute__((preserve_access_index));

/* a __u64 since 6.3, __u32 cap[2] before: read as 8 bytes (cap[0] the low half on little-endian) */
typedef struct { __u64 val; } kernel_cap_t;

struct cred {
	kuid_t uid;
	kernel_cap_t cap_effective;
	struct user_struct *user;
	struct user_namespace *user_ns;
	struct ucounts *ucounts;
} __attribute__((preserve_access_index));

struct upid { int nr; } __attribute__((preserve_access_index));
struct pid {
	unsigned int level;
	struct upid numbers[1];
} __attribute__((preserve_access_index));

struct task_struct {
	unsigned int flags;
	int exit_state;
	struct pid *thread_pid;
	struct task_struct *group_leader;
	const struct cred *real_cred;
	struct signal_struct *signal;
	struct task_struct *real_parent;
	char comm[16];
} __attribute__((preserve_access_index));

struct seq_file;
struct bpf_iter_meta {
	struct seq_file *seq;
	__u64 session_id, seq_num;
} __attribute__((preserve_access_index));
struct bpf_iter__task {
	struct bpf_iter_meta *meta;
	struct task_struct *task;
} __attribute__((preserve_access_index));

/* RLIMIT_NPROC is 6 on every architecture (include/uapi/asm-generic/resource.h) */
#define NPG_RLIMIT_NPROC 6

/*
 * The counter that copy_process() compares with RLIMIT_NPROC, of the
 * ucounts (or user_struct) the task's real credentials are charged to.
 */
static __s64 kernel_count(const struct cred *cred)
{
	struct ucounts *uc = cred->ucounts;

	if (bpf_core_field_exists(struct ucounts, rlimit)) {
		if (!uc)
			return -1;
		return uc->rlimit[UCOUNT_RLIMIT_NPROC].counter;
	}
	if (bpf_core_field_exists(struct ucounts___514, ucount) &&
	    bpf_core_enum_value_exists(enum ucount_type___514, UCOUNT_RLIMIT_NPROC___514)) {
		struct ucounts___514 *old = (void *)uc;
		__u32 i = bpf_core_enum_value(enum ucount_type___514, UCOUNT_RLIMIT_NPROC___514);
		long v = -1;

		if (!old || i >= 16)
			return -1;
		bpf_probe_read_kernel(&v, sizeof(v), &old->ucount[i]);
		return v;
	}
	if (bpf_core_field_exists(struct cred, user))
		return cred->user->processes.counter;
	return -1;
}

/*
 * @p's number in the pid namespace at @level, as pid_nr_ns() gives it
 * (kernel/pid.c), or 0 if @p is not visible there. task->pid and ->tgid
 * are init-namespace numbers; the records carry the reader's, the numbers
 * its /proc shows. The iterator only yields tasks of the reader's
 * namespace, and a parent is in the same namespace or an ancestor, so the
 * level alone tells whether a number exists.
 */
static __u32 pid_at(struct pid *p, unsigned int level)
{
	int nr = 0;

	if (!p || BPF_CORE_READ(p, level) < level)
		return 0;
	bpf_probe_read_kernel(&nr, sizeof(nr),
			      (char *)p + bpf_core_field_offset(struct pid, numbers) +
				      level * bpf_core_type_size(struct upid) +
				      bpf_core_field_offset(struct upid, nr));
	return (__u32)nr;
}

/*
 * ctx->task is a trusted BTF pointer: plain dereferences compile to
 * BPF_PROBE_MEM loads, which cost far less per task than a
 * bpf_probe_read_kernel() call per field (BPF_CORE_READ).
 */
SEC("iter/task")
int npg_dump_task(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *t = ctx->task;
	const struct cred *cred;
	struct signal_struct *sig;
	struct npg_taskiter_record r = {};
	struct task_struct *reader;
	unsigned int level;

	if (ctx->meta->seq_num == 0) {
		struct npg_taskiter_header h = { .magic = NPG_TASKITER_MAGIC,
						 .record_size = sizeof(r) };

		bpf_seq_write(seq, &h, sizeof(h));
	}
	if (!t)
		return 0;
	/* the iterator runs in read() of the process reading it */
	reader = (struct task_struct *)bpf_get_current_task();
	level = BPF_CORE_READ(reader, thread_pid, level);
	cred = t->real_cred;
	sig = t->signal;
	r.tid = pid_at(t->thread_pid, level);
	r.tgid = pid_at(t->group_leader->thread_pid, level);
	r.parent_tgid = t->real_parent ? pid_at(t->real_parent->group_leader->thread_pid, level) : 0;
	r.ruid = cred->uid.val;
	r.flags = t->flags;
	r.exit_state = t->exit_state;
	r.nr_threads = sig->nr_threads;
	r.nproc_cur = sig->rlim[NPG_RLIMIT_NPROC].rlim_cur;
	r.userns_level = bpf_core_field_exists(struct cred, user_ns) ? cred->user_ns->level : 0;
	r.kernel_count = kernel_count(cred);
	bpf_probe_read_kernel(&r.cap_effective, sizeof(r.cap_effective), &cred->cap_effective);
	bpf_probe_read_kernel_str(r.comm, sizeof(r.comm), t->comm);
	bpf_seq_write(seq, &r, sizeof(r));
	return 0;
}
