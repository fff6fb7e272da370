#!/bin/sh
# Output that cannot be written is an error (exit 2, "write error: REASON"),
# for every subcommand, as coreutils and util-linux tools do.
. "$(dirname "$0")/lib.sh"
A="$TOP/scenarios/article"

# full CMD...: stdout on /dev/full
full() {
	"$@" >/dev/full 2>"$TMP/stderr"
	_rc=$?
	[ $_rc -eq 2 ] || { echo "exit $_rc, want 2: $*"; cat "$TMP/stderr"; return 1; }
	grep -Eqx "nprocguard( [a-z]+)?: write error: No space left on device" "$TMP/stderr" ||
		{ echo "no write error message:"; cat "$TMP/stderr"; return 1; }
}
# closed CMD...: stdout closed
closed() {
	"$@" >&- 2>"$TMP/stderr"
	_rc=$?
	[ $_rc -eq 2 ] || { echo "exit $_rc, want 2: $*"; cat "$TMP/stderr"; return 1; }
	grep -Eqx "nprocguard( [a-z]+)?: write error: Bad file descriptor" "$TMP/stderr" ||
		{ echo "no write error message:"; cat "$TMP/stderr"; return 1; }
}

for f in text json tap; do
	test_expect "run -f $f >/dev/full exits 2 with a write error" "full \"\$NPG\" run -f $f \"\$A/01-cgiwrap.npg\""
	test_expect "run -f $f with stdout closed exits 2 with a write error" "closed \"\$NPG\" run -f $f \"\$A/01-cgiwrap.npg\""
done
test_expect "a long TAP run on a full disk exits 2 with a write error" '
	{ echo "task a uid 0"; yes "check a flag => clear" | head -n 20000; } >"$TMP/long.npg" &&
	full "$NPG" run -f tap "$TMP/long.npg"
'
test_expect "policies >/dev/full exits 2" 'full "$NPG" policies'
test_expect "policies --json with stdout closed exits 2" 'closed "$NPG" policies --json'
test_expect "status -J >/dev/full exits 2" 'full "$NPG" status -J'
test_expect "status with stdout closed exits 2" 'closed "$NPG" status'
test_expect "--help >/dev/full exits 2" 'full "$NPG" run --help'

# epipe CMD...: stdout a pipe whose reader is gone, SIGPIPE ignored (as
# under a supervisor that ignores it): EPIPE, said, exit 2 -- not a
# report lost in silence. (With SIGPIPE's default the tool dies of it,
# 128+13, as coreutils do.)
epipe() {
	perl -e '$SIG{PIPE} = "IGNORE"; pipe(R, W) or die; close R;
		open(STDOUT, ">&", \*W) or die; close W; exec @ARGV or die "$ARGV[0]: $!"' \
		"$@" 2>"$TMP/stderr"
	_rc=$?
	[ $_rc -eq 2 ] || { echo "exit $_rc, want 2: $*"; cat "$TMP/stderr"; return 1; }
	grep -Eqx "nprocguard( [a-z]+)?: write error: Broken pipe" "$TMP/stderr" ||
		{ echo "no write error message:"; cat "$TMP/stderr"; return 1; }
}

for c in run conform compare export explore policies status explain audit exec guest identify; do
	test_expect "$c --help >/dev/full names $c in its write error" '
		full "$NPG" '$c' --help && grep -qx "nprocguard '$c': write error: No space left on device" "$TMP/stderr"
	'
done
test_expect "run to a pipe with no reader: write error: Broken pipe, exit 2" 'epipe "$NPG" run "$A/01-cgiwrap.npg"'
test_expect "explore >/dev/full exits 2 with a write error" 'full "$NPG" explore -p linux-2.6 "$A/concurrent/01-brown-2003-unchecked-drop.npg"'
test_expect "explore to a pipe with no reader exits 2 with a write error" 'epipe "$NPG" explore "$A/concurrent"'
test_expect "explain >/dev/full exits 2 with a write error" '
	"$NPG" explain --source proc >/dev/null 2>&1; [ $? -le 1 ] || exit 0	# explain cannot run here
	"$NPG" explain --source proc >/dev/full 2>"$TMP/stderr"; [ $? -eq 2 ] &&
	grep -qx "nprocguard explain: write error: No space left on device" "$TMP/stderr"
'
test_expect "status --format prometheus >/dev/full exits 2 with a write error" '
	full "$NPG" status --source proc --format prometheus
