#!/bin/sh
# Command-line details: '-' is standard input and a directory its scenario
# files, by one rule for every command that reads scenarios; --out is
# checked up front, --uid-base errors name the subcommand and a window over
# accounts warns, every refused option value names the option, the value
# and what is accepted.
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
# Every refused option value names the option, the value and what is
# accepted, on one line, before "Try ... --help" (they printed only that
# line, or a stale errno). refused CODE 'MESSAGE' CMD ARG...: MESSAGE is
# the first line of stderr, whole (grep -x, a basic regular expression);
# a command that hangs (on a FIFO) is stopped after 120 s
refused() {
	_code=$1 _want=$2
	shift 2
	timeout 120 "$NPG" "$@" </dev/null >"$TMP/stdout" 2>"$TMP/stderr"
	_rc=$?
	[ $_rc -eq "$_code" ] || { echo "exit $_rc, want $_code: $*"; cat "$TMP/stderr"; return 1; }
	head -n 1 "$TMP/stderr" | grep -qx -- "$_want" ||
		{ echo "want: $_want"; echo "got:"; cat "$TMP/stderr"; return 1; }
	! test -s "$TMP/stdout" || { echo "stdout:"; cat "$TMP/stdout"; return 1; }
}
C="$A/concurrent/01-brown-2003-unchecked-drop.npg"
POLICIES="linux-2.4, linux-2.6, ow-2006, kulikov-2011, brown-flag-2011, linux-3.1, linux-5.14, linux-6"
PROPS="P\[,P...\] of no-root-after-failed-drop, limit-holds\[+K\], no-collateral-execve-failure, no-stale-failure, setuid-never-fails"
test_expect "explore --max-states 0 names the option, the value and the range" '
	refused 2 "nprocguard explore: bad --max-states .0.: out of range (a count from 1 to 4294967295)" explore --max-states 0 "$C"
'
test_expect "explore --max-memory 0 and 999999999999 name the range" '
	refused 2 "nprocguard explore: bad --max-memory .0.: out of range (a count from 1 to 16777216)" explore --max-memory 0 "$C" &&
	refused 2 "nprocguard explore: bad --max-memory .999999999999.: out of range (a count from 1 to 16777216)" explore --max-memory 999999999999 "$C"
'
test_expect "explore --max-depth 99999999999 names the range" '
	refused 2 "nprocguard explore: bad --max-depth .99999999999.: out of range (a count from 0 to 1000000)" explore --max-depth 99999999999 "$C" &&
	refused 2 "nprocguard explore: bad --max-depth .-1.: not a decimal number (a count from 0 to 1000000)" explore --max-depth -1 "$C"
'
test_expect "explore --help shows the bounds' ranges" '
	"$NPG" explore --help >"$TMP/help" &&
	grep -q -- "--max-states N .*(1 to 4294967295" "$TMP/help" &&
	grep -q -- "--max-depth N .*(0 to 1000000" "$TMP/help" &&
	grep -q -- "--max-memory MIB .*(1 to 16777216" "$TMP/help"
'
test_expect "an empty --policy is refused by run and explore, naming the policies" '
	refused 2 "nprocguard explore: bad --policy ..: empty (NAME\[,NAME...\] or all; the policies: $POLICIES)" explore --policy "" "$C" &&
	refused 2 "nprocguard run: bad --policy ..: empty (NAME\[,NAME...\] or all; the policies: $POLICIES)" run --policy "" "$A/01-cgiwrap.npg"
'
test_expect "a --policy list with an empty name (, or a trailing comma) is refused" '
	refused 2 "nprocguard run: bad --policy .,.: an empty name (NAME\[,NAME...\] or all; the policies: $POLICIES)" run -p , "$A/01-cgiwrap.npg" &&
	refused 2 "nprocguard run: bad --policy .linux-6,.: an empty name .*" run -p linux-6, "$A/01-cgiwrap.npg" &&
	refused 2 "nprocguard explore: bad --policy .linux-6,,linux-2.6.: an empty name .*" explore -p linux-6,,linux-2.6 "$C"
