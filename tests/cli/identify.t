#!/bin/sh
# nprocguard identify: which policy and rules a kernel follows, asked of the
# kernel (here, as root, and inside an image under QEMU); --model in run,
# conform, explain and audit; the one line that says when the version and
# identify disagree.
. "$(dirname "$0")/lib.sh"

BASE=$((NPG_TEST_UID_BASE + 300000))	# a window of its own within this run's slot
export NPROCGUARD_CACHE="$TMP/cache"
A="$TOP/scenarios/article"

test_expect "identify takes no files, and --random only with --generate" '
	expect_exit 2 "$NPG" identify "$A/03-unchecked-drop.npg" &&
	grep -q "unexpected argument .*the probes are linked in" "$TMP/stderr" &&
	expect_exit 2 "$NPG" identify --random 5 &&
	grep -q "random goes with --generate" "$TMP/stderr"
'

test_expect "a bad --model names the word and why, in every command that takes it" '
	expect_exit 2 "$NPG" run --model linux-7 "$A/03-unchecked-drop.npg" &&
	grep -q "bad --model .linux-7.: .linux-7.: not a policy" "$TMP/stderr" &&
	expect_exit 2 "$NPG" conform --model linux-6,+frob "$A/03-unchecked-drop.npg" &&
	grep -q "bad --model .linux-6,+frob.: .frob.: no such rule" "$TMP/stderr" &&
	expect_exit 2 "$NPG" explain --model linux-6,ptrace_seize=7 &&
	grep -q "bad --model .*a value from 0 to 2" "$TMP/stderr" &&
	expect_exit 2 "$NPG" run --model linux-6 --policy linux-6 "$A/03-unchecked-drop.npg" &&
	grep -q "model picks the model: not with --policy" "$TMP/stderr" &&
	expect_exit 2 "$NPG" conform --model linux-6 --policy linux-6 "$A/03-unchecked-drop.npg" &&
	grep -q "both name the model" "$TMP/stderr"
'

test_expect "run --model: one configuration, named with the rules that differ from its policy" '
	printf "%s\n" "user root 0" "user u3 1003" "task d0 uid root" "d0: setfsuid u3" \
		"d0: setresuid root -1 root" "check d0 fsuid" >"$TMP/noop.npg" &&
	expect_exit 0 "$NPG" run --model linux-6 -f json "$TMP/noop.npg" &&
	jq -e "[.scenarios[0].statements[-1].observed[]][0].value == \"u3\"" "$TMP/stdout" >/dev/null &&
	expect_exit 0 "$NPG" run --model linux-6,-setresuid_noop_fastpath "$TMP/noop.npg" &&
	grep -q "^model linux-6 for release .*: given by --model, without setresuid_noop_fastpath (659c0ce1cb9e)" "$TMP/stdout" &&
	expect_exit 0 "$NPG" run --model linux-6,-setresuid_noop_fastpath -f json "$TMP/noop.npg" &&
	jq -e "[.scenarios[0].statements[-1].observed[]][0].value == \"root\"" "$TMP/stdout" >/dev/null
'

test_expect "run --model: the ucounts hooks without flag_nproc_exceeded are linux-5.14's" '
	expect_exit 0 "$NPG" run --model linux-6,-flag_nproc_exceeded "$A/03-unchecked-drop.npg" &&
	grep -q "^model linux-5.14 for release" "$TMP/stdout" &&
	grep -Eq "^ +17 session +execve /bin/sh +ok" "$TMP/stdout"
'

test_expect "explain --model decides by the rules given: 5.14-5.16 compare N > L" '
	expect_exit 0 "$NPG" explain -J --model linux-5.14 &&
	jq -e ".model == \"linux-5.14\"" "$TMP/stdout" >/dev/null &&
	expect_exit 0 "$NPG" explain --model linux-6,-fork_counts_child &&
	grep -q "before copy_creds() (5.14-5.16 before 8f2f9c4d82f2)" "$TMP/stdout"
'

if [ "$(id -u)" -ne 0 ]; then
	for t in "identify on this kernel: the version's model, every rule decided or said why" \
		 "a second --model identified reads what identify kept for this boot" \
		 "conform and explain say so when identify kept another model than the version says" \
		 "identify as another user: refused, exit 3, nothing probed"; do
		test_skip "$t" "needs root (the real backend makes processes of other users)"
	done
