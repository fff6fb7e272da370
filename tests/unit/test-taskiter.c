/*
 * Reading the BPF task iterator's records (src/system/taskiter.c) without a
 * kernel iterator: the records come through a pipe, so the layout checks
 * and the completion from /proc are tested wherever the tests run.
 */
#include <errno.h>
#include <linux/types.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "system/taskiter-record.h"
#include "system/taskiter.h"
#include "tap.h"

static struct npg_taskiter_record record(pid_t tgid, pid_t tid, uint32_t ruid)
{
	struct npg_taskiter_record r;

	memset(&r, 0, sizeof(r));
	r.tgid = (__u32)tgid;
	r.tid = (__u32)tid;
	r.ruid = ruid;
	r.nr_threads = 1;
	r.nproc_cur = ~(__u64)0;
	r.kernel_count = 7;
	memcpy(r.comm, "unit", 5);
	return r;
}

/* Feed @len bytes through a pipe to npg_taskiter_read(). */
static int read_bytes(struct npg_scan *s, const void *buf, size_t len, const char **why)
{
	int p[2], rc;

	if (pipe(p) < 0)
		return -2;
	if (write(p[1], buf, len) != (ssize_t)len)
		return -2;
	close(p[1]);
	memset(s, 0, sizeof(*s));
	rc = npg_taskiter_read(s, p[0], why);
	close(p[0]);
	return rc;
}

struct stream {
	struct npg_taskiter_header h;
	struct npg_taskiter_record r[4];
};

static const struct npg_scan_task *find(const struct npg_scan *s, pid_t tid)
{
	for (size_t i = 0; i < s->ntasks; i++)
		if (s->tasks[i].tid == tid)
			return &s->tasks[i];
	return NULL;
}

int main(void)
{
	struct stream st = { .h = { NPG_TASKITER_MAGIC, sizeof(struct npg_taskiter_record) } };
	const struct npg_scan_task *t;
	const char *why = NULL;
	struct npg_scan s;
	pid_t me = getpid();

	st.h.magic ^= 1;
	tap_is(read_bytes(&s, &st, sizeof(st.h), &why), -1, "a header of another layout is refused");
	tap_is(errno, EPROTO, "... with EPROTO");
	tap_ok(why && strstr(why, "--pin again"), "... and the advice to pin again");
	npg_scan_free(&s);

	st.h.magic = NPG_TASKITER_MAGIC;
	st.r[0] = record(me, me, 0);
	tap_is(read_bytes(&s, &st, sizeof(st.h) + sizeof(st.r[0]) / 2, &why), -1,
	       "a partial record is refused");
	tap_is(errno, EIO, "... with EIO");
	npg_scan_free(&s);

	tap_is(read_bytes(&s, &st, 0, &why), -1, "no data at all is refused");
	npg_scan_free(&s);

	/* our own process alone, with a made-up uid and flags; its parent unseen */
	st.r[0] = record(me, me, 4242);
	st.r[0].flags = 0x1000;		/* PF_NPROC_EXCEEDED */
	st.r[0].exit_state = 16;	/* EXIT_ZOMBIE */
	st.r[0].parent_tgid = (__u32)getppid();
	tap_is(read_bytes(&s, &st, sizeof(st.h) + sizeof(st.r[0]), &why), 0, "one record reads");
	t = find(&s, me);
	tap_ok(t && t->ruid == 4242, "the record's real uid is kept, not re-read");
	tap_ok(t && t->flagged && t->zombie, "flag and zombie come from flags and exit_state");
	tap_ok(t && t->nproc_soft == UINT64_MAX, "RLIM_INFINITY reads as unlimited");
	tap_ok(t && t->kernel_count == 7, "the kernel counter of the initial namespace is kept");
	tap_ok(find(&s, getppid()) != NULL, "the unseen parent is read from /proc");
	tap_ok(s.from_proc >= 1, "... and counted as read from /proc (%zu)", s.from_proc);
	tap_ok(find(&s, 1) != NULL, "a total short of the kernel's task count brings in the rest");
	npg_scan_free(&s);

	/* a thread group short of its thread count is read again from /proc */
	st.r[0] = record(me, me, 4242);
	st.r[0].nr_threads = 3;
	st.r[0].userns_level = 1;
	tap_is(read_bytes(&s, &st, sizeof(st.h) + sizeof(st.r[0]), &why), 0, "a short group reads");
	t = find(&s, me);
	tap_ok(t && t->ruid == (uint32_t)getuid(), "its tasks come from /proc instead (uid %u)",
	       t ? t->ruid : 0);
	tap_ok(t && t->kernel_count == -1, "/proc has no kernel counter");
	npg_scan_free(&s);

	st.r[0] = record(me, me, 4242);
	st.r[0].userns_level = 1;
	tap_is(read_bytes(&s, &st, sizeof(st.h) + sizeof(st.r[0]), &why), 0,
	       "a task of another user namespace reads");
	t = find(&s, me);
	tap_ok(t && t->kernel_count == -1, "... without a counter that real uids cannot be matched to");
	npg_scan_free(&s);
	return tap_done();
}
