/*
 * TAP, as kselftest prints it, and what a step yields as the scenario
 * language writes it (errno and signal names, ids by name).
 */
#include "npg_kst.h"

#include <errno.h>
#include <stdio.h>

static int ntest;

/* Scenario text goes out as it is, but never as a control sequence or a second line */
void kst_put_safe(const char *s)
{
	for (; *s; s++)
		putchar((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s);
}

void kst_tap_result(bool ok, const struct kst_stmt *st, const char *expected,
		    const char *got)
{
	ntest++;
	if (ok) {
		kst_npass++;
		printf("ok %d - %d: ", ntest, st->line);
		kst_put_safe(st->text);
		putchar('\n');
		return;
	}
	kst_nfail++;
	printf("not ok %d - ", ntest);
	kst_put_safe(kst_sc->file);
	printf(":%d: ", st->line);
	kst_put_safe(st->text);
	printf(": expected ");
	kst_put_safe(expected);
	printf(", got ");
	kst_put_safe(got);
	putchar('\n');
}

void kst_tap_skip(const struct kst_stmt *st, const char *why)
{
	ntest++;
	kst_nskip++;
	printf("ok %d - %d: ", ntest, st->line);
	kst_put_safe(st->text);
	printf(" # SKIP ");
	kst_put_safe(why);
	putchar('\n');
}
static const char *const errno_names[] = {
	[EPERM] = "EPERM", [ENOENT] = "ENOENT", [ESRCH] = "ESRCH", [EINTR] = "EINTR",
	[EIO] = "EIO", [ENXIO] = "ENXIO", [E2BIG] = "E2BIG", [ENOEXEC] = "ENOEXEC",
	[EBADF] = "EBADF", [ECHILD] = "ECHILD", [EAGAIN] = "EAGAIN", [ENOMEM] = "ENOMEM",
	[EACCES] = "EACCES", [EFAULT] = "EFAULT", [ENOTBLK] = "ENOTBLK", [EBUSY] = "EBUSY",
	[EEXIST] = "EEXIST", [EXDEV] = "EXDEV", [ENODEV] = "ENODEV", [ENOTDIR] = "ENOTDIR",
	[EISDIR] = "EISDIR", [EINVAL] = "EINVAL", [ENFILE] = "ENFILE", [EMFILE] = "EMFILE",
	[ENOTTY] = "ENOTTY", [ETXTBSY] = "ETXTBSY", [EFBIG] = "EFBIG", [ENOSPC] = "ENOSPC",
	[ESPIPE] = "ESPIPE", [EROFS] = "EROFS", [EMLINK] = "EMLINK", [EPIPE] = "EPIPE",
	[EDOM] = "EDOM", [ERANGE] = "ERANGE", [EDEADLK] = "EDEADLK",
	[ENAMETOOLONG] = "ENAMETOOLONG", [ENOLCK] = "ENOLCK", [ENOSYS] = "ENOSYS",
	[ENOTEMPTY] = "ENOTEMPTY", [ELOOP] = "ELOOP", [ENOMSG] = "ENOMSG", [EIDRM] = "EIDRM",
	[ENOSTR] = "ENOSTR", [ENODATA] = "ENODATA", [ETIME] = "ETIME", [ENOSR] = "ENOSR",
	[EPROTO] = "EPROTO", [EBADMSG] = "EBADMSG", [EOVERFLOW] = "EOVERFLOW",
	[EILSEQ] = "EILSEQ", [EUSERS] = "EUSERS", [ENOTSOCK] = "ENOTSOCK",
	[EMSGSIZE] = "EMSGSIZE", [EOPNOTSUPP] = "EOPNOTSUPP", [ENOBUFS] = "ENOBUFS",
	[ETIMEDOUT] = "ETIMEDOUT", [ESTALE] = "ESTALE", [EDQUOT] = "EDQUOT",
	[ECANCELED] = "ECANCELED", [ENOKEY] = "ENOKEY", [EOWNERDEAD] = "EOWNERDEAD",
};

static const char *const signal_names[] = {
	[SIGHUP] = "SIGHUP", [SIGINT] = "SIGINT", [SIGQUIT] = "SIGQUIT", [SIGILL] = "SIGILL",
	[SIGTRAP] = "SIGTRAP", [SIGABRT] = "SIGABRT", [SIGBUS] = "SIGBUS", [SIGFPE] = "SIGFPE",
	[SIGKILL] = "SIGKILL", [SIGUSR1] = "SIGUSR1", [SIGSEGV] = "SIGSEGV",
	[SIGUSR2] = "SIGUSR2", [SIGPIPE] = "SIGPIPE", [SIGALRM] = "SIGALRM",
	[SIGTERM] = "SIGTERM", [SIGSTKFLT] = "SIGSTKFLT", [SIGCHLD] = "SIGCHLD",
	[SIGCONT] = "SIGCONT", [SIGSTOP] = "SIGSTOP", [SIGTSTP] = "SIGTSTP",
	[SIGTTIN] = "SIGTTIN", [SIGTTOU] = "SIGTTOU", [SIGURG] = "SIGURG", [SIGXCPU] = "SIGXCPU",
	[SIGXFSZ] = "SIGXFSZ", [SIGVTALRM] = "SIGVTALRM", [SIGPROF] = "SIGPROF",
	[SIGWINCH] = "SIGWINCH", [SIGIO] = "SIGIO", [SIGPWR] = "SIGPWR", [SIGSYS] = "SIGSYS",
};

void kst_render_signal(int sig, char *buf, size_t len)
{
	if (sig > 0 && sig < (int)(sizeof(signal_names) / sizeof(signal_names[0])) &&
	    signal_names[sig])
		snprintf(buf, len, "%s", signal_names[sig]);
	else
		snprintf(buf, len, "%d", sig);
}

static bool op_is_gid(enum kst_op op)
{
	return op >= KST_SETGID && op <= KST_SETGROUPS;
}

void kst_render_result(const struct kst_stmt *st, struct res r, char *buf, size_t len)
{
	char sig[32];

	switch (r.kind) {
	case RES_OK:
		snprintf(buf, len, "ok");
		return;
	case RES_ERRNO:
		if (r.value > 0 && r.value < (long)(sizeof(errno_names) / sizeof(errno_names[0])) &&
		    errno_names[r.value])
			snprintf(buf, len, "%s", errno_names[r.value]);
		else
			snprintf(buf, len, "errno %ld", r.value);
		return;
	case RES_ID:
		kst_render_id((uint32_t)r.value, op_is_gid(st->op), buf, len);
		return;
	case RES_KILLED:
		kst_render_signal((int)r.value, sig, sizeof(sig));
		snprintf(buf, len, "killed %s", sig);
		return;
	case RES_RUNNING:
		snprintf(buf, len, "running");
		return;
	case RES_DEAD:
		snprintf(buf, len, "dead");
		return;
	case RES_SKIP:
		snprintf(buf, len, "skipped");
		return;
	case RES_SUSPENDED:
		snprintf(buf, len, "suspended");
		return;
	}
}
