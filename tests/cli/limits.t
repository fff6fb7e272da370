#!/bin/sh
# The scenario language's limits: each documented, each boundary tested.
. "$(dirname "$0")/lib.sh"

# pad FILE BYTES: a scenario of exactly BYTES bytes, comments making up the rest
pad() {
	printf 'user root 0\ntask d uid root\nd: setuid root => ok\n' >"$1"
	_have=$(wc -c <"$1")
	_rest=$(($2 - _have))
	# one comment line of the rest: "#", filler, newline
	{ printf '#'; head -c $((_rest - 2)) /dev/zero | tr '\0' x; printf '\n'; } >>"$1"
}

test_expect "a scenario of exactly 16 MiB is read" '
	pad "$TMP/max.npg" 16777216 && test "$(wc -c <"$TMP/max.npg")" -eq 16777216 &&
	expect_exit 0 "$NPG" run -p linux-6 "$TMP/max.npg"
'
test_expect "a scenario of 16,777,215 bytes is not called larger than 16 MiB" '
	pad "$TMP/under.npg" 16777215 && expect_exit 0 "$NPG" run -p linux-6 "$TMP/under.npg"
'
test_expect "one byte more is refused, with the limit named" '
	pad "$TMP/over.npg" 16777217 && expect_exit 2 "$NPG" run -p linux-6 "$TMP/over.npg" &&
	grep -q "over.npg: scenario larger than 16 MiB (16777216 bytes)" "$TMP/stderr"
'
test_expect "a 1 MB bad token is cut in the error message" '
	{ printf "user root 0\ntask d uid root\nd: "; head -c 1000000 /dev/zero | tr "\\0" y; printf " www\n"; } >"$TMP/tok.npg" &&
	expect_exit 2 "$NPG" run "$TMP/tok.npg" &&
	test "$(wc -c <"$TMP/stderr")" -lt 400 &&
	grep -q "tok.npg:3:4: unknown operation .y\{64\}\.\.\.." "$TMP/stderr"
'
test_expect "4096 tasks are accepted, exited ones counted; the 4097th is refused by name" '
	{ echo "user root 0"; echo "task t0 uid root"; i=1
	  while [ $i -lt 4096 ]; do echo "t0: fork t$i"; echo "t$i: exit"; i=$((i + 1)); done; } >"$TMP/tasks.npg" &&
	expect_exit 0 "$NPG" run -p linux-6 "$TMP/tasks.npg" &&
	echo "t0: fork t4096" >>"$TMP/tasks.npg" &&
	expect_exit 2 "$NPG" run -p linux-6 "$TMP/tasks.npg" && grep -q "more than 4096 tasks" "$TMP/stderr"
'
test_expect "1024 user and group names are accepted; the 1025th is refused by name" '
	{ echo "task d uid 0"; i=1; while [ $i -le 1024 ]; do echo "user u$i $i"; i=$((i + 1)); done; } >"$TMP/names.npg" &&
	sed -i "1{h;d};\$G" "$TMP/names.npg" &&
	expect_exit 0 "$NPG" run -p linux-6 "$TMP/names.npg" &&
	sed -i "\$i user u1025 1025" "$TMP/names.npg" &&
	expect_exit 2 "$NPG" run -p linux-6 "$TMP/names.npg" && grep -q "more than 1024 users and groups" "$TMP/stderr"
'
test_done
