#!/bin/sh
# The real-kernel backend and conform: root only (CI runs as root).
. "$(dirname "$0")/lib.sh"
BASE=$((NPG_TEST_UID_BASE + 100000))	# a window of its own within this run's slot
S="$TOP/scenarios"

# Tasks (threads and zombies too) with any uid in our window, from /proc
in_window() {
	cat /proc/[0-9]*/task/[0-9]*/status 2>/dev/null |
		awk -v lo="$BASE" '/^Uid:/ { for (i = 2; i <= 5; i++) if ($i >= lo && $i < lo + 4096) n++ }
				   END { print n + 0 }'
}

no_leftovers() {
	n=$(in_window)
	[ "$n" -eq 0 ] || { echo "left behind: $n tasks"; ps -eo uid,pid,stat,comm | awk -v lo="$BASE" '$1 >= lo'; return 1; }
}

# After a SIGKILL nobody but init can reap the orphans' zombies; give it time.
no_leftovers_after_init() {
	i=0
	while [ "$(in_window)" -ne 0 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	no_leftovers
}

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

test_expect "every scenario conforms: model and kernel agree step by step" '
	expect_exit 0 "$NPG" conform -u $BASE "$S"/article/*.npg "$S"/regression/*.npg &&
	grep -q "^conform: [0-9]* scenarios, [0-9]* statements, 0 differences" "$TMP/stdout" &&
	no_leftovers
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

test_expect "a wrong model is caught: linux-3.1 differs from this kernel on the off-by-one" '
	case "$(uname -r)" in 5.1[7-9]*|5.[2-9]*|[6-9].*) ;; *) exit 0 ;; esac
	expect_exit 1 "$NPG" conform -u $BASE -p linux-3.1 "$S/article/07-off-by-one.npg" &&
	grep -q "07-off-by-one.npg:21: b: setuid www: flag: model set, kernel clear" "$TMP/stdout"
'

test_expect "a busy uid window is refused" '
	setpriv --reuid=$((BASE + 1)) --regid=$((BASE + 1)) --clear-groups sleep 30 &
	pid=$!
	sleep 0.2
	expect_exit 1 "$NPG" run --real -u $BASE "$S/article/01-cgiwrap.npg"; rc=$?
	kill $pid; wait $pid 2>/dev/null
	test $rc -eq 0 && grep -q "already runs with a uid in $BASE" "$TMP/stdout"
'

test_expect "without root the real backend says so and exits 2" '
	cp "$NPG" "$TMP/npg" && chmod 755 "$TMP" "$TMP/npg" &&
	setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/npg" run --real \
		"$S/article/01-cgiwrap.npg" >"$TMP/o" 2>"$TMP/e"; rc=$?
	test $rc -eq 2 && grep -q "needs root" "$TMP/e"
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

test_expect "SIGKILL of the controller leaves no process behind" '
	long_scenario >"$TMP/long.npg" &&
	"$NPG" run "$TMP/long.npg" >/dev/null &&
	{ timeout -s KILL 0.5 "$NPG" run --real -u $BASE "$TMP/long.npg" >/dev/null 2>&1
	  test $? -eq 137; } &&
	no_leftovers_after_init
'

test_expect "SIGTERM of the controller leaves no process behind" '
	{ timeout -s TERM 0.5 "$NPG" run --real -u $BASE "$TMP/long.npg" >"$TMP/term.out" 2>&1
	  rc=$?; test $rc -eq 124 || { echo "exit $rc"; head -3 "$TMP/term.out"; false; }; } &&
	no_leftovers
'
test_done
