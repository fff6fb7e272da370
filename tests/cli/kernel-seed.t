#!/bin/sh
# A seed policy on its own kernel: conform --kernel boots a 3.0.8 image
# built from one of kernel/patches/3.0.8 (ow-2006, kulikov-2011,
# brown-flag-2011, linux-3.1, or seed 001 verbatim) and compares the seed
# scenarios with the model of the policy its release names -- picked by
# conform itself from `uname -r` (3.0.8-kulikov-2011, ...) -- and replays
# the explorer's counterexamples of that policy there. The image is one
# `make seed-kernels` cached, or one in $NPG_KERNELS whose release names a
# policy; this test never builds a kernel (3-4 minutes each), so on a fresh
# machine, such as CI's, it skips and says so. No root needed here: the
# guest is root.
. "$(dirname "$0")/lib.sh"

# The cached images, before NPROCGUARD_CACHE points into this test's $TMP
cached=$("$TOP/tools/seed-kernels.sh" --list 2>/dev/null || true)
export NPROCGUARD_CACHE="$TMP/cache"

# The policy an image's release names, from the version string of its setup
# header ("3.0.8-ow-2006 (build@build) #1 ..."), or nothing
policy_of() {
	_rel=$(grep -a -o -m 1 -E '[0-9]+\.[0-9]+\.[0-9]+-[-a-z0-9.]+ \(' "$1" 2>/dev/null |
		head -n 1 | cut -d' ' -f1)
	case $_rel in
	*-ow-2006 | *-kulikov-2011 | *-brown-flag-2011 | *-linux-3.1)
		echo "${_rel#*-}" | sed -E 's/^seed[0-9]+-//'
		;;
	esac
}

# ow-2006's first when there: its force_sig(SIGSEGV) is the path a
# sanitizer's own SIGSEGV handler would take over in the puppets
image= policy=
kdir=${NPG_KERNELS:-$TOP/../shared/kernels}
for want in ow-2006 kulikov-2011 brown-flag-2011 linux-3.1; do
	for f in $cached "$kdir"/*; do
		[ -f "$f" ] && [ "$(policy_of "$f")" = "$want" ] || continue
		image=$f policy=$want
		break 2
	done
done

if ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
	test_skip "a seed policy agrees with the model inside its own kernel" \
		"qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)"
	test_done
	exit 0
fi
if [ -z "$image" ]; then
	test_skip "a seed policy agrees with the model inside its own kernel" \
		"no seed kernel: none cached for the current patches (make seed-kernels builds them, 3-4 minutes each; a fresh machine such as CI has none) and none in $kdir whose release names a policy (set NPG_KERNELS)"
	test_done
	exit 0
fi

test_expect "the seed scenarios agree with $policy inside $(basename "$image")" '
	cd "$TOP" &&
	expect_exit 0 "$NPG" conform --guest-timeout 900 --kernel "$image" scenarios/article/*.npg &&
	grep -q "^model $policy for release 3\.0\.8: named by its local version, picked for kernel 3\.0\.8-.*$policy " \
		"$TMP/stdout" &&
	grep -q "^conform: 9 scenarios, 102 statements, 0 differences, .*, model $policy\$" "$TMP/stdout"
'

# The scenario that shows each seed policy apart: 03-unchecked-drop.npg's
# setuid/execve row, compared step by step (ow-2006: killed by SIGSEGV;
# kulikov-2011, brown-flag-2011, linux-3.1: the execve() fails)
test_expect "the unchecked drop of the article, statement by statement, inside $(basename "$image")" '
	cd "$TOP" &&
	expect_exit 0 "$NPG" conform --guest-timeout 900 --kernel "$image" \
		scenarios/article/03-unchecked-drop.npg &&
	grep -q "^scenarios/article/03-unchecked-drop.npg: 8 statements: 8 agree, 0 differ, 0 unreproducible" \
		"$TMP/stdout"
'

# -ow's SIGSEGV on a thread takes its process: the leader's later steps
# are a dead task's and its exit is read from its parent (3.0.8's stat has
# no exit code); the backend once lost the leader ('Broken pipe')
if [ "$policy" = ow-2006 ]; then
	test_expect "a thread killed by -ow's SIGSEGV takes its process, inside $(basename "$image")" '
		cd "$TOP" &&
		expect_exit 0 "$NPG" conform --guest-timeout 900 --kernel "$image" \
			scenarios/regression/ow-2006-thread-killed.npg &&
		grep -q "^scenarios/regression/ow-2006-thread-killed.npg: 9 statements: 9 agree, 0 differ, 0 unreproducible" \
			"$TMP/stdout"
	'
	# ... and a vfork() child killed there, its parent alive, is asked of
	# the parent once it has answered its vfork() (before: unreproducible)
	test_expect "a vfork() child killed by -ow's SIGSEGV: its parent says how, inside $(basename "$image")" '
		cd "$TOP" &&
		expect_exit 0 "$NPG" conform --guest-timeout 900 --kernel "$image" \
			scenarios/regression/ow-2006-vfork-child-status.npg &&
		grep -q "^scenarios/regression/ow-2006-vfork-child-status.npg: 7 statements: 7 agree, 0 differ, 0 unreproducible" \
			"$TMP/stdout"
	'
fi

# The explorer's shortest counterexamples of this policy (Brown's race,
# Peslyak's stale flag, the killed careful drop, ...) replayed on its kernel
if [ "$(id -u)" -ne 0 ]; then
	test_skip "the explorer's counterexamples of $policy replay on its kernel" \
		"explore --replay-kernel needs root"
else
	test_expect "the explorer's counterexamples of $policy replay on its kernel" '
		cd "$TOP" &&
		expect_exit 1 "$NPG" explore --policy "$policy" --quiet --replay-kernel "$image" \
			scenarios/article/ &&
		grep -q "^conform: [0-9]* scenarios, [0-9]* statements, 0 differences, .*model $policy\$" \
			"$TMP/stdout"
	'
fi

test_done
