/*
 * Linux 5.14 - 5.16 as released: RLIMIT_NPROC moved into ucounts
 * (21d1c5e386bc, 5.14) with the regressions that Eric Biederman's series
 * fixed in 5.17 -- fork allows L+1 (8f2f9c4d82f2), counts keyed on the
 * euid (a55d07294f1e), set_user() tests the caller's own count
 * (c923a8e7edb0) and, from 5.15, never a root caller (2863643fb8b9,
 * undone by c16bdeb5a39f). The hooks are policy/ucounts.c's; this era is
 * its rules, those of 5.16.0. The stable branches 5.15.y (from 5.15.25)
 * and 5.16.y (from 5.16.11) took the series and are linux-6
 * (model/release.c); 5.14.y never had 2863643fb8b9 nor 59ec71575ab4.
 */
#include "model/policy.h"

const struct npg_policy npg_policy_linux_5_14 = {
	.name = "linux-5.14",
	.kernels = "5.14 - 5.16 (5.15.y to 5.15.24, 5.16.y to 5.16.10)",
	.source = "commits 21d1c5e386bc, 2863643fb8b9; fixes 8f2f9c4d82f2, a55d07294f1e, c923a8e7edb0",
	.summary = "ucounts regressions: fork allows L+1, counts keyed on euid, root callers never flagged",
	.has_flag = true,
	.release = { 5, 16, 0 },
	.copy_process = npg_ucounts_copy_process,
	.set_user = npg_ucounts_set_user,
	.flag_nproc_exceeded = npg_ucounts_flag_nproc_exceeded,
	.execve = npg_ucounts_execve,
	.ucounts = true,
};
