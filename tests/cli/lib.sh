# TAP helpers for the command-line tests, in the manner of git's t/.
# Each test: test_expect "sentence" 'shell code'. Temporary files live in
# $TMP, removed on any exit.
set -u
: "${NPG_BUILD:?set NPG_BUILD to a build directory}"
NPG="$NPG_BUILD/nprocguard"
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/nprocguard-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM HUP
test_count=0
test_failed=0

# The uids this run of the tests may use. Each test file takes its windows
# from NPG_TEST_UID_BASE; when the environment does not set it, a free slot
# of 1,000,000 uids from 3000000000 up is claimed with flock(1) and held
# until the test file ends, so that two `make check` at once on one machine
# (two CI jobs, a developer and a cron job) never share a uid.
if [ -z "${NPG_TEST_UID_BASE:-}" ]; then
	_slot_dir=/run/nprocguard
	mkdir -p "$_slot_dir" 2>/dev/null || _slot_dir=${TMPDIR:-/tmp}
	_slot=0
	while [ $_slot -lt 64 ]; do
		exec 9>>"$_slot_dir/test-slot-$_slot.lock"
		if flock -n 9; then
			break
		fi
		exec 9>&-
		_slot=$((_slot + 1))
	done
	[ $_slot -lt 64 ] || { echo "Bail out! no free test uid slot in $_slot_dir"; exit 1; }
	NPG_TEST_UID_BASE=$((3000000000 + _slot * 1000000))
fi
export NPG_TEST_UID_BASE

test_expect() {
	test_count=$((test_count + 1))
	if (eval "$2") >"$TMP/out" 2>&1; then
		echo "ok $test_count - $1"
	else
		echo "not ok $test_count - $1"
		# on stderr, which prove shows: make check's log says why it failed
		{ echo "# ${0##*/} $test_count failed: $1"; sed 's/^/#   /' "$TMP/out"; } >&2
		test_failed=$((test_failed + 1))
	fi
}

# A skip is also written to $NPG_SKIPS when it is set, one line
# "FILE: TEST: WHY": make check names every skip of a pass after it, since
# prove alone shows none.
test_skip() {
	test_count=$((test_count + 1))
	echo "ok $test_count - $1 # SKIP $2"
	if [ -n "${NPG_SKIPS:-}" ]; then
		printf '%s: %s: %s\n' "${0##*/}" "$1" "$2" >>"$NPG_SKIPS" ||
			echo "Bail out! cannot write $NPG_SKIPS"
	fi
}

test_done() {
	echo "1..$test_count"
	[ "$test_failed" -eq 0 ]
}

# expect_exit CODE command...: run, require that exit status
expect_exit() {
	_expect_status=$1
	shift
	"$@" >"$TMP/stdout" 2>"$TMP/stderr"
	_status=$?
	if [ "$_status" -ne "$_expect_status" ]; then
		echo "exit status $_status, want $_expect_status: $*"
		cat "$TMP/stdout" "$TMP/stderr"
		return 1
	fi
}

# The hardening library to preload from build $NPG_BUILD: the sanitized
# build's needs the ASan runtime loaded first.
harden_preload() {
	h="$NPG_BUILD/libnprocguard-harden.so"
	if nm -D "$h" 2>/dev/null | grep -q __asan_init; then
		h="$(${CC:-cc} -print-file-name=libasan.so) $h"
	fi
	echo "$h"
}

# with_sleepers UID COMMAND...: run COMMAND while three processes of UID
# run (RLIMIT_NPROC tests); they are killed and reaped afterwards.
with_sleepers() {
	_ws_uid=$1
	shift
	for _ws in 1 2 3; do setpriv --reuid="$_ws_uid" --regid="$_ws_uid" --clear-groups sleep 30 & done
	sleep 0.3
	"$@"; _ws_rc=$?
	pkill -u "$_ws_uid" sleep; wait 2>/dev/null
	return $_ws_rc
}

# reach_copy FILE...: copies in $TMP/reach, for programs run as another
# user: a clone may live under /root (mode 0700), which that user cannot
# enter. $TMP becomes searchable by others (go+x, other bits unchanged);
# its files keep their own modes. Prints the directory.
reach_copy() {
	mkdir -p "$TMP/reach" && chmod go+x "$TMP" && chmod 0755 "$TMP/reach" &&
		cp "$@" "$TMP/reach/" && echo "$TMP/reach"
}

