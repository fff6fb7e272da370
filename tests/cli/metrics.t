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
# --textfile renames its temporary file over PATH: whatever is there that
# is not a regular file is refused, before anything is written, and left
# as it was (node_exporter reads regular *.prom files only). In $TMP, never
# on /dev itself.
# refused KIND CMD: PATH made by the caller, checked unchanged after
refused() {
	_kind=$1 _cmd=$2 _path=$3
	_before=$(stat -c "%F %t:%T %i" "$_path") || return 1
	expect_exit 2 "$NPG" $_cmd --format prometheus --source proc --textfile "$_path" || return 1
	grep -qx "nprocguard $_cmd: --textfile $_path is $_kind, not a regular file: refused (the textfile collector reads regular \*.prom files; rename() would replace it)" "$TMP/stderr" ||
		{ echo "not the refusal:"; cat "$TMP/stderr"; return 1; }
	! test -s "$TMP/stdout" || { echo "wrote to stdout"; return 1; }
	test "$(stat -c "%F %t:%T %i" "$_path")" = "$_before" || { echo "$_path changed"; return 1; }
	! ls -A "$(dirname "$_path")" | grep -q "^\.$(basename "$_path")\." || { echo "a temporary file is left"; return 1; }
}
for cmd in status explain; do
	test_expect "$cmd --textfile refuses a FIFO and leaves it" '
		mkdir -p "$TMP/'$cmd'" && mkfifo "$TMP/'$cmd'/fifo.prom" &&
		refused "a FIFO" '$cmd' "$TMP/'$cmd'/fifo.prom"
	'
	test_expect "$cmd --textfile refuses a symbolic link to a regular file, not following it" '
		mkdir -p "$TMP/'$cmd'" && echo "old metrics" >"$TMP/'$cmd'/real.prom" &&
		ln -s real.prom "$TMP/'$cmd'/link.prom" &&
		refused "a symbolic link" '$cmd' "$TMP/'$cmd'/link.prom" &&
		test "$(cat "$TMP/'$cmd'/real.prom")" = "old metrics" && test -L "$TMP/'$cmd'/link.prom"
	'
	test_expect "$cmd --textfile refuses a dangling symbolic link" '
		mkdir -p "$TMP/'$cmd'" && ln -s nowhere.prom "$TMP/'$cmd'/dangling.prom" &&
		refused "a symbolic link" '$cmd' "$TMP/'$cmd'/dangling.prom" && ! test -e "$TMP/'$cmd'/nowhere.prom"
	'
	test_expect "$cmd --textfile refuses a directory" '
		mkdir -p "$TMP/'$cmd'/dir.prom" && refused "a directory" '$cmd' "$TMP/'$cmd'/dir.prom"
	'
	test_expect "$cmd --textfile refuses a socket" '
		mkdir -p "$TMP/'$cmd'" &&
		perl -MSocket -e "socket(S, PF_UNIX, SOCK_STREAM, 0) or die; bind(S, pack_sockaddr_un(\$ARGV[0])) or die" \
			"$TMP/'$cmd'/sock.prom" &&
		refused "a socket" '$cmd' "$TMP/'$cmd'/sock.prom"
	'
	if [ "$(id -u)" -eq 0 ]; then
		test_expect "$cmd --textfile refuses a character device (a copy of /dev/full's node)" '
			mkdir -p "$TMP/'$cmd'" && mknod "$TMP/'$cmd'/fulldev.prom" c 1 7 &&
			refused "a character device" '$cmd' "$TMP/'$cmd'/fulldev.prom"
		'
		test_expect "$cmd --textfile refuses a block device" '
			mkdir -p "$TMP/'$cmd'" && mknod "$TMP/'$cmd'/loop.prom" b 7 200 &&
			refused "a block device" '$cmd' "$TMP/'$cmd'/loop.prom"
		'
	else
		test_skip "$cmd --textfile refuses device nodes" "needs root (mknod)"
	fi
	test_expect "$cmd --textfile replaces a regular file, and makes a new one" '
		mkdir -p "$TMP/'$cmd'" && echo old >"$TMP/'$cmd'/ok.prom" &&
		expect_exit 0 "$NPG" '$cmd' --format prometheus --source proc --textfile "$TMP/'$cmd'/ok.prom" &&
		grep -q "^# TYPE nprocguard_user_tasks gauge$" "$TMP/'$cmd'/ok.prom" &&
		expect_exit 0 "$NPG" '$cmd' --format prometheus --source proc --textfile "$TMP/'$cmd'/new.prom" &&
		test -f "$TMP/'$cmd'/new.prom"
	'
	test_expect "$cmd --textfile of an empty path is refused, naming it" '
		expect_exit 2 "$NPG" '$cmd' --format prometheus --source proc --textfile "" &&
		grep -qx "nprocguard '$cmd': --textfile .*: an empty path (a file, or - for standard output)" "$TMP/stderr"
	'
done

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
