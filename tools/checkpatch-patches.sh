#!/bin/sh
# Run the 3.0.8 tree's own scripts/checkpatch.pl on every patch of
# kernel/patches/3.0.8 (and on seed 001, when ../shared/seeds is there),
# from the top of that tree, as a kernel developer of 2011 would have.
#
# One fix, to the copy run here: perl >= 5.26 rejects the unescaped "{" of
# two regular expressions of 3.0's checkpatch.pl (line 1976-1977:
# "Unescaped left brace in regex is illegal"), so they are escaped; the
# rules are unchanged. Perl's deprecation warnings for two others are
# silenced (stderr), nothing else.
#
# Usage: tools/checkpatch-patches.sh      Exit status: 1 if any patch has an ERROR.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
shared=${NPG_SHARED:-$here/../shared}
tarball=$shared/kernels/linux-3.0.8-src.tar.xz
[ -r "$tarball" ] || { echo "checkpatch-patches: cannot read $tarball" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/checkpatch.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
xz -dc "$tarball" | tar -x -C "$work"
tree=$work/linux-3.0.8
sed -i -e 's/\.\*\\s{\/) and/.*\\s\\{\/) and/' -e 's/do\\s{\//do\\s\\{\//' "$tree/scripts/checkpatch.pl"

status=0
for p in "$here"/kernel/patches/3.0.8/*.patch "$shared"/seeds/001-*.patch; do
	[ -r "$p" ] || continue
	echo "== $(basename "$p")"
	# checkpatch exits 1 on a warning too: only an ERROR fails here
	out=$(cd "$tree" && perl scripts/checkpatch.pl "$p" 2>/dev/null) || true
	echo "$out"
	echo "$out" | grep -q '^total: 0 errors' || status=1
done
exit $status
