/*
 * The audit filter, loaded by the audited program's process just before
 * it executes the program. Drop calls always notify the supervisor;
 * actions worth a finding notify too (opens only when they can write);
 * everything else is allowed by the filter itself, so the kernel's
 * seccomp action cache (5.11+) lets those calls through without running it.
 */
#include <fcntl.h>
#include <seccomp.h>
#include <stddef.h>

#include "tools/audit/audit.h"

static const char *const drop_calls[] = {
	"setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid",
	"setfsuid", "setfsgid", "setgroups",
	/* i386's 32-bit id calls */
	"setuid32", "setgid32", "setreuid32", "setregid32", "setresuid32", "setresgid32",
	"setfsuid32", "setfsgid32", "setgroups32", NULL,
};

static const char *const action_calls[] = {
	"execve", "execveat", "creat", "chmod", "fchmod", "fchmodat", "chown", "fchown",
	"lchown", "fchownat", "chown32", "fchown32", "lchown32", "unlink", "unlinkat",
	"rename", "renameat", "renameat2", "kill", "tgkill", "tkill", "bind", "connect", NULL,
};

/* open(path, flags), openat(dirfd, path, flags): only when writing */
static int add_open_rules(scmp_filter_ctx ctx, const char *name, unsigned flags_arg)
{
	static const unsigned write_bits[] = { O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND };
	int nr = seccomp_syscall_resolve_name(name);

	if (nr == __NR_SCMP_ERROR)
		return 0;
	for (size_t i = 0; i < sizeof(write_bits) / sizeof(write_bits[0]); i++)
		if (seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1,
				     SCMP_CMP(flags_arg, SCMP_CMP_MASKED_EQ, write_bits[i],
					      write_bits[i])) < 0)
			return -1;
	return 0;
}

static int add_all(scmp_filter_ctx ctx, const char *const *names)
{
	for (int i = 0; names[i]; i++) {
		int nr = seccomp_syscall_resolve_name(names[i]);

		/* a name one of the architectures lacks is skipped there */
		if (nr == __NR_SCMP_ERROR)
			continue;
		if (seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0) < 0)
			return -1;
	}
	return 0;
}

int npg_audit_load_filter(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int fd = -1;

	if (!ctx)
		return -1;
	/* 32-bit programs too: without these, the default bad-arch action kills them */
	seccomp_arch_add(ctx, SCMP_ARCH_X86);
	seccomp_arch_add(ctx, SCMP_ARCH_X32);
	/* root may filter without no_new_privs; set-id programs stay auditable */
	if (seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) < 0 || add_all(ctx, drop_calls) < 0 ||
	    add_all(ctx, action_calls) < 0 || add_open_rules(ctx, "open", 1) < 0 ||
	    add_open_rules(ctx, "openat", 2) < 0 || seccomp_load(ctx) < 0)
		goto out;
	fd = seccomp_notify_fd(ctx);
out:
	seccomp_release(ctx);
	return fd;
}