'
test_expect "status --format prometheus to a pipe with no reader exits 2" '
	epipe "$NPG" status --source proc --format prometheus
'

# The guest's output is copied to our stdout as it comes, past stdio: a
# write that fails there is as much an error (the stand-in QEMU first,
# then a real kernel image)
stand_in_qemu
export NPROCGUARD_CACHE="$TMP/cache"
test_expect "guest >/dev/full (stand-in QEMU): write error, exit 2, not the program's status" '
	FAKE_QEMU=report NPROCGUARD_QEMU="$FAKE" full "$NPG" guest --kernel "$IMG" /bin/true &&
	grep -q "^a warning from the guest" "$TMP/stderr"
'
test_expect "guest with stdout closed (stand-in QEMU): write error: Bad file descriptor" '
	FAKE_QEMU=report NPROCGUARD_QEMU="$FAKE" closed "$NPG" guest --kernel "$IMG" /bin/true
'
test_expect "guest to a pipe with no reader (stand-in QEMU): write error: Broken pipe" '
	FAKE_QEMU=report NPROCGUARD_QEMU="$FAKE" epipe "$NPG" guest --kernel "$IMG" /bin/true
'
test_expect "conform --kernel >/dev/full (stand-in QEMU): the guest's report lost is an error" '
	FAKE_QEMU=report NPROCGUARD_QEMU="$FAKE" full "$NPG" conform --kernel "$IMG" "$A/01-cgiwrap.npg"
'
test_expect "guest with its output written in full is no error (its own status)" '
	FAKE_QEMU=report NPROCGUARD_QEMU="$FAKE" expect_exit 1 "$NPG" guest --kernel "$IMG" /bin/true
'

smallest_image
for t in "guest --kernel IMAGE -- seq >/dev/full" "conform --kernel IMAGE FILE >/dev/full" \
	"compare IMAGE IMAGE FILE >/dev/full" "explore --replay-kernel IMAGE >/dev/full" \
	"explore -q --replay-kernel IMAGE >/dev/full" "compare host IMAGE FILE >/dev/full"; do
	if [ -n "$why" ]; then
		test_skip "$t exits 2 with a write error" "$why"
		continue
	fi
	case $t in
	guest*) test_expect "$t exits 2 with a write error" '
		full "$NPG" guest --guest-timeout 600 --kernel "$image" -- /usr/bin/seq 1 10' ;;
	conform*) test_expect "$t exits 2 with a write error" '
		full "$NPG" conform --guest-timeout 600 --kernel "$image" "$A/01-cgiwrap.npg" &&
		grep -qx "nprocguard conform: write error: No space left on device" "$TMP/stderr"' ;;
	"compare IMAGE"*) test_expect "$t exits 2 with a write error" '
		full "$NPG" compare --guest-timeout 600 "$image" "$image" "$A/01-cgiwrap.npg"' ;;
	"explore --replay"*) test_expect "$t: the replay failed, not a disagreement; exit 2" '
		"$NPG" explore -p linux-2.6 --replay-kernel "$image" \
			"$A/concurrent/01-brown-2003-unchecked-drop.npg" >/dev/full 2>"$TMP/stderr";
		[ $? -eq 2 ] && ! grep -q "did not replay" "$TMP/stderr" &&
		grep -qx "nprocguard conform: write error: No space left on device" "$TMP/stderr" &&
		grep -qx "nprocguard explore: write error: No space left on device" "$TMP/stderr"' ;;
	"explore -q"*) test_expect "$t: the replay failed, not a disagreement; exit 2" '
		"$NPG" explore -q -p linux-2.6 --replay-kernel "$image" \
			"$A/concurrent/01-brown-2003-unchecked-drop.npg" >/dev/full 2>"$TMP/stderr";
		[ $? -eq 2 ] && ! grep -q "did not replay" "$TMP/stderr" &&
		grep -qx "nprocguard conform: write error: No space left on device" "$TMP/stderr"' ;;
	"compare host"*)
		if [ "$(id -u)" -ne 0 ]; then
			test_skip "$t exits 2 with a write error" "needs root: the host side runs on this kernel"
			continue
		fi
		test_expect "$t exits 2 with a write error" '
			full "$NPG" compare --guest-timeout 600 -u "$NPG_TEST_UID_BASE" host "$image" "$A/01-cgiwrap.npg"' ;;
	esac
done
test_done
