#!/bin/sh
# The real-kernel backend and conform: root only (CI runs as root).
. "$(dirname "$0")/lib.sh"
BASE=$((NPG_TEST_UID_BASE + 100000))	# a window of its own within this run's slot
S="$TOP/scenarios"

if [ "$(id -u)" -ne 0 ]; then
	test_skip "real backend" "needs root: it creates processes of other users"
	test_done
	exit 0
fi

test_expect "every seed scenario holds on the running kernel" '
	expect_exit 0 "$NPG" run --real -u $BASE "$S"/article/*.npg &&
	grep -q "^9 files, [0-9]* expectations: [0-9]* held, 0 failed$" "$TMP/stdout" &&
	no_leftovers
'

test_expect "regression scenarios hold on the running kernel" '
	expect_exit 0 "$NPG" run --real -u $BASE "$S"/regression/*.npg && no_leftovers
'

test_expect "a file for other eras is run but checks nothing on this kernel, and says so" '
	expect_exit 0 "$NPG" run --real -u $BASE "$S/regression/userns-2-6-39.npg" &&
	grep -q "^backend: kernel .* (its era is not among the file.s policies: nothing expected)$" \
		"$TMP/stdout" &&
	grep -q "^0 expectations: 0 held, 0 failed" "$TMP/stdout" && no_leftovers
'

test_expect "every scenario conforms: model and kernel agree step by step" '
	expect_exit 0 "$NPG" conform -u $BASE "$S"/article/*.npg "$S"/regression/*.npg &&
	grep -q "^conform: [0-9]* scenarios, [0-9]* statements, 0 differences" "$TMP/stdout" &&
	no_leftovers
'

# Files written from probe programs name their uids by number, with no
# `user` line: each such uid is mapped into the window and counted as a
# declared user is (issue 23: "check count 31158": model 2, kernel 0)
test_expect "a uid no user line names: its count, on the kernel as on the model" '
	printf "user root 0\ntask d uid root\ntask a uid 31158\na: thread t1\ncheck count 31158 => 2\n" >"$TMP/num.npg" &&
	expect_exit 0 "$NPG" conform -u $BASE "$TMP/num.npg" &&
	grep -q "^conform: 1 scenarios, 2 statements, 0 differences, 0 unreproducible here" "$TMP/stdout" &&
	expect_exit 0 "$NPG" run --real -u $BASE "$TMP/num.npg" && no_leftovers
'

test_expect "every scenario with its users given as numbers conforms exactly as the original" '
	mkdir -p "$TMP/num" &&
	for f in "$S"/article/*.npg "$S"/regression/*.npg; do
		perl "$TOP/tests/cli/fixtures/numeric-users.pl" "$f" >"$TMP/num/${f##*/}" || exit 1
	done &&
	summary() { sed -n "s|^.*/\([^/]*\.npg\): \([0-9]* statements: .*\)|\1: \2|p" | sort; } &&
	expect_exit 0 "$NPG" conform -u $BASE "$S"/article/*.npg "$S"/regression/*.npg &&
	summary <"$TMP/stdout" >"$TMP/names.sum" &&
	expect_exit 0 "$NPG" conform -u $BASE "$TMP"/num/*.npg &&
	summary <"$TMP/stdout" >"$TMP/numbers.sum" &&
	test -s "$TMP/names.sum" && diff "$TMP/names.sum" "$TMP/numbers.sum" && no_leftovers
'

test_expect "what this machine cannot hold is reported unreproducible, not faked" '
	if grep -q "^CapBnd:.*" /proc/self/status &&
	   [ $(( 0x$(sed -n "s/^CapBnd:\t//p" /proc/self/status) >> 24 & 1 )) -eq 0 ]; then
		expect_exit 0 "$NPG" run --real -u $BASE "$S/article/09-capability-exemptions.npg" &&
		grep -q "unreproducible here: task .r. needs capabilities 0x1000000" "$TMP/stderr"
	else
		echo "# CAP_SYS_RESOURCE is in the bounding set here: nothing to report"
	fi
'

test_expect "root counts are unreproducible (the host has its own)" '
	expect_exit 0 "$NPG" run --real -u $BASE "$S/article/02-lprng.npg" &&
	grep -q "02-lprng.npg:19: .*root.s count here includes the machine.s own processes" "$TMP/stderr"
'

# Only a kernel booted for the run (conform --kernel's /init, the parent
# of nprocguard there) makes root's count the file's: here the marker the
# guest sets changes nothing, root's processes are the machine's
test_expect "on the host root's count stays the machine's, even with the guest's marker" '
	printf "user root 0 procs 5000\ntask d uid root\ncheck count root => 5001\n" >"$TMP/root.npg" &&
	NPG_GUEST_KERNEL=1 expect_exit 0 "$NPG" conform -u $BASE "$TMP/root.npg" &&
	grep -q "root.s count here includes the machine.s own processes" "$TMP/stdout" &&
	grep -q "^conform: 1 scenarios, 1 statements, 0 differences, 1 unreproducible" "$TMP/stdout" &&
	no_leftovers
'

# conform --quiet and --random tell no statement's reason: the summary
# tallies them, numbers taken out, so a run of thousands says what kept
# how much from being compared
test_expect "conform --quiet tallies why statements were unreproducible" '
	printf "user root 0 procs 5000\ntask d uid root\ncheck count root => 5001\nd: fork e => ok\ncheck count root => 5002\n" >"$TMP/root.npg" &&
	expect_exit 0 "$NPG" conform -q -u $BASE "$TMP/root.npg" "$TMP/root.npg" &&
	grep -q "^unreproducible here, by reason:" "$TMP/stdout" &&
	grep -q "^  4 statements in 2 scenarios: root.s count here includes the machine.s own processes" "$TMP/stdout" &&
	! grep -q "root.npg:3:" "$TMP/stdout" &&
	tail -n 1 "$TMP/stdout" | grep -q "^conform: 2 scenarios, 6 statements, 0 differences, 4 unreproducible" &&
	expect_exit 0 "$NPG" conform -q -u $BASE -f json "$TMP/root.npg" &&
	python3 -c "import json,sys; r=json.load(open(sys.argv[1]))[\"summary\"][\"unreproducible_reasons\"]; assert r[0][\"statements\"] == 2 and r[0][\"scenarios\"] == 1, r" "$TMP/stdout" &&
	no_leftovers
'

test_expect "random differential testing finds no difference (60 scenarios)" '
	expect_exit 0 "$NPG" conform -u $BASE --random 60 --seed 7 -o "$TMP" &&
	grep -q "^conform: 60 scenarios, [0-9]* statements, 0 differences" "$TMP/stdout" &&
	no_leftovers
'

test_expect "conform --format json is valid and names the kernel" '
	expect_exit 0 "$NPG" conform -u $BASE -f json "$S/article/07-off-by-one.npg" &&
	jq -e ".kernel == \"$(uname -r)\" and .summary.differ == 0 and .summary.statements == 17" \
		"$TMP/stdout" >/dev/null
'

# The file's own expectations: checked on both sides, as run --real checks
# them, told with --quiet and in JSON too, and a failure exits 1. Before,
# they were shown only beside an unreproducible statement: a fork the file
# expects EAGAIN of, and both sides say ok, gave "0 differences" and 0.
test_expect "conform says an expectation the kernel and the model contradict, and exits 1" '
	printf "user www 1000\ntask w uid www\nw: fork c => EAGAIN\ncheck count www => 2\n" >"$TMP/wrong.npg" &&
	expect_exit 1 "$NPG" conform -u $BASE "$TMP/wrong.npg" &&
	grep -q "^$TMP/wrong.npg: 2 statements: 2 agree, 0 differ, 0 unreproducible here; 2 expectations: 1 held, 1 failed$" "$TMP/stdout" &&
	grep -q "^$TMP/wrong.npg:3: model [a-z0-9.-]*: w: fork c: expected EAGAIN, got ok$" "$TMP/stdout" &&
	grep -q "^$TMP/wrong.npg:3: kernel $(uname -r): w: fork c: expected EAGAIN, got ok$" "$TMP/stdout" &&
	grep -q "^expectations of the files: 2 checked, 1 held, 1 failed, 0 not checked" "$TMP/stdout" &&
	expect_exit 1 "$NPG" conform -q -u $BASE "$TMP/wrong.npg" &&
	grep -q "^$TMP/wrong.npg:3: kernel $(uname -r): w: fork c: expected EAGAIN, got ok$" "$TMP/stdout" &&
	expect_exit 1 "$NPG" conform -u $BASE -f json "$TMP/wrong.npg" &&
	jq -e ".summary.expectations_failed == 1 and .summary.differ == 0 and
		(.scenarios[0].failed_expectations | map(.side) == [\"model\", \"kernel\"]) and
		.scenarios[0].failed_expectations[1].got == \"ok\"" "$TMP/stdout" >/dev/null &&
	no_leftovers
'

# conform runs both sides under this machine's Yama, whatever the file
# declares; from the first step Yama decides on, the file's expectations are
# another machine's: not checked, and said (run --real stops comparing there)
test_expect "expectations another machine's Yama decides are not checked, and that is said" '
	here=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo -1) &&
	file=3 && { [ "$here" != 3 ] || file=1; } &&
	printf "%s\n" "yama ptrace_scope $file" "user www 1000" "task a uid www" "task b uid www" \
		"a: fork c => ok" "b: ptrace a => EPERM" "a: fork d => EAGAIN" >"$TMP/yama.npg" &&
	expect_exit 0 "$NPG" conform -u $BASE "$TMP/yama.npg" &&
	grep -q "^$TMP/yama.npg: 3 statements: .*; 1 expectations: 1 held, 0 failed; 2 expectations from line 6 on not checked: the file.s Yama (ptrace_scope $file, -1: none) is not this machine.s ($here)$" "$TMP/stdout" &&
	no_leftovers
'

test_expect "a wrong model is caught: linux-3.1 differs from this kernel on the off-by-one" '
	case "$(uname -r)" in 5.1[7-9]*|5.[2-9]*|[6-9].*) ;; *) exit 0 ;; esac
	expect_exit 1 "$NPG" conform -u $BASE -p linux-3.1 "$S/article/07-off-by-one.npg" &&
	grep -q "07-off-by-one.npg:21: b: setuid www: flag: model set, kernel clear" "$TMP/stdout"
'

test_expect "every asynchronous effect is acknowledged before the next observation" '
	NPG_PUPPET_DELAY_MS=150 expect_exit 0 "$NPG" run --real -u $BASE \
		"$S/regression/every-async-effect.npg" && no_leftovers
'

test_expect "with every puppet effect delayed, the seed scenarios still hold" '
	NPG_PUPPET_DELAY_MS=20 expect_exit 0 "$NPG" run --real -u $BASE "$S"/article/*.npg &&
	no_leftovers
'

test_expect "a busy uid window is refused: run --real and conform exit 3, not 1, and kill nothing there" '
	setpriv --reuid=$((BASE + 1)) --regid=$((BASE + 1)) --clear-groups sleep 30 &
	pid=$!
	sleep 0.2
	expect_exit 3 "$NPG" run --real -u $BASE "$S/article/01-cgiwrap.npg"; rc=$?
	grep -q "already runs with a uid in $BASE" "$TMP/stdout" || rc=1
	expect_exit 3 "$NPG" conform -u $BASE "$S/article/01-cgiwrap.npg" || rc=1
	grep -q "already runs with a uid in $BASE" "$TMP/stderr" || rc=1
	kill -0 $pid || { echo "the refused runs killed the process already in the window"; rc=1; }
	kill $pid; wait $pid 2>/dev/null
	test $rc -eq 0
'

# A scenario that runs until killed: the SIGKILL and SIGTERM tests, and the
# lock tests, which need a run that holds its window for a while.
slow_scenario() {
	printf "user root 0\nuser u 1000 procs 2\ntask d uid root\n"
	i=0
	while [ $i -lt 200 ]; do printf "d: fork c%d\nd: wait c%d\n" $i $i; i=$((i + 1)); done
}
slow_scenario >"$TMP/slow.npg"

# start_holder: a slow run in the background, once it holds its window
start_holder() {
	NPG_PUPPET_DELAY_MS=100 "$NPG" run --real -u $BASE "$TMP/slow.npg" >/dev/null 2>&1 &
	holder=$!
	# until it holds the window: the lock file names its holder (a loaded
	# machine can take seconds to get there; the bound is only a safety net)
	i=0
	while ! grep -qx "$holder" /run/nprocguard/uid-window-$((BASE / 4096 * 4096)).lock 2>/dev/null &&
	      [ $i -lt 1200 ]; do
		sleep 0.05; i=$((i + 1))
	done
}

stop_holder() {
	kill -TERM $holder 2>/dev/null; wait $holder 2>/dev/null
	true
}

test_expect "a second run on the same uid window is refused with exit 3, naming the holder" '
	start_holder
	expect_exit 3 "$NPG" run --real -u $BASE "$S/article/01-cgiwrap.npg"; rc=$?
	stop_holder
	test $rc -eq 0 && grep -q "are in use by another real run (nprocguard pid $holder" "$TMP/stderr" &&
	no_leftovers
'

test_expect "an overlapping window is refused too, and conform says so" '
	start_holder
	expect_exit 3 "$NPG" conform -u $((BASE + 100)) "$S/article/01-cgiwrap.npg"; rc=$?
	stop_holder
	test $rc -eq 0 && grep -q "pid $holder" "$TMP/stderr" && no_leftovers
'

test_expect "--wait waits for the holder, then runs" '
	start_holder
	"$NPG" run --real --wait -u $BASE "$S/article/01-cgiwrap.npg" >"$TMP/w.out" 2>"$TMP/w.err" &
	waiter=$!
	i=0	# the holder ends only once the waiter has said it waits
	while ! grep -q "waiting for nprocguard pid $holder" "$TMP/w.err" && [ $i -lt 600 ]; do
		sleep 0.05; i=$((i + 1))
	done
	stop_holder
	wait $waiter; rc=$?
	echo "waiter exit $rc"; cat "$TMP/w.err"; tail -n 3 "$TMP/w.out"
	test $rc -eq 0 && grep -q "waiting for nprocguard pid $holder" "$TMP/w.err" &&
	grep -q "8 expectations: 8 held, 0 failed" "$TMP/w.out" && no_leftovers
'

# The pids cgroup of this process, as a directory where a child cgroup can be
# made: v1's pids hierarchy, else cgroup2 when it has the controller. Not in
# a chroot that does not bind /sys/fs/cgroup: no cgroup mount is visible there.
pids_cgroup_dir() {
	_cg=$(awk -F: "\$2 ~ /(^|,)pids(,|\$)/ { print \$3 }" /proc/self/cgroup)
	_mnt=$(awk "\$9 == \"cgroup\" && \$NF ~ /(^|,)pids(,|\$)/ { print \$5 }" /proc/self/mountinfo)
	if [ -z "$_mnt" ]; then
		_mnt=$(awk "\$9 == \"cgroup2\" { print \$5; exit }" /proc/self/mountinfo)
		_cg=$(sed -n "s/^0:://p" /proc/self/cgroup)
		[ -n "$_mnt" ] && grep -qw pids "$_mnt$_cg/cgroup.subtree_control" 2>/dev/null || return 1
	fi
	[ -n "$_mnt" ] && [ -d "$_mnt$_cg" ] && echo "$_mnt$_cg"
}
if pids=$(pids_cgroup_dir); then
test_expect "a scenario larger than the pids cgroup allows is refused before any process, exit 3" '
	dir="$pids/npg-test-$$"
	mkdir "$dir" && test -e "$dir/pids.max" && echo 3000 >"$dir/pids.max" || { rmdir "$dir"; exit 1; }
	printf "user root 0\nuser u 1000 procs 5000\ntask d uid root\ncheck count u => 5000\n" >"$TMP/big.npg"
	sh -c "echo \$\$ >\"$dir/cgroup.procs\" && exec \"$NPG\" run --real -u $BASE \"$TMP/big.npg\"" \
		>"$TMP/stdout" 2>&1; rc=$?
	rmdir "$dir"
	cat "$TMP/stdout"
	test $rc -eq 3 && grep -q "needs up to 5001 tasks at once, but pids cgroup .*npg-test-$$ (pids.max) is 3000" "$TMP/stdout" &&
	no_leftovers
'
else
test_skip "a scenario larger than the pids cgroup allows is refused" \
	"no pids cgroup of this process is mounted where it can see it$(in_chroot && echo " (a chroot without /sys/fs/cgroup)")"
fi

test_expect "SIGTERM while the users processes start leaves nothing, at once" '
	printf "user u 1000 procs 1500\nuser v 1001 procs 1500\ntask d uid root\ncheck count u => 1500\n" >"$TMP/many.npg"
	timeout -s TERM 0.3 "$NPG" run --real -u $BASE "$TMP/many.npg" >/dev/null 2>&1
	no_leftovers
'

# then_signal SIG THEN: run --real with --then "THEN", sent SIG once the
# command runs (not after a fixed time: a loaded machine may not be there
# yet); its exit status, its stderr in $TMP/then.err
then_signal() {
	rm -f "$TMP/then.on"
	"$NPG" run --real -u $BASE --then "touch $TMP/then.on; $2" "$S/article/01-cgiwrap.npg" \
		>"$TMP/then.out" 2>"$TMP/then.err" &
	_pid=$!
	_i=0
	while [ ! -e "$TMP/then.on" ] && kill -0 $_pid 2>/dev/null && [ $_i -lt 1200 ]; do
		sleep 0.05; _i=$((_i + 1))
	done
	kill -$1 $_pid
	wait $_pid
}

test_expect "SIGINT during --then ends the run as interrupted and kills the command" '
	then_signal INT "sleep 1$$.25"; rc=$?
	cat "$TMP/then.err"
	test $rc -eq 130 &&
	grep -q "interrupted by SIGINT at .*01-cgiwrap.npg:[0-9]* (the --then command" "$TMP/then.err" &&
	! pgrep -f "sleep 1$$.25" && no_leftovers
'

test_expect "SIGTERM during --then: the same, with nothing orphaned" '
	then_signal TERM "sleep 1$$.5 & sleep 1$$.5"; rc=$?
	test $rc -eq 143 && grep -q "interrupted by SIGTERM" "$TMP/then.err" &&
	! pgrep -f "sleep 1$$.5" && no_leftovers
'

test_expect "the --then command ends with its background jobs when it exits" '
	expect_exit 0 "$NPG" run --real -u $BASE --then "sleep 1$$.75 & true" "$S/article/01-cgiwrap.npg" &&
	! pgrep -f "sleep 1$$.75" && no_leftovers
'

test_expect "without root the real backend says so: run --real and conform exit 3" '
	cp "$NPG" "$TMP/npg" && chmod 755 "$TMP" "$TMP/npg" &&
	setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/npg" run --real \
		"$S/article/01-cgiwrap.npg" >"$TMP/o" 2>"$TMP/e"; rc=$?
	test $rc -eq 3 && grep -q "needs root" "$TMP/e" &&
	{ setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/npg" conform \
		"$S/article/01-cgiwrap.npg" >"$TMP/o" 2>"$TMP/e"; rc=$?; } &&
	test $rc -eq 3 && grep -q "needs root" "$TMP/e"
'

# A long scenario, so that the controller can be killed in the middle of it.
long_scenario() {
	printf "user root 0\nuser u 1000 procs 3\ntask d uid root\n"
	i=0
	while [ $i -lt 120 ]; do
		printf "d: fork c%d\nc%d: setuid u\nc%d: execve\nc%d: execve\nc%d: thread t%d\n" \
			$i $i $i $i $i $i
		i=$((i + 1))
	done
}

# mid_run SIG COMMAND...: COMMAND in the background, sent SIG once a task of
# its run is in the window (not after a fixed time: a loaded machine may not
# have started it yet); its exit status, its output in $TMP/term.out
mid_run() {
	_sig=$1
	shift
	"$@" >"$TMP/term.out" 2>&1 &
	_pid=$!
	_i=0
	while [ "$(in_window)" -eq 0 ] && kill -0 $_pid 2>/dev/null && [ $_i -lt 1200 ]; do
		sleep 0.05; _i=$((_i + 1))
	done
	kill -$_sig $_pid
	wait $_pid
}

test_expect "SIGKILL of the controller leaves no process behind" '
	long_scenario >"$TMP/long.npg" &&
	"$NPG" run "$TMP/long.npg" >/dev/null &&
	{ mid_run KILL "$NPG" run --real -u $BASE "$TMP/long.npg"; test $? -eq 137; } &&
	no_leftovers_after_init
'

test_expect "SIGTERM of the controller leaves no process behind and says where it was" '
	{ mid_run TERM "$NPG" run --real -u $BASE "$TMP/long.npg"
	  rc=$?; test $rc -eq 143 || { echo "exit $rc"; head -3 "$TMP/term.out"; false; }; } &&
	grep -q "^nprocguard: interrupted by SIGTERM at .*long.npg:[0-9]*" "$TMP/term.out" &&
	no_leftovers
'
test_expect "conform interrupted by SIGTERM cleans up and dies of it: 143, not 1" '
	mid_run TERM "$NPG" conform -u $BASE "$TMP/long.npg"; rc=$?
	test $rc -eq 143 || { echo "exit $rc"; head -3 "$TMP/term.out"; false; } &&
	grep -q "^nprocguard: interrupted by SIGTERM at .*long.npg:[0-9]*" "$TMP/term.out" &&
	no_leftovers
'

# --- declared files (issue 10): a private directory, removed on every exit path ---
execdir_parent() {
	D=$(mktemp -d /tmp/npg-execdir-test.XXXXXX) && chmod 755 "$D"
}
test_expect "execve of a declared missing file fails ENOENT on the kernel; its directory goes" '
	execdir_parent &&
	printf "file /bin/sh missing\ntask d uid 0\nd: execve /bin/sh => ENOENT\n" >"$TMP/missing.npg" &&
	TMPDIR=$D expect_exit 0 "$NPG" run --real -u $BASE \
		--then "test -d $D/nprocguard-exec.* && touch $D/seen" "$TMP/missing.npg" &&
	test -f "$D/seen" && rm "$D/seen" && rmdir "$D" && no_leftovers
' ; rm -rf "${D:-/nonexistent}"
test_expect "SIGTERM mid-run removes the directory of declared files too" '
	execdir_parent &&
	TMPDIR=$D "$NPG" run --real -u $BASE --then "kill -TERM \$PPID" "$TMP/missing.npg" \
		>"$TMP/t.out" 2>"$TMP/t.err"; rc=$?
	test $rc -eq 143 && grep -q "interrupted by SIGTERM" "$TMP/t.err" && rmdir "$D" && no_leftovers
' ; rm -rf "${D:-/nonexistent}"
test_expect "a TMPDIR others cannot reach is passed over for /tmp" '
	TMPDIR=$TMP expect_exit 0 "$NPG" run --real -u $BASE "$TMP/missing.npg" && no_leftovers
'
test_expect "vfork: the parent's reply is collected when its child execs or exits, every effect delayed; conform agrees" '
	NPG_PUPPET_DELAY_MS=30 expect_exit 0 "$NPG" run --real -u $BASE "$S"/regression/vfork-posix-spawn.npg &&
	expect_exit 0 "$NPG" conform -u $BASE "$S"/regression/vfork-posix-spawn.npg &&
	grep -q " 0 differences, 0 unreproducible here" "$TMP/stdout" && no_leftovers
'
test_expect "set-id and file-capability copies run for real (mode 4755; the file capability shows in the checks), every effect delayed, and go at the end" '
	execdir_parent &&
	TMPDIR=$D NPG_PUPPET_DELAY_MS=20 expect_exit 0 "$NPG" run --real -u $BASE \
		--then "stat -c %a $D/nprocguard-exec.*/file-1 >$D/mode; getcap $D/nprocguard-exec.*/file-2 >$D/caps" \
		"$S"/regression/setuid-root-program-at-limit.npg &&
	grep -q "^4755$" "$D/mode" && grep -q "cap_net_raw[=+]ep" "$D/caps" && rm "$D/mode" "$D/caps" && rmdir "$D" &&
	expect_exit 0 "$NPG" conform -u $BASE "$S"/regression/setuid-root-program-at-limit.npg &&
	grep -q " 0 differences, 0 unreproducible here" "$TMP/stdout" && no_leftovers
