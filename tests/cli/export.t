#!/bin/sh
# nprocguard export --format kselftest: scenario files as kernel selftests
# that need no nprocguard. Exporting, refusing and building run anywhere;
# running the tests needs root (CI runs as root).
. "$(dirname "$0")/lib.sh"
BASE=$((NPG_TEST_UID_BASE + 200000))	# a window of its own within this run's slot
S="$TOP/scenarios"
K="$TMP/seeds"				# the seed scenarios, exported for linux-6 and built
export NPG_UID_BASE=$BASE

test_expect "export writes a program per file, the runtime, a Makefile and settings" '
	expect_exit 0 "$NPG" export --format kselftest --policy linux-6 -o "$K" "$S"/article/*.npg &&
	for f in 01-cgiwrap 02-lprng 03-unchecked-drop 04-brown-race 05-peslyak-stale \
		 06-fork-setuid-bypass 07-off-by-one 08-zombies-threads 09-capability-exemptions; do
		test -s "$K/$f.c" || { echo "no $f.c"; exit 1; }
		grep -q "^TEST_GEN_PROGS :=.* $f" "$K/Makefile" || { echo "$f not in Makefile"; exit 1; }
	done &&
	test -s "$K/npg_kselftest.c" && test -s "$K/npg_kselftest.h" &&
	grep -qx "timeout=180" "$K/settings" && grep -q "^include ../lib.mk" "$K/Makefile" &&
	test ! -s "$TMP/stdout" && test ! -s "$TMP/stderr"
'

test_expect "every file of the runtime is written as it is, and the Makefile compiles each .c" '
	n=0 &&
	for f in "$TOP"/src/export/kselftest/*; do
		b=${f##*/} && n=$((n + 1))
		cmp -s "$f" "$K/$b" || { echo "$b not written as it is"; exit 1; }
		case $b in
		*.c) grep -q "^RUNTIME_SRCS :=.* $b\( \|$\)" "$K/Makefile" || { echo "$b not compiled"; exit 1; } ;;
		*.h) grep -q "^RUNTIME_HDRS :=.* $b\( \|$\)" "$K/Makefile" || { echo "$b not listed"; exit 1; } ;;
		esac
	done && test $n -ge 2
'

test_expect "the generated files say which policy they check" '
	grep -q "It checks the expectations of policy linux-6, whatever the kernel" \
		"$K/03-unchecked-drop.c" &&
	grep -q "\.policies = { \"linux-6\" }" "$K/03-unchecked-drop.c"
'

test_expect "the programs build alone, static, with no warning under -Wextra -Werror" '
	make -s -C "$K" CFLAGS="-O2 -Wall -Wextra -Werror -D_GNU_SOURCE -pthread" >"$TMP/make" 2>&1 ||
		{ cat "$TMP/make"; exit 1; }
	test -x "$K/01-cgiwrap" && test -x "$K/09-capability-exemptions" &&
	readelf -l "$K/01-cgiwrap" >"$TMP/phdrs" && grep -q "LOAD" "$TMP/phdrs" &&
	! grep -q "INTERP" "$TMP/phdrs"		# static: no program interpreter
'

