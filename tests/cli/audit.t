#!/bin/sh
# nprocguard audit: the verdict for each small program under each policy. Root only.
. "$(dirname "$0")/lib.sh"
A="$NPG_BUILD/tests/audit"
U=$((NPG_TEST_UID_BASE + 810001))
HARDEN=$(harden_preload)

if [ "$(id -u)" -ne 0 ]; then
	test_skip "audit" "needs root: programs drop from root, the supervisor reads their memory"
	test_done
	exit 0
fi
chmod 1777 "$TMP"

# audit POLICY PROGRAM...: the verdict's exit status in $rc, the report in $TMP/stdout
audit() { rc=0; "$NPG" audit -p "$@" >"$TMP/stdout" 2>"$TMP/stderr" || rc=$?; }

verdict() {	# verdict WORD CODE
	test $rc -eq "$2" && head -1 "$TMP/stdout" | grep -qx "nprocguard audit: $1" ||
		{ echo "rc $rc"; cat "$TMP/stdout" "$TMP/stderr"; false; }
}

test_expect "an unchecked drop is VULNERABLE, with the write it did as root" '
	audit always "$A/unchecked-drop" $U "$TMP/o1" && verdict VULNERABLE 1 &&
	grep -q "finding: openat(\"$TMP/o1\", for writing) with effective uid 0, [0-9.]* s after the failed setuid($U)" "$TMP/stdout" &&
	grep -Eq "at libc\.so\.6\+0x[0-9a-f]+ \((__)?open(64)?\), pid [0-9]+" "$TMP/stdout"
'
test_expect "the same program with the hardening library ends terminated, not root" '
	rm -f "$TMP/o2"
	audit always env LD_PRELOAD="$HARDEN" "$A/unchecked-drop" $U "$TMP/o2" && verdict SAFE 0 &&
	grep -q "killed by SIGABRT" "$TMP/stdout" && ! test -e "$TMP/o2"
'
test_expect "a checked drop is SAFE" '
	audit always "$A/checked-drop" $U "$TMP/o3" && verdict SAFE 0 && ! test -e "$TMP/o3"
'
test_expect "uid before gid, unchecked, is VULNERABLE" '
	audit always "$A/wrong-order" $U "$TMP/o4" && verdict VULNERABLE 1
'
test_expect "a temporary seteuid drop that checks is SAFE" '
	audit always "$A/temporary-seteuid" $U && verdict SAFE 0
'
test_expect "a multithreaded unchecked drop is VULNERABLE (glibc signalling its threads is not)" '
	audit always "$A/threaded-drop" $U "$TMP/o5" && verdict VULNERABLE 1 &&
	grep -q "finding: openat" "$TMP/stdout"
'
test_expect "a child that drops after a fork is followed" '
	audit always "$A/fork-drop" $U "$TMP/o6" && verdict VULNERABLE 1
'
test_expect "a program that never drops is NO-DROP" '
	audit always true && verdict NO-DROP 4
'
test_expect "--policy once fails only the first step: setgroups, checked: SAFE" '
	audit once "$A/checked-drop" $U "$TMP/o7" && verdict SAFE 0 &&
	grep -q "drops: 1 attempted, 1 failed" "$TMP/stdout"
'

test_expect "linux-2.6, user at its limit: the drop fails and the program goes on: VULNERABLE" '
	with_sleepers $U audit linux-2.6 prlimit --nproc=2:2 "$A/unchecked-drop" $U "$TMP/o8"
	verdict VULNERABLE 1
'
test_expect "linux-2.6, user under its limit: the drop works: SAFE" '
	audit linux-2.6 prlimit --nproc=2:2 "$A/unchecked-drop" $U "$TMP/o9" && verdict SAFE 0 &&
	test "$(cat "$TMP/o9")" = "$U $U"
'
test_expect "linux-2.6: seteuid then setreuid (perl's \$< = \$> = X), user at its limit: the second call fails" '
	with_sleepers $U audit linux-2.6 prlimit --nproc=3:3 "$A/seteuid-then-setreuid" $U "$TMP/o13"
	verdict VULNERABLE 1 && grep -q "drops: 2 attempted, 1 failed by the policy" "$TMP/stdout" &&
	grep -q "finding: openat(\"$TMP/o13\", for writing) with real uid 0 (uids 0 $U 0: root can be taken back), [0-9.]* s after the failed setreuid($U, -1)" "$TMP/stdout" &&
	test "$(cat "$TMP/o13")" = "0 $U"
'
test_expect "linux-2.6: seteuid then setreuid, user under its limit: both work: SAFE" '
	audit linux-2.6 prlimit --nproc=3:3 "$A/seteuid-then-setreuid" $U "$TMP/o14" && verdict SAFE 0 &&
	grep -q "drops: 2 attempted, 0 failed by the policy" "$TMP/stdout" &&
	test "$(cat "$TMP/o14")" = "$U $U"