'
test_expect "an unknown policy is named within its list" '
	refused 2 "nprocguard run: bad --policy .linux-6,linux-9.: unknown policy .linux-9. (NAME\[,NAME...\] or all; the policies: $POLICIES)" run -p linux-6,linux-9 "$A/01-cgiwrap.npg" &&
	refused 2 "nprocguard conform: bad --policy .linux-9.: unknown policy (one of $POLICIES)" conform -p linux-9 "$A/01-cgiwrap.npg" &&
	refused 2 "nprocguard export: bad --policy ..: empty (one of $POLICIES)" export -p "" -o "$TMP/x" "$A/01-cgiwrap.npg"
'
test_expect "explore -P with no property name is refused, not taken as every property" '
	refused 2 "nprocguard explore: bad --property ..: empty ($PROPS)" explore -P "" "$C" &&
	refused 2 "nprocguard explore: bad --property .,.: an empty name ($PROPS)" explore -P , "$C" &&
	refused 2 "nprocguard explore: bad --property .limit-holds,.: an empty name ($PROPS)" explore -P limit-holds, "$C" &&
	refused 2 "nprocguard explore: bad --property .limit-holds,x.: unknown property .x. ($PROPS)" explore -P limit-holds,x "$C"
'
# (a property that holds: a binary without the check writes no
# counterexample to /NAME, as -o "" did)
test_expect "explore -o and --dot with an empty value are refused before the search (-o wrote to /)" '
	refused 2 "nprocguard explore: bad --out ..: empty (a directory)" explore -p linux-6 -P no-root-after-failed-drop -o "" "$C" &&
	refused 2 "nprocguard explore: bad --dot ..: empty (a file name)" explore -p linux-6 -P no-root-after-failed-drop --dot "" "$C"
'
test_expect "explore -o and --dot that cannot be written are refused before the search, not after it" '
	refused 2 "nprocguard explore: --out $TMP/nowhere/deeper: No such file or directory" explore -p linux-2.6 -o "$TMP/nowhere/deeper" "$C" &&
	refused 2 "nprocguard explore: --out $C: Not a directory" explore -p linux-2.6 -o "$C" "$C" &&
	refused 2 "nprocguard explore: --dot $TMP/nowhere/x.dot: No such file or directory" explore -p linux-2.6 --dot "$TMP/nowhere/x.dot" "$C" &&
	refused 2 "nprocguard explore: --dot $TMP: Is a directory" explore -p linux-2.6 --dot "$TMP" "$C"
'
test_expect "explain --sysroot of more than 400 bytes names the option and the value" '
	refused 2 "nprocguard explain: bad --sysroot .x\{64\}....: longer than 400 bytes" explain --sysroot "$(printf "%0401d" 0 | tr 0 x)"
'
test_expect "an empty --out is refused by conform, compare and export" '
	refused 2 "nprocguard conform: bad --out ..: empty (a directory)" conform -o "" --random 1 &&
	refused 2 "nprocguard compare: bad --out ..: empty (a directory)" compare -o "" host host --random 1 &&
	refused 2 "nprocguard export: bad --out ..: empty (a directory)" export -o "" "$A/01-cgiwrap.npg"
'
test_expect "status -o with no column is refused (it printed a stale errno: Inappropriate ioctl for device)" '
	refused 2 "nprocguard status: bad --output ..: empty (COLUMN\[,COLUMN...\], or +COLUMN... to add to the default; the columns are in --help)" status -o "" &&
	refused 2 "nprocguard status: bad --output .+.: an empty column name .*" status -o + &&
	refused 2 "nprocguard status: bad --output .UID,.: an empty column name .*" status -o UID, &&
	refused 2 "nprocguard status: bad --output .UID,COLOUR.: unknown column .COLOUR. (the user columns are listed by --help)" status -o UID,COLOUR