# In a kernel tree the Makefile includes ../lib.mk, whose rule builds
# $(OUTPUT)/PROG from PROG.c and every other prerequisite that is not one
# of LOCAL_HDRS: a stand-in with that rule alone
test_expect "in a kernel tree, lib.mk links each program with every file of the runtime" '
	mkdir -p "$TMP/selftests/npg" &&
	cp "$K"/*.c "$K"/*.h "$K/Makefile" "$K/settings" "$TMP/selftests/npg/" &&
	printf "%s\n" "OUTPUT := \$(shell pwd)" \
		"TEST_GEN_PROGS := \$(patsubst %,\$(OUTPUT)/%,\$(TEST_GEN_PROGS))" \
		"all: \$(TEST_GEN_PROGS)" "\$(OUTPUT)/%: %.c \$(LOCAL_HDRS)" \
		"	\$(LINK.c) \$(filter-out \$(LOCAL_HDRS),\$^) \$(LDLIBS) -o \$@" >"$TMP/selftests/lib.mk" &&
	make -s -C "$TMP/selftests/npg" CFLAGS="-O2 -Wall -Wextra -Werror -D_GNU_SOURCE -pthread" \
		>"$TMP/make" 2>&1 || { cat "$TMP/make"; exit 1; }
	test -x "$TMP/selftests/npg/01-cgiwrap" && test -x "$TMP/selftests/npg/09-capability-exemptions" &&
	test ! -e "$TMP/selftests/npg/npg_kselftest.o"
'

test_expect "a statement that cannot be exported is refused with file:line:col, nothing written" '
	printf "user root 0\nuser u 1000\ntask d uid root\nd: fork c => ok\nd: vfork v\nv: exit\nd: ptrace c => ok\nc: unshare user ns => ok\ncheck c tracer => d\n" >"$TMP/refused.npg"
	expect_exit 2 "$NPG" export -o "$TMP/none" "$TMP/refused.npg" &&
	grep -q "refused.npg:7:1: cannot export .ptrace.: ptrace needs a tracer loop" "$TMP/stderr" &&
	grep -q "refused.npg:8:1: cannot export .unshare user.: user namespaces" "$TMP/stderr" &&
	grep -q "refused.npg:9:1: cannot export .check ... tracer.:" "$TMP/stderr" &&
	test $(grep -c "cannot export" "$TMP/stderr") -eq 3 &&
	grep -q "^nprocguard export: 1 of 1 files cannot be exported; nothing was written$" \
		"$TMP/stderr" && test ! -e "$TMP/none"
'

test_expect "v3 file capabilities are refused at each execve, one file of several" '
	expect_exit 2 "$NPG" export -o "$TMP/none" "$S/article/01-cgiwrap.npg" \
		"$S/regression/userns-file-caps-v3.npg" &&
	grep -q "userns-file-caps-v3.npg:18:1: cannot export .execve. of a declared file: v3 file capabilities" \
		"$TMP/stderr" && ! grep -q 01-cgiwrap "$TMP/stderr" && test ! -e "$TMP/none"
'

test_expect "a file whose policies leave out --policy is refused: it would check nothing" '
	printf "policies linux-6\nuser root 0\ntask d uid root\nd: fork c => ok\n" >"$TMP/six.npg"
	expect_exit 2 "$NPG" export --policy linux-2.6 -o "$TMP/none" "$TMP/six.npg" &&
	grep -q "six.npg: its .policies. leave out linux-2.6: the test would check nothing" \
		"$TMP/stderr" && test ! -e "$TMP/none"
'

test_expect "bad usage: unknown format or policy, no -o, no file" '
	expect_exit 2 "$NPG" export --format junit -o "$TMP/x" "$S/article/01-cgiwrap.npg" &&
	grep -q "bad --format .junit.: unknown format (kselftest)" "$TMP/stderr" &&
	expect_exit 2 "$NPG" export --policy linux-9 -o "$TMP/x" "$S/article/01-cgiwrap.npg" &&
	expect_exit 2 "$NPG" export "$S/article/01-cgiwrap.npg" &&
	grep -q -- "-o DIR is required" "$TMP/stderr" &&
	expect_exit 2 "$NPG" export -o "$TMP/x" && test ! -e "$TMP/x"
'

test_expect "a bad scenario is reported as the parser reports it" '
	expect_exit 2 "$NPG" export -o "$TMP/none" "$TOP/tests/cli/bad/bad-count.npg" &&
	grep -q "bad-count.npg:[0-9]*:[0-9]*: " "$TMP/stderr" && test ! -e "$TMP/none"
'

test_expect "two files that would make one program are refused" '
	mkdir -p "$TMP/a" "$TMP/b" && cp "$S/article/01-cgiwrap.npg" "$TMP/a/x.npg" &&
	cp "$S/article/02-lprng.npg" "$TMP/b/x.npg" &&
	expect_exit 2 "$NPG" export -o "$TMP/none" "$TMP/a/x.npg" "$TMP/b/x.npg" &&
	grep -q "would both be program .x." "$TMP/stderr" && test ! -e "$TMP/none"
'

# refused FILE...: export -o $TMP/none refuses, exit 2, nothing written
refused() {
	expect_exit 2 "$NPG" export -o "$TMP/none" "$@" && test ! -e "$TMP/none"
}

test_expect "a program named as a file the export writes is refused, saying which; nothing written" '
	mkdir -p "$TMP/clash" &&
	for n in settings Makefile npg_kselftest npg_kst_wire; do
		cp "$S/article/01-cgiwrap.npg" "$TMP/clash/$n.npg"
	done &&
	refused "$TMP/clash/settings.npg" &&
	grep -qx "nprocguard export: $TMP/clash/settings.npg: program .settings.: it would be built over .settings., kselftest.s settings file, which the export writes; rename the file" "$TMP/stderr" &&
	refused "$S/article/02-lprng.npg" "$TMP/clash/Makefile.npg" &&
	grep -q "Makefile.npg: program .Makefile.: it would be built over .Makefile., the tests. Makefile, which the export writes; rename the file$" "$TMP/stderr" &&
	refused "$TMP/clash/npg_kst_wire.npg" &&
	grep -q "npg_kst_wire.npg: program .npg_kst_wire.: its source .npg_kst_wire.c. would be written over the runtime.s file of that name; rename the file$" "$TMP/stderr"
'

# from what the export writes, not a list kept here: every .c of the runtime,
# every target of the Makefile it writes
test_expect "every file of the runtime and every target of the written Makefile is refused as a name" '
	targets=$(sed -n "s/^\.PHONY: *//p" "$K/Makefile") && test -n "$targets" &&
	for n in $targets; do grep -q "^$n:" "$K/Makefile" || { echo "no rule $n"; exit 1; }; done &&
	n=0 &&
	for f in "$TOP"/src/export/kselftest/*.c $targets; do
		b=${f##*/} && b=${b%.c} && n=$((n + 1))
		cp "$S/article/01-cgiwrap.npg" "$TMP/clash/$b.npg"
		refused "$TMP/clash/$b.npg" || exit 1
		grep -q "^nprocguard export: $TMP/clash/$b.npg: program .$b.: .*; rename the file$" \
			"$TMP/stderr" || { cat "$TMP/stderr"; exit 1; }
	done && test $n -ge 5
