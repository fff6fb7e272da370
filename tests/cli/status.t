#!/bin/sh
# nprocguard status: exact figures on known tasks (made by the real backend).
. "$(dirname "$0")/lib.sh"
BASE=3000500000
U1=$((BASE + 1))
U2=$((BASE + 2))
FIX="$TOP/tests/cli/fixtures/status.npg"

test_expect "status lists root with its task count" '
	expect_exit 0 "$NPG" status -r -n -o UID,TASKS &&
	grep -Eq "^0 [0-9]+$" "$TMP/stdout"
'
test_expect "--help describes every column" '
	expect_exit 0 "$NPG" status --help &&
	for c in UID USER TASKS PROCS ZOMBIES NPROC NPROC-MAX HEADROOM FLAGGED PID TID COMM STATE; do
		grep -q "^ *$c  " "$TMP/stdout" || { echo "no help for $c"; exit 1; }
	done
'
test_expect "an unknown column is a usage error" '
	expect_exit 2 "$NPG" status -o UID,COLOUR && grep -q "unknown column .COLOUR." "$TMP/stderr"
'
test_expect "a bad --check is a usage error" 'expect_exit 2 "$NPG" status --check lots'
test_expect "an unknown user is a usage error" '
	expect_exit 2 "$NPG" status -u no-such-user-here && grep -q "unknown user" "$TMP/stderr"
'
test_expect "--json is valid JSON with numbers for counts" '
	expect_exit 0 "$NPG" status -J &&
	jq -e ".users[] | select(.uid == 0) | (.tasks | type) == \"number\"" "$TMP/stdout" >/dev/null
'

if [ "$(id -u)" -ne 0 ]; then
	test_skip "status on known tasks" "needs root: the real backend makes the tasks"
	test_done
	exit 0
fi

# Run the fixture on the real kernel; while its tasks live, run "$@".
with_fixture() {
	"$NPG" run --real -u $BASE "$FIX" --then "$*" >"$TMP/fixture.out" 2>"$TMP/fixture.err" ||
		{ cat "$TMP/fixture.out" "$TMP/fixture.err"; return 1; }
}

test_expect "exact per-user figures: tasks, processes, zombies, limits, flagged" '
	with_fixture "\"$NPG\" status -r -n --output-all -u $U1 -u $U2 >$TMP/users" &&
	grep -qx "$U1 $U1 3 3 0 1 [0-9]* -2 1" "$TMP/users" &&
	grep -qx "$U2 $U2 3 2 1 5 5 2 0" "$TMP/users"
'

test_expect "a thread and a zombie each count, one row per task" '
	with_fixture "\"$NPG\" status -t -r -n -o PID,TID,STATE,NPROC -u $U2 >$TMP/tasks" &&
	test $(wc -l <"$TMP/tasks") -eq 3 &&
	test $(grep -c " running 5$" "$TMP/tasks") -eq 2 &&
	test $(grep -c " zombie 5$" "$TMP/tasks") -eq 1 &&
	test $(awk "\$1 != \$2" "$TMP/tasks" | wc -l) -eq 1
'

test_expect "the flagged task is shown as such" '
	with_fixture "\"$NPG\" status -t -J -u $U1 >$TMP/flagged.json" &&
	jq -e "[.tasks[] | select(.flagged == true)] | length == 1" "$TMP/flagged.json" >/dev/null
'

test_expect "JSON figures match" '
	with_fixture "\"$NPG\" status -J -u $U2 >$TMP/u2.json" &&
	jq -e ".users == [{\"uid\": $U2, \"user\": \"$U2\", \"tasks\": 3, \"procs\": 2, \"zombies\": 1,
			  \"nproc\": \"5\", \"headroom\": \"2\", \"flagged\": 0}]" "$TMP/u2.json" >/dev/null
'

test_expect "--check names a user over the percentage and the flagged task, exit 1" '
	with_fixture "\"$NPG\" status --check 50 -u $U1 >$TMP/check; echo \$? >$TMP/check.rc" &&
	test "$(cat "$TMP/check.rc")" -eq 1 &&
	grep -q "^user $U1 (uid $U1): 3 tasks, 300% of RLIMIT_NPROC 1$" "$TMP/check" &&
	grep -q "^task [0-9]* (nprocguard, uid $U1) has PF_NPROC_EXCEEDED" "$TMP/check"
'

test_expect "--check under the percentage and nothing flagged exits 0" '
	with_fixture "\"$NPG\" status --check 90 -u $U2 >$TMP/check2; echo \$? >$TMP/check2.rc" &&
	test "$(cat "$TMP/check2.rc")" -eq 0 && ! test -s "$TMP/check2"
'

test_expect "--sort orders by the column" '
	with_fixture "\"$NPG\" status -r -n -o UID,HEADROOM --sort HEADROOM -u $U1 -u $U2 >$TMP/sorted" &&
	test "$(cut -d" " -f1 "$TMP/sorted" | tr "\n" " ")" = "$U1 $U2 "
'
test_done
