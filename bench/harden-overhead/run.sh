#!/bin/sh
# bench/harden-overhead: what libnprocguard-harden.so adds to a set*id call
# that succeeds. Peer: the same calls without the library, in the same run.
# Also a whole program that drops once (tests/audit/checked-drop) with and
# without it. Root only (the drop is from root).
set -eu
cd "$(dirname "$0")"
B=${NPG_BUILD:-../../build}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
chmod 1777 "$TMP"	# the dropped program writes here
[ "$(id -u)" -eq 0 ] || { echo "bench/harden-overhead: needs root"; exit 0; }
cc -O2 -o "$TMP/calls" calls.c
bare=$("$TMP/calls" 20000)
hard=$(LD_PRELOAD="$B/libnprocguard-harden.so" "$TMP/calls" 20000)
echo "set*id call, bare:            $bare ns"
echo "set*id call, with the library: $hard ns"
awk -v a="$bare" -v b="$hard" 'BEGIN { printf "ratio per call: %.1fx (%.1f us added)\n", b / a, (b - a) / 1000 }'
median_us() {
	i=0
	while [ $i -lt 31 ]; do
		t0=$(date +%s%N); "$@" >/dev/null 2>&1 || true; t1=$(date +%s%N)
		echo $(( (t1 - t0) / 1000 )); i=$((i + 1))
	done | sort -n | sed -n 16p
}
p_bare=$(median_us "$B/tests/audit/checked-drop" 3000900001 "$TMP/o")
p_hard=$(median_us env LD_PRELOAD="$B/libnprocguard-harden.so" "$B/tests/audit/checked-drop" 3000900001 "$TMP/o")
p_env=$(median_us env "$B/tests/audit/checked-drop" 3000900001 "$TMP/o")
echo "a program that drops once: bare $p_bare us, under env $p_env us, with the library $p_hard us"
awk -v a="$p_env" -v b="$p_hard" 'BEGIN { printf "ratio per program (same env wrapper): %.2fx\n", b / a }'
