#!/bin/sh
# nprocguard explore: concurrent programs, properties over every
# interleaving, shortest counterexamples that replay, bounds, bad input.
. "$(dirname "$0")/lib.sh"
A="$TOP/scenarios/article"
C="$A/concurrent"

test_expect "the verdict table reproduces the article's claims on the seed scenarios" '
	expect_exit 1 "$NPG" explore -q "$A" &&
	cat >"$TMP/want" <<-\EOT &&
	POLICY           no-root-after-failed-drop limit-holds          no-collateral-execve-failure no-stale-failure     setuid-never-fails   always/never
	linux-2.4        holds                     violated (3 steps)   holds                        holds                holds                holds
	linux-2.6        violated (5 steps)        holds                holds                        holds                violated (3 steps)   holds
	ow-2006          holds                     holds                holds                        holds                violated (3 steps)   violated (4 steps)
	kulikov-2011     holds                     violated (3 steps)   violated (4 steps)           holds                holds                holds
	brown-flag-2011  holds                     violated (3 steps)   holds                        violated (5 steps)   holds                holds
	linux-3.1        holds                     violated (3 steps)   holds                        holds                holds                holds
	linux-5.14       holds                     violated (3 steps)   holds                        holds                holds                holds
	linux-6          holds                     violated (3 steps)   holds                        holds                holds                holds
	EOT
	head -9 "$TMP/stdout" >"$TMP/got" &&
	diff -u "$TMP/want" "$TMP/got"
'

test_expect "a directory gives its concurrent files only; the sequential ones are left to run" '
	expect_exit 1 "$NPG" explore -q --policy linux-2.6 -s "$A" &&
	test "$(grep -c "states stored" "$TMP/stdout")" = 5 &&
	! grep -q "article/03-unchecked-drop" "$TMP/stdout"
'

test_expect "the stale failure is found in the fewest steps: fork, setrlimit, setuid, one exit, execve" '
	expect_exit 1 "$NPG" explore --policy brown-flag-2011 -P no-stale-failure "$C/03-peslyak-stale-flag.npg" &&
	grep -q "no-stale-failure violated in 5 steps" "$TMP/stdout" &&
	grep -q "^     4  w[12] *exit" "$TMP/stdout" &&
	grep -q "^     5  session *execve /bin/sh *EAGAIN" "$TMP/stdout" &&
	grep -q "while its user has 2 tasks, at or below its limit 2" "$TMP/stdout"
'

test_expect "symmetry reduction stores fewer states and finds counterexamples of the same length" '
	for pol in linux-2.4 linux-2.6 ow-2006 kulikov-2011 brown-flag-2011 linux-3.1 linux-5.14 linux-6; do
		for f in "$C"/*.npg; do
			"$NPG" explore -q -s --policy $pol "$f" >"$TMP/sym" 2>&1
			"$NPG" explore -q -s --no-symmetry --policy $pol "$f" >"$TMP/nosym" 2>&1
			"$NPG" explore --policy $pol "$f" | grep -o "violated in [0-9]* steps*" >"$TMP/a"
			"$NPG" explore --no-symmetry --policy $pol "$f" | grep -o "violated in [0-9]* steps*" >"$TMP/b"
			cmp -s "$TMP/a" "$TMP/b" || { echo "$pol $f: lengths differ"; exit 1; }
			s=$(sed -n "s/.*: \([0-9]*\) states stored.*/\1/p" "$TMP/sym")
			n=$(sed -n "s/.*: \([0-9]*\) states stored.*/\1/p" "$TMP/nosym")
			test "$s" -le "$n" || { echo "$pol $f: $s > $n"; exit 1; }
		done
	done &&
	"$NPG" explore -q -s --policy linux-6 "$C/04-fork-setuid-bypass.npg" >"$TMP/sym";
	"$NPG" explore -q -s --no-symmetry --policy linux-6 "$C/04-fork-setuid-bypass.npg" >"$TMP/nosym";
	s=$(sed -n "s/.*: \([0-9]*\) states stored.*/\1/p" "$TMP/sym") &&
	n=$(sed -n "s/.*: \([0-9]*\) states stored.*/\1/p" "$TMP/nosym") &&
	test "$s" -lt "$n"
