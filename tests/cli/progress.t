#!/bin/sh
# A progress line on a terminal for long runs: on stderr, only when stdout
# and stderr are terminals, erased before any other output. The tests set
# NPG_PROGRESS_AFTER_MS=0 so as not to wait the usual second.
. "$(dirname "$0")/lib.sh"

{
	echo 'user root 0'
	echo 'user www 1000 procs 1'
	echo 'task daemon uid root'
	echo 'daemon: fork a => ok'
	yes 'check count www => 1' | head -n 20000
} >"$TMP/long.npg"

# on_tty COMMAND: run it with stdout and stderr on a pseudo-terminal (script(1))
on_tty() {
	NPG_PROGRESS_AFTER_MS=0 script -qec "$1" /dev/null >"$TMP/tty" </dev/null
}
# What a terminal would show of $TMP/tty: each line after its last erase
shown() {
	tr -d '\r' <"$TMP/tty" | sed 's/.*\x1b\[K//'
}

test_expect "on a terminal, run shows steps done, rate and time left" '
	on_tty "\"$NPG\" run -p linux-6 \"$TMP/long.npg\"" &&
	grep -aq "nprocguard run: $TMP/long.npg: [0-9]*/20001 steps, [0-9]*/s" "$TMP/tty"
'
test_expect "the progress line is erased before the table" '
	on_tty "\"$NPG\" run -p linux-6 \"$TMP/long.npg\"" &&
	! shown | grep -q "nprocguard run:" &&
	shown | grep -q "^ *LINE TASK" &&
	shown | grep -q "^20001 expectations: 20001 held, 0 failed$"
'
test_expect "TAP on a terminal: no line keeps a piece of the progress line" '
	on_tty "\"$NPG\" run -p linux-6 -f tap \"$TMP/long.npg\"" &&
	grep -aq "steps, " "$TMP/tty" &&
	! shown | grep -q "nprocguard run:" &&
	test "$(shown | grep -c "^ok ")" -eq 20001
'
test_expect "NPG_PROGRESS=0 keeps a terminal free of it (a guest's serial port)" '
	NPG_PROGRESS=0 on_tty "\"$NPG\" run -p linux-6 \"$TMP/long.npg\"" &&
	! grep -aq "nprocguard run:" "$TMP/tty" &&
	shown | grep -q "^20001 expectations: 20001 held, 0 failed$"
'
test_expect "not on a terminal: nothing but the report" '
	NPG_PROGRESS_AFTER_MS=0 "$NPG" run -p linux-6 "$TMP/long.npg" >"$TMP/out" 2>"$TMP/err" &&
	! test -s "$TMP/err"
'
test_expect "stdout redirected, stderr on a terminal: no progress line" '
	on_tty "\"$NPG\" run -p linux-6 \"$TMP/long.npg\" >\"$TMP/out\"" &&
	! grep -aq "nprocguard run:" "$TMP/tty" && test -s "$TMP/out"
'
if [ "$(id -u)" -eq 0 ]; then
	test_expect "conform --random shows the scenarios done" '
		on_tty "\"$NPG\" conform -u $((NPG_TEST_UID_BASE + 700000)) --random 3 --seed 1" &&
		grep -aq "nprocguard conform: random: [0-9]/3 scenarios" "$TMP/tty" &&
		! shown | grep -q "nprocguard conform: random:" &&
		shown | grep -q "^conform: 3 scenarios"
	'
else
	test_skip "conform --random shows the scenarios done" "needs root"
fi
test_done
