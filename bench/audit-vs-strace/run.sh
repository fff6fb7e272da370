#!/bin/sh
# bench/audit-vs-strace: the cost of watching a program's privilege drops.
# The same workload (workload.c: 2 million untrapped system calls, 20 drops)
# bare, under `nprocguard audit --policy always`, and under the peer,
# strace's fault injection on the same calls:
#   strace -f --seccomp-bpf -qq -o /dev/null -e trace=%creds -e inject=%creds:error=EAGAIN
# Prints the median of REPS runs of each and the overheads as ratios to bare.
set -eu
cd "$(dirname "$0")"
NPG=${NPG:-../../build/nprocguard}
REPS=${REPS:-7}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
[ "$(id -u)" -eq 0 ] || { echo "bench/audit-vs-strace: needs root"; exit 0; }
command -v strace >/dev/null || { echo "bench/audit-vs-strace: needs strace (apt-get install strace)"; exit 0; }
cc -O2 -o "$TMP/workload" workload.c

median_ms() {
	i=0
	while [ $i -lt "$REPS" ]; do
		t0=$(date +%s%N); "$@" >/dev/null 2>&1 || true; t1=$(date +%s%N)
		echo $(( (t1 - t0) / 1000 )); i=$((i + 1))
	done | sort -n | awk '{ a[NR] = $1 } END { printf "%.1f", a[int((NR + 1) / 2)] / 1000 }'
}
bare=$(median_ms "$TMP/workload")
audit=$(median_ms "$NPG" audit -p always -- "$TMP/workload")
strace=$(median_ms strace -f --seccomp-bpf -qq -o /dev/null -e trace=%creds \
	-e inject=%creds:error=EAGAIN "$TMP/workload")
echo "bare:                $bare ms (median of $REPS)"
echo "nprocguard audit:    $audit ms"
echo "strace -e inject:    $strace ms"
awk -v b="$bare" -v a="$audit" -v s="$strace" 'BEGIN {
	printf "overhead: audit %+.1f%%, strace %+.1f%%; audit costs %.2f of what strace costs\n",
		(a / b - 1) * 100, (s / b - 1) * 100, (s - b) != 0 ? (a - b) / (s - b) : 0 }'
