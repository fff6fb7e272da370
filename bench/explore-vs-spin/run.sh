#!/bin/sh
# bench/explore-vs-spin: the same concurrent scenario checked exhaustively by
# nprocguard explore and by SPIN 6.5 (spin -a, cc -O2 -DSAFETY, ./pan), in
# the same run, for 3 to 8 workers (WORKERS="3 4 5 6 7 8").
#
# The scenario (linux-3.1): N root workers each drop privileges as CERT
# POS36-C/POS37-C say (setgroups, setgid, RLIMIT_NPROC 2, setuid www, check
# that root cannot be regained) while www already runs 2 processes (one
# outside, one innocent task), exec if that works and exit; the innocent
# task of www execs twice. The property is no-collateral-execve-failure: an
# execve() fails with EAGAIN only in a task that itself crossed the limit
# through setuid(). It holds, so both tools visit every reachable state.
# scenario.sh writes the nprocguard file, model.sh the hand-written Promela
# model of the same rules (one Promela step per system call, as one model
# step per call).
#
# Prints, for each N and each run: states stored, transitions, the whole
# process's wall-clock time, its search's own time (nprocguard's "s" figure,
# pan's "elapsed time") and memory; then two ratios against SPIN:
#   end to end  = (spin -a + cc + pan, wall clock) / (nprocguard explore, wall clock)
#   search only = pan's elapsed time / nprocguard's search time
# for nprocguard as it runs by default (symmetry and partial-order
# reduction) and with --no-symmetry (partial-order reduction only, the
# reduction SPIN has too). nprocguard --no-symmetry --no-por runs up to
# FULL_MAX workers (default 6), pan -DNOREDUCE up to NOREDUCE_MAX (default 7).
set -eu
cd "$(dirname "$0")"
NPG=${NPG:-../../build/nprocguard}
WORKERS=${WORKERS:-3 4 5 6 7 8}
FULL_MAX=${FULL_MAX:-6}
NOREDUCE_MAX=${NOREDUCE_MAX:-7}
PAN_W=${PAN_W:-22}	# pan's hash table: 2^22 slots (-w24 spends its time allocating 128 MiB)
command -v spin >/dev/null || { echo "bench/explore-vs-spin: needs spin (apt-get install spin)"; exit 1; }
[ -x "$NPG" ] || { echo "bench/explore-vs-spin: build nprocguard first (make)"; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM

ms() { date +%s%N | cut -c1-13; }	# milliseconds since the epoch

# npg LABEL N OPTIONS...: one explore run, its line of figures; its wall
# and search times in $TMP/LABEL.ms and $TMP/LABEL.search
npg() {
	label=$1 n=$2
	shift 2
	t0=$(ms)
	"$NPG" explore -q -s --policy linux-3.1 -P no-collateral-execve-failure "$@" \
		"$TMP/race$n.npg" >"$TMP/$label.out" || { cat "$TMP/$label.out"; exit 1; }
	t1=$(ms)
	echo $((t1 - t0)) >"$TMP/$label.ms"
	sed -n 's/.* \([0-9.]*\) s, .*/\1/p' "$TMP/$label.out" |
		awk '{ printf "%d\n", $1 * 1000 + 0.5 }' >"$TMP/$label.search"
	printf '%-3s %-28s %10s %11s %9s %9s %8s\n' "$n" "nprocguard $label" \
		"$(sed -n 's/.*: \([0-9]*\) states stored.*/\1/p' "$TMP/$label.out")" \
		"$(sed -n 's/.* \([0-9]*\) transitions.*/\1/p' "$TMP/$label.out")" \
		"$(cat "$TMP/$label.ms")" "$(cat "$TMP/$label.search")" \
		"$(sed -n 's/.*peak RSS \([0-9]*\) MiB.*/\1/p' "$TMP/$label.out")"
}

# ratio N WHAT SPIN_MS NPG_MS: one ratio line (a time under 1 ms counts as 1 ms)
ratio() {
	awk -v n="$1" -v what="$2" -v s="$3" -v p="$4" 'BEGIN {
		if (p < 1) p = 1; if (s < 1) s = 1;
		printf "%-3s ratio %-46s %8.1f  (%d ms / %d ms)\n", n, what, s / p, s, p }'
}

printf '%-3s %-28s %10s %11s %9s %9s %8s\n' N run states transitions "wall ms" "search ms" "mem MiB"
for n in $WORKERS; do
	sh scenario.sh "$n" >"$TMP/race$n.npg"
	sh model.sh "$n" >"$TMP/race$n.pml"

	npg default "$n"
	npg no-symmetry "$n" --no-symmetry
	[ "$n" -le "$FULL_MAX" ] && npg no-reduction "$n" --no-symmetry --no-por

	t2=$(ms)
	(cd "$TMP" && spin -a "race$n.pml" >/dev/null && cc -O2 -DSAFETY -o "pan$n" pan.c)
	t3=$(ms)
	(cd "$TMP" && "./pan$n" -m100000 -w"$PAN_W" >"pan$n.out" 2>&1)
	t4=$(ms)
	grep -q "errors: 0" "$TMP/pan$n.out" || { cat "$TMP/pan$n.out"; exit 1; }
	pan_search=$(awk '/pan: elapsed time/ { printf "%d", $4 * 1000 + 0.5 }' "$TMP/pan$n.out")
	printf '%-3s %-28s %10s %11s %9s %9s %8s\n' "$n" "SPIN pan" \
		"$(awk '/states, stored/ { print $1 }' "$TMP/pan$n.out")" \
		"$(awk '/transitions \(= stored\+matched\)/ { print $1 }' "$TMP/pan$n.out")" \
		$((t4 - t3)) "$pan_search" \
		"$(awk '/total actual memory usage/ { printf "%d", $1 }' "$TMP/pan$n.out")"
	printf '%-3s %-28s %10s %11s %9s\n' "$n" "SPIN end to end" "" "" $((t4 - t2))
	if [ "$n" -le "$NOREDUCE_MAX" ]; then
		# for the record: SPIN without its partial-order reduction
		(cd "$TMP" && cc -O2 -DSAFETY -DNOREDUCE -o "panfull$n" pan.c &&
		 "./panfull$n" -m100000 -w"$PAN_W" >"panfull$n.out" 2>&1)
		printf '%-3s %-28s %10s %11s %9s %9s\n' "$n" "SPIN pan -DNOREDUCE" \
			"$(awk '/states, stored/ { print $1 }' "$TMP/panfull$n.out")" \
			"$(awk '/transitions \(= stored\+matched\)/ { print $1 }' "$TMP/panfull$n.out")" "" \
			"$(awk '/pan: elapsed time/ { printf "%d", $4 * 1000 + 0.5 }' "$TMP/panfull$n.out")"
	fi
	ratio "$n" "end to end: SPIN / nprocguard" $((t4 - t2)) "$(cat "$TMP/default.ms")"
	ratio "$n" "search only: pan / nprocguard" "$pan_search" "$(cat "$TMP/default.search")"
	ratio "$n" "end to end: SPIN / nprocguard --no-symmetry" $((t4 - t2)) "$(cat "$TMP/no-symmetry.ms")"
	ratio "$n" "search only: pan / nprocguard --no-symmetry" "$pan_search" "$(cat "$TMP/no-symmetry.search")"
done