' ; rm -rf "${D:-/nonexistent}"
test_expect "no_new_privs: set-id and file-capability programs give nothing; a diverged euid survives exec from 6.17 on; conform agrees" '
	expect_exit 0 "$NPG" conform -u $BASE "$S"/regression/no-new-privs.npg &&
	grep -q " 0 differences, 0 unreproducible here" "$TMP/stdout" && no_leftovers
'
test_expect "a harness run with no_new_privs (setpriv --no-new-privs): every task has it, the model too; conform says so and agrees" '
	expect_exit 0 setpriv --no-new-privs "$NPG" conform -u $BASE "$S"/regression/setuid-root-program-at-limit.npg \
		"$S"/regression/no-new-privs.npg &&
	grep -q "^this process runs with no_new_privs: so do the scenario.s tasks" "$TMP/stdout" &&
	grep -q " 0 differences, 0 unreproducible here" "$TMP/stdout" &&
	grep -q "no-new-privs.npg: .* expectations from line [0-9]* on not checked: this process runs with no_new_privs, and so do the tasks$" "$TMP/stdout" &&
	no_leftovers
'
# nosuid: a tmpfs mounted nosuid in the private directory, for the run only
no_nosuid_mount() {
	! grep " $D/nprocguard-exec" /proc/self/mountinfo
}
test_expect "files declared nosuid run from a nosuid mount: no set-uid, no file capabilities; conform agrees, and the mount goes, on SIGTERM too" '
	execdir_parent &&
	TMPDIR=$D expect_exit 0 "$NPG" conform -u $BASE "$S"/regression/nosuid-mount.npg &&
	grep -q " 0 differences, 0 unreproducible here" "$TMP/stdout" && no_nosuid_mount &&
	TMPDIR=$D "$NPG" run --real -u $BASE \
		--then "cat /proc/self/mountinfo >$D/mounts; kill -TERM \$PPID" \
		"$S"/regression/nosuid-mount.npg >"$TMP/t.out" 2>"$TMP/t.err"; rc=$?
	test $rc -eq 143 && grep -q "interrupted by SIGTERM" "$TMP/t.err" &&
	grep -q " $D/nprocguard-exec[^ ]*/nosuid [^ ]*nosuid.* - tmpfs " "$D/mounts" && rm "$D/mounts" &&
	no_nosuid_mount && rmdir "$D" && no_leftovers
' ; umount -l "${D:-/nonexistent}"/nprocguard-exec.*/nosuid 2>/dev/null; rm -rf "${D:-/nonexistent}"
test_done
