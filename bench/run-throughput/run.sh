#!/bin/sh
# bench/run-throughput: how fast `nprocguard run` reports a long scenario,
# in policy-steps a second (statements x policies / wall time), per format
# (text, TAP, JSON) under one policy and under all eight, the report
# written to a file; against a peer in the same run:
#   peer: LC_ALL=C sort FILE >FILE2 -- reads the same scenario file and
#         writes it back sorted (there is no other runner of this language;
#         the ratio says how many sorts of the file a run costs)
# Each figure is the median of RUNS runs (timeit: posix_spawn, stdout to
# the file); the CPU time (user + system) is printed beside the wall time,
# since other jobs on a shared machine stretch the wall time more.
# The scenario is bench/run-memory's (lib/long-scenario.sh): one fork,
# then limits and counts alternately, every statement with an expectation,
# all of them held.
# Set STATEMENTS (default 100000), RUNS (3), FORMATS ("text tap json"),
# POLICIES ("linux-3.1 all": a policy list for -p each).
set -eu
cd "$(dirname "$0")"
NPG=${NPG:-../../build/nprocguard}
STATEMENTS=${STATEMENTS:-100000}
RUNS=${RUNS:-3}
FORMATS=${FORMATS:-"text tap json"}
POLICIES=${POLICIES:-"linux-3.1 all"}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM

[ -x "$NPG" ] || { echo "bench/run-throughput: no $NPG (make first, or set NPG)"; exit 1; }
cc -O2 -o "$TMP/timeit" ../lib/timeit.c

sh ../lib/long-scenario.sh "$STATEMENTS" >"$TMP/long.npg"

# policies LIST: how many a -p LIST names
policies() {
	case $1 in
	all) "$NPG" policies -n -r | wc -l ;;
	*) echo "$1" | tr ',' '\n' | wc -l ;;
	esac
}

printf '%-6s %-10s %12s %9s %9s %14s %14s %9s %9s %7s %7s\n' FORMAT POLICIES \
	POLICY-STEPS "RUN MS" "CPU MS" "STEPS/S" "STEPS/S CPU" "SORT MS" "CPU MS" RATIO "CPU"
for p in $POLICIES; do
	n=$(policies "$p")
	for f in $FORMATS; do
		set -- $("$TMP/timeit" -c -o "$TMP/out" "$RUNS" "$NPG" run -p "$p" -f "$f" "$TMP/long.npg") ||
			exit 1
		run_ms=$1 run_cpu=$2
		set -- $(LC_ALL=C "$TMP/timeit" -c -o "$TMP/sorted" "$RUNS" sort "$TMP/long.npg") || exit 1
		sort_ms=$1 sort_cpu=$2
		awk -v f="$f" -v p="$p" -v steps="$((STATEMENTS * n))" -v ms="$run_ms" -v cpu="$run_cpu" \
			-v sms="$sort_ms" -v scpu="$sort_cpu" 'BEGIN {
			printf "%-6s %-10s %12d %9.0f %9.0f %14.0f %14.0f %9.0f %9.0f %7.1f %7.1f\n",
				f, p, steps, ms, cpu, steps / ms * 1000, steps / cpu * 1000,
				sms, scpu, ms / sms, cpu / scpu }'
	done
done