# smallest_image: the smallest kernel image of $NPG_KERNELS (default
# ../shared/kernels) in $image, for a test that boots one under QEMU; $why
# says why none can boot here ("" when one can)
smallest_image() {
	kdir=${NPG_KERNELS:-$TOP/../shared/kernels}
	image=$(ls -S "$kdir"/*bzImage* "$kdir"/vmlinuz* 2>/dev/null | tail -n 1)
	why=""
	if ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
		why="qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)"
	elif [ -z "$image" ]; then
		why="no kernel image in $kdir (set NPG_KERNELS)"
	fi
}

# stand_in_qemu: $FAKE, the stand-in for QEMU (fixtures/fake-qemu, run
# through NPROCGUARD_QEMU), and $IMG, a bzImage with a setup header and no
# kernel, which the image check passes and only the stand-in "boots"
stand_in_qemu() {
	FAKE="$TOP/tests/cli/fixtures/fake-qemu"
	IMG="$TMP/fake.bzImage"
	"$TOP/tests/cli/fixtures/fake-bzimage" "$IMG"
}

# The real backend's tests: tasks left in the uid window [$BASE, $BASE + 4096)
# (a task in a user namespace shows its kernel ids in /proc too)
in_window() {
	cat /proc/[0-9]*/task/[0-9]*/status 2>/dev/null |
		awk -v lo="$BASE" '/^Uid:/ { for (i = 2; i <= 5; i++) if ($i >= lo && $i < lo + 4096) n++ }
				   END { print n + 0 }'
}

no_leftovers() {
	n=$(in_window)
	[ "$n" -eq 0 ] || { echo "left behind: $n tasks"; ps -eo uid,pid,stat,comm | awk -v lo="$BASE" '$1 >= lo'; return 1; }
}

# After a SIGKILL nobody but init can reap the orphans' zombies; give it time.
no_leftovers_after_init() {
	i=0
	while [ "$(in_window)" -ne 0 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	no_leftovers
}

# agrees_and_holds FILE (real-kernel tests; $BASE the uid base): conform
# with 0 differences and nothing unreproducible, then run --real with every
# expectation held; nothing left in the window
agrees_and_holds() {
	expect_exit 0 "$NPG" conform -u $BASE "$1" &&
	grep -q "^conform: 1 scenarios, [0-9]* statements, 0 differences, 0 unreproducible here" \
		"$TMP/stdout" || { cat "$TMP/stdout"; return 1; }
	expect_exit 0 "$NPG" run --real -u $BASE "$1" &&
	grep -q "^[0-9]* expectations: [0-9]* held, 0 failed$" "$TMP/stdout" ||
		{ cat "$TMP/stdout"; return 1; }
	no_leftovers
}

# Machine facts a test may need and a build machine may refuse. Each prints
# why it is refused, for test_skip, and fails when it is not.

# in_chroot: this process's / is not init's (sbuild, pbuilder, many CI
# runners), as create_user_ns()'s current_chrooted() asks. Where init's root
# cannot be read (ptrace_may_access() refuses /proc/1/root to root on some
# machines, these VMs included), a / that is no mount point is a chroot's:
# an unchrooted process's / is its mount namespace's root.
in_chroot() {
	if init_root=$(stat -c %d:%i /proc/1/root/. 2>/dev/null); then
		[ "$(stat -c %d:%i /)" != "$init_root" ]
	else
		! mountpoint -q /
	fi
}

# userns_refused [UNSHARE-OPTION...]: the kernel does not give every task a
# user namespace here, or `unshare --user` with those options fails
userns_refused() {
	if [ ! -e /proc/self/ns/user ] || [ ! -e /proc/self/uid_map ]; then
		echo "no user namespaces in this kernel (CONFIG_USER_NS)"
	elif [ "$(cat /proc/sys/kernel/unprivileged_userns_clone 2>/dev/null || echo 1)" = 0 ] ||
	     [ "$(cat /proc/sys/user/max_user_namespaces 2>/dev/null || echo 1)" = 0 ] ||
	     [ "$(cat /proc/sys/kernel/apparmor_restrict_unprivileged_userns 2>/dev/null || echo 0)" = 1 ]; then
		echo "this machine refuses user namespaces to unprivileged tasks (a sysctl)"
	elif unshare --user "$@" true 2>/dev/null; then
		return 1
	elif in_chroot; then
		echo "the kernel refuses CLONE_NEWUSER to a chrooted process (create_user_ns())"
	else
		echo "unshare --user${*:+ $*} is refused here: $(unshare --user "$@" true 2>&1 | head -n 1)"
	fi
}
