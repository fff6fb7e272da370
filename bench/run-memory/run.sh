#!/bin/sh
# bench/run-memory: peak resident memory of `nprocguard run` on long
# scenarios (10,000 and 100,000 statements), per output format, against a
# peer in the same run.
#   peer: sort FILE >/dev/null -- a tool that holds the whole file in memory
#         (there is no other runner of this language to compare with; the
#         ratio says how many times the file's own size in memory `run` needs)
# Peak RSS from GNU time (%M, the child's getrusage ru_maxrss). Prints, per
# format and size, the peak, the peer's peak, the ratio, and the growth in
# bytes per statement between the two sizes. JSON and TAP are written as
# the run goes: what still grows with the statements is the parsed
# scenario (struct npg_stmt, 432 bytes, its text and its expectations,
# about 550 bytes in all); the text table also keeps a row of its cells'
# bytes per statement (about 20 more).
# Set SIZES to change the sizes (statements), FORMATS the formats.
set -eu
cd "$(dirname "$0")"
NPG=${NPG:-../../build/nprocguard}
SIZES=${SIZES:-"10000 100000"}
FORMATS=${FORMATS:-"tap json text"}
TIME=/usr/bin/time
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM

[ -x "$TIME" ] || { echo "bench/run-memory: needs GNU time (apt-get install time)"; exit 1; }
[ -x "$NPG" ] || { echo "bench/run-memory: no $NPG (make first, or set NPG)"; exit 1; }

# peak RSS in KB of a command, its output discarded
peak() {
	"$TIME" -f %M -o "$TMP/rss" "$@" >/dev/null 2>"$TMP/err" || {
		echo "bench/run-memory: failed: $*" >&2; cat "$TMP/err" >&2; exit 1; }
	cat "$TMP/rss"
}

printf '%-6s %10s %12s %12s %8s %14s\n' FORMAT STATEMENTS "RUN KB" "SORT KB" RATIO "BYTES/STMT"
for n in $SIZES; do
	sh ../lib/long-scenario.sh "$n" >"$TMP/s$n.npg"
done
for f in $FORMATS; do
	prev_n= prev_kb=
	for n in $SIZES; do
		kb=$(peak "$NPG" run -f "$f" "$TMP/s$n.npg")
		peer=$(peak sort "$TMP/s$n.npg")
		growth=-
		[ -z "$prev_n" ] || growth=$(( (kb - prev_kb) * 1024 / (n - prev_n) ))
		awk -v f="$f" -v n="$n" -v kb="$kb" -v peer="$peer" -v g="$growth" \
			'BEGIN { printf "%-6s %10d %12d %12d %8.1f %14s\n", f, n, kb, peer, kb / peer, g }'
		prev_n=$n prev_kb=$kb
	done
done