'

test_expect "kselftest lib.mk targets and files, make's makefile names and a leading '-' are refused" '
	for n in install emit_tests gen_mods_dir clean_mods_dir config GNUmakefile makefile -x; do
		cp "$S/article/01-cgiwrap.npg" "$TMP/clash/$n.npg"
		refused "$TMP/clash/$n.npg" || exit 1
	done &&
	grep -q "program .-x.: it begins with .-.: cc and make would take it for an option; rename the file$" "$TMP/stderr" &&
	refused "$TMP/clash/install.npg" &&
	grep -q "program .install.: .install. is a target of kselftest.s lib.mk, which the Makefile includes in a kernel tree" "$TMP/stderr" &&
	refused "$TMP/clash/config.npg" &&
	grep -q "program .config.: .config. is a file that kselftest.s lib.mk installs from a test.s directory and kselftest-merge reads as a kernel configuration" "$TMP/stderr" &&
	refused "$TMP/clash/makefile.npg" &&
	grep -q "program .makefile.: make(1) would read a file named .makefile. as the makefile" "$TMP/stderr"
'

test_expect "one run says every clash of its files, then that nothing was written" '
	cp "$S/article/02-lprng.npg" "$TMP/clash/x.npg" && mkdir -p "$TMP/clash2" &&
	cp "$S/article/02-lprng.npg" "$TMP/clash2/x.npg" &&
	refused "$TMP/clash/all.npg" "$S/article/01-cgiwrap.npg" "$TMP/clash/-x.npg" \
		"$TMP/clash/x.npg" "$TMP/clash2/x.npg" "$TMP/clash/settings.npg" &&
	test $(grep -c "; rename the file$" "$TMP/stderr") -eq 3 &&
	grep -q "x.npg would both be program .x.$" "$TMP/stderr" &&
	test "$(tail -n 1 "$TMP/stderr")" = "nprocguard export: nothing was written"
'