'

test_expect "partial-order reduction keeps every verdict and shortest length, and stores no more states when a property holds" '
	sh "$TOP/bench/explore-vs-spin/scenario.sh" 3 >"$TMP/race3.npg" &&
	for pol in linux-2.4 linux-2.6 ow-2006 kulikov-2011 brown-flag-2011 linux-3.1 linux-5.14 linux-6; do
		for f in "$C"/*.npg "$TMP/race3.npg"; do
			for P in no-root-after-failed-drop limit-holds no-collateral-execve-failure \
				 no-stale-failure setuid-never-fails; do
				"$NPG" explore -s --policy $pol -P $P "$f" >"$TMP/por" 2>&1; a=$?
				"$NPG" explore -s --no-por --policy $pol -P $P "$f" >"$TMP/nopor" 2>&1; b=$?
				test $a = $b || { echo "$pol $f $P: exit $a, without $b"; exit 1; }
				grep -o "holds$\|violated in [0-9]* steps*" "$TMP/por" >"$TMP/a"
				grep -o "holds$\|violated in [0-9]* steps*" "$TMP/nopor" >"$TMP/b"
				cmp -s "$TMP/a" "$TMP/b" || { echo "$pol $f $P: verdicts differ"; exit 1; }
				test $a = 0 || continue
				r=$(sed -n "s/.*: \([0-9]*\) states stored.*/\1/p" "$TMP/por")
				n=$(sed -n "s/.*: \([0-9]*\) states stored.*/\1/p" "$TMP/nopor")
				test "$r" -le "$n" || { echo "$pol $f $P: $r > $n"; exit 1; }
			done
		done
	done &&
	"$NPG" explore -q -s --policy linux-3.1 -P no-collateral-execve-failure "$TMP/race3.npg" >"$TMP/por" &&
	"$NPG" explore -q -s --no-por --policy linux-3.1 -P no-collateral-execve-failure "$TMP/race3.npg" >"$TMP/nopor" &&
	r=$(sed -n "s/.*: \([0-9]*\) states stored.*/\1/p" "$TMP/por") &&
	n=$(sed -n "s/.*: \([0-9]*\) states stored.*/\1/p" "$TMP/nopor") &&
	test "$r" -lt "$n"
'

test_expect "a private step taken first for reduction is dropped from the counterexample, which replays" '
	cat >"$TMP/trim.npg" <<-\EOT &&
	user root 0
	user www 1000 procs 1
	task a uid root
	task b uid www
	a runs:
	    setgroups none
	    setgid www
	b runs:
	    fork c
	never count www >= 3
	EOT
	expect_exit 1 "$NPG" explore --policy linux-6 -P setuid-never-fails --out "$TMP" "$TMP/trim.npg" &&
	grep -q "never count www >= 3 violated in 1 step$" "$TMP/stdout" &&
	! grep -q "setgid" "$TMP/stdout" &&
	"$NPG" run "$TMP"/trim.linux-6.*.npg >"$TMP/run" &&
	grep -q "expectations: 4 held, 0 failed" "$TMP/run"
'

test_expect "a private call that a property judges is not dropped: after a failed drop, setgid as root is the violation" '
	cat >"$TMP/judged.npg" <<-\EOT &&
	user root 0
	user www 1000 procs 1
	task t0 uid root nproc 2 2
	task t1 uid www
	t0 runs:
	    setuid www
	    setgid root
	t1 runs:
	    execve /bin/sh
	EOT
	for por in "" --no-por; do
		expect_exit 1 "$NPG" explore $por --policy linux-2.6 -P no-root-after-failed-drop "$TMP/judged.npg" &&
		grep -q "no-root-after-failed-drop violated in 2 steps" "$TMP/stdout" &&
		grep -q "^     2  t0 *setgid root" "$TMP/stdout" || exit 1
	done
