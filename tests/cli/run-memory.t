#!/bin/sh
# nprocguard run on long scenarios: under any address-space limit, a result
# or a clean "out of memory" (exit 2), never a signal.
. "$(dirname "$0")/lib.sh"

# 100,000 statements, each with an expectation, run under all eight
# policies: bench/run-memory's scenario
sh "$TOP/bench/lib/long-scenario.sh" 100000 >"$TMP/long.npg"

# ulimit_run KB FORMAT: run under `ulimit -v KB`; success, or exit 1/2 with
# an out-of-memory message; a signal (status > 128) fails
ulimit_run() {
	(ulimit -v "$1" && exec "$NPG" run -f "$2" "$TMP/long.npg") >"$TMP/stdout" 2>"$TMP/stderr"
	_rc=$?
	case $_rc in
	0) return 0 ;;
	1|2) grep -Eq "out of memory|Cannot allocate memory" "$TMP/stderr" ||
		{ echo "exit $_rc without an out-of-memory message:"; cat "$TMP/stderr"; return 1; } ;;
	*) echo "exit status $_rc under ulimit -v $1 (-f $2)"; head -5 "$TMP/stderr"; return 1 ;;
	esac
}

# The sanitizers reserve terabytes of address space: no ulimit -v for them
if nm "$NPG" 2>/dev/null | grep -q __asan_init; then
	test_skip "limited address space" "sanitized build"
else
	for kb in 50000 100000 300000; do
		for f in tap json text; do
			test_expect "under ulimit -v $kb, -f $f succeeds or says out of memory" "
				ulimit_run $kb $f
			"
		done
	done
	# the statements' array is sized from the lines that hold something:
	# blank and comment lines reserve nothing
	test_expect "-f tap of the long file and a million blank and comment lines fits 300 MB" "
		{ cat \"\$TMP/long.npg\"; yes '' | head -n 1000000; yes '  # c' | head -n 100000; } \
			>\"\$TMP/blank.npg\" &&
		(ulimit -v 300000 && exec \"\$NPG\" run -f tap \"\$TMP/blank.npg\") >\"\$TMP/out.blank\" &&
		test \"\$(tail -1 \"\$TMP/out.blank\")\" = 1..800000
	"
	# the observations were kept for every statement and policy: 561 MB
	# here; the text table kept a libsmartcols line per statement (out of
	# memory under 150 MB), now a row of its cells' bytes
	for f in tap json text; do
		case $f in
		tap) last='1..800000' ;;
		json) last='}' ;;
		text) last='800000 expectations: 800000 held, 0 failed' ;;
		esac
		test_expect "-f $f writes 100,000 statements in 150 MB of address space" "
			(ulimit -v 150000 && exec \"\$NPG\" run -f $f \"\$TMP/long.npg\") >\"\$TMP/out.$f\" &&
			test \"\$(sed '/^\$/d' \"\$TMP/out.$f\" | tail -1)\" = '$last'
		"
	done
fi

test_expect "JSON of a long run is complete and valid" '
	expect_exit 0 "$NPG" run -f json "$TMP/long.npg" &&
	jq -e ".summary.failed == 0 and (.scenarios[0].statements | length) == 100000" \
		"$TMP/stdout" >/dev/null
'
test_expect "TAP of a long run counts every expectation" '
	expect_exit 0 "$NPG" run -f tap "$TMP/long.npg" &&
	test "$(tail -1 "$TMP/stdout")" = "1..800000"
'
test_done