'
test_expect "status: --sort, --user and --check name the value and what is accepted" '
	refused 2 "nprocguard status: bad --sort ..: empty (sort by one of the user columns listed by --help)" status -s "" &&
	refused 2 "nprocguard status: bad --user ..: empty (a user name, or a uid from 0 to 4294967294)" status -u "" &&
	refused 2 "nprocguard status: bad --user . 5.: unknown user (a user name, or a uid from 0 to 4294967294)" status -u " 5" &&
	for v in "" " 5" nan inf 1001 -1 5x; do
		refused 2 "nprocguard status: bad --check .$v.: a percentage from 0 to 1000, optionally followed by %" status -c "$v" || exit 1
	done
'
test_expect "explain: --sysroot, --cgroup, --user and --pid name the value and what is accepted" '
	refused 2 "nprocguard explain: bad --sysroot ..: empty (a directory holding proc/ and sys/; / for the running system)" explain --sysroot "" &&
	refused 2 "nprocguard explain: bad --cgroup ..: empty (a pids cgroup: a directory, or a path in the hierarchy)" explain -g "" &&
	refused 2 "nprocguard explain: bad --user ..: empty (a user name, or a uid from 0 to 4294967294)" explain -u "" &&
	refused 2 "nprocguard explain: bad --pid . 5.: not a decimal number (a process id from 1 to 4194304)" explain -p " 5" &&
	refused 2 "nprocguard explain: bad --pid .0.: out of range (a process id from 1 to 4194304)" explain -p 0
'
test_expect "--format names the formats each command accepts" '
	refused 2 "nprocguard run: bad --format ..: unknown format (text, json or tap)" run -f "" "$A/01-cgiwrap.npg" &&
	refused 2 "nprocguard conform: bad --format .tap.: unknown format (text or json)" conform -f tap "$A/01-cgiwrap.npg" &&
	refused 2 "nprocguard audit: bad --format .xml.: unknown format (text or json)" audit -f xml -- /bin/true
'
test_expect "audit --timeout refuses nan, inf, blanks and more than a week" '
	for v in "" nan inf 1e999 " 5" 0 604801 -1; do
		refused 2 "nprocguard audit: bad --timeout .$v.: seconds, more than 0 and at most 604800" audit -t "$v" -- /bin/true || exit 1
	done &&
	refused 2 "nprocguard audit: bad --policy .never.: unknown policy (always, once, linux-2.6 or ow-2006)" audit -p never -- /bin/true
'
test_expect "compare and conform --jobs take a count from 1 to 64 only (it took \" 1\" and \"+2\")" '
	for v in "" " 1" +2 0 65; do
		refused 2 "nprocguard compare: bad --jobs .$v.: .* (a count from 1 to 64)" compare -j "$v" host host "$A/01-cgiwrap.npg" &&
		refused 2 "nprocguard conform: bad --jobs .$v.: .* (a count from 1 to 64)" conform --jobs "$v" --kernel /nonexistent "$A/01-cgiwrap.npg" || exit 1
	done
'
test_expect "exec names the option, the value and the range (exit 100)" '
	refused 100 "nprocguard exec: bad --user ..: empty (a user name, or a uid from 0 to 4294967294)" exec -u "" -- /bin/true &&
	refused 100 "nprocguard exec: bad --rlimit-nproc . 5.: a count from 0 to 1099511627776" exec -u nobody -l " 5" -- /bin/true &&
	refused 100 "nprocguard exec: bad --rlimit-nproc .1099511627777.: a count from 0 to 1099511627776" exec -u nobody -l 1099511627777 -- /bin/true &&
	refused 100 "nprocguard exec: bad --group ..: empty (a group name, or a gid from 0 to 4294967294)" exec -u nobody -g "" -- /bin/true
