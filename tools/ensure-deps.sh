#!/bin/sh
# Make sure the build and test dependencies are there. On Debian, as root,
# install what is missing; elsewhere say what to install and fail.
set -eu
PKGS="build-essential pkg-config libsmartcols-dev libcap-dev libseccomp-dev libbpf-dev zlib1g-dev clang jq perl procps util-linux qemu-system-x86 libcap2-bin"
missing=""
pkg-config --exists smartcols 2>/dev/null || missing="$missing libsmartcols-dev"
pkg-config --exists libcap 2>/dev/null || missing="$missing libcap-dev"
pkg-config --exists libseccomp 2>/dev/null || missing="$missing libseccomp-dev"
pkg-config --exists libbpf 2>/dev/null || missing="$missing libbpf-dev"
pkg-config --exists zlib 2>/dev/null || missing="$missing zlib1g-dev"	# guest/image.c
command -v clang >/dev/null 2>&1 || missing="$missing clang"	# the BPF task iterator
command -v cc >/dev/null 2>&1 || missing="$missing build-essential"
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
command -v jq >/dev/null 2>&1 || missing="$missing jq"
command -v prove >/dev/null 2>&1 || missing="$missing perl"
command -v pkill >/dev/null 2>&1 || missing="$missing procps"
command -v setpriv >/dev/null 2>&1 || missing="$missing util-linux"
command -v getcap >/dev/null 2>&1 || [ -x /sbin/getcap ] || missing="$missing libcap2-bin"	# real.t
# conform --kernel and tests/cli/kernel.t: installed when we can (root),
# otherwise optional -- the test says why it skips
if ! command -v qemu-system-x86_64 >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
	missing="$missing qemu-system-x86"
fi
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "installing:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null
	# shellcheck disable=SC2086
	apt-get install -y -qq $PKGS >/dev/null
	exit 0
fi
echo "missing:$missing -- install them (Debian: apt-get install$missing)" >&2
exit 1
