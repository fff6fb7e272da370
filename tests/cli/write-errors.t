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
test_done