else
	test_expect "identify on this kernel: the version's model, every rule decided or said why" '
		expect_exit 0 "$NPG" identify -u "$BASE" &&
		grep -q "^kernel $(uname -r): follows " "$TMP/stdout" &&
		grep -q "^its version says the same: " "$TMP/stdout" &&
		grep -Eq "^policy +linux-6 +decided +scenarios/identify/[0-9]+-[a-z_]+\.npg:[0-9]+ \(" "$TMP/stdout" &&
		grep -Eq "^flag_nproc_exceeded +with +decided " "$TMP/stdout" &&
		grep -q "^identify: [0-9]* probes, [0-9]* statements, [0-9]* unreproducible here, " "$TMP/stdout" &&
		no_leftovers &&
		expect_exit 0 "$NPG" identify -u "$BASE" -J &&
		jq -e ".fits and .policy == \"linux-6\" and (.rules | length) > 20 and
		       ([.rules[] | select(.decision == \"decided\") | .probe] | all(test(\"^scenarios/identify/\")))" \
			"$TMP/stdout" >/dev/null &&
		grep -q "^config linux-6" "$NPROCGUARD_CACHE/identified" &&
		grep -q "^boot_id $(cat /proc/sys/kernel/random/boot_id)$" "$NPROCGUARD_CACHE/identified"
	'
	test_expect "a second --model identified reads what identify kept for this boot" '
		expect_exit 0 "$NPG" conform -u "$BASE" --model identified "$A/03-unchecked-drop.npg" &&
		grep -q "^model linux-6 for release .*: identified (kept for this boot), for kernel " "$TMP/stdout" &&
		! grep -q "identified .* probes" "$TMP/stderr" &&
		expect_exit 0 "$NPG" run --model identified -u "$BASE" "$A/03-unchecked-drop.npg" &&
		grep -q "identified (kept for this boot)" "$TMP/stdout"
	'
	test_expect "conform and explain say so when identify kept another model than the version says" '
		sed -i "s/^config .*/config linux-6,-setresuid_noop_fastpath/" "$NPROCGUARD_CACHE/identified" &&
		expect_exit 0 "$NPG" conform -u "$BASE" "$A/03-unchecked-drop.npg" &&
		grep -q "^identify found linux-6,-setresuid_noop_fastpath for this boot of kernel .*, where its version says linux-6: --model identified compares with it$" "$TMP/stdout" &&
		expect_exit 0 "$NPG" explain &&
		grep -q "^identify found linux-6,-setresuid_noop_fastpath for this boot of kernel .*: --model identified decides by it$" "$TMP/stdout" &&
		"$NPG" status >/dev/null 2>"$TMP/status.err" &&
		grep -q "^nprocguard status: identify found linux-6,-setresuid_noop_fastpath" "$TMP/status.err" &&
		sed -i "s/^boot_id .*/boot_id another-boot/" "$NPROCGUARD_CACHE/identified" &&
		expect_exit 0 "$NPG" conform -u "$BASE" "$A/03-unchecked-drop.npg" &&
		! grep -q "^identify found" "$TMP/stdout"
	'
	test_expect "identify as another user: refused, exit 3, nothing probed" '
		expect_exit 3 setpriv --reuid=65534 --regid=65534 --clear-groups "$NPG" identify -u "$BASE" &&
		grep -q "real backend needs root" "$TMP/stderr"
	'
fi

# Inside an image: 3.0.8's rules, as its version says
kdir=${NPG_KERNELS:-$TOP/../shared/kernels}
image=$(ls "$kdir"/linux-3.0.8*bzImage 2>/dev/null | head -n 1)
if ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
	test_skip "identify inside 3.0.8 finds linux-2.6 and its rules" \
		"qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)"
elif [ -z "$image" ]; then
	test_skip "identify inside 3.0.8 finds linux-2.6 and its rules" "no 3.0.8 image in $kdir (set NPG_KERNELS)"
else
	test_expect "identify inside 3.0.8 finds linux-2.6 and its rules" '
		expect_exit 0 "$NPG" identify -J --guest-timeout 900 --kernel "$image" &&
		jq -e ".kernel == \"3.0.8\" and .policy == \"linux-2.6\" and .fits and .config == \"linux-2.6\" and
		       ([.rules[] | select(.rule == \"fcaps_suppress_root\")][0].decision == \"decided\")" \
			"$TMP/stdout" >/dev/null
	'
fi

test_done
