#!/bin/sh
# Download Debian's amd64 kernel images for bullseye (5.10), bookworm (6.1)
# and trixie (6.12), and keep only vmlinuz: the kernels `make kernels` boots
# under QEMU. The machine's apt sources are never touched: a private apt
# configuration (its own sources list, lists and cache under the output
# directory) names the archive the machine already uses, read from its own
# sources, and checks signatures with the Debian keyring.
#
# Usage: tools/fetch-debian-kernels.sh [DIR]   (default ~/.cache/nprocguard/kernels)
# Prints one line per image: DIR/vmlinuz-RELEASE. Re-running reuses them.
set -eu

dir=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/nprocguard/kernels}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
suites="bullseye bookworm trixie"

die() { echo "fetch-debian-kernels: $*" >&2; exit 1; }
command -v apt-get >/dev/null 2>&1 || die "needs apt-get and dpkg-deb (Debian)"
[ -r "$keyring" ] || die "needs $keyring (apt-get install debian-archive-keyring)"

# The archive URI: the first Debian main archive among the machine's sources
# (deb822 .sources files or one-line sources.list), not a name written here.
archive_uri() {
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		awk '
			/^[[:space:]]*#/ { next }
			/^deb[[:space:]]/ { for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i !~ /\]$/) { print $i; exit } }
			/^URIs:/ { print $2; exit }
		' "$f"
	done | grep -v -- '-security' | grep '/debian/*$' | head -n 1
}
uri=$(archive_uri)
[ -n "$uri" ] || die "no Debian archive found in /etc/apt/sources.list{,.d}"

mkdir -p "$dir"
work=$(mktemp -d "$dir/.fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

for suite in $suites; do
	apt="$work/$suite"
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/deb"
	echo "deb [signed-by=$keyring] $uri $suite main" >"$apt/sources.list"
	set -- -o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache" \
		-o Dir::State::Status=/dev/null -o APT::Architecture=amd64 -o Debug::NoLocking=1 -o APT::Sandbox::User=root
	apt-get "$@" -qq update >&2 || die "$suite: apt-get update failed"
	# linux-image-amd64 depends on the current image of the suite; the
	# -unsigned build has the same vmlinuz without the Secure Boot signature.
	signed=$(apt-cache "$@" depends linux-image-amd64 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
	[ -n "$signed" ] || die "$suite: no linux-image-amd64 dependency found"
	pkg=${signed%-unsigned}-unsigned
	apt-cache "$@" show "$pkg" >/dev/null 2>&1 || pkg=$signed
	version=$(apt-cache "$@" show "$pkg" | awk '/^Version:/ { print $2; exit }')
	out="$dir/vmlinuz-$pkg-$version"
	if [ ! -s "$out" ]; then
		(cd "$apt/deb" && apt-get "$@" -qq download "$pkg" >&2) || die "$suite: cannot download $pkg"
		dpkg-deb -x "$apt/deb/"*.deb "$apt/root" || die "$suite: cannot unpack $pkg"
		img=$(ls "$apt/root/boot/"vmlinuz-* 2>/dev/null | head -n 1)
		[ -n "$img" ] || die "$suite: $pkg has no /boot/vmlinuz-*"
		cp "$img" "$out.tmp" && mv "$out.tmp" "$out"
	fi
	echo "$out"
done
