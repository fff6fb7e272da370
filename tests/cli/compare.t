#!/bin/sh
# nprocguard compare KERNEL KERNEL: the same scenarios on two kernels (an
# image under QEMU, or this machine), what differs, who predicts each side;
# random scenarios that differ shrunk to minimal ones the kernels confirm.
. "$(dirname "$0")/lib.sh"

FAKE="$TOP/tests/cli/fixtures/fake-qemu"
DROP="$TOP/scenarios/article/03-unchecked-drop.npg"
export NPROCGUARD_CACHE="$TMP/cache"
BASE=$((NPG_TEST_UID_BASE + 40000))

test_expect "two kernels and files or --random are needed" '
	expect_exit 2 "$NPG" compare host "$DROP" &&
	grep -q "give two kernels, then scenario files or --random N" "$TMP/stderr" &&
	expect_exit 2 "$NPG" compare host host &&
	expect_exit 2 "$NPG" compare host host --random 3 "$DROP"
'

test_expect "--jobs is 1 to 64" '
	expect_exit 2 "$NPG" compare --jobs 65 host host "$DROP" &&
	grep -q -- "^nprocguard compare: bad --jobs .65.: .*1 to 64" "$TMP/stderr"
'

# Each refused value exits 2 and names the option and the value ("bad --seed
# '12x': junk after the number ..."); strtoull() took "+1" and " 1" as 1.
# Each command is a usage error with any value taken too (two kernels and
# neither files nor --random; or both), so that a value wrongly taken starts
# no run.
test_expect "--seed takes decimal digits only: empty, signed, junk after the number and past 2^64-1 are refused" '
	for v in "" -1 +1 " 1" 12x 18446744073709551616; do
		expect_exit 2 "$NPG" compare -u $BASE --seed "$v" host host &&
		grep -q "^nprocguard compare: bad --seed .$v.: [a-z ]* (a seed from 0 to 18446744073709551615)$" "$TMP/stderr" ||
		exit 1
	done
'

test_expect "--random takes a count of decimal digits only, 1 to 1000000" '
	for v in "" 0 -1 +3 " 3" 3x 1000001 99999999999999999999; do
		expect_exit 2 "$NPG" compare -u $BASE --random "$v" host host "$DROP" &&
		grep -q "^nprocguard compare: bad --random .$v.: [a-z ]* (a count from 1 to 1000000)$" "$TMP/stderr" ||
		exit 1
	done
'

test_expect "the largest --seed and --random are taken" '
	expect_exit 2 "$NPG" compare --seed 18446744073709551615 --random 1000000 host &&
	! grep -q "bad --" "$TMP/stderr" &&
	grep -q "give two kernels, then scenario files or --random N" "$TMP/stderr"
'

test_expect "the kernels are arguments, not --kernel" '
	expect_exit 2 "$NPG" compare --kernel "$FAKE" host host "$DROP" &&
	grep -q "the kernels are its first two arguments, not --kernel" "$TMP/stderr"
'

test_expect "a file that is not a kernel image is named" '
	head -c 8192 /dev/zero >"$TMP/zeros" &&
	expect_exit 2 "$NPG" compare "$TMP/zeros" host "$DROP" &&
	grep -q "zeros: not an x86 kernel image" "$TMP/stderr"
'

# One rule for -o (as export -o and conform): a missing directory is made
# before any work; before, compare refused it ("No such file or directory")
test_expect "--out: a missing directory is made before any kernel runs, a file is refused" '
	"$TOP/tests/cli/fixtures/fake-bzimage" "$TMP/img.bzImage" &&
	NPROCGUARD_QEMU="$TMP/no-qemu" expect_exit 3 "$NPG" compare -u $BASE --random 1 -o "$TMP/made" \
		"$TMP/img.bzImage" "$TMP/img.bzImage" &&
	[ -d "$TMP/made" ] && grep -q "cannot run $TMP/no-qemu" "$TMP/stderr" &&
	: >"$TMP/plain" &&
	NPROCGUARD_QEMU="$TMP/no-qemu" expect_exit 2 "$NPG" compare -u $BASE --random 1 -o "$TMP/plain" \
		"$TMP/img.bzImage" host &&
	grep -q "^nprocguard compare: --out $TMP/plain: Not a directory$" "$TMP/stderr" &&
	! grep -q "cannot run" "$TMP/stderr"
'

test_expect "a KERNEL that is neither host nor an image is named as given, not as --kernel" '
	expect_exit 2 "$NPG" compare host hots "$DROP" &&
	grep -q "^nprocguard compare: hots: No such file or directory (a KERNEL is .host. or a kernel image)$" "$TMP/stderr"
'

test_expect "a scenario that does not parse is refused before any kernel runs" '
	printf "task x uid nobody-declared\n" >"$TMP/bad.npg" &&
	NPROCGUARD_QEMU="$TMP/no-qemu" expect_exit 2 "$NPG" compare host host "$TMP/bad.npg" &&
	grep -q "bad.npg:1:" "$TMP/stderr"
'

