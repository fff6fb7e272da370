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

# Every seed file and bench/explore-vs-spin's scenario under every policy,
# limit-holds alone then the four others (whether a property reads limits
# changes which calls are local), with the options $1...: a line
# "FILE PROPERTIES POLICY STATES VERDICT..." each, in $TMP/verdicts
verdicts() {
	: >"$TMP/verdicts"
	for f in "$C"/*.npg "$TMP/race3.npg"; do
		for P in limit-holds \
			 no-root-after-failed-drop,no-collateral-execve-failure,no-stale-failure,setuid-never-fails; do
			"$NPG" explore -q -s "$@" -P $P "$f" >"$TMP/v" 2>&1
			test $? -le 1 || { cat "$TMP/v"; return 1; }
			awk -v f="${f##*/}" -v p="$P" "
				/ states stored/ { sub(/:\$/, \"\", \$2); states[\$2] = \$3; next }
				/^(linux|ow-|kulikov|brown)/ { \$1 = f \" \" p \" \" \$1 \" \" states[\$1]; print }
			" "$TMP/v" >>"$TMP/verdicts"
		done
	done
	test "$(wc -l <"$TMP/verdicts")" = 96
}

test_expect "each reduction keeps every verdict and shortest length: local calls merged, sleep sets, symmetry" '
	sh "$TOP/bench/explore-vs-spin/scenario.sh" 3 >"$TMP/race3.npg" &&
	for opts in "" "--no-sleep-sets" "--no-por" "--no-symmetry" "--no-symmetry --no-por"; do
		verdicts $opts &&
		mv "$TMP/verdicts" "$TMP/verdicts.$(echo x$opts | tr -d " -")" || exit 1
	done &&
	for opts in xnosleepsets xnopor xnosymmetry xnosymmetrynopor; do
		cut -d " " -f 1-3,5- "$TMP/verdicts.x" >"$TMP/a" &&
		cut -d " " -f 1-3,5- "$TMP/verdicts.$opts" >"$TMP/b" &&
		diff -u "$TMP/a" "$TMP/b" || { echo "differs with $opts"; exit 1; }
	done &&
	test "$(grep -o violated "$TMP/verdicts.x" | wc -l)" -ge 40 &&
	test "$(grep -o holds "$TMP/verdicts.x" | wc -l)" -ge 200
'

test_expect "where every property holds a reduction never stores more states, and sleep sets store as many" '
	test -s "$TMP/verdicts.x" &&
	for pair in "x xnopor" "xnosymmetry xnosymmetrynopor" "x xnosymmetry" "x xnosleepsets"; do
		set -- $pair
		paste -d " " "$TMP/verdicts.$1" "$TMP/verdicts.$2" | awk -v p="$pair" "
			{ n = NF / 2; held = \$0 !~ /violated/ }
			held && \$4 > \$(n + 4) { print p \": \" \$0; bad = 1 }
			held && p ~ /sleep/ && \$4 != \$(n + 4) { print p \": \" \$0; bad = 1 }
			END { exit bad }" || exit 1
	done &&
	"$NPG" explore -q -s --policy linux-3.1 -P no-collateral-execve-failure "$TMP/race3.npg" >"$TMP/por" &&
	"$NPG" explore -q -s --no-por --policy linux-3.1 -P no-collateral-execve-failure "$TMP/race3.npg" >"$TMP/nopor" &&
	r=$(sed -n "s/.*: \([0-9]*\) states stored.*/\1/p" "$TMP/por") &&
	n=$(sed -n "s/.*: \([0-9]*\) states stored.*/\1/p" "$TMP/nopor") &&
	test "$r" -lt "$n"
'

test_expect "the counterexamples of the article are, call for call, what they were" '
	for spec in "linux-2.4 limit-holds 02" "linux-2.6 no-root-after-failed-drop 01" \
		    "linux-2.6 setuid-never-fails 02" "ow-2006 setuid-never-fails 02" \
		    "kulikov-2011 limit-holds 02" "kulikov-2011 no-collateral-execve-failure 02" \
		    "brown-flag-2011 limit-holds 02" "brown-flag-2011 no-stale-failure 03" \
		    "linux-3.1 limit-holds 02" "linux-5.14 limit-holds 02" "linux-6 limit-holds 02" \
		    "ow-2006 no-root-after-failed-drop 05"; do
		set -- $spec
		"$NPG" explore --policy $1 -P $2 "$C"/$3-*.npg | grep -v "states stored\| holds$"
	done | sed "s|^$C/||" >"$TMP/got" &&
	cat >"$TMP/want" <<-\EOT &&
	02-kulikov-2011-collateral.npg: linux-2.4: limit-holds violated in 3 steps
	  STEP  TASK         CALL                     RESULT          UIDS AFTER       FLAG  COUNTS AFTER
	     1  daemon       fork session             ok              root root        clear root=2 www=2
	     2  session      setrlimit nproc 2 2      ok              root root        clear root=2 www=2
	     3  session      setuid www               ok              www www          clear root=1 www=3
	  => www has 3 tasks, over its limit 2
	01-brown-2003-unchecked-drop.npg: linux-2.6: no-root-after-failed-drop violated in 5 steps
	  STEP  TASK         CALL                     RESULT          UIDS AFTER       FLAG  COUNTS AFTER
	     1  daemon       fork session             ok              root root        clear root=2 www=1
	     2  session      setrlimit nproc 2 2      ok              root root        clear root=2 www=1
	     3  shell        fork job                 ok              www www          clear root=2 www=2
	     4  session      setuid www               EAGAIN          root root        clear root=2 www=2
	     5  session      execve /bin/sh           ok              root root        clear root=2 www=2
	  => session'"'"'s drop to a non-root user failed, and it went on to '"'"'execve'"'"' with effective uid 0
	02-kulikov-2011-collateral.npg: linux-2.6: setuid-never-fails violated in 3 steps
	  STEP  TASK         CALL                     RESULT          UIDS AFTER       FLAG  COUNTS AFTER
	     1  daemon       fork session             ok              root root        clear root=2 www=2
	     2  session      setrlimit nproc 2 2      ok              root root        clear root=2 www=2
	     3  session      setuid www               EAGAIN          root root        clear root=2 www=2
	  => session'"'"'s setuid failed with EAGAIN because of RLIMIT_NPROC
	02-kulikov-2011-collateral.npg: ow-2006: setuid-never-fails violated in 3 steps
	  STEP  TASK         CALL                     RESULT          UIDS AFTER       FLAG  COUNTS AFTER
	     1  daemon       fork session             ok              root root        clear root=2 www=2
	     2  session      setrlimit nproc 2 2      ok              root root        clear root=2 www=2
	     3  session      setuid www               killed SIGSEGV  -                clear root=2 www=2
	  => session'"'"'s setuid was killed (SIGSEGV) because of RLIMIT_NPROC
	02-kulikov-2011-collateral.npg: kulikov-2011: limit-holds violated in 3 steps
	  STEP  TASK         CALL                     RESULT          UIDS AFTER       FLAG  COUNTS AFTER
	     1  daemon       fork session             ok              root root        clear root=2 www=2
	     2  session      setrlimit nproc 2 2      ok              root root        clear root=2 www=2
	     3  session      setuid www               ok              www www          clear root=1 www=3
	  => www has 3 tasks, over its limit 2
	02-kulikov-2011-collateral.npg: kulikov-2011: no-collateral-execve-failure violated in 4 steps
	  STEP  TASK         CALL                     RESULT          UIDS AFTER       FLAG  COUNTS AFTER
	     1  daemon       fork session             ok              root root        clear root=2 www=2
	     2  session      setrlimit nproc 2 2      ok              root root        clear root=2 www=2
	     3  session      setuid www               ok              www www          clear root=1 www=3
	     4  innocent     execve /bin/true         EAGAIN          www www          clear root=1 www=3
	  => innocent'"'"'s execve failed with EAGAIN, yet innocent never crossed the limit through set*uid (its user has 3 tasks)
	02-kulikov-2011-collateral.npg: brown-flag-2011: limit-holds violated in 3 steps
	  STEP  TASK         CALL                     RESULT          UIDS AFTER       FLAG  COUNTS AFTER
	     1  daemon       fork session             ok              root root        clear root=2 www=2
	     2  session      setrlimit nproc 2 2      ok              root root        clear root=2 www=2
	     3  session      setuid www               ok              www www          set   root=1 www=3
	  => www has 3 tasks, over its limit 2
	03-peslyak-stale-flag.npg: brown-flag-2011: no-stale-failure violated in 5 steps
	  STEP  TASK         CALL                     RESULT          UIDS AFTER       FLAG  COUNTS AFTER
	     1  daemon       fork session             ok              root root        clear root=2 www=2
	     2  session      setrlimit nproc 2 2      ok              root root        clear root=2 www=2
	     3  session      setuid www               ok              www www          set   root=1 www=3
	     4  w1           exit                     ok              -                clear root=1 www=2
	     5  session      execve /bin/sh           EAGAIN          www www          set   root=1 www=2
	  => session'"'"'s execve failed with EAGAIN while its user has 2 tasks, at or below its limit 2
	02-kulikov-2011-collateral.npg: linux-3.1: limit-holds violated in 3 steps
	  STEP  TASK         CALL                     RESULT          UIDS AFTER       FLAG  COUNTS AFTER
	     1  daemon       fork session             ok              root root        clear root=2 www=2
	     2  session      setrlimit nproc 2 2      ok              root root        clear root=2 www=2
	     3  session      setuid www               ok              www www          set   root=1 www=3
	  => www has 3 tasks, over its limit 2
	02-kulikov-2011-collateral.npg: linux-5.14: limit-holds violated in 3 steps
	  STEP  TASK         CALL                     RESULT          UIDS AFTER       FLAG  COUNTS AFTER
	     1  daemon       fork session             ok              root root        clear root=2 www=2
	     2  session      setrlimit nproc 2 2      ok              root root        clear root=2 www=2
	     3  session      setuid www               ok              www www          clear root=1 www=3
	  => www has 3 tasks, over its limit 2
	02-kulikov-2011-collateral.npg: linux-6: limit-holds violated in 3 steps
	  STEP  TASK         CALL                     RESULT          UIDS AFTER       FLAG  COUNTS AFTER
	     1  daemon       fork session             ok              root root        clear root=2 www=2
	     2  session      setrlimit nproc 2 2      ok              root root        clear root=2 www=2
	     3  session      setuid www               ok              www www          clear root=1 www=3
	  => www has 3 tasks, over its limit 2
	05-peslyak-2006-hammer.npg: ow-2006: never careful killed violated in 4 steps
	  STEP  TASK         CALL                     RESULT          UIDS AFTER       FLAG  COUNTS AFTER
	     1  daemon       fork careful             ok              root root        clear root=2 www=1
	     2  careful      setrlimit nproc 2 2      ok              root root        clear root=2 www=1
	     3  shell        fork job                 ok              www www          clear root=2 www=2
	     4  careful      setuid www               killed SIGSEGV  -                clear root=2 www=2
	  => '"'"'never careful killed'"'"' does not hold (line 25)
	EOT
	diff -u "$TMP/want" "$TMP/got"
'

test_expect "a refused setuid root is a local call: merged into the state before, kept where the counterexample needs it" '
	cat >"$TMP/merged.npg" <<-\EOT &&
	user root 0
	user app 1001 procs 1
	task a uid app
	a runs:
	    setuid root
	    fork x
	always count app <= 2
	EOT
	for por in "" --no-por; do
		expect_exit 1 "$NPG" explore -s $por --policy linux-6 -P limit-holds "$TMP/merged.npg" &&
		grep -q "always count app <= 2 violated in 2 steps" "$TMP/stdout" &&
		grep -q "^     1  a *setuid root *EPERM" "$TMP/stdout" &&
		grep -q "^     2  a *fork x *ok" "$TMP/stdout" &&
		sed -n "s/.*: \([0-9]*\) states stored.*/\1/p" "$TMP/stdout" >"$TMP/n$por" || exit 1
	done &&
	test "$(cat "$TMP/n")" = 2 && test "$(cat "$TMP/n--no-por")" = 3
'

test_expect "the workers of bench/explore-vs-spin: the refused setuid root merged, 3*4^N states without symmetry" '
	for n in 3 4; do
		sh "$TOP/bench/explore-vs-spin/scenario.sh" $n >"$TMP/race$n.npg" &&
		"$NPG" explore -q -s --no-symmetry --policy linux-3.1 -P no-collateral-execve-failure \
			"$TMP/race$n.npg" >"$TMP/out$n" &&
		grep -q ": $((3 * (1 << (2 * n)))) states stored" "$TMP/out$n" || exit 1
	done
'

test_expect "sleep sets take each interleaving of independent calls once: a tree, nothing matched" '
	cat >"$TMP/indep.npg" <<-\EOT &&
	user www 1000
	task a uid www
	task b uid www
	task c uid www
	a b c runs:
	    execve /bin/true
	    execve /bin/sh
	EOT
	"$NPG" explore -q -s --no-symmetry --policy linux-6 "$TMP/indep.npg" >"$TMP/sleep" &&
	grep -q ": 27 states stored, 0 matched, 26 transitions" "$TMP/sleep" &&
	"$NPG" explore -q -s --no-symmetry --no-sleep-sets --policy linux-6 "$TMP/indep.npg" >"$TMP/nosleep" &&
	grep -q ": 27 states stored, 28 matched, 54 transitions" "$TMP/nosleep"
'

test_expect "NPG_EXPLORE_VERIFY=1 finds every footprint, count read and cached transition as claimed" '
	sh "$TOP/bench/explore-vs-spin/scenario.sh" 4 >"$TMP/race4.npg" &&
	for opts in "" "--no-symmetry" "--no-por"; do
		"$NPG" explore $opts "$C" "$TMP/race4.npg" >"$TMP/plain" 2>&1;
		NPG_EXPLORE_VERIFY=1 "$NPG" explore $opts "$C" "$TMP/race4.npg" >"$TMP/verified" 2>&1;
		test $? = 1 && diff "$TMP/plain" "$TMP/verified" || exit 1
	done
'

test_expect "a local call merged for reduction is dropped from the counterexample when nothing after needs it, which replays" '
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

test_expect "a call that a property judges is not local: after a failed drop, setgid as root is the violation" '
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

# One rule for -o (as export, conform, compare): a missing directory is
# made before the search; before, each counterexample failed to be written
# after it ("No such file or directory"), and a file there was found last
test_expect "--out: a missing directory is made before the search, a file is refused before it" '
	expect_exit 1 "$NPG" explore -q --policy linux-6 --out "$TMP/made" "$A" &&
	test "$(ls "$TMP/made"/*.npg | wc -l)" -ge 1 &&
	: >"$TMP/plain" &&
	expect_exit 2 "$NPG" explore -q --policy linux-6 --out "$TMP/plain" "$A" &&
	grep -q "^nprocguard explore: --out $TMP/plain: Not a directory$" "$TMP/stderr" &&
	[ "$(wc -l <"$TMP/stderr")" -eq 1 ]
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
