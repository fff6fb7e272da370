/*
 * QEMU, started and watched so that the guest never outlives us: it runs
 * in its own process group with PR_SET_PDEATHSIG, is killed at every
 * deadline and on SIGINT/SIGTERM/SIGHUP, and is always reaped before
 * npg_qemu_run() returns (npg_guest_catch_signals() must be in force).
 *
 * Serial ports: ttyS0 the kernel's console (a file, for the diagnosis),
 * ttyS1 the guest's stdout, ttyS2 its stderr, ttyS3 /init's status lines;
 * the last three are pipes, read as the guest writes, the first two copied
 * to the caller's out_fd and err_fd. QEMU's own stderr is a fourth pipe,
 * copied to err_fd and read for "KVM internal error": KVM's failure stops
 * the vCPU and leaves QEMU waiting, which would otherwise be seen only at
 * the boot timeout.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest/guest.h"

#define POWER_OFF_GRACE 30	/* seconds from the exit status to QEMU's exit */
#define KVM_ERROR "KVM internal error"	/* qemu's accel/kvm/kvm-all.c, since 1.x */
#define NPIPES 4	/* the guest's stdout, stderr, status; QEMU's stderr */

static volatile sig_atomic_t got_signal;
static const int caught[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
static struct sigaction saved[4];

static void on_signal(int sig)
{
	if (sig != SIGPIPE)	/* a reader that went away is not a reason to stop */
		got_signal = sig;
}

void npg_guest_catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	got_signal = 0;
	for (int i = 0; i < 4; i++) {
		sigaction(caught[i], &sa, &saved[i]);
		/* ignored when we started (SIGINT of a shell's background job): still ignored */
		if (saved[i].sa_handler == SIG_IGN && caught[i] != SIGPIPE)
			sigaction(caught[i], &saved[i], NULL);
	}
}

int npg_guest_pending_signal(void)
{
	return got_signal;
}

void npg_guest_release_signals(void)
{
	for (int i = 0; i < 4; i++)
		sigaction(caught[i], &saved[i], NULL);
	if (got_signal)
		raise(got_signal);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static noreturn void exec_qemu(const struct npg_qemu_opts *o, int pipes[NPIPES][2], pid_t parent)
{
	char console[4200], memory[32];
	const char *qemu = o->qemu ? o->qemu : "qemu-system-x86_64";
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC), high[NPIPES];

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	if (null >= 0)
		dup2(null, 0);
	/* out of the way first: a pipe may itself be one of fds 2-5 (another thread's closed) */
	for (int i = 0; i < NPIPES; i++)
		if ((high[i] = fcntl(pipes[i][1], F_DUPFD_CLOEXEC, 16)) < 0)
			_exit(127);
	for (int i = 0; i < 3; i++)
		if (dup2(high[i], 3 + i) < 0)
			_exit(127);
	if (dup2(high[3], 2) < 0)
		_exit(127);
	snprintf(console, sizeof(console), "file:%s", o->console_log);
	snprintf(memory, sizeof(memory), "%d", o->memory_mb);
	execlp(qemu, qemu, "-accel", o->accel, "-m", memory, "-smp", "1", "-nodefaults",
	       "-display", "none", "-no-reboot", "-net", "none", "-kernel", o->kernel, "-initrd",
	       o->initrd, "-append", "console=ttyS0 panic=-1 quiet", "-serial", console,
	       "-serial", "file:/proc/self/fd/3", "-serial", "file:/proc/self/fd/4", "-serial",
	       "file:/proc/self/fd/5", (char *)NULL);
	fprintf(stderr, "cannot run %s: %s\n", qemu, strerror(errno));
	_exit(127);
}

/* 0, or the errno of a write that failed (what was lost is lost) */
static int copy_out(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)	/* our reader went away: keep reading the guest anyway */
			return n < 0 ? errno : EIO;
		buf += n, len -= (size_t)n;
	}
	return 0;
}