'
test_expect "--guest-timeout and exec --keep-caps take what they say only" '
	for v in " 5" +5 0 604801; do
		refused 125 "nprocguard guest: bad --guest-timeout .$v. (seconds, 1 to 604800)" guest --guest-timeout "$v" --kernel /nonexistent /bin/true &&
		refused 2 "nprocguard conform: bad --guest-timeout .$v. (seconds, 1 to 604800)" conform --guest-timeout "$v" --kernel /nonexistent "$A/01-cgiwrap.npg" || exit 1
	done &&
	refused 100 "nprocguard exec: bad --keep-caps ..: --keep-caps takes only .none." exec -u nobody --keep-caps "" -- /bin/true
'
test_expect "guest --file with an empty name is refused before anything runs" '
	refused 125 "nprocguard guest: bad --file ..: empty (a file to copy into the guest)" guest -f "" --kernel /nonexistent /bin/true
'
test_expect "a huge value is echoed in its first 64 bytes, control characters escaped" '
	big=$(printf "%01000d" 0 | tr 0 x) &&
	refused 2 "nprocguard run: bad --policy .x\{64\}....: unknown policy .x\{64\}.... .*" run -p "$big" "$A/01-cgiwrap.npg" &&
	test "$(wc -c <"$TMP/stderr")" -lt 600 &&
	refused 2 "nprocguard run: bad --format .\\\\x1b\[31mred.: unknown format (text, json or tap)" run -f "$(printf "\033[31mred")" "$A/01-cgiwrap.npg"
'
test_expect "--uid-base says why and the range, in every command that takes it" '
	refused 2 "nprocguard identify: bad --uid-base ..: empty (a uid from 0 to 4294963198)" identify -u "" &&
	refused 2 "nprocguard run: bad --uid-base .4294963199.: out of range (a uid from 0 to 4294963198)" run -u 4294963199 "$A/01-cgiwrap.npg" &&
	refused 2 "nprocguard compare: bad --uid-base .+5.: not a decimal number (a uid from 0 to 4294963198)" compare -u +5 host host "$A/01-cgiwrap.npg"
'
test_expect "getopt's own messages name the subcommand" '
	expect_exit 2 "$NPG" policies --bogus &&
	grep -qx "nprocguard policies: unrecognized option .--bogus." "$TMP/stderr" &&
	expect_exit 2 "$NPG" explore --max-states &&
	grep -qx "nprocguard explore: option .--max-states. requires an argument" "$TMP/stderr"
'

# --- '-' is standard input wherever a scenario is read ---
test_expect "explore - reads the concurrent scenario from standard input, named <stdin>" '
	"$NPG" explore -p linux-2.6 -P no-root-after-failed-drop - <"$C" >"$TMP/stdout" 2>"$TMP/stderr"
	test $? -eq 1 && grep -q "^<stdin>: linux-2.6: no-root-after-failed-drop violated in 5 steps" "$TMP/stdout"
'
test_expect "explore -o DIR - writes stdin.POLICY.PROPERTY.npg" '
	mkdir "$TMP/cx" &&
	"$NPG" explore -q -p linux-2.6 -P no-root-after-failed-drop -o "$TMP/cx" - <"$C" >/dev/null 2>&1
	test $? -eq 1 && test -s "$TMP/cx/stdin.linux-2.6.no-root-after-failed-drop.npg" &&
	expect_exit 0 "$NPG" run -p linux-2.6 "$TMP/cx/stdin.linux-2.6.no-root-after-failed-drop.npg"
'
test_expect "errors in explore - are <stdin>:line:col" '
	printf "user root 0\ntask a uid root\na runs:\n  frok b\n" | "$NPG" explore - >"$TMP/stdout" 2>"$TMP/stderr"
	test $? -eq 2 && grep -q "^<stdin>:4:3: " "$TMP/stderr"
'
test_expect "export -o DIR - writes the program stdin" '
	expect_exit 0 "$NPG" export -p linux-6 -o "$TMP/ex" - <"$A/01-cgiwrap.npg" &&
	test -s "$TMP/ex/stdin.c" && grep -q "stdin" "$TMP/ex/Makefile"
'
test_expect "- given twice is refused: standard input is read once" '
	refused 2 "nprocguard run: - (standard input) given twice: it can be read once" run - - &&
	refused 2 "nprocguard export: - (standard input) given twice: it can be read once" export -o "$TMP/ex2" - "$A/01-cgiwrap.npg" - &&
	test ! -e "$TMP/ex2"
'
if [ "$(id -u)" -eq 0 ]; then
	test_expect "conform - reads the scenario from standard input, named <stdin>" '
		"$NPG" conform -u $((NPG_TEST_UID_BASE + 710000)) - <"$A/01-cgiwrap.npg" >"$TMP/stdout" 2>"$TMP/stderr" &&
		grep -q "^<stdin>: [0-9]* statements: " "$TMP/stdout"
	'
else
	test_skip "conform - reads the scenario from standard input" "needs root (the real backend)"
fi

# --- a directory: its scenario files, no symbolic link followed ---
# d/: one sequential and one concurrent file, a dot file, a subdirectory,
# a link to a directory above (a loop) and a link to a file
mkdir -p "$TMP/d/sub" "$TMP/d/.hidden" &&
	cp "$A/01-cgiwrap.npg" "$TMP/d/a.npg" && cp "$A/02-lprng.npg" "$TMP/d/sub/b.npg" &&
	cp "$C" "$TMP/d/c.npg" && cp "$A/03-unchecked-drop.npg" "$TMP/d/.dot.npg" &&
	cp "$A/04-brown-race.npg" "$TMP/d/.hidden/e.npg" &&
	ln -s .. "$TMP/d/sub/loop" && ln -s "$A/05-peslyak-stale.npg" "$TMP/d/link.npg"
test_expect "run DIR runs the sequential files under it, sorted; no link followed, no dot name" '
	expect_exit 0 "$NPG" run -p linux-6 "$TMP/d" &&
	grep "^$TMP/d" "$TMP/stdout" | cut -d: -f1 >"$TMP/got" &&
	printf "%s\n" "$TMP/d/a.npg" "$TMP/d/sub/b.npg" >"$TMP/want" &&
	diff -u "$TMP/want" "$TMP/got" &&
	grep -q "^2 files, " "$TMP/stdout"
'
test_expect "explore DIR follows no directory link: a loop gives each file once" '
	"$NPG" explore -q -s -p linux-2.6 "$TMP/d" >"$TMP/stdout" 2>"$TMP/stderr"
	test $? -eq 1 && test "$(grep -c "states stored" "$TMP/stdout")" -eq 1 &&
	grep -q "^$TMP/d/c.npg: linux-2.6: " "$TMP/stdout" && ! grep -q loop "$TMP/stdout"
'
test_expect "export DIR exports the sequential files under it" '
	expect_exit 0 "$NPG" export -p linux-6 -o "$TMP/exd" "$TMP/d" &&
	test -s "$TMP/exd/a.c" && test -s "$TMP/exd/b.c" && test ! -e "$TMP/exd/c.c" && test ! -e "$TMP/exd/link.c"
'
test_expect "a link named on the command line is followed" '
	ln -s "$TMP/d/sub" "$TMP/sublink" &&
	expect_exit 0 "$NPG" run -p linux-6 "$TMP/sublink" "$TMP/d/link.npg" &&
	grep -q "^$TMP/sublink/b.npg: " "$TMP/stdout" && grep -q "^$TMP/d/link.npg: " "$TMP/stdout"
'
test_expect "a directory with nothing the command reads is refused, counting the other kind" '
	mkdir "$TMP/conc" "$TMP/empty" && cp "$C" "$TMP/conc/" &&
	refused 2 "nprocguard run: $TMP/conc: a directory with no sequential scenario (\*.npg) in it (1 concurrent ones: for nprocguard explore)" run "$TMP/conc" &&
	refused 2 "nprocguard export: $TMP/empty: a directory with no sequential scenario (\*.npg) in it (0 concurrent ones: for nprocguard explore)" export -o "$TMP/exe" "$TMP/empty" &&
	refused 2 "nprocguard explore: $TMP/empty: a directory with no concurrent scenario (\*.npg) in it (0 sequential ones; name one to explore its one interleaving: or run them)" explore "$TMP/empty"
'
test_expect "a directory on standard input is Is a directory, not read error" '
	expect_exit 2 "$NPG" run - <"$TMP/d" && grep -qx "<stdin>: Is a directory" "$TMP/stderr"
'
if [ "$(id -u)" -eq 0 ]; then
	test_expect "conform DIR runs the sequential files under it" '
		"$NPG" conform -u $((NPG_TEST_UID_BASE + 710000)) "$TMP/d" >"$TMP/stdout" 2>"$TMP/stderr"
		[ $? -le 1 ] && grep -q "^conform: 2 scenarios, " "$TMP/stdout"
	'
	test_expect "a file of a directory that cannot be read is said, not skipped (as nobody)" '
		r=$(reach_copy "$NPG") && mkdir -m 755 "$r/dd" && cp "$C" "$A/concurrent/02-kulikov-2011-collateral.npg" "$r/dd/" &&
		chmod 644 "$r/dd/01-brown-2003-unchecked-drop.npg" && chmod 600 "$r/dd/02-kulikov-2011-collateral.npg" &&
		(cd "$r" && setpriv --reuid=nobody --regid=nogroup --clear-groups ./nprocguard explore -q dd) \
			>"$TMP/stdout" 2>"$TMP/stderr"
		test $? -eq 2 && grep -qx "dd/02-kulikov-2011-collateral.npg: Permission denied" "$TMP/stderr"
	'
	if unshare -m true 2>/dev/null; then
		test_expect "a bind mount of a directory inside itself is said and not entered twice" '
			mkdir -p "$TMP/bl/in" && cp "$A/01-cgiwrap.npg" "$TMP/bl/x.npg" &&
			unshare -m sh -c "mount --make-rprivate / 2>/dev/null; mount --bind \"$TMP/bl\" \"$TMP/bl/in\" &&
				exec \"$NPG\" run -p linux-6 \"$TMP/bl\"" >"$TMP/stdout" 2>"$TMP/stderr" &&
			grep -qx "nprocguard run: $TMP/bl/in: file system loop detected; it is the same directory as $TMP/bl: not entered again" "$TMP/stderr" &&
			test "$(grep -c "^$TMP/bl.*: cgiwrap" "$TMP/stdout")" -eq 1
		'
	else
		test_skip "a bind mount of a directory inside itself" "unshare -m is refused here"
	fi
else
	test_skip "conform DIR" "needs root (the real backend)"
	test_skip "a bind mount of a directory inside itself" "needs root"
fi

# --- a FIFO where a guest or a child must read the file again ---
stand_in_qemu
test_expect "conform --kernel, compare and guest --file refuse a FIFO instead of hanging on it" '
	mkfifo "$TMP/fifo.npg" &&
	refused 2 "nprocguard conform: $TMP/fifo.npg: a FIFO or a pipe, not a regular file: the run in a guest or a child process reads regular files only (give it as -, standard input)" \
		conform --kernel "$IMG" "$TMP/fifo.npg" &&
	refused 2 "nprocguard compare: $TMP/fifo.npg: a FIFO or a pipe, not a regular file: .*" \
		compare host host "$TMP/fifo.npg" &&
	refused 125 "nprocguard guest: --file $TMP/fifo.npg: not a regular file (the guest gets a copy of regular files only)" \
		guest --kernel "$IMG" -f "$TMP/fifo.npg" /bin/true
'
test_expect "conform --kernel - interrupted: the copy of standard input is removed too" '
	mkdir "$TMP/tsig" &&
	{ FAKE_QEMU=hang FAKE_QEMU_PID="$TMP/qemu.pid" NPROCGUARD_QEMU="$FAKE" NPROCGUARD_CACHE="$TMP/cache" TMPDIR="$TMP/tsig" \
		"$NPG" conform --kernel "$IMG" - <"$A/01-cgiwrap.npg" >/dev/null 2>"$TMP/stderr" & } &&
	pid=$! && n=0 &&
	until [ -s "$TMP/qemu.pid" ] || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done &&
	ls "$TMP/tsig" | grep -q "^nprocguard-stdin\." &&
	kill -INT $pid; wait $pid; rc=$?
	test $rc -eq 130 && test -z "$(ls -A "$TMP/tsig")" && ! kill -0 "$(cat "$TMP/qemu.pid")" 2>/dev/null
'

# --- the guest's side: stdin and directories are this machine's ---
smallest_image
export NPROCGUARD_CACHE="$TMP/cache"
if [ -n "$why" ]; then
	test_skip "conform --kernel IMAGE - carries standard input into the guest" "$why"
	test_skip "compare IMAGE IMAGE - and DIR" "$why"
	test_skip "explore --replay-kernel runs without root" "$why"
else
	test_expect "conform --kernel IMAGE - carries standard input into the guest, named <stdin>, and leaves no copy" '
		mkdir "$TMP/t" &&
		TMPDIR="$TMP/t" "$NPG" conform --guest-timeout 600 --kernel "$image" - <"$A/01-cgiwrap.npg" >"$TMP/stdout" 2>"$TMP/stderr" &&
		grep -q "^<stdin>: [0-9]* statements: " "$TMP/stdout" &&
		test -z "$(ls -A "$TMP/t")"
	'
	test_expect "conform --kernel IMAGE DIR runs the directory'\''s files there" '
		"$NPG" conform --guest-timeout 600 -q --kernel "$image" "$TMP/d" >"$TMP/stdout" 2>"$TMP/stderr"
		[ $? -le 1 ] && grep -q "^conform: 2 scenarios, " "$TMP/stdout"
	'
	test_expect "compare IMAGE IMAGE - DIR: both kernels read standard input as <stdin>" '
		"$NPG" compare --guest-timeout 600 "$image" "$image" - "$TMP/d/sub" <"$A/01-cgiwrap.npg" >"$TMP/stdout" 2>"$TMP/stderr" &&
		grep -q "2 scenarios" "$TMP/stdout"
	'
	if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
		# the help said --replay-kernel needs root: QEMU runs as any user
		test_expect "explore --replay-kernel runs as nobody (root is only inside the guest)" '
			r=$(reach_copy "$NPG" "$image" "$C") && mkdir -m 1777 "$r/cache" "$r/tmp" &&
			(cd "$r" && NPROCGUARD_CACHE="$r/cache" TMPDIR="$r/tmp" setpriv --reuid=nobody --regid=nogroup --clear-groups \
				./nprocguard explore -p linux-2.6 -P no-root-after-failed-drop --replay-kernel "./$(basename "$image")" \
				"./$(basename "$C")") >"$TMP/stdout" 2>"$TMP/stderr"
			rc=$?
			test $rc -eq 1 && grep -q "^conform: 1 scenarios, [0-9]* statements, 0 differences" "$TMP/stdout" ||
				{ echo "exit $rc"; cat "$TMP/stdout" "$TMP/stderr"; exit 1; }
		'
	else
		test_skip "explore --replay-kernel runs as nobody" "needs root to become nobody (setpriv)"
	fi
fi
# README counted the regression files that export by hand ("16 of the 35"),
# stale as soon as one was added: the command says it instead
test_expect "README counts no exportable regression files by hand; export DIR counts them" '
	! grep -Eq "[0-9]+ of the [0-9]+ regression files" "$TOP/README.md" &&
	n=$(ls "$TOP"/scenarios/regression/*.npg | wc -l) &&
	expect_exit 2 "$NPG" export -o "$TMP/rx" "$TOP/scenarios/regression" &&
	grep -qx "nprocguard export: [0-9]* of $n files cannot be exported; nothing was written" "$TMP/stderr"
'
test_expect "explore --help no longer says --replay-kernel needs root" '
	"$NPG" explore --help >"$TMP/help" && ! grep -qi "root,\|, root" "$TMP/help" &&
	grep -q "not root" "$TMP/help"
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
