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
# call per system call).
#
# Each N is measured RUNS times (default 3); a round runs nprocguard
# --no-symmetry (partial-order reduction only: the reduction SPIN has too),
# nprocguard as it runs by default (symmetry as well) and pan, one after
# the other, so both sides of a ratio share the machine's load; each figure
# is the median of the rounds. Printed per N: states stored, transitions,
# the search's own time (nprocguard's "s" figure, pan's "elapsed time";
# pan's has 10 ms steps), the whole process's wall-clock time and its CPU
# time (user + system, from GNU time: what the load of other jobs on the
# machine disturbs least; pan's includes clearing its hash table), memory per
# stored state (nprocguard: all its tables -- states, their hash table, the
# queue, the transition cache, the interned tasks -- at their peak; pan:
# its "total actual memory usage", and its states alone, "actual memory
# usage for states"); then the ratios, like for like first:
#   search, like for like = pan's elapsed / nprocguard --no-symmetry's search
#   CPU, like for like    = pan's CPU time / nprocguard --no-symmetry's
#   states, like for like = pan's states / nprocguard --no-symmetry's
#   search, as shipped    = pan's elapsed / nprocguard's search (symmetry too)
#   end to end            = (spin -a + cc + pan, wall) / (nprocguard, wall)
# A time under 1 ms counts as 1 ms. nprocguard --no-symmetry --no-por runs
# up to FULL_MAX workers (default 6), pan -DNOREDUCE up to NOREDUCE_MAX
# (default 7), once each, for the record.
set -eu
cd "$(dirname "$0")"
NPG=${NPG:-../../build/nprocguard}
WORKERS=${WORKERS:-3 4 5 6 7 8}
RUNS=${RUNS:-3}
FULL_MAX=${FULL_MAX:-6}
NOREDUCE_MAX=${NOREDUCE_MAX:-7}
PAN_W=${PAN_W:-22}	# pan's hash table: 2^22 slots (-w24 spends its time allocating 128 MiB)
command -v spin >/dev/null || { echo "bench/explore-vs-spin: needs spin (apt-get install spin)"; exit 1; }
[ -x "$NPG" ] || { echo "bench/explore-vs-spin: build nprocguard first (make)"; exit 1; }
[ -x /usr/bin/time ] || { echo "bench/explore-vs-spin: needs GNU time (apt-get install time)"; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM

ms() { date +%s%N | cut -c1-13; }	# milliseconds since the epoch

# median of the numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'; }

# npg LABEL N ROUND OPTIONS...: one explore run; its figures in $TMP/LABEL.*
npg() {
	label=$1 n=$2 r=$3
	shift 3
	t0=$(ms)
	/usr/bin/time -f "%U %S" -o "$TMP/time" "$NPG" explore -q -s --policy linux-3.1 \
		-P no-collateral-execve-failure "$@" "$TMP/race$n.npg" >"$TMP/$label.out" ||
		{ cat "$TMP/$label.out"; exit 1; }
	t1=$(ms)
	echo $((t1 - t0)) >>"$TMP/$label.wall"
	awk '{ printf "%d\n", ($1 + $2) * 1000 + 0.5 }' "$TMP/time" >>"$TMP/$label.cpu"
	sed -n 's/.* \([0-9.]*\) s, .*/\1/p' "$TMP/$label.out" |
		awk '{ printf "%d\n", $1 * 1000 + 0.5 }' >>"$TMP/$label.search"
	if [ "$r" = 1 ]; then
		sed -n 's/.*: \([0-9]*\) states stored.*/\1/p' "$TMP/$label.out" >"$TMP/$label.states"
		sed -n 's/.* \([0-9]*\) transitions.*/\1/p' "$TMP/$label.out" >"$TMP/$label.trans"
		sed -n 's/.*tables \([0-9.]*\) MiB.*/\1/p' "$TMP/$label.out" >"$TMP/$label.mib"
	fi
}

# pan_run N: one run of pan; its figures in $TMP/pan.*
pan_run() {
	n=$1
	t0=$(ms)
	(cd "$TMP" && /usr/bin/time -f "%U %S" -o time "./pan$n" -m100000 -w"$PAN_W" >"pan$n.out" 2>&1)
	t1=$(ms)
	awk '{ printf "%d\n", ($1 + $2) * 1000 + 0.5 }' "$TMP/time" >>"$TMP/pan.cpu"
	grep -q "errors: 0" "$TMP/pan$n.out" || { cat "$TMP/pan$n.out"; exit 1; }
	echo $((t1 - t0)) >>"$TMP/pan.wall"
	awk '/pan: elapsed time/ { printf "%d\n", $4 * 1000 + 0.5 }' "$TMP/pan$n.out" >>"$TMP/pan.search"
	awk '/states, stored/ { print $1 }' "$TMP/pan$n.out" >"$TMP/pan.states"
	awk '/transitions \(= stored\+matched\)/ { print $1 }' "$TMP/pan$n.out" >"$TMP/pan.trans"
	awk '/total actual memory usage/ { print $1 }' "$TMP/pan$n.out" >"$TMP/pan.mib"
	awk '/actual memory usage for states/ { print $1 }' "$TMP/pan$n.out" >"$TMP/pan.smib"
}

# row N RUN LABEL: states, transitions, medians, memory per state
row() {
	med_search=$(median <"$TMP/$3.search") med_wall=$(median <"$TMP/$3.wall")
	awk -v n="$1" -v run="$2" -v st="$(cat "$TMP/$3.states")" -v tr="$(cat "$TMP/$3.trans")" \
	    -v s="$med_search" -v w="$med_wall" -v cpu="$(median <"$TMP/$3.cpu")" \
	    -v mib="$(cat "$TMP/$3.mib")" -v smib="$(cat "$TMP/$3.smib" 2>/dev/null || echo)" 'BEGIN {
		per = st ? mib * 1048576 / st : 0
		printf "%-3s %-26s %10s %11s %9s %8s %8s %9.0f", n, run, st, tr, s, w, cpu, per
		if (smib != "") printf " (states alone %.0f)", smib * 1048576 / st
		printf "\n" }'
}