/*
 * QEMU's own stderr: looked through, line by line, for KVM's failure (its
 * first line kept as the reason), and copied to err_fd -- but held back
 * while a KVM boot is only a trial (o->kvm_trial): a trial that fails is
 * said in one line by the caller, not with QEMU's register dump.
 */
struct qemu_stderr {
	char line[256];
	size_t len;
	char held[4096];	/* a trial's, until the guest speaks */
	size_t nheld;
	char first[256];	/* its first line, for a reason */
};

static void qemu_stderr_feed(const struct npg_qemu_opts *o, struct qemu_stderr *q,
			     struct npg_qemu_result *r, const char *buf, size_t n)
{
	bool held = o->kvm_trial && r->status.state == NPG_GUEST_BOOTING;

	if (!held && q->nheld) {
		copy_out(o->err_fd, q->held, q->nheld);
		q->nheld = 0;
	}
	if (held) {
		size_t k = n < sizeof(q->held) - q->nheld ? n : sizeof(q->held) - q->nheld;

		memcpy(q->held + q->nheld, buf, k);
		q->nheld += k;
	} else {
		copy_out(o->err_fd, buf, n);
	}
	for (size_t i = 0; i < n; i++) {
		if (buf[i] != '\n' && q->len < sizeof(q->line) - 1) {
			q->line[q->len++] = buf[i];
			continue;
		}
		if (buf[i] != '\n')
			continue;	/* a long line: its start is enough */
		q->line[q->len] = '\0';
		if (!q->first[0] && q->len)
			snprintf(q->first, sizeof(q->first), "%s", q->line);
		if (!r->kvm_error[0] && strstr(q->line, KVM_ERROR))
			snprintf(r->kvm_error, sizeof(r->kvm_error), "%s", q->line);
		q->len = 0;
	}
}

/* Read what is there; false at EOF. */
static bool pump(const struct npg_qemu_opts *o, int fd, int i, struct npg_qemu_result *r,
		 struct qemu_stderr *q)
{
	char buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf));
	int err;

	if (n < 0)
		return errno == EINTR || errno == EAGAIN;
	if (n == 0)
		return false;
	if (i == 3)
		qemu_stderr_feed(o, q, r, buf, (size_t)n);
	else if (i == 2)
		npg_guest_status_feed(&r->status, buf, (size_t)n);
	else if (i == 1)
		copy_out(o->err_fd, buf, (size_t)n);
	else if ((err = copy_out(o->out_fd, buf, (size_t)n)) != 0 && !r->out_errno)
		r->out_errno = err;
	return true;
}

/* The guest spoke: a KVM trial has worked; say so at @o->ready_fd */
static void spoke(const struct npg_qemu_opts *o)
{
	char line[16];
	int n = snprintf(line, sizeof(line), "%s\n", o->accel);

	if (o->ready_fd > 0)
		copy_out(o->ready_fd, line, (size_t)n);
}

static void watch(const struct npg_qemu_opts *o, pid_t pid, int rd[NPIPES],
		  struct npg_qemu_result *r, double t0)
{
	struct qemu_stderr q = { .len = 0 };
	double done_at = 0;
	bool exited = false, open_[NPIPES] = { true, true, true, true };
	bool booting = true;

