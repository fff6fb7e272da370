#!/bin/sh
# Bytes from a scenario file reach reports safely: JSON stays valid UTF-8
# (invalid bytes become U+FFFD, controls \u00XX), text shows control
# characters as \xHH instead of handing them to the terminal.
. "$(dirname "$0")/lib.sh"

ESC=$(printf '\033')
# a title with an escape sequence, invalid UTF-8, every byte from 0x80 up,
# a valid two-byte character and a C1 control (U+009B, CSI in UTF-8)
{
	printf 'scenario "red \033[31mRED\033[0m \377\376 %s \303\251 \302\233 end"\n' \
		"$(LC_ALL=C awk 'BEGIN { for (i = 128; i < 256; i++) printf "%c", i }' </dev/null)"
	printf 'source "bell \007 and \033]0;title\007"\n'
	printf 'user root 0\ntask a uid root\ncheck a flag => clear\ncheck a flag => set\n'
} >"$TMP/esc.npg"
# a file name with an escape sequence in it
cp "$TMP/esc.npg" "$TMP/name${ESC}[1m.npg"

has_esc() { grep -q "$ESC" "$1"; }
is_utf8() { iconv -f UTF-8 -t UTF-8 "$1" >/dev/null; }

test_expect "JSON with invalid UTF-8 in the title is valid UTF-8 and valid JSON" '
	expect_exit 1 "$NPG" run -p linux-6 -f json "$TMP/esc.npg" &&
	is_utf8 "$TMP/stdout" &&
	jq -e ".scenarios[0].title | startswith(\"red \u001b[31mRED\u001b[0m \ufffd\ufffd \")" \
		"$TMP/stdout" >/dev/null &&
	jq -e ".scenarios[0].title | endswith(\" \u00e9 \u009b end\")" "$TMP/stdout" >/dev/null
'
test_expect "JSON writes control characters as \\u escapes, never raw" '
	expect_exit 1 "$NPG" run -p linux-6 -f json "$TMP/esc.npg" &&
	! has_esc "$TMP/stdout" && grep -qF "\\u001b[31m" "$TMP/stdout" &&
	grep -qF "bell \\u0007" "$TMP/stdout"
'
test_expect "every byte that is not UTF-8 becomes one U+FFFD" '
	expect_exit 1 "$NPG" run -p linux-6 -f json "$TMP/esc.npg" &&
	test "$(jq -r ".scenarios[0].title" "$TMP/stdout" | grep -o "$(printf "\357\277\275")" | wc -l)" -eq 130
'
test_expect "text output shows escape sequences as \\x1b" '
	expect_exit 1 "$NPG" run -p linux-6 "$TMP/esc.npg" &&
	! has_esc "$TMP/stdout" &&
	grep -qF "red \\x1b[31mRED\\x1b[0m \\xff\\xfe" "$TMP/stdout" &&
	grep -qF "source: bell \\x07 and \\x1b]0;title\\x07" "$TMP/stdout" &&
	grep -qF " \\xc2\\x9b end" "$TMP/stdout" &&
	grep -q " $(printf "\303\251") " "$TMP/stdout"
'
test_expect "a file name with an escape sequence is escaped in the table, TAP and messages" '
	expect_exit 1 "$NPG" run -p linux-6 "$TMP/name${ESC}[1m.npg" &&
	! has_esc "$TMP/stdout" && ! has_esc "$TMP/stderr" &&
	grep -qF "name\\x1b[1m.npg:6: linux-6: check a flag: expected set, got clear" "$TMP/stderr" &&
	expect_exit 1 "$NPG" run -p linux-6 -f tap "$TMP/name${ESC}[1m.npg" &&
	! has_esc "$TMP/stdout" && ! has_esc "$TMP/stderr" &&
	grep -qF "not ok 2 - $TMP/name\\x1b[1m.npg:6 linux-6: check a flag => set" "$TMP/stdout"
'
test_expect "JSON of a file name with an escape sequence is valid" '
	expect_exit 1 "$NPG" run -p linux-6 -f json "$TMP/name${ESC}[1m.npg" &&
	! has_esc "$TMP/stdout" &&
	jq -e ".scenarios[0].file | endswith(\"name\u001b[1m.npg\")" "$TMP/stdout" >/dev/null
'
test_done
