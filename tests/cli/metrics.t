#!/bin/sh
# Metrics for a fleet: status --format prometheus (and explain the same)
# writes the node_exporter textfile format, atomically; promtool (from
# Debian's prometheus package, extracted by .ci/run into
# /var/cache/nprocguard, no daemon installed) checks it.
. "$(dirname "$0")/lib.sh"
U=$((NPG_TEST_UID_BASE + 900101))
PROMTOOL=$(command -v promtool || echo /var/cache/nprocguard/promtool)

test_expect "status --format prometheus: HELP and TYPE lines, uid and user labels" '
	expect_exit 0 "$NPG" status --format prometheus --source proc &&
	grep -q "^# TYPE nprocguard_user_tasks gauge$" "$TMP/stdout" &&
	grep -q "^# HELP nprocguard_user_headroom " "$TMP/stdout" &&
	grep -q "^# TYPE nprocguard_pids_cgroup_refusals_total counter$" "$TMP/stdout" &&
	grep -q "^nprocguard_user_tasks{uid=\"0\",user=\"root\"} [0-9][0-9]*$" "$TMP/stdout" &&
	grep -q "^nprocguard_user_exempt{uid=\"0\",user=\"root\"} 1$" "$TMP/stdout" &&
	grep -q "^nprocguard_user_headroom{uid=\"0\",user=\"root\"} +Inf$" "$TMP/stdout" &&
	grep -q "^nprocguard_threads_max [0-9][0-9]*$" "$TMP/stdout"
'
test_expect "--textfile writes the file atomically (no temporary file left) and explain writes the same metrics" '
	expect_exit 0 "$NPG" status --format prometheus --textfile "$TMP/npg.prom" &&
	! test -s "$TMP/stdout" && test -s "$TMP/npg.prom" &&
	test "$(ls -A "$TMP" | grep -c "^\.npg\.prom\.")" -eq 0 &&
	test "$(stat -c %a "$TMP/npg.prom")" = 644 &&
	expect_exit 0 "$NPG" explain --format prometheus --textfile "$TMP/explain.prom" &&
	sed -n "/^# HELP/p" "$TMP/npg.prom" >"$TMP/a" && sed -n "/^# HELP/p" "$TMP/explain.prom" >"$TMP/b" &&
	cmp "$TMP/a" "$TMP/b"
'
test_expect "an unwritable textfile is a clear error, exit 2" '
	expect_exit 2 "$NPG" status --format prometheus --textfile "$TMP/no/such/dir/x.prom" &&
	grep -q "cannot create a temporary file beside" "$TMP/stderr" &&
	expect_exit 2 "$NPG" status --format yaml && grep -q "bad --format" "$TMP/stderr" &&
	expect_exit 2 "$NPG" status --textfile x && grep -q "format prometheus" "$TMP/stderr"
'
if [ "$(id -u)" -eq 0 ]; then
	test_expect "a user over its limit (2, 4 tasks after a setuid): headroom -2 and the flagged task counted" '
		for i in 1 2 3; do setpriv --reuid=$U --regid=$U --clear-groups sleep 100 & done
		n=0; while [ "$(pgrep -c -u $U sleep)" -lt 3 ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
		prlimit --nproc=2:2 perl -e "use POSIX; \$| = 1; POSIX::setuid($U) or die; print \"switched\n\"; sleep 100" >"$TMP/sw" 2>&1 &
		n=0; until grep -q switched "$TMP/sw" || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
		"$NPG" status --format prometheus --source proc >"$TMP/m"; rc=$?
		pkill -9 -u $U; wait 2>/dev/null
		test $rc -eq 0 &&
		grep -q "^nprocguard_user_tasks{uid=\"$U\",user=\"$U\"} 4$" "$TMP/m" &&
		grep -q "^nprocguard_user_nproc_limit{uid=\"$U\",user=\"$U\"} 2$" "$TMP/m" &&
		grep -q "^nprocguard_user_headroom{uid=\"$U\",user=\"$U\"} -2$" "$TMP/m" &&
		grep -q "^nprocguard_user_flagged_tasks{uid=\"$U\",user=\"$U\"} 1$" "$TMP/m"
	'
	pkill -9 -u $U 2>/dev/null; wait 2>/dev/null
else
	test_skip "a user at its limit in the metrics" "needs root (a test user)"
fi
if [ -x "$PROMTOOL" ]; then
	test_expect "promtool check metrics accepts the output" '
		"$NPG" status --format prometheus >"$TMP/check.prom" &&
		"$PROMTOOL" check metrics <"$TMP/check.prom"
	'
else
	test_skip "promtool check metrics accepts the output" "no promtool (.ci/run extracts it from Debian's prometheus package into /var/cache/nprocguard)"
fi
test_done
