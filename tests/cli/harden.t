#!/bin/sh
# libnprocguard-harden.so: a failed or hollow identity change ends the
# program instead of letting it carry on as root. Root only.
. "$(dirname "$0")/lib.sh"
INJECT="$NPG_BUILD/tests/inject"
A="$NPG_BUILD/tests/audit"
U=$((NPG_TEST_UID_BASE + 800001))
HARDEN=$(harden_preload)

if [ "$(id -u)" -ne 0 ]; then
	test_skip "harden" "needs root: the programs drop from root"
	test_done
	exit 0
fi
chmod 1777 "$TMP"

# run [ENV=...] PROGRAM ARGS: exit status in $rc, stderr in $TMP/err
run() { rc=0; env "$@" >/dev/null 2>"$TMP/err" || rc=$?; }

test_expect "without the library an unchecked drop that fails carries on as root" '
	run "$INJECT" setuid EAGAIN -- "$A/unchecked-drop" $U "$TMP/out" &&
	test $rc -eq 0 && test "$(cat "$TMP/out")" = "0 0"
'
test_expect "with it, the program is aborted before it acts" '
	rm -f "$TMP/out"
	run LD_PRELOAD="$HARDEN" "$INJECT" setuid EAGAIN -- "$A/unchecked-drop" $U "$TMP/out"
	test $rc -eq 134 && ! test -e "$TMP/out" &&
	grep -q "^nprocguard-harden: unchecked-drop\[[0-9]*\]: setuid($U) failed: Resource temporarily unavailable; aborting$" "$TMP/err"
'
test_expect "a setuid that returns 0 but changes nothing is caught too" '
	rm -f "$TMP/out"
	run LD_PRELOAD="$HARDEN" "$INJECT" setuid 0 -- "$A/unchecked-drop" $U "$TMP/out"
	test $rc -eq 134 && ! test -e "$TMP/out" &&
	grep -q "setuid($U) returned 0 but the uids are 0 0 0; aborting" "$TMP/err"
'
test_expect "NPROCGUARD_HARDEN=kill kills the process" '
	rm -f "$TMP/out"
	run NPROCGUARD_HARDEN=kill LD_PRELOAD="$HARDEN" "$INJECT" setuid EAGAIN -- "$A/unchecked-drop" $U "$TMP/out"
	test $rc -eq 137 && ! test -e "$TMP/out" && grep -q "; killing the process$" "$TMP/err"
'
test_expect "NPROCGUARD_HARDEN=log reports and lets it go on" '
	run NPROCGUARD_HARDEN=log LD_PRELOAD="$HARDEN" "$INJECT" setuid EAGAIN -- "$A/unchecked-drop" $U "$TMP/out"
	test $rc -eq 0 && test "$(cat "$TMP/out")" = "0 0" && grep -q "; continuing$" "$TMP/err"
'
test_expect "a correct drop passes silently" '
	run LD_PRELOAD="$HARDEN" "$A/checked-drop" $U "$TMP/out2" &&
	test $rc -eq 0 && test "$(cat "$TMP/out2")" = "$U $U" && ! test -s "$TMP/err"
'
test_expect "a checked drop that fails is ended before it can report" '
	run LD_PRELOAD="$HARDEN" "$INJECT" setgid EAGAIN -- "$A/checked-drop" $U "$TMP/out3"
	test $rc -eq 134 && grep -q "setgid($U) failed" "$TMP/err"
'
test_expect "a temporary seteuid drop and its return to root pass" '
	run LD_PRELOAD="$HARDEN" "$A/temporary-seteuid" $U && test $rc -eq 0 && ! test -s "$TMP/err"
'
test_expect "an unprivileged probe of setuid(0) gets EPERM, not an abort" '
	R=$(reach_copy "$A/probe-root" "$NPG_BUILD/libnprocguard-harden.so") &&
	run "$NPG" exec -u $U -g $U -- env LD_PRELOAD="$(NPG_BUILD=$R harden_preload)" "$R/probe-root" &&
	test $rc -eq 0 && ! grep -q nprocguard-harden "$TMP/err"
'
test_expect "a multithreaded drop: every thread is checked, success passes" '
	run LD_PRELOAD="$HARDEN" "$A/threaded-drop" $U "$TMP/out4" &&
	test $rc -eq 0 && test "$(cat "$TMP/out4")" = "$U $U" && ! test -s "$TMP/err"
'
test_expect "a multithreaded drop that fails is aborted" '
	rm -f "$TMP/out5"
	run LD_PRELOAD="$HARDEN" "$INJECT" setuid EAGAIN -- "$A/threaded-drop" $U "$TMP/out5"
	test $rc -eq 134 && ! test -e "$TMP/out5"
'
test_expect "without the library a drop that skips some threads goes unnoticed" '
	run "$A/partial-drop" $U "$TMP/out6" && test $rc -eq 0 && test "$(cat "$TMP/out6")" = "$U $U"
'
test_expect "with it, a thread left at uid 0 is caught" '
	rm -f "$TMP/out7"
	run LD_PRELOAD="$HARDEN" "$A/partial-drop" $U "$TMP/out7"
	test $rc -eq 134 && ! test -e "$TMP/out7" &&
	grep -q "setuid($U) returned 0 but a thread kept other ids; aborting" "$TMP/err"
'
# A user namespace mapping only root: setgroups is denied there, $U is unmapped
if unshare -U -r true 2>/dev/null; then
	test_expect "without the library, calls a user namespace refuses fail and the program carries on" '
		run unshare -U -r "$A/userns-calls" $U && test $rc -eq 0 && ! test -s "$TMP/err"
	'
	test_expect "with it, they fail the same way: the kernel refused them by its rules, nothing is aborted" '
		run LD_PRELOAD="$HARDEN" unshare -U -r "$A/userns-calls" $U &&
		test $rc -eq 0 && ! grep -q nprocguard-harden "$TMP/err"
	'
	test_expect "a failure the namespace permits is still fatal inside it" '
		run LD_PRELOAD="$HARDEN" unshare -U -r "$INJECT" setuid EAGAIN -- "$A/unchecked-drop" 0 "$TMP/ns-out"
		test $rc -eq 134 && grep -q "setuid(0) failed: Resource temporarily unavailable; aborting" "$TMP/err"
	'
else
	why=$(userns_refused -r)
	test_skip "harden in a user namespace" "$why"
fi
test_expect "an unknown NPROCGUARD_HARDEN value is an error message, not a silent abort" '
	run NPROCGUARD_HARDEN=abrot LD_PRELOAD="$HARDEN" "$A/checked-drop" $U "$TMP/out8" &&
	test $rc -eq 0 && test "$(cat "$TMP/out8")" = "$U $U" &&
	grep -q "^nprocguard-harden: checked-drop\[[0-9]*\]: NPROCGUARD_HARDEN=.abrot. is not abort, kill or log; a failed identity change will abort$" "$TMP/err"
'
test_expect "nothing is left running as the test user" '
	test -z "$(ps -eo uid= | awk -v u=$U "\$1 == u")"
'
test_done
