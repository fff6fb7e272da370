#!/bin/sh
# bench/status-vs-ps: per-user task counts on a loaded machine, nprocguard
# status -J against the nearest procps pipeline, in the same run.
#   peer: ps -eLo ruid= | sort | uniq -c
# Load: 2500 processes + 2500 threads (5000 tasks) over 50 uids from
# 3000400001; one thread in ten runs under another uid than its process.
# Prints the median of REPS runs of each and the ratio. Root only.
# nprocguard reads tasks three ways, all timed: a BPF task iterator pinned
# beforehand (`status --pin`, once per boot: the headline figure), the same
# iterator loaded by the run itself (--source bpf, no pin), and /proc.
set -eu
# --pin mounts bpffs at /sys/fs/bpf when none is: in a private mount
# namespace, so the host's mounts are neither used nor changed
if [ "$(id -u)" -eq 0 ] && [ -z "${NPG_BENCH_MNTNS:-}" ]; then
	NPG_BENCH_MNTNS=1 exec unshare -m --propagation private sh "$0" "$@"
fi
cd "$(dirname "$0")"
NPG=${NPG:-../../build/nprocguard}
REPS=${REPS:-31}
BASE=3000400000
TMP=$(mktemp -d)
cleanup() {
	exec 3>&- 2>/dev/null || true	# the load reads EOF, kills and reaps its tasks
	[ -z "${load_pid:-}" ] || wait "$load_pid" 2>/dev/null || true
	rm -f "$NPROCGUARD_BPF_PIN"
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM
# our own pin, so that an administrator's pin is neither used nor removed
export NPROCGUARD_BPF_PIN=/sys/fs/bpf/npg-bench-$$

[ "$(id -u)" -eq 0 ] || { echo "bench/status-vs-ps: needs root (creates processes of test uids)"; exit 0; }
cc -O2 -o "$TMP/load" load.c -lpthread
cc -O2 -o "$TMP/timeit" ../lib/timeit.c
mkfifo "$TMP/hold"
"$TMP/load" 2500 50 $BASE <"$TMP/hold" >"$TMP/ready" &
load_pid=$!
exec 3>"$TMP/hold"
i=0
while ! grep -q ready "$TMP/ready" 2>/dev/null; do
	i=$((i + 1)); [ $i -lt 600 ] || { echo "bench/status-vs-ps: the load did not start"; exit 1; }
	sleep 0.1
done

"$NPG" status --pin >/dev/null || { echo "bench/status-vs-ps: cannot pin the BPF iterator"; exit 1; }

# Exactness first: every source must count the same tasks for every test
# uid as ps does, and the kernel's own counter (KCOUNT) must agree.
test_uids() {
	jq -r --argjson lo $BASE '.users[] | select(.uid > $lo and .uid <= $lo + 50) |
		"\(.uid) \(.tasks)"' | sort
}
"$NPG" status -J | test_uids >"$TMP/npg"
"$NPG" status -J --source proc | test_uids >"$TMP/npg-proc"
NPROCGUARD_BPF_PIN=/nonexistent "$NPG" status -J --source bpf | test_uids >"$TMP/npg-load"
"$NPG" status -J -o UID,KCOUNT | jq -r --argjson lo $BASE '.users[] |
	select(.uid > $lo and .uid <= $lo + 50) | "\(.uid) \(.kcount)"' | sort >"$TMP/npg-kcount"
# procps prints uids above 2^31-1 as negative numbers: add 2^32 back
ps -eLo ruid= | sort | uniq -c |
	awk -v lo=$BASE '{ u = $2 < 0 ? $2 + 4294967296 : $2 }
			 u > lo && u <= lo + 50 { printf "%.0f %d\n", u, $1 }' | sort >"$TMP/ps"
for f in npg npg-proc npg-load npg-kcount; do
	if ! cmp -s "$TMP/$f" "$TMP/ps"; then
		echo "bench/status-vs-ps: counts differ between nprocguard ($f) and ps:"
		diff "$TMP/$f" "$TMP/ps" | head
		exit 1
	fi
done
tasks=$(awk '{ n += $2 } END { print n }' "$TMP/npg")

median_ms() { "$TMP/timeit" "$REPS" "$@"; }
# a pipeline needs a shell: sh -c is part of what its user runs
ps_pipeline="ps -eLo ruid= | sort | uniq -c"

npg_ms=$(median_ms "$NPG" status -J)
num_ms=$(median_ms "$NPG" status -J -o UID,TASKS,PROCS,ZOMBIES,NPROC,HEADROOM,FLAGGED)
load_ms=$(median_ms env NPROCGUARD_BPF_PIN=/nonexistent "$NPG" status -J --source bpf)
proc_ms=$(median_ms "$NPG" status -J --source proc)
counts_ms=$(median_ms "$NPG" status -J --source proc -o UID,TASKS,PROCS,ZOMBIES,FLAGGED)
ps_ms=$(median_ms sh -c "$ps_pipeline")
# names to names: the USER column against ps resolving ruser
ps_names="ps -eLo ruser= | sort | uniq -c"
names_ms=$(median_ms "$NPG" status -J -o UID,USER,TASKS)
psn_ms=$(median_ms sh -c "$ps_names")
echo "load: $tasks tasks of 50 test uids (plus the machine's own), counts identical"
echo "nprocguard status -J (pinned BPF iterator):      $npg_ms ms (median of $REPS)"
echo "  the same without USER (no NSS lookups):        $num_ms ms"
echo "nprocguard status -J --source bpf (loads it):    $load_ms ms"
echo "nprocguard status -J --source proc:              $proc_ms ms"
echo "  the same without the limit columns:            $counts_ms ms"
echo "ps -eLo ruid= | sort | uniq -c:                  $ps_ms ms"
echo "nprocguard status -J -o UID,USER,TASKS (names):  $names_ms ms"
echo "ps -eLo ruser= | sort | uniq -c:                 $psn_ms ms"
awk -v a="$npg_ms" -v n="$num_ms" -v l="$load_ms" -v p="$proc_ms" -v c="$counts_ms" -v b="$ps_ms" 'BEGIN {
	printf "ratio: status -J is %.1fx faster than the ps pipeline ", b / a
	printf "(without USER %.1fx; loading the iterator itself %.1fx, /proc %.1fx, ", b / n, b / l, b / p
	printf "/proc without limits %.1fx)\n", b / c }'
awk -v n="$num_ms" -v b="$ps_ms" -v a="$names_ms" -v p="$psn_ms" 'BEGIN {
	printf "like for like: numbers (status without USER vs ps ruid=) %.1fx; ", b / n
	printf "names (status -o UID,USER,TASKS vs ps ruser=) %.1fx\n", p / a }'
