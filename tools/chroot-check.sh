#!/bin/bash
# tools/chroot-check.sh [CHROOT [COMMAND...]]: `.ci/run` (apt installs + make check) on a
# clean clone of this repository's HEAD inside a Debian 12 chroot, as
# Debian builds packages (sbuild, pbuilder) and as many CI runners do:
# there the kernel refuses CLONE_NEWUSER (create_user_ns(): a chrooted
# process may not make a user namespace) and / is not a mount point.
#
# Root only. CHROOT (default /var/tmp/npg-chroot) is made with debootstrap
# on first use and kept for the next runs; the clone is made afresh at
# /root/nprocguard inside it (mode 0700, as a clone under /root often is).
# /proc, /sys, /dev and /dev/pts are bound in as schroot does (not
# recursively), and /run/nprocguard is the host's, so that the test uid
# slots and uid-window locks are shared with test runs outside the chroot.
# The kernel images beside this clone (../shared/kernels, or NPG_KERNELS)
# are bound read-only beside the chroot's clone, so that the tests that boot
# them under QEMU run there too: a chroot refuses user namespaces and has
# no mount point at /, and that is what this check is for.
# Everything mounted is unmounted on every exit path, SIGINT and SIGTERM
# included, after any process left inside the chroot is killed.
#
# With COMMAND, that runs in the clone instead of .ci/run (a re-run of some
# tests in a chroot already set up: `tools/chroot-check.sh /var/tmp/npg-chroot
# sh -c 'make && NPG_BUILD=$PWD/build prove -v tests/cli/real.t'`).
#
# Exit status: make check's (0 both builds passed), or COMMAND's; 2 on a
# set-up error.
# `make check` does not need this: it is a check to run before a release.
set -euo pipefail

chroot_dir=${1:-/var/tmp/npg-chroot}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- .ci/run
top=$(cd "$(dirname "$0")/.." && pwd)
mirror=${NPG_CHROOT_MIRROR:-http://deb.debian.org/debian}

[ "$(id -u)" -eq 0 ] || { echo "chroot-check: needs root (chroot, mount)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "chroot-check: apt-get install debootstrap" >&2; exit 2; }

if [ ! -x "$chroot_dir/usr/bin/apt-get" ]; then
	echo "chroot-check: debootstrap bookworm $chroot_dir (once)"
	debootstrap bookworm "$chroot_dir" "$mirror" >"$chroot_dir.debootstrap.log" 2>&1 ||
		{ echo "chroot-check: debootstrap failed, see $chroot_dir.debootstrap.log" >&2; exit 2; }
fi

mounted=()
# Kill what runs inside the chroot (only ours: nothing else is started
# there), then unmount in reverse order. Runs on every exit.
cleanup() {
	local pid root i
	for pid in /proc/[0-9]*; do
		root=$(readlink "$pid/root" 2>/dev/null) || continue
		case $root in "$chroot_dir" | "$chroot_dir"/*) kill -KILL "${pid#/proc/}" 2>/dev/null || true ;; esac
	done
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		umount "${mounted[$i]}" 2>/dev/null || umount -l "${mounted[$i]}" ||
			echo "chroot-check: could not unmount ${mounted[$i]}" >&2
	done
	mounted=()
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

bind() {
	mkdir -p "$2"
	mount --bind "$1" "$2"
	mounted+=("$2")
}

mkdir -p /run/nprocguard
for d in /proc /sys /dev /dev/pts /run/nprocguard; do
	bind "$d" "$chroot_dir$d"
done
cp /etc/resolv.conf "$chroot_dir/etc/resolv.conf"
kernels=${NPG_KERNELS:-$top/../shared/kernels}
if [ -d "$kernels" ]; then
	bind "$kernels" "$chroot_dir/root/shared/kernels"
	mount -o remount,bind,ro "$chroot_dir/root/shared/kernels"
fi

# a clean clone of HEAD: what is committed, nothing of the working tree
rm -rf "$chroot_dir/root/nprocguard"
git clone -q --no-local "$top" "$chroot_dir/root/nprocguard"
git -C "$chroot_dir/root/nprocguard" checkout -q "$(git -C "$top" rev-parse HEAD)"
chmod 0700 "$chroot_dir/root"
echo "chroot-check: $(git -C "$top" log --oneline -1) in $chroot_dir"

# in the background, so that a signal to this script is handled at once
# (bash runs a trap only after a foreground command ends)
rc=0
chroot "$chroot_dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb \
	LANG=C.UTF-8 /bin/bash -c 'cd /root/nprocguard && exec "$@"' chroot-check "$@" &
wait $! || rc=$?
echo "chroot-check: $* exited $rc"
exit $rc
