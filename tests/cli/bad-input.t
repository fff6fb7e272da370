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
# A "runs:" program's lines get the lexer's own message and column, as
# every other line does (they said "cannot read this line" at column 1)
words() { _i=0; while [ $_i -lt "$1" ]; do printf "w%d " $_i; _i=$((_i + 1)); done; }
test_expect "a runs: line of more than 64 words: too many tokens on one line, at the 65th" '
	{ printf "user root 0\ntask a uid root\na runs:\n  "; words 70; echo; } >"$TMP/long-body.npg" &&
	expect_exit 2 "$NPG" explore "$TMP/long-body.npg" &&
	col=$(( $(words 64 | wc -c) + 3 )) &&
	grep -qx "$TMP/long-body.npg:4:$col: too many tokens on one line" "$TMP/stderr" &&
	{ printf "task a uid 0\n"; words 70; echo; } >"$TMP/long-seq.npg" &&
	expect_exit 2 "$NPG" run "$TMP/long-seq.npg" &&
	grep -qx "$TMP/long-seq.npg:2:$((col - 2)): too many tokens on one line" "$TMP/stderr"
'
test_expect "a runs: line with a control character, a NUL or an open string says which, where" '
	printf "user root 0\ntask a uid root\na runs:\n  fork \001b\n" >"$TMP/ctl.npg" &&
	expect_exit 2 "$NPG" explore "$TMP/ctl.npg" &&
	grep -qx "$TMP/ctl.npg:4:8: control character in scenario text" "$TMP/stderr" &&
	printf "user root 0\ntask a uid root\na runs:\n  fork \000b\n" >"$TMP/nul-body.npg" &&
	expect_exit 2 "$NPG" explore "$TMP/nul-body.npg" &&
	grep -qx "$TMP/nul-body.npg:4:8: NUL byte in scenario text" "$TMP/stderr" &&
	printf "user root 0\ntask a uid root\na runs:\n  fork \"b\n" >"$TMP/quote.npg" &&
	expect_exit 2 "$NPG" explore "$TMP/quote.npg" &&
	grep -qx "$TMP/quote.npg:4:8: unterminated string" "$TMP/stderr"
'
test_done