test_expect "names that only begin like one of those export and build" '
	mkdir -p "$TMP/near" &&
	for n in settings2 all_ Makefile_x npg_kst x-; do
		cp "$S/article/01-cgiwrap.npg" "$TMP/near/$n.npg"
	done &&
	expect_exit 0 "$NPG" export -o "$TMP/nearout" "$TMP/near"/*.npg &&
	make -s -C "$TMP/nearout" >"$TMP/make" 2>&1 || { cat "$TMP/make"; exit 1; }
	for n in settings2 all_ Makefile_x npg_kst x-; do test -x "$TMP/nearout/$n" || exit 1; done &&
	grep -qx "timeout=180" "$TMP/nearout/settings"
'

test_expect "-o that is a file, a FIFO, a device, a link to nothing or empty is refused, saying so" '
	: >"$TMP/plain" && mkfifo "$TMP/fifo" && ln -s "$TMP/nowhere" "$TMP/dangling" &&
	ln -s "$TMP/plain" "$TMP/filelink" &&
	for o in "$TMP/plain" "$TMP/fifo" "$TMP/filelink" /dev/null; do
		expect_exit 2 "$NPG" export -o "$o" "$S/article/01-cgiwrap.npg" || exit 1
		grep -qx "nprocguard export: $o: Not a directory" "$TMP/stderr" || { cat "$TMP/stderr"; exit 1; }
	done &&
	test ! -s "$TMP/plain" && test -p "$TMP/fifo" &&
	expect_exit 2 "$NPG" export -o "$TMP/dangling" "$S/article/01-cgiwrap.npg" &&
	grep -qx "nprocguard export: $TMP/dangling: No such file or directory (a symbolic link to nothing)" "$TMP/stderr" &&
	expect_exit 2 "$NPG" export -o "" "$S/article/01-cgiwrap.npg" &&
	grep -qx "nprocguard export: bad --out .\{2\}: empty (a directory)" "$TMP/stderr" &&
	mkdir "$TMP/real" && ln -s "$TMP/real" "$TMP/dirlink" &&
	expect_exit 0 "$NPG" export -o "$TMP/dirlink" "$S/article/01-cgiwrap.npg" && test -s "$TMP/real/Makefile"
'

test_expect "in a directory others can write, links planted at the temporary names are not followed" '
	mkdir -p "$TMP/shared" && echo precious >"$TMP/victim" &&
	for f in "$TOP"/src/export/kselftest/* settings Makefile 01-cgiwrap.c; do
		ln -s "$TMP/victim" "$TMP/shared/.${f##*/}.tmp"
	done &&
	(umask 027 && "$NPG" export -o "$TMP/shared" "$S/article/01-cgiwrap.npg") &&
	test "$(cat "$TMP/victim")" = precious &&
	test "$(stat -c %a "$TMP/shared/Makefile")" = 640 && grep -q "^TEST_GEN_PROGS := 01-cgiwrap$" "$TMP/shared/Makefile"
'

test_expect "a write error is an error" '
	if [ -w /dev/full ]; then
		: >"$TMP/file" && expect_exit 2 "$NPG" export -o "$TMP/file" "$S/article/01-cgiwrap.npg" &&
		grep -q "nprocguard export: " "$TMP/stderr"
	fi
'

# The test's own command line and environment: refused before it starts,
# as root or not (kselftest's 1: a misconfigured run is a failure, not a skip)
test_expect "NPG_KSELFTEST_TIMEOUT out of range or not a number is refused (exit 1), naming it" '
	for v in 4294967296 2147483648 abc 0 -5 10x " 10"; do
		NPG_KSELFTEST_TIMEOUT=$v expect_exit 1 "$K/01-cgiwrap" || exit 1
		grep -qx "$K/01-cgiwrap: NPG_KSELFTEST_TIMEOUT: bad value .$v. (seconds, 1 to 2147483647)" \
			"$TMP/stderr" || { cat "$TMP/stderr"; exit 1; }
		test ! -s "$TMP/stdout" || exit 1
	done
'

test_expect "-u with a bad value names it; a stray argument or option is refused (exit 1)" '
	expect_exit 1 "$K/01-cgiwrap" -u abc &&
	grep -qx "$K/01-cgiwrap: -u: bad value .abc. (a uid base, 0 to 4294963198: uids BASE..BASE+4095 are the test.s)" \
		"$TMP/stderr" && test ! -s "$TMP/stdout" &&
	expect_exit 1 "$K/01-cgiwrap" -u 4294963199 && grep -q "bad value .4294963199." "$TMP/stderr" &&
	expect_exit 1 "$K/01-cgiwrap" extra &&
	grep -qx "$K/01-cgiwrap: unexpected argument .extra." "$TMP/stderr" &&
	grep -qx "Try .$K/01-cgiwrap -h. for more information." "$TMP/stderr" &&
	expect_exit 1 "$K/01-cgiwrap" -u 3000000000 -- more && grep -q "unexpected argument .more." "$TMP/stderr" &&
	expect_exit 1 "$K/01-cgiwrap" -x && grep -q "invalid option" "$TMP/stderr" &&
	expect_exit 1 "$K/01-cgiwrap" __npg_kselftest_puppet &&
	grep -q "unexpected argument .__npg_kselftest_puppet." "$TMP/stderr"
