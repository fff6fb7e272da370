#!/bin/sh
# Command-line details: '-' is standard input, --out is checked up front,
# --uid-base errors name the subcommand and a window over accounts warns,
# conform's --seed and --random take decimal digits only.
. "$(dirname "$0")/lib.sh"
A="$TOP/scenarios/article"

test_expect "run - reads the scenario from standard input" '
	"$NPG" run -p linux-6 - <"$A/01-cgiwrap.npg" >"$TMP/stdout" 2>"$TMP/stderr" &&
	head -1 "$TMP/stdout" | grep -q "^<stdin>: cgiwrap" &&
	"$NPG" run -p linux-6 "$A/01-cgiwrap.npg" | tail -n +2 >"$TMP/from-file" &&
	tail -n +2 "$TMP/stdout" | cmp -s - "$TMP/from-file"
'
test_expect "errors in a scenario on standard input are <stdin>:line:col" '
	printf "task a uid 0\nx\n" | "$NPG" run - >"$TMP/stdout" 2>"$TMP/stderr"
	test $? -eq 2 && grep -q "^<stdin>:2:1: unknown statement" "$TMP/stderr"
'
test_expect "run -f json - names the file <stdin>" '
	"$NPG" run -f json -p linux-6 - <"$A/01-cgiwrap.npg" >"$TMP/stdout" &&
	jq -e ".scenarios[0].file == \"<stdin>\"" "$TMP/stdout" >/dev/null
'
test_expect "a bad --uid-base names the subcommand" '
	expect_exit 2 "$NPG" run -u abc "$A/01-cgiwrap.npg" &&
	grep -q "^nprocguard run: bad --uid-base .abc." "$TMP/stderr" &&
	expect_exit 2 "$NPG" conform -u 4294967295 "$A/01-cgiwrap.npg" &&
	grep -q "^nprocguard conform: bad --uid-base .4294967295." "$TMP/stderr"
'
test_expect "a --uid-base window over known accounts warns and names one" '
	uid=$(getent passwd | awk -F: "\$3 > 0 && \$3 < 4000 { print \$3; exit }") &&
	test -n "$uid" &&
	expect_exit 0 "$NPG" run -u $((uid - 1)) -p linux-6 "$A/01-cgiwrap.npg" &&
	grep -q "^nprocguard run: warning: --uid-base $((uid - 1)): uids $uid-[0-9]* include user [^ ]* ($uid)" "$TMP/stderr"
'
test_expect "a --uid-base window of no account does not warn" '
	expect_exit 0 "$NPG" run -u "$NPG_TEST_UID_BASE" -p linux-6 "$A/01-cgiwrap.npg" &&
	! test -s "$TMP/stderr"
'
# Refused, naming the option and the value; strtoull() took "" as seed 0,
# and "+1" and " 1" as 1. Each command is a usage error with any value taken
# too (no --random; --random with a file), so that a value wrongly taken
# starts no run.
test_expect "conform --seed takes decimal digits only: empty, signed, junk after the number and past 2^64-1 are refused" '
	for v in "" -1 +1 " 1" 12x 18446744073709551616; do
		expect_exit 2 "$NPG" conform -u $((NPG_TEST_UID_BASE + 710000)) --seed "$v" &&
		grep -q "^nprocguard conform: bad --seed .$v.: [a-z ]* (a seed from 0 to 18446744073709551615)$" "$TMP/stderr" ||
		exit 1
	done
'
test_expect "conform --random takes a count of decimal digits only, 1 to 10000000" '
	for v in "" 0 -1 +3 " 3" 3x 10000001 99999999999999999999; do
		expect_exit 2 "$NPG" conform -u $((NPG_TEST_UID_BASE + 710000)) --random "$v" "$A/01-cgiwrap.npg" &&
		grep -q "^nprocguard conform: bad --random .$v.: [a-z ]* (a count from 1 to 10000000)$" "$TMP/stderr" ||
		exit 1
	done
'
if [ "$(id -u)" -eq 0 ]; then
	test_expect "conform --random with --seed 2^64-1 runs, and names the seed" '
		expect_exit 0 "$NPG" conform -u $((NPG_TEST_UID_BASE + 710000)) --random 2 \
			--seed 18446744073709551615 --out "$TMP" &&
		grep -q "^random: 2 scenarios (seed 18446744073709551615) in" "$TMP/stdout" &&
		grep -q "^conform: 2 scenarios, [0-9]* statements, 0 differences" "$TMP/stdout"
	'
	test_expect "conform --out of a missing directory is refused before any run" '
		expect_exit 2 "$NPG" conform -u $((NPG_TEST_UID_BASE + 710000)) --random 1 --out "$TMP/none/dir" &&
		grep -q "^nprocguard conform: --out $TMP/none/dir: No such file or directory$" "$TMP/stderr" &&
		! test -s "$TMP/stdout"
	'
	test_expect "conform --out of a file is refused" '
		: >"$TMP/file" &&
		expect_exit 2 "$NPG" conform -u $((NPG_TEST_UID_BASE + 710000)) --random 1 --out "$TMP/file" &&
		grep -q "^nprocguard conform: --out $TMP/file: Not a directory$" "$TMP/stderr"
	'
else
	test_skip "conform --random with --seed 2^64-1 runs, and names the seed" "needs root"
	test_skip "conform --out checks" "needs root"
fi
test_done
