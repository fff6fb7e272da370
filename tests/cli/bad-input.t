#!/bin/sh
# Bad scenario text: file:line:col: message, exit 2, never a crash.
# Each tests/cli/bad/NAME.npg states its expected error on its first line:
#   # error: LINE:COL: MESSAGE
. "$(dirname "$0")/lib.sh"

for f in "$TOP"/tests/cli/bad/*.npg; do
	want=$(sed -n '1s/^# error: //p' "$f")
	name=$(basename "$f" .npg)
	test_expect "bad input $name: $want" '
		expect_exit 2 "$NPG" run "$f" &&
		head -1 "$TMP/stderr" | grep -qxF "$f:$want"
	'
done

test_expect "binary garbage is an error, not a crash" '
	head -c 4096 /dev/urandom >"$TMP/garbage.npg" &&
	"$NPG" run "$TMP/garbage.npg" >/dev/null 2>&1; test $? -eq 2
'
test_expect "a NUL byte is reported with its column" '
	printf "task a uid 0\na: fo\000rk b\n" >"$TMP/nul.npg" &&
	expect_exit 2 "$NPG" run "$TMP/nul.npg" &&
	grep -q "nul.npg:2:6: NUL byte in scenario text" "$TMP/stderr"
'
test_expect "errors on many lines are all reported" '
	printf "task a uid 0\na: x\na: y\na: z\n" >"$TMP/many.npg" &&
	expect_exit 2 "$NPG" run "$TMP/many.npg" &&
	test "$(wc -l <"$TMP/stderr")" -eq 3
'
test_done
