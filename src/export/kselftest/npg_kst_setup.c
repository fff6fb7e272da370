/*
 * Setting up: what this machine allows (its bounding set, its hard
 * RLIMIT_NPROC), the uid window claimed, the users' other processes, and
 * each initial task as the scenario declares it.
 */
#include "npg_kst.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* what this process holds, which the initial tasks are made within */
static uint64_t host_eff, host_beyond;

/* This process's bounding and effective sets, and its hard RLIMIT_NPROC */
int kst_probe_host(void)
{
	struct proc_task self;
	struct rlimit lim;

	if (kst_read_task(getpid(), kst_my_tid(), &self) < 0 || getrlimit(RLIMIT_NPROC, &lim) < 0)
		return -1;
	/* 3.0-3.15 show a full set as all 64 bits: the bits above the last named
	 * capability are kept apart, and given back to a root task as they are */
	kst_host_bnd = self.cap_bnd & CAP_ALL;
	host_eff = self.cap_eff & CAP_ALL;
	host_beyond = self.cap_bnd & self.cap_prm & ~CAP_ALL;
	kst_host_nproc_hard = lim.rlim_max == RLIM_INFINITY ? KST_UNLIMITED : lim.rlim_max;
	return 0;
}

/*
 * The window is the test's alone for its whole length: a flock(2) on the
 * aligned blocks it overlaps, the ones nprocguard's own real runs take,
 * then a scan of /proc for any task already using one of its uids.
 */
void kst_claim_window(void)
{
	uint32_t blocks[2] = { kst_uid_base / UID_WINDOW * UID_WINDOW,
			       (kst_uid_base + UID_WINDOW - 1) / UID_WINDOW * UID_WINDOW };
	pid_t busy;
	int dirfd;

	if ((mkdir(LOCK_DIR, 0755) < 0 && errno != EEXIST) ||
	    (dirfd = open(LOCK_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		printf("# no lock on the uid window: %s: %s\n", LOCK_DIR, strerror(errno));
	} else {
		for (int i = 0; i < 2 && (i == 0 || blocks[1] != blocks[0]); i++) {
			char name[64];
			int fd;

			snprintf(name, sizeof(name), "uid-window-%u.lock", blocks[i]);
			fd = openat(dirfd, name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
			if (fd < 0)
				kst_bail_out("cannot open %s/%s: %s", LOCK_DIR, name, strerror(errno));
			if (flock(fd, LOCK_EX | LOCK_NB) < 0)
				kst_bail_out("uids %u..%u are in use by another run (lock %s/%s): "
					     "set NPG_UID_BASE to another window", kst_uid_base,
					     kst_uid_base + UID_WINDOW - 1, LOCK_DIR, name);
			if (ftruncate(fd, 0) == 0)
				dprintf(fd, "%ld\n", (long)getpid());
			/* fd stays open: the lock lasts as long as this process */
		}
		close(dirfd);
	}
	busy = kst_find_uid_in_range(kst_uid_base, kst_uid_base + UID_WINDOW);
	if (busy < 0)
		kst_bail_out("cannot scan /proc: %s", strerror(errno));
	if (busy > 0)
		kst_bail_out("pid %d already runs with a uid in %u..%u: set NPG_UID_BASE to an empty "
			     "window", (int)busy, kst_uid_base, kst_uid_base + UID_WINDOW - 1);
	kst_window_ours = true;
}

/*
 * Refuse what the machine cannot hold before making any process: a large
 * `procs` could exhaust the machine's pids halfway. A tenth of each limit
 * (at least 64 tasks) stays for the rest of the machine.
 */
void kst_check_capacity(void)
{
	static const char *const limits[] = { "/proc/sys/kernel/threads-max",
					      "/proc/sys/kernel/pid_max" };
	long need = kst_sc->ntasks, used = kst_count_all_tasks();
	char buf[64];

	for (int u = 0; u < kst_sc->nusers; u++)
		if (!kst_sc->users[u].group && kst_sc->users[u].id != 0)
			need += kst_sc->users[u].procs;
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]) && used >= 0; i++) {
		long limit, reserve;

		if (kst_read_small(limits[i], buf, sizeof(buf)) <= 0)
			continue;
		limit = atol(buf);
		reserve = limit / 10 > 64 ? limit / 10 : 64;
		if (used + need + reserve > limit)
			kst_bail_out("the scenario needs up to %ld tasks at once, but %s is %ld with %ld "
				     "in use", need, limits[i], limit, used);
	}
}
/*
 * A filler is a process of a user's that the scenario does not drive (its
 * `procs N`). It counts for the user only once its setresuid() has
 * happened, so each one acknowledges the switch on a pipe, and the test
 * starts only when all have. It then waits for the pipe to close.
 */