# ratio N WHAT NUM DEN: one ratio line (a time under 1 ms counts as 1 ms)
ratio() {
	awk -v n="$1" -v what="$2" -v s="$3" -v p="$4" 'BEGIN {
		if (p < 1) p = 1; if (s < 1) s = 1;
		printf "%-3s ratio %-44s %8.2f  (%d / %d)\n", n, what, s / p, s, p }'
}

printf '%-3s %-26s %10s %11s %9s %8s %8s %9s\n' N run states transitions "search ms" "wall ms" \
	"cpu ms" "B/state"
for n in $WORKERS; do
	sh scenario.sh "$n" >"$TMP/race$n.npg"
	sh model.sh "$n" >"$TMP/race$n.pml"
	rm -f "$TMP"/*.wall "$TMP"/*.search "$TMP"/*.cpu
	t2=$(ms)
	(cd "$TMP" && spin -a "race$n.pml" >/dev/null && cc -O2 -DSAFETY -o "pan$n" pan.c)
	t3=$(ms)
	build=$((t3 - t2))
	r=1
	while [ "$r" -le "$RUNS" ]; do
		npg no-symmetry "$n" "$r" --no-symmetry
		npg default "$n" "$r"
		pan_run "$n"
		r=$((r + 1))
	done
	row "$n" "nprocguard --no-symmetry" no-symmetry
	row "$n" "SPIN pan" pan
	row "$n" "nprocguard (default)" default
	if [ "$n" -le "$FULL_MAX" ]; then
		npg no-reduction "$n" 1 --no-symmetry --no-por
		row "$n" "nprocguard no reduction" no-reduction
	fi
	if [ "$n" -le "$NOREDUCE_MAX" ]; then
		(cd "$TMP" && cc -O2 -DSAFETY -DNOREDUCE -o "panfull$n" pan.c &&
		 "./panfull$n" -m100000 -w"$PAN_W" >"panfull$n.out" 2>&1)
		printf '%-3s %-26s %10s %11s %9s\n' "$n" "SPIN pan -DNOREDUCE" \
			"$(awk '/states, stored/ { print $1 }' "$TMP/panfull$n.out")" \
			"$(awk '/transitions \(= stored\+matched\)/ { print $1 }' "$TMP/panfull$n.out")" \
			"$(awk '/pan: elapsed time/ { printf "%d", $4 * 1000 + 0.5 }' "$TMP/panfull$n.out")"
	fi
	ratio "$n" "search, like for like: pan / --no-symmetry" \
		"$(median <"$TMP/pan.search")" "$(median <"$TMP/no-symmetry.search")"
	ratio "$n" "CPU, like for like: pan / --no-symmetry" \
		"$(median <"$TMP/pan.cpu")" "$(median <"$TMP/no-symmetry.cpu")"
	ratio "$n" "states, like for like: pan / --no-symmetry" \
		"$(cat "$TMP/pan.states")" "$(cat "$TMP/no-symmetry.states")"
	ratio "$n" "search, as shipped: pan / nprocguard" \
		"$(median <"$TMP/pan.search")" "$(median <"$TMP/default.search")"
	ratio "$n" "end to end: spin+cc+pan / nprocguard" \
		"$((build + $(median <"$TMP/pan.wall")))" "$(median <"$TMP/default.wall")"
done
