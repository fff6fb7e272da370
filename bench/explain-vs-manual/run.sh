#!/bin/sh
# explain vs. the same facts by hand, on a machine with TASKS tasks (default
# 5000: threads of one helper process are added to what runs): the time of
# `nprocguard explain --pid PID` with a pinned BPF task iterator, against
# `ps -eLo ruser=` (the user's count), `prlimit --nproc` (its limit),
# `cat` of the pids cgroup files, kernel.threads-max, /proc/loadavg and
# kernel.pid_max. Root; runs in a private mount namespace with its own
# bpffs, so nothing is pinned on the host. Prints the median of RUNS runs
# of each and their ratio.
set -eu
[ "$(id -u)" -eq 0 ] || { echo "bench: needs root (pins the BPF iterator)"; exit 1; }
if [ -z "${NPG_BENCH_NS:-}" ]; then
	NPG_BENCH_NS=1 exec unshare -m --propagation private sh "$0" "$@"
fi
NPG=${NPG:-$(cd "$(dirname "$0")/../.." && pwd)/build/nprocguard}
TASKS=${TASKS:-5000}
RUNS=${RUNS:-21}
TMP=$(mktemp -d)
trap 'kill $HELPER 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"' EXIT INT TERM
mount -t bpf bpf /sys/fs/bpf
export NPROCGUARD_BPF_PIN=/sys/fs/bpf/npg-bench/tasks

have=$(cut -d' ' -f4 /proc/loadavg | cut -d/ -f2)
want=$((TASKS - have))
cat >"$TMP/threads.c" <<'C'
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
static void *idle(void *a) { (void)a; pause(); return NULL; }
int main(int argc, char **argv) {
	pthread_attr_t at; pthread_t t; int n = atoi(argv[1]);
	pthread_attr_init(&at); pthread_attr_setstacksize(&at, 65536);
	for (int i = 0; i < n; i++) if (pthread_create(&t, &at, idle, NULL)) return 1;
	pause();
}
C
cc -O2 -pthread -o "$TMP/threads" "$TMP/threads.c"
HELPER=
if [ $want -gt 0 ]; then "$TMP/threads" $want & HELPER=$!; fi
sleep 1
PID=$$
"$NPG" status --pin >/dev/null

now() { date +%s%N; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

by_hand() {
	u=$(ps -o ruser= -p $PID)
	ps -eLo ruser= | grep -cx "$u" >/dev/null
	prlimit -p $PID --nproc -o SOFT -n >/dev/null
	cg=$(awk -F: '$2 == "pids" { print $3 }' /proc/$PID/cgroup)
	cat /sys/fs/cgroup/pids$cg/pids.max /sys/fs/cgroup/pids$cg/pids.current \
		/proc/sys/kernel/threads-max /proc/loadavg /proc/sys/kernel/pid_max >/dev/null 2>&1 || :
}

i=0; : >"$TMP/e"; : >"$TMP/m"
while [ $i -lt $RUNS ]; do
	a=$(now); "$NPG" explain --pid $PID >/dev/null || :; b=$(now); echo $(((b - a) / 1000)) >>"$TMP/e"
	a=$(now); by_hand; b=$(now); echo $(((b - a) / 1000)) >>"$TMP/m"
	i=$((i + 1))
done
e=$(median <"$TMP/e"); m=$(median <"$TMP/m")
echo "tasks: $(cut -d' ' -f4 /proc/loadavg | cut -d/ -f2), runs: $RUNS"
echo "nprocguard explain (pinned iterator): ${e} us"
echo "by hand (ps -eLo ruser=, prlimit, cat cgroup and sysctls): ${m} us"
awk -v e=$e -v m=$m 'BEGIN { printf "ratio by-hand/explain: %.2f\n", m / e }'
