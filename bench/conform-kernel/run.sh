#!/bin/sh
# bench/conform-kernel: `nprocguard conform --kernel IMAGE --random N` in
# one guest against the same run in --jobs J guests at once (the peer:
# one guest, the way conform ran before --jobs), in the same round, and
# for the record TCG against KVM where KVM works here. Prints, per image,
# the wall time of each (median of ROUNDS rounds), the ratio J guests /
# one guest, the CPU time of the command and its QEMUs and so the cores it
# kept busy (CPU / wall: how much of the machine it got, on a machine
# shared with other jobs), and whether both gave the same statements and
# differences
# (their reports compared byte for byte but for the line of --random's
# seconds). A KVM that fails is timed too: how long --accel auto takes to
# fall back to TCG (the run's wall time against the TCG run's).
# Set NPG (default ../../build/nprocguard), IMAGES (default: 3.0.8 of
# $NPG_KERNELS, default ../shared/kernels next to the repository, and
# Debian's 6.12 from the kernel cache), RANDOM_N
# (300), SEED (1), JOBS (2), ROUNDS (1; 3 where time allows).
set -eu
cd "$(dirname "$0")"
NPG=$(cd "$(dirname "${NPG:-../../build/nprocguard}")" && pwd)/$(basename "${NPG:-nprocguard}")
RANDOM_N=${RANDOM_N:-300}
SEED=${SEED:-1}
JOBS=${JOBS:-2}
ROUNDS=${ROUNDS:-1}
cache=${NPROCGUARD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nprocguard}
kdir=${NPG_KERNELS:-$(cd ../.. && pwd)/../shared/kernels}
IMAGES=${IMAGES:-"$kdir/linux-3.0.8-x86_64.bzImage $(ls "$cache"/kernels/vmlinuz-linux-image-6.12.* 2>/dev/null | head -n 1)"}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM

[ -x "$NPG" ] || { echo "bench/conform-kernel: no $NPG (make first, or set NPG)"; exit 1; }
[ -x /usr/bin/time ] || { echo "bench/conform-kernel: needs GNU time (apt-get install time)"; exit 1; }

# run NAME ARGS...: conform's wall time in seconds in $TMP/NAME.time, the
# CPU time (user + system) of it and its QEMUs in $TMP/NAME.cpu (GNU time:
# a waited-for child's time is its parent's), its report (less the
# seconds) in $TMP/NAME.out, its status in $TMP/NAME.rc
run() {
	_name=$1
	shift
	_rc=0
	/usr/bin/time -f "%e %U %S" -o "$TMP/$_name.rusage" \
		"$NPG" conform "$@" >"$TMP/$_name.raw" 2>"$TMP/$_name.err" || _rc=$?
	grep -v "status" "$TMP/$_name.rusage" | tail -n 1 | awk '{ print $1 }' >>"$TMP/$_name.time"
	grep -v "status" "$TMP/$_name.rusage" | tail -n 1 | awk '{ printf "%.1f\n", $2 + $3 }' >>"$TMP/$_name.cpu"
	grep -v '^random: [0-9]* scenarios (seed [0-9]*) in ' "$TMP/$_name.raw" >"$TMP/$_name.out" || true
	echo "$_rc" >"$TMP/$_name.rc"
}

