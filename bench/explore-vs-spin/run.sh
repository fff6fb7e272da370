#!/bin/sh
# bench/explore-vs-spin: the same concurrent scenario checked exhaustively by
# nprocguard explore and by SPIN 6.5 (spin -a, cc -O2 -DSAFETY, ./pan), in
# the same run, for 3, 4 and 5 workers (WORKERS="3 4 5").
#
# The scenario (linux-3.1): N root workers each drop privileges as CERT
# POS36-C/POS37-C say (setgroups, setgid, RLIMIT_NPROC 2, setuid www, check
# that root cannot be regained) while www already runs 2 processes (one
# outside, one innocent task), exec if that works and exit; the innocent task of www execs twice. The
# property is no-collateral-execve-failure: an execve() fails with EAGAIN
# only in a task that itself crossed the limit through setuid(). It holds,
# so both tools visit every reachable state. scenario.sh writes the
# nprocguard file, model.sh the hand-written Promela model of the same
# rules (one Promela step per system call, as one model step per call).
#
# Prints, for each N: states stored, transitions, time and memory of each,
# and the ratios (SPIN end to end = spin -a + cc + pan, against nprocguard).
set -eu
cd "$(dirname "$0")"
NPG=${NPG:-../../build/nprocguard}
WORKERS=${WORKERS:-3 4 5}
PAN_W=${PAN_W:-20}	# pan's hash table: 2^20 slots (-w24 spends its time allocating 128 MiB)
command -v spin >/dev/null || { echo "bench/explore-vs-spin: needs spin (apt-get install spin)"; exit 1; }
[ -x "$NPG" ] || { echo "bench/explore-vs-spin: build nprocguard first (make)"; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM

ms() { date +%s%N | cut -c1-13; }	# milliseconds since the epoch

printf '%-3s %-22s %12s %12s %10s %10s\n' N tool states transitions "time ms" "mem MiB"
for n in $WORKERS; do
	sh scenario.sh "$n" >"$TMP/race$n.npg"
	sh model.sh "$n" >"$TMP/race$n.pml"

	t0=$(ms)
	"$NPG" explore -q -s --policy linux-3.1 -P no-collateral-execve-failure \
		"$TMP/race$n.npg" >"$TMP/npg$n.out" || { cat "$TMP/npg$n.out"; exit 1; }
	t1=$(ms)
	"$NPG" explore -q -s --no-symmetry --policy linux-3.1 -P no-collateral-execve-failure \
		"$TMP/race$n.npg" >"$TMP/nosym$n.out" || { cat "$TMP/nosym$n.out"; exit 1; }
	t2=$(ms)
	(cd "$TMP" && spin -a "race$n.pml" >/dev/null && cc -O2 -DSAFETY -o "pan$n" pan.c)
	t3=$(ms)
	(cd "$TMP" && "./pan$n" -m100000 -w"$PAN_W" >"pan$n.out" 2>&1)
	t4=$(ms)
	# for the record: SPIN without its partial-order reduction
	(cd "$TMP" && cc -O2 -DSAFETY -DNOREDUCE -o "panfull$n" pan.c &&
	 "./panfull$n" -m100000 -w"$PAN_W" >"panfull$n.out" 2>&1)
	grep -q "errors: 0" "$TMP/pan$n.out" || { cat "$TMP/pan$n.out"; exit 1; }

	npg_states=$(sed -n 's/.*: \([0-9]*\) states stored.*/\1/p' "$TMP/npg$n.out")
	npg_trans=$(sed -n 's/.* \([0-9]*\) transitions.*/\1/p' "$TMP/npg$n.out")
	npg_mem=$(sed -n 's/.*peak RSS \([0-9]*\) MiB.*/\1/p' "$TMP/npg$n.out")
	ns_states=$(sed -n 's/.*: \([0-9]*\) states stored.*/\1/p' "$TMP/nosym$n.out")
	ns_trans=$(sed -n 's/.* \([0-9]*\) transitions.*/\1/p' "$TMP/nosym$n.out")
	ns_mem=$(sed -n 's/.*peak RSS \([0-9]*\) MiB.*/\1/p' "$TMP/nosym$n.out")
	spin_states=$(awk '/states, stored/ { print $1 }' "$TMP/pan$n.out")
	spin_trans=$(awk '/transitions \(= stored\+matched\)/ { print $1 }' "$TMP/pan$n.out")
	spin_mem=$(awk '/total actual memory usage/ { printf "%d", $1 }' "$TMP/pan$n.out")
	full_states=$(awk '/states, stored/ { print $1 }' "$TMP/panfull$n.out")
	full_trans=$(awk '/transitions \(= stored\+matched\)/ { print $1 }' "$TMP/panfull$n.out")
	spin_pan_ms=$((t4 - t3))
	spin_ms=$((t4 - t2))

	printf '%-3s %-22s %12s %12s %10s %10s\n' "$n" "nprocguard" "$npg_states" "$npg_trans" $((t1 - t0)) "$npg_mem"
	printf '%-3s %-22s %12s %12s %10s %10s\n' "$n" "nprocguard no-symmetry" "$ns_states" "$ns_trans" $((t2 - t1)) "$ns_mem"
	printf '%-3s %-22s %12s %12s %10s %10s\n' "$n" "SPIN pan" "$spin_states" "$spin_trans" "$spin_pan_ms" "$spin_mem"
	printf '%-3s %-22s %12s %12s %10s %10s\n' "$n" "SPIN end to end" "" "" "$spin_ms" ""
	printf '%-3s %-22s %12s %12s %10s %10s\n' "$n" "SPIN pan -DNOREDUCE" "$full_states" "$full_trans" "" ""
	awk -v a="$spin_ms" -v p="$spin_pan_ms" -v b=$((t1 - t0)) -v c=$((t2 - t1)) -v n="$n" 'BEGIN {
		if (b < 1) b = 1; if (c < 1) c = 1;
		printf "%-3s ratio: SPIN end to end / nprocguard = %.1f; pan alone / nprocguard = %.1f; "\
		       "SPIN end to end / nprocguard without symmetry = %.1f\n", n, a / b, p / b, a / c }'
done