'

test_expect "a bad NPG_UID_BASE is refused unless -u overrides it; -h says every range" '
	NPG_UID_BASE=3000000000x expect_exit 1 "$K/01-cgiwrap" &&
	grep -q ": NPG_UID_BASE: bad value .3000000000x. (a uid base" "$TMP/stderr" &&
	NPG_UID_BASE=x NPG_KSELFTEST_TIMEOUT= expect_exit 0 "$K/01-cgiwrap" -u 3000000000 -h &&
	grep -q "^ *uids BASE\.\.BASE+4095 must be unused; 0 to 4294963198$" "$TMP/stdout" &&
	grep -q "^Environment: NPG_KSELFTEST_TIMEOUT (seconds, 1 to 2147483647, default 120)\.$" "$TMP/stdout" &&
	if [ -w /dev/full ]; then
		"$K/01-cgiwrap" -h >/dev/full 2>/dev/null; test $? -eq 1
	fi
'

if [ "$(id -u)" -ne 0 ]; then
	test_skip "running the exported tests" "needs root: they create processes of other users"
	test_done
	exit 0
fi

test_expect "not root: each test skips (exit 4) and says why" '
	d=$(reach_copy "$K/01-cgiwrap") &&
	setpriv --reuid=65534 --regid=65534 --clear-groups "$d/01-cgiwrap" >"$TMP/o" 2>&1; rc=$?
	cat "$TMP/o"; test $rc -eq 4 && grep -q "^1..0 # SKIP needs root" "$TMP/o"
'

test_expect "output it cannot write fails the test (1), saying why; so does a skip nobody can read" '
	"$K/07-off-by-one" >/dev/full 2>"$TMP/err"; rc=$?
	test $rc -eq 1 && grep -qx "$K/07-off-by-one: write error: No space left on device" "$TMP/err" &&
	no_leftovers &&
	"$K/07-off-by-one" >&- 2>"$TMP/err"; rc=$?
	test $rc -eq 1 && grep -q "standard output is closed: the test.s TAP would be lost" "$TMP/err" &&
	d=$(reach_copy "$K/01-cgiwrap") &&
	setpriv --reuid=65534 --regid=65534 --clear-groups "$d/01-cgiwrap" >/dev/full 2>"$TMP/err"; rc=$?
	test $rc -eq 1 && grep -q "write error: No space left on device" "$TMP/err"
'

test_expect "every seed scenario passes here as root, and leaves nothing behind" '
	for t in 01-cgiwrap 02-lprng 03-unchecked-drop 04-brown-race 05-peslyak-stale \
		 06-fork-setuid-bypass 07-off-by-one 08-zombies-threads 09-capability-exemptions; do
		"$K/$t" >"$TMP/$t.out" 2>&1; rc=$?
		[ $rc -eq 0 ] || { echo "$t: exit $rc"; cat "$TMP/$t.out"; exit 1; }
		grep -q "^TAP version 13$" "$TMP/$t.out" && grep -q "^1\.\.[0-9]*$" "$TMP/$t.out" &&
		! grep -q "^not ok" "$TMP/$t.out" || { cat "$TMP/$t.out"; exit 1; }
	done
	grep -q "^ok 3 - 14: session: setuid www$" "$TMP/03-unchecked-drop.out" &&
	grep -q "^# kernel .*; expectations of policy linux-6 (exported with --policy)$" \
		"$TMP/03-unchecked-drop.out" && no_leftovers
'

test_expect "what this machine cannot do is skipped, saying why; the rest still passes" '
	if [ $(( 0x$(sed -n "s/^CapBnd:\t//p" /proc/self/status) >> 24 & 1 )) -eq 0 ]; then
		grep -q "^ok 1 - 18: r: fork r1 # SKIP task .r. needs cap_sys_resource, which this machine.s bounding set lacks$" \
			"$TMP/09-capability-exemptions.out"
	fi &&
	grep -q "^ok [0-9]* - 19: check count root # SKIP root.s count here includes the machine.s own processes$" \
		"$TMP/02-lprng.out"
