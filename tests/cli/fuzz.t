#!/bin/sh
# The fuzz harnesses of fuzz/ without libFuzzer ($NPG_BUILD/fuzz/replay-NAME,
# built by every build with its compiler and sanitizers): each replays its
# corpus (fuzz/corpus/NAME) and the inputs of the bugs it found
# (fuzz/regress/NAME), which must all pass now.
. "$(dirname "$0")/lib.sh"

test_expect "every harness of fuzz/ is built for replay and has a corpus" '
	n=0 &&
	for h in "$TOP"/fuzz/fuzz-*.c; do
		t=${h##*/fuzz-} && t=${t%.c} && n=$((n + 1))
		test -x "$NPG_BUILD/fuzz/replay-$t" || { echo "no replay-$t"; exit 1; }
		test -n "$(ls "$TOP/fuzz/corpus/$t" 2>/dev/null)" || { echo "no corpus for $t"; exit 1; }
	done && test $n -ge 5
'

for h in "$TOP"/fuzz/fuzz-*.c; do
	t=${h##*/fuzz-} && t=${t%.c}
	test_expect "fuzz-$t: its corpus replays without a crash, a leak or a sanitizer's report" '
		expect_exit 0 "$NPG_BUILD/fuzz/replay-$t" "$TOP/fuzz/corpus/$t" &&
		grep -q "^replay: [1-9][0-9]* inputs$" "$TMP/stdout"
	'
	if [ -d "$TOP/fuzz/regress/$t" ]; then
		for f in "$TOP/fuzz/regress/$t"/*; do
			test_expect "fuzz-$t: ${f##*/} (a bug it found) passes now" '
				expect_exit 0 "$NPG_BUILD/fuzz/replay-$t" "$f" &&
				grep -q "^replay: 1 inputs$" "$TMP/stdout" && test ! -s "$TMP/stderr"
			'
		done
	fi
done

test_done
