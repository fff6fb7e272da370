/*
 * Linux 5.17 - 6.x: ucounts with Eric Biederman's February 2022 fixes
 * (8f2f9c4d82f2, a55d07294f1e, c16bdeb5a39f, c923a8e7edb0, 0cbae9e24fa7;
 * 0ac983f51203), also in stable 5.15.y from 5.15.25 and 5.16.y from
 * 5.16.11. The hooks are policy/ucounts.c's, under the rules of the
 * newest release model/history.c knows (6.18, the kernel conform was run
 * on: the setresuid() no-op fast path and 6.17's exec rule included).
 */
#include "model/policy.h"

const struct npg_policy npg_policy_linux_6 = {
	.name = "linux-6",
	.kernels = "5.17 - 6.x (5.15.y from 5.15.25, 5.16.y from 5.16.11)",
	.source = "kernel/fork.c, kernel/sys.c, fs/exec.c of 6.1; commits 8f2f9c4d82f2, c923a8e7edb0",
	.summary = "ucounts: set*uid flags only over the limit (> L); execve re-checks; fork clears",
	.has_flag = true,
	.release = { 6, 18, 0 },
	.copy_process = npg_ucounts_copy_process,
	.set_user = npg_ucounts_set_user,
	.flag_nproc_exceeded = npg_ucounts_flag_nproc_exceeded,
	.execve = npg_ucounts_execve,
	.ucounts = true,
};