median() {
	sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# line IMAGE RUN NAME ONE SAME: a row of the table, NAME's medians against ONE's wall time
line() {
	_w=$(median "$TMP/$3.time")
	_c=$(median "$TMP/$3.cpu")
	printf '%-28s %-18s %8s %7s %8s %6s %6s %s\n' "$1" "$2" "$_w" \
		"$(echo "$_w $4" | awk '{ printf "%.2f", $1 / $2 }')" "$_c" \
		"$(echo "$_c $_w" | awk '{ printf "%.2f", $1 / $2 }')" "$(cat "$TMP/$3.rc")" "$5"
}

kvm_why=""
if [ ! -e /dev/kvm ]; then
	kvm_why="no /dev/kvm on this machine"
fi

printf '%-28s %-18s %8s %7s %8s %6s %6s %s\n' IMAGE RUN "WALL S" RATIO "CPU S" CORES STATUS "SAME REPORT"
for img in $IMAGES; do
	[ -r "$img" ] || { echo "bench/conform-kernel: no image $img: skipped" >&2; continue; }
	name=$(basename "$img")
	rm -rf "$TMP"/*.time "$TMP"/*.cpu "$TMP"/o.*
	for r in $(seq "$ROUNDS"); do
		# one round: both sides under the same load
		run one --kernel "$img" --accel tcg --jobs 1 --random "$RANDOM_N" --seed "$SEED" -q -o "$TMP/o.one"
		run many --kernel "$img" --accel tcg --jobs "$JOBS" --random "$RANDOM_N" --seed "$SEED" -q -o "$TMP/o.many"
		if [ -z "$kvm_why" ]; then
			run kvm --kernel "$img" --accel auto --jobs 1 --random "$RANDOM_N" --seed "$SEED" -q -o "$TMP/o.kvm"
		fi
	done
	one=$(median "$TMP/one.time")
	many=$(median "$TMP/many.time")
	same=no
	# the same report, and the same shrunk scenarios written
	cmp -s "$TMP/one.out" "$TMP/many.out" && diff -r "$TMP/o.one" "$TMP/o.many" >/dev/null &&
		same=yes
	short=$(echo "$name" | cut -c1-28)
	line "$short" "one guest (TCG)" one "$one" -
	line "$short" "--jobs $JOBS (TCG)" many "$one" "$same"
	for r in one many; do
		[ "$(cat "$TMP/$r.rc")" = 0 ] || { echo "    $r: exit $(cat "$TMP/$r.rc"):"; tail -n 3 "$TMP/$r.err"; }
	done
	# a statement's cost inside the guest: one guest's own time for its loop
	stmts=$(sed -nE 's/^conform: [0-9]+ scenarios, ([0-9]+) statements.*/\1/p' "$TMP/one.out")
	loop=$(sed -nE 's/^random: [0-9]+ scenarios \(seed [0-9]+\) in ([0-9.]+) s$/\1/p' "$TMP/one.raw")
	[ -n "$stmts" ] && [ -n "$loop" ] &&
		echo "$loop $stmts" | awk '{ printf "    in the guest: %.1f ms a statement (its loop: %s s, %d statements)\n", 1000 * $1 / $2, $1, $2 }'
	tail -n 1 "$TMP/one.out" | sed 's/^/    one guest: /'
	tail -n 1 "$TMP/many.out" | sed "s/^/    --jobs $JOBS:   /"
	if [ -z "$kvm_why" ]; then
		how="--accel auto"
		grep -q "KVM failed" "$TMP/kvm.err" && how="auto: KVM failed"
		line "$short" "$how" kvm "$one" "$(cmp -s "$TMP/one.out" "$TMP/kvm.out" && echo yes || echo no)"
		grep "KVM" "$TMP/kvm.err" | sed 's/^/    /' || true
	fi
done
[ -z "$kvm_why" ] || echo "TCG against KVM: not measured ($kvm_why)"
# the peer of a statement's cost: the same command on this machine's kernel, no guest
if [ "$(id -u)" = 0 ]; then
	"$NPG" conform --random "$RANDOM_N" --seed "$SEED" -q -o "$TMP/o.host" >"$TMP/host.raw" 2>&1 || true
	stmts=$(sed -nE 's/^conform: [0-9]+ scenarios, ([0-9]+) statements.*/\1/p' "$TMP/host.raw")
	loop=$(sed -nE 's/^random: [0-9]+ scenarios \(seed [0-9]+\) in ([0-9.]+) s$/\1/p' "$TMP/host.raw")
	[ -n "$stmts" ] && [ -n "$loop" ] &&
		echo "$loop $stmts" | awk '{ printf "this machine'"'"'s kernel, no guest: %.1f ms a statement (%s s, %d statements)\n", 1000 * $1 / $2, $1, $2 }'
fi
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg), $(getconf _NPROCESSORS_ONLN) CPUs"