if [ "$(id -u)" -ne 0 ]; then
	for t in "a kernel that gives no result: status 3, and why" \
		"the record of this kernel" "this kernel against itself: no difference" \
		"3.0.8 against this kernel: the 3.1 move, predicted" \
		"random scenarios: minimal ones written, confirmed on both kernels" \
		"the record of random scenarios: --seed 2^64-1 names them"; do
		test_skip "$t" "needs root (the real backend makes processes of other uids)"
	done
	test_done
	exit
fi

# An image with nothing but the setup header, its kernel version 9.9.9-fake
"$TOP/tests/cli/fixtures/fake-bzimage" "$TMP/fake.bzImage"

test_expect "a kernel that gives no result: status 3, and why" '
	FAKE_QEMU=panic NPROCGUARD_QEMU="$FAKE" expect_exit 3 "$NPG" compare -u $BASE "$TMP/fake.bzImage" host "$DROP" &&
	grep -q "^kernel 1: 9.9.9-fake ($TMP/fake.bzImage)" "$TMP/stdout" &&
	grep -q "the guest kernel panicked" "$TMP/stderr"
'

test_expect "the record of this kernel" '
	expect_exit 0 "$NPG" compare --record -u $BASE "$DROP" &&
	head -n 1 "$TMP/stdout" | grep -q "^npg-record 1$" &&
	grep -q "^host release $(uname -r)$" "$TMP/stdout" &&
	grep -q "^scenario $DROP$" "$TMP/stdout" &&
	[ $(grep -c "^stmt " "$TMP/stdout") -eq 8 ] &&
	grep -q "^field result	ok$" "$TMP/stdout" &&
	tail -n 1 "$TMP/stdout" | grep -q "^done$"
'

test_expect "the record of random scenarios: --seed 2^64-1 names them" '
	expect_exit 0 "$NPG" compare --record -u $BASE --random 2 --seed 18446744073709551615 &&
	grep -q "^scenario random-18446744073709551615-0$" "$TMP/stdout" &&
	grep -q "^scenario random-18446744073709551615-1$" "$TMP/stdout" &&
	tail -n 1 "$TMP/stdout" | grep -q "^done$"
'

test_expect "this kernel against itself: no difference" '
	expect_exit 0 "$NPG" compare -u $BASE host host "$DROP" &&
	grep -q "^kernel 1: $(uname -r) \[1\] (this machine)" "$TMP/stdout" &&
	grep -q "^compare: 1 scenarios, 8 statements, 0 differ, 0 unreproducible" "$TMP/stdout"
'

kdir=${NPG_KERNELS:-$TOP/../shared/kernels}
old=$(ls "$kdir"/*3.0.8*bzImage* 2>/dev/null | head -n 1)
if ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
	why="qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)"
elif [ -z "$old" ]; then
	why="no 3.0.8 image in $kdir (set NPG_KERNELS)"
else
	why=""
fi
if [ -n "$why" ]; then
	test_skip "3.0.8 against this kernel: the 3.1 move, predicted" "$why"
	test_skip "random scenarios: minimal ones written, confirmed on both kernels" "$why"
else
	# 3.0's set_user() refuses the uid change (EAGAIN); since 3.1 it
	# succeeds and flags the task, whose execve() then fails
	test_expect "3.0.8 against this kernel: the 3.1 move, predicted" '
		expect_exit 1 "$NPG" compare --jobs 2 --guest-timeout 900 -u $BASE "$old" host "$DROP" &&
		grep -q "^$DROP:14: session: setuid www: result: 3.0.8 EAGAIN, $(uname -r) ok$" "$TMP/stdout" &&
		grep -q "^$DROP:17: session: execve /bin/sh: result: 3.0.8 ok, $(uname -r) EAGAIN$" "$TMP/stdout" &&
		grep -q "^    predicted: 3.0.8 by linux-2.6; $(uname -r) by .*linux-6" "$TMP/stdout" &&
		grep -q "^compare: 1 scenarios, 8 statements, 5 differ, 0 unreproducible" "$TMP/stdout"
	'
	test_expect "random scenarios: minimal ones written, confirmed on both kernels" '
		mkdir -p "$TMP/minimal" &&
		expect_exit 1 "$NPG" compare --quiet --guest-timeout 900 -u $BASE --random 6 --seed 1 \
			--out "$TMP/minimal" "$old" host &&
		grep -q "^random: 6 scenarios (seed 1), [1-6] differ in the kernels.* rules; where they first part" "$TMP/stdout" &&
		grep -q "^minimal scenarios: [1-9][0-9]* of [1-9][0-9]* differ on both kernels, written to $TMP/minimal" "$TMP/stdout" &&
		for f in "$TMP"/minimal/compare-1-*.npg; do
			grep -q "^# predicted: 3.0.8 by linux-2.6 as 3.0.8" "$f" || exit 1
			"$NPG" compare --quiet -u $BASE "$old" host "$f" >/dev/null 2>&1
			[ $? -eq 1 ] || { echo "$f: does not differ"; exit 1; }
		done
	'
fi

test_done
