#!/bin/sh
# nprocguard conform --kernel: the guest's report and exit status come
# back; a guest that panics, hangs or never speaks is told apart and
# stopped; QEMU never outlives the command. Most tests use a stand-in for
# QEMU (fixtures/fake-qemu); the last ones boot a real kernel image.
. "$(dirname "$0")/lib.sh"

FAKE="$TOP/tests/cli/fixtures/fake-qemu"
SCEN="$TOP/scenarios/article/03-unchecked-drop.npg"
export NPROCGUARD_CACHE="$TMP/cache"

# fake_conform MODE ARGS...: conform --kernel against the stand-in
fake_conform() {
	_mode=$1
	shift
	FAKE_QEMU=$_mode FAKE_QEMU_PID="$TMP/qemu.pid" NPROCGUARD_QEMU="$FAKE" \
		"$NPG" conform --kernel "$FAKE" "$@"
}

# The stand-in's pid is gone (killed and reaped)
qemu_gone() {
	! kill -0 "$(cat "$TMP/qemu.pid")" 2>/dev/null
}

test_expect "a missing image is a usage error" '
	expect_exit 2 "$NPG" conform --kernel "$TMP/no-such-image" "$SCEN" &&
	grep -q "no-such-image: No such file" "$TMP/stderr"
'

test_expect "a directory is not taken for an image" '
	expect_exit 2 "$NPG" conform --kernel "$TMP" "$SCEN" &&
	grep -q "a directory, not a kernel image" "$TMP/stderr"
'

test_expect "--accel takes tcg or kvm only" '
	expect_exit 2 "$NPG" conform --kernel "$FAKE" --accel xen "$SCEN" &&
	grep -q "tcg or kvm" "$TMP/stderr"
'

test_expect "--guest-timeout must be a positive number of seconds" '
	expect_exit 2 "$NPG" conform --kernel "$FAKE" --guest-timeout 0 "$SCEN" &&
	expect_exit 2 "$NPG" conform --kernel "$FAKE" --guest-timeout 5x "$SCEN"
'

test_expect "a missing QEMU is named, with the package to install, exit 3 (did not run)" '
	NPROCGUARD_QEMU="$TMP/no-qemu" expect_exit 3 "$NPG" conform --kernel "$FAKE" "$SCEN" &&
	grep -q "cannot run $TMP/no-qemu (apt-get install qemu-system-x86)" "$TMP/stderr"
'

test_expect "the guest's report, stderr and exit status come back" '
	expect_exit 1 fake_conform report "$SCEN" &&
	grep -q "^conform: 1 scenarios, 2 statements, 1 differences.*kernel 9.9.9-fake" "$TMP/stdout" &&
	grep -q "^a warning from the guest" "$TMP/stderr"
'

test_expect "an image that never writes to its console is said to lack one, exit 3" '
	expect_exit 3 fake_conform silent "$SCEN" &&
	grep -q "wrote nothing on its console (ttyS0).*SERIAL_8250_CONSOLE" "$TMP/stderr"
'

test_expect "a panic is reported with the end of the console, exit 3" '
	expect_exit 3 fake_conform panic "$SCEN" &&
	grep -q "the guest kernel panicked" "$TMP/stderr" &&
	grep -q "Attempted to kill init" "$TMP/stderr"
'

test_expect "a hung guest is stopped at --guest-timeout and QEMU is killed, exit 3" '
	expect_exit 3 fake_conform hang --guest-timeout 1 "$SCEN" &&
	grep -q "the guest hung: no result after" "$TMP/stderr" &&
	grep -q "Run /init as init process" "$TMP/stderr" &&
	qemu_gone
'