	while (!exited || open_[0] || open_[1] || open_[2] || open_[3]) {
		struct pollfd p[NPIPES + 1];
		int n = 0, map[NPIPES];
		double t = now() - t0;

		if (!exited && got_signal) {
			r->signal = got_signal;
			break;
		}
		/* KVM stopped the guest: QEMU waits for a monitor that is not there */
		if (!exited && r->kvm_error[0])
			break;
		if (!exited && ((r->status.state == NPG_GUEST_BOOTING && t > o->boot_timeout) ||
				t > o->timeout || (done_at > 0 && now() - done_at > POWER_OFF_GRACE))) {
			r->timed_out = r->status.state != NPG_GUEST_DONE;
			break;
		}
		for (int i = 0; i < NPIPES; i++)
			if (open_[i])
				p[n] = (struct pollfd){ .fd = rd[i], .events = POLLIN }, map[n++] = i;
		/* the caller gives up on this guest (another one failed) */
		if (o->cancel_fd > 0)
			p[n] = (struct pollfd){ .fd = o->cancel_fd, .events = POLLIN };
		if (poll(p, (nfds_t)n + (o->cancel_fd > 0), exited ? 1000 : 200) < 0 &&
		    errno != EINTR)
			break;
		if (!exited && o->cancel_fd > 0 && p[n].revents) {
			r->cancelled = true;
			break;
		}
		for (int k = 0; k < n; k++)
			if (p[k].revents & (POLLIN | POLLHUP | POLLERR))
				open_[map[k]] = pump(o, rd[map[k]], map[k], r, &q);
		if (booting && r->status.state != NPG_GUEST_BOOTING) {
			booting = false;
			spoke(o);
			qemu_stderr_feed(o, &q, r, "", 0);	/* what a trial held back */
		}
		if (r->status.state >= NPG_GUEST_DONE && done_at == 0)
			done_at = now();
		if (!exited && waitpid(pid, &r->qemu_status, WNOHANG) == pid)
			exited = true;
		if (exited && n > 0 && poll(p, (nfds_t)n, 0) == 0)
			break;	/* QEMU is gone and nothing is left to read */
	}
	if (!exited) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		while (waitpid(pid, &r->qemu_status, 0) < 0 && errno == EINTR)
			;
	}
	if (q.len)	/* a last line without its newline */
		qemu_stderr_feed(o, &q, r, "\n", 1);
	/*
	 * A trial's QEMU that failed before the guest spoke: KVM's failure
	 * (QEMU exits 1 when it cannot start a KVM guest at all); one that
	 * exited 0 was the guest's own doing (a panic under -no-reboot)
	 */
	if (o->kvm_trial && booting && !r->kvm_error[0] && !r->signal && !r->cancelled &&
	    !r->timed_out && WIFEXITED(r->qemu_status) && WEXITSTATUS(r->qemu_status) != 0 &&
	    WEXITSTATUS(r->qemu_status) != 127)
		snprintf(r->kvm_error, sizeof(r->kvm_error), "QEMU exited with status %d before the "
			 "guest spoke%s%.200s", WEXITSTATUS(r->qemu_status), q.first[0] ? ": " : "",
			 q.first);
	/* a trial that did not fail: what QEMU said is shown after all */
	if (!(o->kvm_trial && r->kvm_error[0]) && q.nheld)
		copy_out(o->err_fd, q.held, q.nheld);
}

int npg_qemu_run(const struct npg_qemu_opts *o, struct npg_qemu_result *r, char *err,
		 size_t errlen)
{
	int pipes[NPIPES][2], rd[NPIPES], npipes = 0, ret = -1;
	pid_t pid, parent = getpid();
	double t0 = now();

	memset(r, 0, sizeof(*r));
	r->status.files = o->files;
	for (; npipes < NPIPES; npipes++)
		if (pipe2(pipes[npipes], O_CLOEXEC) < 0) {
			snprintf(err, errlen, "pipe: %s", strerror(errno));
			goto out;
		}
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0)
		exec_qemu(o, pipes, parent);
	for (int i = 0; i < NPIPES; i++) {
		close(pipes[i][1]);
		pipes[i][1] = -1;
		rd[i] = pipes[i][0];
	}
	watch(o, pid, rd, r, t0);
	npg_guest_files_end(o->files);	/* one cut short by the end is not kept */
	r->seconds = now() - t0;
	ret = 0;
	if (r->status.state == NPG_GUEST_BOOTING && WIFEXITED(r->qemu_status) &&
	    WEXITSTATUS(r->qemu_status) == 127 && !r->timed_out && !r->signal) {
		snprintf(err, errlen, "cannot run %s (apt-get install qemu-system-x86)",
			 o->qemu ? o->qemu : "qemu-system-x86_64");
		ret = -1;
	}
out:
	for (int i = 0; i < npipes; i++) {
		close(pipes[i][0]);
		if (pipes[i][1] >= 0)
			close(pipes[i][1]);
	}
	return ret;
}
