/*
 * The records the BPF task iterator writes (src/system/bpf/taskiter.bpf.c)
 * and nprocguard reads: shared by both sides, so fixed-width types only.
 */
#ifndef NPG_SYSTEM_TASKITER_RECORD_H
#define NPG_SYSTEM_TASKITER_RECORD_H

/*
 * A pinned iterator outlives the nprocguard that pinned it: the header
 * lets a newer reader refuse records of another layout.
 */
#define NPG_TASKITER_MAGIC 0x6e706734u	/* "npg4" */

struct npg_taskiter_header {
	__u32 magic;
	__u32 record_size;
};

struct npg_taskiter_record {
	__u32 tgid, tid;	/* in the reader's pid namespace, as its /proc shows them */
	__u32 ruid;		/* real_cred->uid: what RLIMIT_NPROC is charged to */
	__u32 flags;		/* task->flags, PF_NPROC_EXCEEDED among them */
	__s32 exit_state;	/* EXIT_ZOMBIE or EXIT_DEAD once exited */
	__s32 nr_threads;	/* signal->nr_threads: tasks of its thread group */
	__u64 nproc_cur;	/* signal->rlim[RLIMIT_NPROC].rlim_cur */
	__s64 kernel_count;	/* the ucounts/user_struct counter, -1 if unknown */
	__s32 userns_level;	/* 0: real_cred is in the initial user namespace */
	char comm[16];
	__u32 parent_tgid;	/* real_parent's tgid there (0: outside), to find hidden processes */
	__u32 pad;
	__u64 cap_effective;	/* cred->cap_effective: CAP_SYS_RESOURCE/ADMIN exempt its forks */
};

#endif