'
test_expect "ow-2006, user at its limit: KILLED by SIGSEGV" '
	rm -f "$TMP/o10"
	with_sleepers $U audit ow-2006 prlimit --nproc=2:2 "$A/unchecked-drop" $U "$TMP/o10"
	# (a program with a SIGSEGV handler -- ASan installs one -- runs it, as under -ow)
	verdict KILLED 3 && grep -q "killed: pid [0-9]* by SIGSEGV at its failed drop" "$TMP/stdout" &&
	! test -e "$TMP/o10"
'
test_expect "--format json carries verdict and finding" '
	"$NPG" audit -f json -- "$A/unchecked-drop" $U "$TMP/o11" >"$TMP/j" 2>/dev/null; test $? -eq 1 &&
	jq -e ".verdict == \"VULNERABLE\" and .finding.syscall == \"openat\" and .failed == 1" "$TMP/j" >/dev/null
'
test_expect "usage errors exit 2" '
	"$NPG" audit -p never -- true >/dev/null 2>&1; test $? -eq 2 &&
	"$NPG" audit >/dev/null 2>&1; test $? -eq 2
'
test_expect "ids above 2^31-1 are printed as the uids they are, -1 as -1" '
	test $U -gt 2147483647 &&
	audit always "$A/set-ids" seteuid $U && grep -q "the first setresuid(-1, $U, -1)$" "$TMP/stdout" &&
	audit always "$A/set-ids" setegid $U && grep -q "the first setresgid(-1, $U, -1)$" "$TMP/stdout" &&
	audit always "$A/set-ids" setreuid $U && grep -q "the first setreuid(-1, $U)$" "$TMP/stdout" &&
	audit always "$A/set-ids" setresuid $U && grep -q "the first setresuid(-1, -1, $U)$" "$TMP/stdout" &&
	audit always "$A/set-ids" setresgid $U && grep -q "the first setresgid($U, -1, -1)$" "$TMP/stdout"
'
test_expect "a run cut short by --timeout is TIMED-OUT (5), the program killed by SIGKILL" '
	audit always --timeout 1 -- sleep 30 && verdict TIMED-OUT 5 &&
	grep -q "program: sleep, policy always, killed by SIGKILL" "$TMP/stdout" &&
	grep -q "note: timed out after 1 s" "$TMP/stdout"
'
test_expect "a process that left its process group is killed at the timeout, not waited for" '
	rc=0; timeout 30 "$NPG" audit --timeout 1 -- sh -c "setsid sleep 3600.$$ & exit 0" \
		>"$TMP/stdout" 2>&1 || rc=$?
	verdict TIMED-OUT 5 && ! pgrep -f "sleep 3600.$$" >/dev/null
'
test_expect "a program that cannot be executed is CANNOT-EXECUTE (6), not NO-DROP" '
	audit always /nonexistent/program && verdict CANNOT-EXECUTE 6 &&
	grep -q "note: could not execute /nonexistent/program: No such file or directory" "$TMP/stdout" &&
	printf "x" >"$TMP/plain" && chmod 644 "$TMP/plain" &&
	audit always "$TMP/plain" && verdict CANNOT-EXECUTE 6 &&
	grep -q "Permission denied" "$TMP/stdout"
'
test_expect "a program that itself exits 127 ran: NO-DROP" '
	audit always sh -c "exit 127" && verdict NO-DROP 4 && grep -q "exited 127" "$TMP/stdout"
'
test_expect "every process that went on holding uid 0 after a failed drop is counted" '
	audit always sh -c "\"$A/unchecked-drop\" $U \"$TMP/o15\"; \"$A/unchecked-drop\" $U \"$TMP/o16\"; \"$A/checked-drop\" $U \"$TMP/o17\"" &&
	verdict VULNERABLE 1 && grep -q "drops: 3 attempted, 3 failed by the policy" "$TMP/stdout" &&
	grep -q "went on holding uid 0 after a failed drop: 2 processes" "$TMP/stdout"
'
test_expect "if the supervisor dies, the program dies with it (no ENOSYS run as root)" '
	rm -f "$TMP/o12"
	"$NPG" audit -- sh -c "sleep 1; exec \"$A/unchecked-drop\" $U \"$TMP/o12\"" >/dev/null 2>&1 &
	apid=$!
	sleep 0.4
	kill -9 $apid; wait $apid 2>/dev/null
	sleep 1.5
	! test -e "$TMP/o12" && ! pgrep -f "sleep 1; exec" >/dev/null
'
test_expect "nothing is left running as the test user" '
	test -z "$(ps -eo uid= | awk -v u=$U "\$1 == u")"
'
test_done
