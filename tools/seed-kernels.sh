#!/bin/sh
# `make seed-kernels`: one Linux 3.0.8 image per patch of kernel/patches/3.0.8
# (the seeds' policies and linux-3.1), built with ../shared/kernels'
# build-linux-3.0.8.sh, and seed 001 applied verbatim when ../shared/seeds is
# there. Each image is named by its release: LOCALVERSION=-POLICY, so that
# `uname -r` in the guest is 3.0.8-POLICY and `conform --kernel` picks the
# policy from it (3.0.8-seed001-kulikov-2011 for the verbatim seed).
#
# Images are cached outside the tree, in the cache directory of nprocguard
# ($NPROCGUARD_CACHE, $XDG_CACHE_HOME/nprocguard or ~/.cache/nprocguard),
# under seed-kernels/, named linux-3.0.8-POLICY-KEY.bzImage where KEY is a
# hash of everything the build reads: the patch, the build script, the
# source tarball, the configuration and the local version. An image whose
# key is still current is reused; a stale one is removed when its
# replacement is built. Builds run one at a time (JOBS=2 by default: about
# 3-4 minutes each on 2 cores).
#
# Usage: tools/seed-kernels.sh [--list]
#   prints one line per image: its path. --list builds nothing and prints
#   only the images already built for the current inputs (make kernels).
# Environment: NPG_SHARED (default ../shared beside the repository), JOBS.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
shared=${NPG_SHARED:-$here/../shared}
list=0
[ "${1:-}" = --list ] && list=1
die() { echo "seed-kernels: $*" >&2; exit 2; }

build=$shared/kernels/build-linux-3.0.8.sh
tarball=$shared/kernels/linux-3.0.8-src.tar.xz
config=$shared/kernels/config-3.0.8
for f in "$build" "$tarball" "$config"; do
	[ -r "$f" ] || { [ $list = 1 ] && exit 0; die "cannot read $f"; }
done

if [ -n "${NPROCGUARD_CACHE:-}" ]; then
	cache=$NPROCGUARD_CACHE
elif [ -n "${XDG_CACHE_HOME:-}" ]; then
	cache=$XDG_CACHE_HOME/nprocguard
elif [ -n "${HOME:-}" ]; then
	cache=$HOME/.cache/nprocguard
else
	cache=/var/cache/nprocguard
fi
cache=$cache/seed-kernels
[ $list = 1 ] || mkdir -p "$cache"

# "LOCALVERSION PATCH" per image: ours, then the verbatim seed
images=$(for p in "$here"/kernel/patches/3.0.8/*.patch; do
	[ -r "$p" ] && echo "$(basename "$p" .patch) $p"
done
for p in "$shared"/seeds/001-*.patch; do
	[ -r "$p" ] && echo "seed001-kulikov-2011 $p"
done)
[ -n "$images" ] || die "no patches in $here/kernel/patches/3.0.8"

# The sums of the shared inputs, once
common=$(sha256sum "$build" "$tarball" "$config" | cut -d' ' -f1)

echo "$images" | while read -r lv patch; do
	key=$( { echo "$common"; sha256sum <"$patch"; echo "LOCALVERSION=-$lv"; } |
		sha256sum | cut -c1-16)
	img=$cache/linux-3.0.8-$lv-$key.bzImage
	if [ -s "$img" ]; then
		echo "$img"
		continue
	fi
	[ $list = 1 ] && continue
	echo "seed-kernels: building 3.0.8-$lv ($(basename "$patch"))" >&2
	start=$(date +%s)
	tmp=$cache/.building-$lv-$key.bzImage
	# 3.0's scripts/setlocalversion appends $LOCALVERSION to the release
	# (and, with it set, adds no "+" for a tree outside git)
	LOCALVERSION=-$lv JOBS=${JOBS:-2} \
		sh "$build" "$tmp" "$patch" >/dev/null || { rm -f "$tmp"; die "3.0.8-$lv: build failed"; }
	# the release the guest will report is in the image's setup header
	grep -a -q "3\.0\.8-$lv " "$tmp" ||
		{ rm -f "$tmp"; die "3.0.8-$lv: the image does not carry release 3.0.8-$lv"; }
	rm -f "$cache/linux-3.0.8-$lv-"*.bzImage
	mv "$tmp" "$img"
	echo "seed-kernels: 3.0.8-$lv built in $(( $(date +%s) - start )) s" >&2
	echo "$img"
done