'

test_expect "every counterexample is a sequential scenario that run replays on the model" '
	mkdir "$TMP/cx" &&
	expect_exit 1 "$NPG" explore -q --out "$TMP/cx" "$A" &&
	test "$(ls "$TMP/cx"/*.npg | wc -l)" -ge 20 &&
	test "$(ls "$TMP/cx"/*.dot | wc -l)" = "$(ls "$TMP/cx"/*.npg | wc -l)" &&
	"$NPG" run "$TMP/cx"/*.npg >"$TMP/run" &&
	tail -1 "$TMP/run" | grep -q "0 failed"
'

if [ "$(id -u)" = 0 ]; then
	test_expect "the linux-6 counterexample replays on the running kernel" '
		mkdir "$TMP/real" &&
		"$NPG" explore -q --policy linux-6 -P limit-holds --out "$TMP/real" "$C/04-fork-setuid-bypass.npg";
		f=$(ls "$TMP/real"/*.npg) &&
		"$NPG" run --real -u "$NPG_TEST_UID_BASE" "$f" >"$TMP/real.out" &&
		grep -q "expectations: .* held, 0 failed" "$TMP/real.out"
	'
else
	test_skip "the linux-6 counterexample replays on the running kernel" "needs root"
fi

test_expect "--replay-kernel needs one policy: the model the kernel is compared with" '
	expect_exit 2 "$NPG" explore --replay-kernel "$TMP/no-image" "$C" &&
	grep -q "needs one --policy" "$TMP/stderr"
'

# A real boot: the 3.0 image of $NPG_KERNELS (default ../shared/kernels), the linux-2.6 era
kdir=${NPG_KERNELS:-$TOP/../shared/kernels}
image=$(ls "$kdir"/*-3.0.*bzImage* 2>/dev/null | head -n 1)
name="the linux-2.6 counterexample (an unchecked setuid() keeps root) replays on a 3.0 kernel under QEMU"
if ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
	test_skip "$name" "qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)"
elif [ -z "$image" ]; then
	test_skip "$name" "no 3.0 kernel image in $kdir (set NPG_KERNELS)"
elif [ "$(id -u)" != 0 ]; then
	test_skip "$name" "needs root (conform --kernel)"
else
	test_expect "$name" '
		expect_exit 1 "$NPG" explore -q --policy linux-2.6 -P no-root-after-failed-drop \
			--replay-kernel "$image" "$C/01-brown-2003-unchecked-drop.npg" &&
		grep -q "no-root-after-failed-drop.npg: 8 statements: 8 agree, 0 differ" "$TMP/stdout" &&
		grep -q "^conform: 1 scenarios, 8 statements, 0 differences, .*kernel 3.0.8, model linux-2.6" "$TMP/stdout"
	'
fi

test_expect "--dot writes a message-sequence chart with one lane per task" '
	expect_exit 1 "$NPG" explore -q --policy kulikov-2011 -P no-collateral-execve-failure \
		--dot "$TMP/cx.dot" "$C/02-kulikov-2011-collateral.npg" &&
	grep -q "^digraph counterexample" "$TMP/cx.dot" &&
	grep -q "label=\"innocent\"" "$TMP/cx.dot" &&
	grep -q "label=\"session\"" "$TMP/cx.dot" &&
	grep -q "www=3" "$TMP/cx.dot"
'

test_expect "a sequential file is explored as its one interleaving" '
	expect_exit 1 "$NPG" explore --policy linux-2.6 -P no-root-after-failed-drop "$A/03-unchecked-drop.npg" &&
	grep -q "violated in 4 steps" "$TMP/stdout" &&
	expect_exit 0 "$NPG" explore --policy linux-6 -P no-root-after-failed-drop "$A/03-unchecked-drop.npg"
'

test_expect "run says a concurrent file is for explore" '
	expect_exit 2 "$NPG" run "$C/04-fork-setuid-bypass.npg" &&
	grep -q "04-fork-setuid-bypass.npg:13:1: a concurrent program" "$TMP/stderr" &&
	test "$(wc -l <"$TMP/stderr")" = 1
'

test_expect "a bound is said and exits 3, never a silent partial answer" '
	expect_exit 3 "$NPG" explore --policy linux-6 --max-states 3 "$C/04-fork-setuid-bypass.npg" &&
	grep -q "search incomplete: --max-states 3" "$TMP/stderr" &&
	grep -q "limit-holds unknown" "$TMP/stdout" &&
	expect_exit 3 "$NPG" explore -q --policy linux-6 --max-depth 2 "$C/04-fork-setuid-bypass.npg" &&
	grep -q "search incomplete: --max-depth 2" "$TMP/stderr" &&
	expect_exit 3 "$NPG" explore -q "$A" --max-states 5 &&
	grep -q "unknown (bound)" "$TMP/stdout"
'

test_expect "limit-holds+k: three sessions put www at L+2, not beyond" '
	expect_exit 0 "$NPG" explore --policy linux-6 -P limit-holds+2 "$C/04-fork-setuid-bypass.npg" &&
	expect_exit 1 "$NPG" explore --policy linux-6 -P limit-holds+1 "$C/04-fork-setuid-bypass.npg" &&
	grep -q "www has 4 tasks, over its limit 2 + 1" "$TMP/stdout"
'

write() { cat >"$TMP/$1"; }

test_expect "bad programs are reported as file:line:col" '
	write bad1.npg <<-\EOT &&
	user www 1000
	task a uid www
	a runs:
	    fork b
	    frobnicate
	    repeat 0: fork c
	    if it maybe: exit
	b runs:
	    setuid nobody
	ghost runs:
	    exit
	never a colour == red
	EOT
	expect_exit 2 "$NPG" explore "$TMP/bad1.npg" &&
	grep -q "bad1.npg:5:5: unknown operation .frobnicate." "$TMP/stderr" &&
	grep -q "bad1.npg:6:12: expected .repeat N: OPERATION. with N from 1 to 64" "$TMP/stderr" &&
	grep -q "bad1.npg:7:5: expected .if it failed: OPERATION." "$TMP/stderr" &&
	grep -q "bad1.npg:9:12: " "$TMP/stderr" &&
	grep -q "bad1.npg:10:1: no task .ghost. is declared or forked" "$TMP/stderr" &&
	grep -q "bad1.npg:12:7: " "$TMP/stderr"
'

test_expect "steps outside a program, unknown properties and options are refused" '
	write bad2.npg <<-\EOT &&
	user www 1000
	task a uid www
	a: setuid www
	a runs:
	    exit
	EOT
	expect_exit 2 "$NPG" explore "$TMP/bad2.npg" &&
	grep -q "bad2.npg:3:1: a step or check outside a .runs:. block" "$TMP/stderr" &&
	expect_exit 2 "$NPG" explore -P limit-holds+x "$C" &&
	grep -q "unknown property" "$TMP/stderr" &&
	expect_exit 2 "$NPG" explore --max-states 0 "$C" &&
	expect_exit 2 "$NPG" explore "$TMP/missing.npg" &&
	grep -q "missing.npg: No such file" "$TMP/stderr"
'

test_expect "always/never over a repeated task is checked for each of them" '
	write fam.npg <<-\EOT &&
	user root 0
	user www 1000 procs 1
	task daemon uid root
	daemon runs:
	    repeat 2: fork s
	s runs:
	    setrlimit nproc 1 1
	    setuid www
	never s flag
	always count www <= 2
	EOT
	expect_exit 1 "$NPG" explore --policy linux-3.1 -P limit-holds+5 "$TMP/fam.npg" &&
	grep -q "never s flag. does not hold for s.[12]" "$TMP/stdout" &&
	grep -q "always count www <= 2. does not hold" "$TMP/stdout" &&
	expect_exit 0 "$NPG" explore --policy linux-2.6 -P limit-holds+5 "$TMP/fam.npg"
'

test_done