static void filler_main(uint32_t uid, int ack)
{
	char c = 'k';

	close(kst_filler_pipe[1]);
	if (syscall(SYS_setresgid, uid, uid, uid) < 0 || syscall(SYS_setresuid, uid, uid, uid) < 0)
		c = 'e';
	if (write(ack, &c, 1) != 1 || c != 'k')
		_exit(111);
	close(ack);
	while (read(kst_filler_pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

static void default_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM };

	alarm(0);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
}

void kst_spawn_fillers(void)
{
	long total = 0, acked = 0;
	int ack[2];

	for (int u = 0; u < kst_sc->nusers; u++)
		if (!kst_sc->users[u].group && kst_sc->users[u].id != 0)
			total += kst_sc->users[u].procs;
	if (total == 0)
		return;
	if (!(kst_fillers = calloc((size_t)total, sizeof(*kst_fillers))) || pipe2(ack, O_CLOEXEC) < 0 ||
	    pipe2(kst_filler_pipe, O_CLOEXEC) < 0)
		kst_bail_out("setting up the users' other processes: %s", strerror(errno));
	for (int u = 0; u < kst_sc->nusers; u++) {
		const struct kst_user *n = &kst_sc->users[u];

		for (long i = 0; !n->group && n->id != 0 && i < n->procs; i++) {
			pid_t pid;

			fflush(stdout);
			if ((pid = fork()) < 0) {
				close(ack[1]);
				kst_bail_out("fork of process %ld of %ld of user '%s': %s", i + 1,
					     n->procs, n->name, strerror(errno));
			}
			if (pid == 0) {
				default_signals();
				close(ack[0]);
				filler_main(kst_map_id(n->id), ack[1]);
			}
			kst_fillers[kst_nfillers++] = pid;
		}
	}
	close(ack[1]);
	while (acked < total) {
		struct pollfd p = { .fd = ack[0], .events = POLLIN };
		char buf[4096];
		ssize_t got;

		if (kst_poll_slices(&p, 1, ANSWER_TIMEOUT_MS) <= 0)
			kst_bail_out("%ld processes of the scenario's users did not switch their uid "
				     "within %d s", total - acked, ANSWER_TIMEOUT_MS / 1000);
		got = read(ack[0], buf, sizeof(buf) < (size_t)(total - acked) ? sizeof(buf) :
			   (size_t)(total - acked));
		if (got <= 0 || memchr(buf, 'e', (size_t)got))
			kst_bail_out("a process of a scenario user could not switch its uid");
		acked += got;
	}
	close(ack[0]);
}

/*
 * Make the mm fs.suid_dumpable, whatever the set-up's set*id calls did
 * (commit_creds() does so when the fsgid changes): the fsgid goes to
 * another gid and back while CAP_SETGID is still held.
 */
static int suid_dumpable_now(uint32_t egid)
{
	syscall(SYS_setfsgid, egid ^ 1);
	syscall(SYS_setfsgid, egid);
	if ((uint32_t)syscall(SYS_setfsgid, egid) != egid) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

/*
 * An initial task as the scenario declares it, in the new process. The
 * real uid changes first and alone, the effective and saved ones after:
 * 5.14-5.16 charge a task to the effective uid it has when its real user
 * changes (set_cred_ucounts()), and a task declared `uid A euid B` is
 * charged to A, as a set-uid program started by A is. The uid switch
 * happens under the widest limit we may set, so that it cannot set
 * PF_NPROC_EXCEEDED (a declared task starts without it); the scenario's
 * limit comes after. Capabilities come last, within this machine's
 * bounding set.
 */
static int apply_initial(const struct kst_task *d, const struct rlimit *lim)
{
	gid_t groups[KST_NGROUPS];
	struct rlimit widest;
	uint64_t eff, prm, within = d->caps_explicit ? kst_host_bnd : kst_bset;

	for (int g = 0; g < d->ngroups; g++)
		groups[g] = kst_map_id(d->groups[g]);
	/* `bounding LIST`: PR_CAPBSET_DROP while still root */
	for (int cap = 0; cap <= CAP_LAST; cap++)
		if (kst_cap_has(kst_host_bnd & ~kst_bset, cap) &&
		    prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0)
			return -1;
	widest.rlim_max = kst_cap_has(host_eff, CAP_SYS_RESOURCE_BIT) ? RLIM_INFINITY :
			  (rlim_t)kst_host_nproc_hard;
	widest.rlim_cur = widest.rlim_max;
	if (setrlimit(RLIMIT_NPROC, &widest) < 0 ||
	    syscall(SYS_setgroups, d->ngroups, groups) < 0 ||
	    syscall(SYS_setresgid, kst_map_id(d->gid[0]), kst_map_id(d->gid[1]),
		    kst_map_id(d->gid[2])) < 0 ||
	    prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_setresuid, kst_map_id(d->uid[0]), kst_map_id(d->uid[0]),
		    kst_map_id(d->uid[0])) < 0 ||
	    kst_caps_set(host_eff | host_beyond, host_eff | host_beyond, 0) < 0 ||
	    syscall(SYS_setresuid, -1, kst_map_id(d->uid[1]), kst_map_id(d->uid[2])) < 0 ||
	    kst_caps_set(host_eff | host_beyond, host_eff | host_beyond, 0) < 0 ||
	    setrlimit(RLIMIT_NPROC, lim) < 0 || suid_dumpable_now(kst_map_id(d->gid[1])) < 0)
		return -1;
	/* a root task as an execve() makes it, with a 3.0-3.15 kernel's extra bits */
	eff = (d->cap_eff & within) | (!d->caps_explicit && d->cap_eff == kst_bset ? host_beyond : 0);
	prm = (d->cap_prm & within) | (!d->caps_explicit && d->cap_prm == kst_bset ? host_beyond : 0);
	if (kst_caps_set(eff, prm, 0) < 0 || prctl(PR_SET_KEEPCAPS, d->keepcaps, 0, 0, 0) < 0)
		return -1;
	/* begin_new_exec(): SUID_DUMP_USER when the effective ids are the real ones */
	if (d->uid[1] == d->uid[0] && d->gid[1] == d->gid[0])
		return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	return 0;
}

/* Put @from at @to, kept across execve() (dup2() leaves no FD_CLOEXEC) */
static int move_fd(int from, int to)
{
	return from == to ? fcntl(to, F_SETFD, 0) : (dup2(from, to) < 0 ? -1 : 0);
}

void kst_spawn_initial(int idx)
{
	const struct kst_task *d = &kst_sc->tasks[idx];
	struct ktask *t = &kst_tasks[idx];
	struct rlimit lim = { d->nproc_cur, d->nproc_max };
	char lack[200];
	struct msg m;
	int sv[2];
	pid_t pid;

	if (kst_sc->has_bounding && (kst_sc->bounding & ~kst_host_bnd)) {
		char why[sizeof(t->why)];

		kst_cap_list(kst_sc->bounding & ~kst_host_bnd, lack, sizeof(lack));
		snprintf(why, sizeof(why), "the scenario's bounding set has %.150s, which this "
			 "machine's bounding set lacks", lack);
		kst_taint(t, why);
	} else if (d->caps_explicit && (d->cap_prm & ~kst_host_bnd)) {
		char why[sizeof(t->why)];

		kst_cap_list(d->cap_prm & ~kst_host_bnd, lack, sizeof(lack));
		snprintf(why, sizeof(why), "task '%.40s' needs %.100s, which this machine's "
			 "bounding set lacks", d->name, lack);
		kst_taint(t, why);
	}
	/* RLIM_INFINITY needs CAP_SYS_RESOURCE to raise to: keep what we have */
	if (lim.rlim_max > kst_host_nproc_hard && !kst_cap_has(host_eff, CAP_SYS_RESOURCE_BIT)) {
		lim.rlim_max = kst_host_nproc_hard;
		if (lim.rlim_cur > lim.rlim_max)
			lim.rlim_cur = lim.rlim_max;
		t->hard_capped = true;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		kst_bail_out("socketpair: %s", strerror(errno));
	fflush(stdout);
	if ((pid = fork()) < 0)
		kst_bail_out("fork: %s", strerror(errno));
	if (pid == 0) {
		struct msg fail = { .kind = MSG_RESULT, .result = RES_ERRNO };
		/* out of the way of descriptors 3 and 4 first */
		int exe = fcntl(kst_exe_fd, F_DUPFD_CLOEXEC, 64);
		int sock = fcntl(sv[1], F_DUPFD_CLOEXEC, 64);

		default_signals();
		if (exe < 0 || sock < 0 || move_fd(exe, EXE_FD) < 0 || move_fd(sock, SOCK_FD) < 0)
			_exit(111);
		kst_close_from(SOCK_FD + 1);
		if (apply_initial(d, &lim) < 0) {
			fail.rvalue = errno;
			kst_send_msg(SOCK_FD, &fail, -1);
			_exit(111);
		}
		kst_puppet_main(SOCK_FD);
	}
	close(sv[1]);
	t->sock = sv[0];
	t->pid = t->tid = pid;
	t->starttime = kst_start_time_of(pid);
	t->created = t->alive = true;
	t->ruid_seen = t->key_known = true;	/* the set-up changes the real uid alone first */
	t->last_ruid = t->key = kst_map_id(d->uid[0]);
	t->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (kst_recv_timed(t->sock, &m, NULL) <= 0 || m.kind != MSG_HELLO)
		kst_bail_out("task '%s' could not be set up: %s", d->name,
			     m.kind == MSG_RESULT ? strerror((int)m.rvalue) : "no answer");
}

/*
 * What a task that cannot be made here would have done to another task --
 * made it, killed, reaped or limited it -- does not happen: that one is
 * skipped too, to a fixed point. And the count of every user whose id a
 * skipped task names is skipped, since the task would have changed it.
 */
void kst_mark_touched(void)
{
	for (bool grew = true; grew; ) {
		grew = false;
		for (int s = 0; s < kst_sc->nstmts; s++) {
			const struct kst_stmt *st = &kst_sc->stmts[s];

			if (st->check || st->target < 0 || !kst_tasks[st->task].tainted ||
			    kst_tasks[st->target].tainted)
				continue;
			kst_taint(&kst_tasks[st->target], kst_tasks[st->task].why);
			grew = true;
		}
	}
	for (int i = 0; i < kst_sc->ntasks; i++) {
		const struct kst_task *d = &kst_sc->tasks[i];

		if (!kst_tasks[i].tainted)
			continue;
		for (int u = 0; u < kst_sc->nusers; u++) {
			uint32_t id = kst_sc->users[u].id;
			bool names = d->uid[0] == id || d->uid[1] == id || d->uid[2] == id;

			for (int s = 0; s < kst_sc->nstmts && !names; s++) {
				const struct kst_stmt *st = &kst_sc->stmts[s];

				names = !st->check && st->task == i &&
					(st->id[0] == id || st->id[1] == id || st->id[2] == id ||
					 (st->op == KST_EXECVE && st->file > 0 &&
					  kst_sc->files[st->file - 1].setuid &&
					  kst_sc->files[st->file - 1].uid == id));
			}
			if (names)
				kst_touched[u] = true;
		}
	}
}