'

test_expect "exported without --policy, a test checks the running kernel's era and says so" '
	expect_exit 0 "$NPG" export -o "$TMP/era" "$S/article/07-off-by-one.npg" &&
	make -s -C "$TMP/era" >/dev/null 2>&1 &&
	expect_exit 0 "$TMP/era/07-off-by-one" &&
	grep -q "^# kernel $(uname -r); expectations of policy linux-[0-9.]*, this kernel.s era$" \
		"$TMP/stdout" && no_leftovers
'

test_expect "the exported language beyond the seeds: each test agrees with run --real" '
	set -- execve-from-thread glibc-threaded-setuid kill-permission dumpable \
		execve-enoent-clears-flag wait-on-a-thread bounding-without-sys-resource \
		setuid-root-program-at-limit nosuid-mount no-new-privs vfork-posix-spawn
	files= && for f; do files="$files $S/regression/$f.npg"; done &&
	expect_exit 0 "$NPG" export -o "$TMP/reg" $files && make -s -C "$TMP/reg" >/dev/null 2>&1 &&
	for f; do
		t=$(echo $f | tr -c "a-zA-Z0-9_\n-" _)
		"$TMP/reg/$t" >"$TMP/t.out" 2>&1 || { cat "$TMP/t.out"; exit 1; }
		"$NPG" run --real -u $BASE "$S/regression/$f.npg" >"$TMP/r.out" 2>&1
		held=$(sed -n "s/^[0-9]* expectations: \([0-9]*\) held, 0 failed.*/\1/p" "$TMP/r.out")
		pass=$(sed -n "s/^# Totals: pass:\([0-9]*\) fail:0 .*/\1/p" "$TMP/t.out")
		[ -n "$held" ] && [ "$held" = "$pass" ] || { echo "$f: run --real $held, test $pass"; exit 1; }
	done && no_leftovers &&
	! grep -q npg-kselftest-nosuid /proc/self/mounts &&
	! ls -d "${TMPDIR:-/tmp}"/npg-kselftest.* 2>/dev/null

'

test_expect "titles and paths with backslashes, trigraphs, spaces and */ build and print as written" '
	mkdir -p "$TMP/odd dir" &&
	printf "scenario \"a ??= title */ with \\\\\\\\ and ?? in it\"\nsource \"src ??( */\"\nuser root 0\nuser w-w 1000\ntask d uid root\nd: fork c => ok\nc: setuid w-w => ok\ncheck c uids => w-w w-w w-w\n" \
		>"$TMP/odd dir/we ird*.npg" &&
	expect_exit 0 "$NPG" export -o "$TMP/odd" "$TMP/odd dir/we ird*.npg" &&
	make -s -C "$TMP/odd" CFLAGS="-O2 -Wall -Wextra -Werror -D_GNU_SOURCE -pthread" >/dev/null 2>&1 &&
	expect_exit 0 "$TMP/odd/we_ird_" &&
	grep -qF "# $TMP/odd dir/we ird*.npg: a ??= title */ with \\\\ and ?? in it" "$TMP/stdout" &&
	grep -qF "# source: src ??( */" "$TMP/stdout" && grep -q "^ok 3 - 8: check c uids$" "$TMP/stdout"
'

test_expect "a file whose policies leave out this kernel's era is skipped as a whole (exit 4)" '
	printf "policies linux-2.4\nuser root 0\ntask d uid root\nd: fork c => ok\n" >"$TMP/old.npg" &&
	expect_exit 0 "$NPG" export -o "$TMP/old" "$TMP/old.npg" && make -s -C "$TMP/old" >/dev/null 2>&1 &&
	expect_exit 4 "$TMP/old/old" &&
	grep -q "^1\.\.0 # SKIP the scenario.s policies leave out linux-[0-9.]*: it expects nothing of it$" \
		"$TMP/stdout" && no_leftovers
'