test_expect "SIGTERM stops the guest, removes the run's files and ends the command by it" '
	rm -f "$TMP/qemu.pid"
	TMPDIR="$TMP/run" && mkdir -p "$TMPDIR" && export TMPDIR
	FAKE_QEMU=hang FAKE_QEMU_PID="$TMP/qemu.pid" NPROCGUARD_QEMU="$FAKE" \
		"$NPG" conform --kernel "$FAKE" "$SCEN" >/dev/null 2>"$TMP/stderr" &
	pid=$!
	n=0	# wait for the stand-in to start (bounded, in case it never does)
	while [ ! -s "$TMP/qemu.pid" ] && kill -0 $pid 2>/dev/null && [ $n -lt 600 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	kill -TERM $pid
	wait $pid
	status=$?
	echo "exit status $status, files left: $(ls "$TMP/run")"
	cat "$TMP/stderr"
	[ $status -eq 143 ] && qemu_gone && [ -z "$(ls "$TMP/run")" ] &&
	grep -q "interrupted: the guest was stopped" "$TMP/stderr"
'

test_expect "the part of the initramfs that depends on the binary is cached by content" '
	ls "$NPROCGUARD_CACHE"/initramfs-*.cpio >"$TMP/cached" &&
	[ $(wc -l <"$TMP/cached") -eq 1 ]
'

# A real boot: the smallest image of $NPG_KERNELS (default ../shared/kernels)
kdir=${NPG_KERNELS:-$TOP/../shared/kernels}
image=$(ls -S "$kdir"/*bzImage* "$kdir"/vmlinuz* 2>/dev/null | tail -n 1)
if ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
	test_skip "the seed scenarios agree with the model inside a real kernel" \
		"qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)"
elif [ -z "$image" ]; then
	test_skip "the seed scenarios agree with the model inside a real kernel" \
		"no kernel image in $kdir (set NPG_KERNELS)"
else
	test_expect "a file QEMU cannot boot: QEMU says why, and we say it was QEMU" '
		head -c 4096 /dev/zero >"$TMP/not-a-kernel" &&
		expect_exit 3 "$NPG" conform --kernel "$TMP/not-a-kernel" "$SCEN" &&
		grep -q "QEMU could not boot the image" "$TMP/stderr"
	'
	test_expect "the seed scenarios agree with the model inside $(basename "$image")" '
		cd "$TOP" &&
		expect_exit 0 "$NPG" conform --guest-timeout 900 --kernel "$image" scenarios/article/*.npg &&
		grep -q "^model .*, picked for kernel " "$TMP/stdout" &&
		grep -q "^scenarios/article/03-unchecked-drop.npg: 8 statements: 8 agree" "$TMP/stdout" &&
		grep -q "^conform: 9 scenarios, .* 0 differences, .*, kernel " "$TMP/stdout"
	'
	test_expect "a scenario under /tmp, named relative to the working directory, is found in the guest" '
		mkdir -p "$TMP/work/sub" && cp "$SCEN" "$TMP/work/sub/drop.npg" && cd "$TMP/work" &&
		expect_exit 0 "$NPG" conform --quiet --guest-timeout 900 --kernel "$image" sub/../sub/drop.npg &&
		grep -q "^conform: 1 scenarios, 8 statements, 0 differences" "$TMP/stdout"
	'
	# Root holds CAP_SYS_RESOURCE in the guest (not here): a root whose hard
	# RLIMIT_NPROC is finite must still give a task the scenario's unlimited
	# one -- the set-up raised it after the uid switch had cleared the
	# effective set ("task could not be set up: Operation not permitted").
	test_expect "a root with a finite hard limit sets up a task with an unlimited one" '
		printf "user root 0\nuser www 1000\ntask w uid www\ncheck w nproc => unlimited unlimited\nw: fork c => ok\n" \
			>"$TMP/finite.npg" &&
		NPG_TEST_ROOT_NPROC=500 expect_exit 0 "$NPG" conform --quiet --guest-timeout 900 \
			--kernel "$image" "$TMP/finite.npg" &&
		grep -q "^conform: 1 scenarios, 2 statements, 0 differences, 0 unreproducible" "$TMP/stdout"
	'
	# The guest's /init mounts a tmpfs for $TMPDIR, where the real backend
	# makes its set-id and file-capability programs: with TMPFS_XATTR (the
	# 3.0.8 image of ../shared/kernels) it holds security.capability, and a
	# v3 one fails the execve() of 3.0 with ERANGE, as the model says
	test_expect "file capabilities are compared inside $(basename "$image")" '
		cd "$TOP" &&
		expect_exit 0 "$NPG" conform --quiet --guest-timeout 900 --kernel "$image" \
			scenarios/regression/fcaps-v3-before-4.14.npg &&
		grep -q "^conform: 1 scenarios, 5 statements, 0 differences" "$TMP/stdout" &&
		case "$image" in
		*3.0.8*) grep -q " 0 unreproducible" "$TMP/stdout" ;;
		esac
	'
	# Inside a kernel we booted the only root tasks are the kernel's, /init
	# and ours: root's count is made what the file declares and compared
	# (issue 23: unreproducible before, "root's count here includes the
	# machine's own processes")
	# below the guest's own (issue 31): the guest's count is kept, and the
	# model starts from it; the file's expectations do not apply there
	test_expect "in the guest root's count is the file's: made and compared; below the guest's own, the guest's" '
		printf "user root 0 procs 150\ntask d uid root\ncheck count root => 151\nd: fork e => ok\ncheck count root => 152\n" \
			>"$TMP/root.npg" &&
		printf "user root 0 procs 3\ntask d uid root\ncheck count root => 4\n" >"$TMP/few.npg" &&
		expect_exit 0 "$NPG" conform --guest-timeout 900 --kernel "$image" "$TMP/root.npg" "$TMP/few.npg" &&
		grep -q "root.npg: 3 statements: 3 agree, 0 differ, 0 unreproducible" "$TMP/stdout" &&
		grep -q "few.npg: 1 statements: 1 agree, 0 differ, 0 unreproducible" "$TMP/stdout" &&
		grep -Eq "^  root has [0-9]+ tasks outside the scenario in this guest, the file declares 3: the model started from [0-9]+" "$TMP/stdout"
	'
	# An orphan's parent is init before 3.4 (no child subreaper), and before
	# 3.5 /proc/PID/stat has no exit code: the guest's /init writes how each
	# orphan it reaps ended, and the backend reads it there (before:
	# "nothing of the run saw its status" on 3.0.8)
	test_expect "an orphan reaped by the guest's /init: its exit is compared inside $(basename "$image")" '
		cd "$TOP" &&
		expect_exit 0 "$NPG" conform --guest-timeout 900 --kernel "$image" \
			scenarios/regression/kill-permission.npg &&
		grep -q "^scenarios/regression/kill-permission.npg: 25 statements: 25 agree, 0 differ, 0 unreproducible" \
			"$TMP/stdout"
	'
	# PTRACE_ATTACH is every era's: on 3.0.8 the request that attaches at
	# all (PTRACE_SEIZE is 3.4's), its SIGSTOP and an attached tracee's exec
	# SIGTRAP taken, waits without waitid(__WALL) (4.7), detach by SIGSTOP
	test_expect "ptrace attach agrees with the model inside $(basename "$image")" '
		cd "$TOP" &&
		expect_exit 0 "$NPG" conform --quiet --guest-timeout 900 --kernel "$image" \
			scenarios/regression/ptrace-attach.npg &&
		grep -q "^conform: 1 scenarios, 86 statements, 0 differences, 0 unreproducible" "$TMP/stdout"
	'
fi

# 5.14-5.16 decide a fork in a namespace root's euid made by root's count
# against the limit it recorded (kernel/ucount.c is_rlimit_overlimit()):
# in the guest that count is the file's, so the decision is compared
image515=$(ls "$kdir"/*bzImage*5.15.* "$kdir"/*5.15.*bzImage* "$kdir"/vmlinuz*5.15.* 2>/dev/null | head -n 1)
if ! command -v qemu-system-x86_64 >/dev/null 2>&1 || [ -z "$image515" ]; then
	for t in "a 5.15 guest compares a fork decided by root's count" \
		"a 5.15 guest writes the initial namespace's user.max_user_namespaces and sets it back"; do
		test_skip "$t" "needs qemu-system-x86_64 and a 5.15 image in $kdir"
	done
else
	test_expect "a 5.15 guest compares a fork decided by root's count" '
		printf "%s\n" "policies linux-5.14" "user root 0 procs 150" "user alice 1000" "task d uid root" \
			"task a uid alice euid root nproc 5 5" "a: unshare user box => ok" \
			"a: fork a2 => EAGAIN" >"$TMP/chain.npg" &&
		expect_exit 0 "$NPG" conform --guest-timeout 900 --kernel "$image515" "$TMP/chain.npg" &&
		grep -q "chain.npg: 2 statements: 2 agree, 0 differ, 0 unreproducible" "$TMP/stdout"
	'
	# The initial namespace's user.max_user_namespaces is the guest's, not
	# a machine's to protect: written, compared (inc_ucount()'s ENOSPC at
	# the initial level), and set back for the next scenario (issue 23:
	# unreproducible before, "would change this machine's"); the last file
	# finds the first's namespaces gone when it sets the limit to 1 again
	test_expect "a 5.15 guest writes the initial namespace's user.max_user_namespaces and sets it back" '
		printf "%s\n" "user root 0 procs 150" "user alice 1000" "task d uid root" "task a uid alice" \
			"task b uid alice" "d: sysctl user.max_user_namespaces 1 => ok" \
			"a: unshare user box => ok" "b: unshare user box2 => ENOSPC" >"$TMP/max1.npg" &&
		printf "%s\n" "user root 0 procs 150" "user alice 1000" "task a uid alice" "task b uid alice" \
			"a: unshare user box => ok" "b: unshare user box2 => ok" >"$TMP/unset.npg" &&
		printf "%s\n" "user root 0 procs 150" "user alice 1000" "task d uid root" "task a uid alice" \
			"d: sysctl user.max_user_namespaces 1 => ok" "a: unshare user box => ok" >"$TMP/again.npg" &&
		expect_exit 0 "$NPG" conform --guest-timeout 900 --kernel "$image515" \
			"$TMP/max1.npg" "$TMP/unset.npg" "$TMP/again.npg" &&
		grep -q "max1.npg: 3 statements: 3 agree, 0 differ, 0 unreproducible" "$TMP/stdout" &&
		grep -q "unset.npg: 2 statements: 2 agree, 0 differ, 0 unreproducible" "$TMP/stdout" &&
		grep -q "again.npg: 2 statements: 2 agree, 0 differ, 0 unreproducible" "$TMP/stdout"
	'
	# The guest has 20 root tasks of its own; a file that declares fewer
	# (none here) was compared only up to the first statement its root
	# count decided (issue 31): the model now starts from the guest's count,
	# and the file's expectations, written for its own, are not checked
	test_expect "a 5.15 guest with more root tasks than the file declares: the model starts from them" '
		printf "%s\n" "policies linux-5.14" "user root 0" "user alice 1000" "task d uid root" \
			"task a uid alice euid root nproc 5 5" "a: unshare user box => ok" \
			"a: fork a2 => ok" >"$TMP/fewer.npg" &&
		expect_exit 0 "$NPG" conform --guest-timeout 900 --kernel "$image515" "$TMP/fewer.npg" &&
		grep -q "fewer.npg: 2 statements: 2 agree, 0 differ, 0 unreproducible" "$TMP/stdout" &&
		grep -Eq "^  root has [0-9]+ tasks outside the scenario in this guest, the file declares 0: the model started from [0-9]+, and the file.s expectations do not apply$" "$TMP/stdout"
	'
	# (linux-6 is not 5.15.24's model: its flag differs, and is said)
	test_expect "--policy in a 5.15 guest: the policy's RLIMIT_NPROC rules, the kernel's credential rules" '
		expect_exit 1 "$NPG" conform --quiet --guest-timeout 900 --policy linux-6 --kernel "$image515" \
			"$TOP/scenarios/article/03-unchecked-drop.npg" &&
		grep -q "^conform: 1 scenarios, .*, model linux-6,-setresuid_noop_fastpath,-exec_id_changed,-coredump_one_group$" "$TMP/stdout"
	'
fi

# 5.15.85 took the February 2022 RLIMIT_NPROC fixes (stable 5.15.25): the
# model its point release picks is linux-6, and it agrees -- the lprng
# counts too, which linux-5.14's euid keying leaves unreproducible
image51585=$(ls "$kdir"/*5.15.85*bzImage* 2>/dev/null | head -n 1)
if ! command -v qemu-system-x86_64 >/dev/null 2>&1 || [ -z "$image51585" ]; then
	test_skip "5.15.85 is linux-6 by its point release, and agrees" \
		"needs qemu-system-x86_64 and a 5.15.85 image in $kdir"
else
	test_expect "5.15.85 is linux-6 by its point release, and agrees" '
		cd "$TOP" &&
		expect_exit 0 "$NPG" conform --guest-timeout 900 --kernel "$image51585" \
			scenarios/article/02-lprng.npg scenarios/article/03-unchecked-drop.npg &&
		grep -q "^model linux-6 for release 5.15.85: 5.15.y took linux-6.s RLIMIT_NPROC rules in 5.15.25 " "$TMP/stdout" &&
		grep -q "^conform: 2 scenarios, 16 statements, 0 differences, 0 unreproducible here, kernel 5.15.85, model linux-6," "$TMP/stdout"
	'
fi

test_done
