#!/bin/sh
# tools/floors.sh [BUILD]: the structure of src/ drawn from its own imports,
# checked against the floors of doc/architecture.md.
#
# A file uses another when it includes it (#include "...") or calls a
# function or reads a variable that the other defines (from the built
# objects of BUILD, default build/, by `nm`: so a call through a private
# header that several files share counts too).
# It prints every arrow between two floors (--arrows), then fails if
#   - files use each other in a circle (tsort finds the loop), or
#   - a file uses one on a higher floor, or a floor's folder it may not call.
# Run it after `make`: `sh tools/floors.sh`; `sh tools/floors.sh --arrows`
# prints the folder-level arrows the figure of doc/architecture.md shows.
set -eu

arrows=false
if [ "${1:-}" = "--arrows" ]; then
	arrows=true
	shift
fi
build=${1:-build}
cd "$(dirname "$0")/.."
[ -d "$build/src" ] || { echo "tools/floors.sh: no $build/src: run make first" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The floors of doc/architecture.md, lowest first: a file may use the files
# of its own folder and of lower floors. Folders on one floor (the same
# number) stand side by side and use none of each other; 5.1 < 5.2 < 5.3 are
# steps inside one floor.
cat >"$tmp/floors" <<'EOF'
1   src/system/
1   src/guest/
1   src/harden/
2   src/model/
3   src/scenario/
4   src/backend/
5.1 src/runner/
5.1 src/explore/
5.2 src/report/
5.3 src/compare/
5.3 src/export/
5.3 src/identify/
6.1 src/tools/audit/
6.1 src/tools/explain/
6.1 src/tools/metrics/
6.1 src/privdrop/
6.2 src/tools/status/
7   src/cli/
EOF

# calls: who defines each global symbol, who uses it
# (only the objects of today's sources: a build keeps those of moved files)
find "$build/src" -name '*.o' ! -name '*-blob.o' ! -name '*-obj.o' | sort | while read -r o; do
	c=${o#"$build"/}
	if [ -f "${c%.o}.c" ]; then echo "$o"; fi
done >"$tmp/objs"
while read -r o; do
	f=${o#"$build"/}
	f=${f%.o}.c
	nm --defined-only -g "$o" | awk -v f="$f" 'NF == 3 { print $3, f }'
done <"$tmp/objs" | sort -u >"$tmp/defs"
while read -r o; do
	f=${o#"$build"/}
	f=${f%.o}.c
	nm -u "$o" | awk -v f="$f" '{ print $NF, f }'
done <"$tmp/objs" | sort -u >"$tmp/uses"
join "$tmp/uses" "$tmp/defs" | awk '$2 != $3 { print $2, $3 }' >"$tmp/edges"

# includes: "dir/x.h" from src/ (-Isrc) or beside the file
find src -name '*.[ch]' | sort | while read -r f; do
	d=$(dirname "$f")
	sed -n 's/^#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" | while read -r h; do
		if [ -f "src/$h" ]; then
			echo "$f src/$h"
		elif [ -f "$d/$h" ]; then
			echo "$f $d/$h"
		fi
	done
done >"$tmp/includes"
cat "$tmp/includes" >>"$tmp/edges"
sort -u "$tmp/edges" -o "$tmp/edges"

status=0
# circles: tsort names every loop it breaks
if ! tsort "$tmp/edges" >/dev/null 2>"$tmp/loops"; then
	# each loop tsort breaks, its files in a line
	awk '/input contains a loop/ { if (c) print c; c = "circle:"; next }
	     { sub(/^tsort: /, ""); c = c " " $0 } END { if (c) print c }' "$tmp/loops"
	status=1
fi

# floors: each arrow between folders, and the ones that run up
awk -v arrows="$arrows" '
	FNR == NR { floor[$2] = $1; order[++n] = $2; next }
	function where(f,   i, best) {
		best = ""
		for (i = 1; i <= n; i++)
			if (index(f, order[i]) == 1 && length(order[i]) > length(best))
				best = order[i]
		return best
	}
	{
		a = where($1); b = where($2)
		if (a == "" || b == "" || a == b)
			next
		key = a " -> " b
		if (!(key in seen)) {
			seen[key] = 1
			if (arrows == "true")
				printf "%-4s %-19s -> %-4s %-19s (%s -> %s)\n", floor[a], a, floor[b], b, $1, $2
		}
		if (floor[a] + 0 <= floor[b] + 0) {
			printf "up or across: %s (floor %s) -> %s (floor %s)\n", $1, floor[a], $2, floor[b]
			bad = 1
		}
	}
	END { exit bad }
' "$tmp/floors" "$tmp/edges" || status=1
if [ $status -eq 0 ]; then
	echo "src/: $(wc -l <"$tmp/edges") arrows between files, no circle, none up a floor"
fi
exit $status