# A uid that no user line names is a user all the same (issue 23): its
# ids come from npg_scenario_ids() as the real backend's do, laid out in
# the window, and its count is read there
test_expect "a uid no user line names: counted and compared, as run --real does" '
	printf "%s\n" "user root 0" "task d uid root" "task a uid 31158" "a: thread t1" \
		"check count 31158 => 2" "d: fork c => ok" "c: setuid 31159 => ok" \
		"check count 31159 => 1" "check c uids => 31159 31159 31159" >"$TMP/num.npg" &&
	expect_exit 0 "$NPG" export --policy linux-6 -o "$TMP/num" "$TMP/num.npg" &&
	make -s -C "$TMP/num" >/dev/null 2>&1 &&
	expect_exit 0 "$TMP/num/num" &&
	grep -q "^ok [0-9]* - 5: check count 31158$" "$TMP/stdout" &&
	grep -q "^ok [0-9]* - 8: check count 31159$" "$TMP/stdout" &&
	grep -q "^# Totals: pass:5 fail:0 " "$TMP/stdout" &&
	expect_exit 0 "$NPG" run --real -u $BASE "$TMP/num.npg" &&
	grep -q "^5 expectations: 5 held, 0 failed" "$TMP/stdout" && no_leftovers
'

test_expect "a failing expectation: not ok with file:line, the step, expected and got; exit 1" '
	printf "user root 0\nuser www 1000 procs 1\ntask d uid root\nd: fork c => ok\nc: setuid www => ok\ncheck count www => 5\ncheck c uids => www www www\n" >"$TMP/wrong.npg"
	expect_exit 0 "$NPG" export --policy linux-6 -o "$TMP/wrong" "$TMP/wrong.npg" &&
	make -s -C "$TMP/wrong" >/dev/null 2>&1 &&
	expect_exit 1 "$TMP/wrong/wrong" &&
	grep -q "^not ok 3 - $TMP/wrong.npg:6: check count www: expected 5, got 2$" "$TMP/stdout" &&
	grep -q "^ok 4 - 7: check c uids$" "$TMP/stdout" &&
	grep -q "^# Totals: pass:3 fail:1 " "$TMP/stdout" && no_leftovers
'

test_expect "a busy uid window is refused, and its process left alone" '
	setpriv --reuid=$((BASE + 7)) --regid=$((BASE + 7)) --clear-groups sleep 30 & sleeper=$!
	sleep 0.3
	"$K/01-cgiwrap" >"$TMP/o" 2>&1; rc=$?
	alive=no; kill -0 $sleeper 2>/dev/null && alive=yes
	kill $sleeper; wait $sleeper 2>/dev/null
	cat "$TMP/o"; test $rc -eq 1 && test $alive = yes &&
	grep -q "^Bail out! pid $sleeper already runs with a uid in $BASE\.\." "$TMP/o" && no_leftovers
'

test_expect "SIGINT mid-test: every task killed and reaped, where it stood said, status 130" '
	NPG_KSELFTEST_DELAY_MS=400 timeout --preserve-status -s INT 2 "$K/08-zombies-threads" \
		>"$TMP/o" 2>&1; rc=$?
	cat "$TMP/o"; test $rc -eq 130 &&
	grep -q "^Bail out! interrupted by SIGINT at .*08-zombies-threads.npg:[0-9]*; every task of the test was killed and reaped$" \
		"$TMP/o" && no_leftovers
'

test_expect "SIGTERM (kselftest runner timeout) likewise, status 143" '
	NPG_KSELFTEST_DELAY_MS=400 timeout --preserve-status -s TERM 2 "$K/06-fork-setuid-bypass" \
		>"$TMP/o" 2>&1; rc=$?
	test $rc -eq 143 && grep -q "^Bail out! interrupted by SIGTERM" "$TMP/o" && no_leftovers
'

test_expect "the test's own timeout ends it, failed, with nothing left" '
	NPG_KSELFTEST_TIMEOUT=1 NPG_KSELFTEST_DELAY_MS=400 "$K/08-zombies-threads" >"$TMP/o" 2>&1; rc=$?
	test $rc -eq 1 &&
	grep -q "^Bail out! .*08-zombies-threads.npg:[0-9]*: the test did not end within its timeout; every task" \
		"$TMP/o" && no_leftovers
'

test_expect "killed outright (SIGKILL), its tasks end by themselves" '
	NPG_KSELFTEST_DELAY_MS=400 "$K/04-brown-race" >/dev/null 2>&1 & pid=$!
	sleep 1.5; kill -KILL $pid; wait $pid 2>/dev/null
	no_leftovers_after_init
'

test_done
