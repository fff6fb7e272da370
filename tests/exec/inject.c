/*
 * inject: run a command with some system calls failing, through a seccomp
 * filter (libseccomp): "inject SYSCALL[,SYSCALL...] ERRNO -- COMMAND...".
 * ERRNO is a name (EAGAIN) or 0, which makes the call return success
 * without doing anything -- a half-done privilege drop. The filter is
 * inherited by COMMAND and everything it runs.
 */
#include <err.h>
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int errno_by_name(const char *name)
{
	if (strcmp(name, "0") == 0)
		return 0;
	for (int e = 1; e < 4096; e++) {
		const char *n = strerrorname_np(e);

		if (n && strcmp(n, name) == 0)
			return e;
	}
	errx(100, "unknown errno '%s'", name);
}

int main(int argc, char **argv)
{
	scmp_filter_ctx ctx;
	char *calls, *save = NULL;
	int e;

	if (argc < 5 || strcmp(argv[3], "--") != 0)
		errx(100, "usage: inject SYSCALL[,SYSCALL...] ERRNO -- COMMAND [ARGS...]");
	e = errno_by_name(argv[2]);
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		errx(111, "seccomp_init failed");
	/* root may load a filter without no_new_privs; leave set-id programs working */
	if (seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) < 0)
		errx(111, "seccomp_attr_set");
	calls = strdup(argv[1]);
	for (char *c = strtok_r(calls, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
		int nr = seccomp_syscall_resolve_name(c);

		if (nr == __NR_SCMP_ERROR)
			errx(100, "unknown system call '%s'", c);
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO((unsigned)e), nr, 0) < 0)
			errx(111, "seccomp_rule_add(%s)", c);
	}
	free(calls);
	if (seccomp_load(ctx) < 0)
		errx(111, "seccomp_load");
	seccomp_release(ctx);
	execvp(argv[4], argv + 4);
	err(errno == ENOENT ? 127 : 126, "%s", argv[4]);
}
