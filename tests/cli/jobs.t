#!/bin/sh
# conform --kernel --jobs N and compare --jobs N: scenarios across several
# guests at once, the report the same, byte for byte, as one guest's; and
# --accel auto: KVM when it works, TCG when it fails, said in one line and
# at once. The stand-in QEMU (fixtures/fake-qemu) plays KVM's failures;
# the last tests boot a real image (few boots: each takes seconds).
. "$(dirname "$0")/lib.sh"

stand_in_qemu
SCEN="$TOP/scenarios/article/03-unchecked-drop.npg"
export NPROCGUARD_CACHE="$TMP/cache"
# the stand-in's KVM device: one that opens (the trial boot is the stand-in's to fail)
KVM_OPENS=/dev/null

# fake MODE KVM ARGS...: conform --kernel against the stand-in, whose KVM
# fares as KVM says; bounded by timeout(1) far below the 180 s boot timeout
# that a KVM failure cost before
fake() {
	_mode=$1 _kvm=$2
	shift 2
	FAKE_QEMU=$_mode FAKE_QEMU_KVM=$_kvm FAKE_QEMU_ACCELS="$TMP/accels" \
		FAKE_QEMU_PID="$TMP/qemu.pid" NPROCGUARD_QEMU="$FAKE" \
		timeout 60 "$NPG" conform --kernel "$IMG" "$@"
}

qemu_gone() {
	! kill -0 "$(cat "$TMP/qemu.pid")" 2>/dev/null
}

test_expect "--jobs refuses 0, 65 and words, naming the range, in conform and compare" '
	for v in 0 65 two -1 ""; do
		expect_exit 2 "$NPG" conform --kernel "$IMG" --jobs "$v" "$SCEN" &&
		grep -q "^nprocguard conform: bad --jobs .*1 to 64" "$TMP/stderr" &&
		expect_exit 2 "$NPG" compare --jobs "$v" host host "$SCEN" &&
		grep -q "^nprocguard compare: bad --jobs .*1 to 64" "$TMP/stderr" || return 1
	done
'

test_expect "--jobs without --kernel is refused: it counts guests" '
	expect_exit 2 "$NPG" conform --jobs 2 "$SCEN" &&
	grep -q "^nprocguard conform: --jobs is the number of guests: it goes with --kernel" "$TMP/stderr"
'

test_expect "--accel takes auto, tcg or kvm" '
	expect_exit 2 "$NPG" conform --kernel "$IMG" --accel xen "$SCEN" &&
	grep -q "^nprocguard conform: --accel is auto, tcg or kvm, not .xen." "$TMP/stderr"
'

test_expect "--accel auto without a KVM device uses TCG and says why in one line" '
	rm -f "$TMP/accels"
	NPROCGUARD_KVM="$TMP/no-kvm" expect_exit 1 fake report "" "$SCEN" &&
	grep -q "^nprocguard conform: no KVM ($TMP/no-kvm: No such file or directory): using TCG$" "$TMP/stderr" &&
	[ "$(cat "$TMP/accels")" = tcg ]
'

# QEMU prints "KVM internal error" and stops the vCPU, waiting: before,
# nothing was noticed until the 180 s boot timeout (timeout(1) bounds the
# wait here far below it)
test_expect "--accel auto: KVM's internal error is noticed at once, said in one line, and TCG runs the guest" '
	rm -f "$TMP/accels"
	NPROCGUARD_KVM=$KVM_OPENS expect_exit 1 fake report internal-error "$SCEN" &&
	cat "$TMP/stderr" &&
	grep -q "^nprocguard conform: KVM failed (KVM internal error. Suberror: 1): using TCG$" "$TMP/stderr" &&
	[ "$(grep -c . "$TMP/stderr")" -eq 2 ] &&
	! grep -q EAX "$TMP/stderr" &&
	grep -q "^conform: 1 scenarios" "$TMP/stdout" &&
	[ "$(tr "\n" " " <"$TMP/accels")" = "kvm tcg " ] &&
	qemu_gone
'

test_expect "--accel auto: a QEMU that cannot start KVM (exit 1 before the guest speaks) falls back to TCG" '
	rm -f "$TMP/accels"
	NPROCGUARD_KVM=$KVM_OPENS expect_exit 1 fake report exit "$SCEN" &&
	grep -q "^nprocguard conform: KVM failed (QEMU exited with status 1 before the guest spoke: qemu-system-x86_64: failed to initialize kvm: Permission denied): using TCG$" "$TMP/stderr" &&
	[ "$(tr "\n" " " <"$TMP/accels")" = "kvm tcg " ]
'

test_expect "--accel auto: a KVM that works is used, and nothing is said" '
	rm -f "$TMP/accels"
	NPROCGUARD_KVM=$KVM_OPENS expect_exit 1 fake report "" "$SCEN" &&
	[ "$(cat "$TMP/stderr")" = "a warning from the guest" ] &&
	[ "$(cat "$TMP/accels")" = kvm ]
'

# a guest that panics under KVM panics under TCG too: not KVM's failure
test_expect "--accel auto: a guest that ends itself before speaking is its own failure, not KVM's" '
	rm -f "$TMP/accels"
	NPROCGUARD_KVM=$KVM_OPENS expect_exit 3 fake panic "" "$SCEN" &&
	! grep -q "KVM" "$TMP/stderr" &&
	grep -q "Kernel panic" "$TMP/stderr" &&
	[ "$(cat "$TMP/accels")" = kvm ]
'

test_expect "--accel kvm: KVM's internal error is no result at once, QEMU's message shown" '
	NPROCGUARD_KVM=$KVM_OPENS expect_exit 3 fake report internal-error --accel kvm "$SCEN" &&
	grep -q "^KVM internal error. Suberror: 1$" "$TMP/stderr" &&
	grep -q "^nprocguard conform: KVM failed: KVM internal error. Suberror: 1$" "$TMP/stderr" &&
	! grep -q "using TCG" "$TMP/stderr" && qemu_gone
'

test_expect "--jobs 2: a guest whose output is not a shard's stops the run, said, no QEMU left" '
	rm -f "$TMP/pids"
	FAKE_QEMU_PIDS="$TMP/pids" NPROCGUARD_KVM="$TMP/no-kvm" expect_exit 3 fake report "" --jobs 2 --random 2 -o "$TMP" &&
	grep -q "^nprocguard conform: guest [12] of 2: not a shard.s frames: conform: 1 scenarios" "$TMP/stderr" &&
	grep -q "^nprocguard conform: the report stops before scenario 1 of 2: guest [12] of 2 gave no result$" "$TMP/stderr" &&
	[ ! -s "$TMP/stdout" ] &&
	for p in $(cat "$TMP/pids"); do ! kill -0 "$p" 2>/dev/null || return 1; done
'

# several guests, one signal: every QEMU stopped, the run's files removed,
# said once, and the command dies of the signal
for sig in TERM:143 INT:130; do
	code=${sig#*:} sig=${sig%:*}
	test_expect "SIG$sig with two guests running stops both, leaves nothing, and ends the command by it" '
		rm -f "$TMP/pids"
		mkdir -p "$TMP/run" &&
		FAKE_QEMU=hang FAKE_QEMU_PIDS="$TMP/pids" NPROCGUARD_QEMU="$FAKE" TMPDIR="$TMP/run" \
			NPROCGUARD_KVM="$TMP/no-kvm" perl -e "\$SIG{INT} = \"DEFAULT\"; exec @ARGV" \
			"$NPG" conform --kernel "$IMG" --jobs 2 --random 4 -o "$TMP" >/dev/null 2>"$TMP/stderr" &
		pid=$!
		n=0
		while [ "$(grep -c . "$TMP/pids" 2>/dev/null)" != 2 ] && [ $n -lt 600 ]; do
			sleep 0.1; n=$((n + 1))
		done
		kill -'"$sig"' $pid
		wait $pid
		status=$?
		cat "$TMP/stderr"
		echo "exit status $status, files left: $(ls "$TMP/run")"
		[ $status -eq '"$code"' ] &&
		[ -z "$(ls "$TMP/run")" ] &&
		[ "$(grep -c "interrupted" "$TMP/stderr")" -eq 1 ] &&
		grep -q "^nprocguard conform: interrupted: the guests were stopped$" "$TMP/stderr" &&
		for p in $(cat "$TMP/pids"); do ! kill -0 "$p" 2>/dev/null || return 1; done
	'
done

# Real boots. /dev/kvm, when this machine has one, is tried by --accel auto
smallest_image
kvm_why=""
if [ -n "$why" ]; then
	kvm_why=$why
elif [ ! -e /dev/kvm ]; then
	kvm_why="this machine has no /dev/kvm"
fi
if [ -n "$kvm_why" ]; then
	test_skip "--accel auto on the /dev/kvm here: KVM, or TCG after at most 10 s, said" "$kvm_why"
else
	test_expect "--accel auto on the /dev/kvm here: KVM, or TCG after at most 10 s, said" '
		cd "$TOP" &&
		expect_exit 0 "$NPG" conform --kernel "$image" "$SCEN" &&
		cat "$TMP/stderr" &&
		{ [ ! -s "$TMP/stderr" ] || grep -q "^nprocguard conform: KVM failed (.*): using TCG$" "$TMP/stderr"; }
	'
fi

if [ -n "$why" ]; then
	for t in "files, text: --jobs 2 prints what one guest prints" \
		"--random, JSON, shrinking: --jobs 2 prints and writes what one guest does" \
		"compare --jobs 4: the report of --jobs 1"; do
		test_skip "$t" "$why"
	done
else
	# text: everything but the line of --random's seconds
	test_expect "files, text: --jobs 2 prints what one guest prints" '
		cd "$TOP" &&
		expect_exit 0 "$NPG" conform --kernel "$image" --jobs 1 scenarios/article scenarios/regression &&
		mv "$TMP/stdout" "$TMP/one" && mv "$TMP/stderr" "$TMP/one.err" &&
		expect_exit 0 "$NPG" conform --kernel "$image" --jobs 2 scenarios/article scenarios/regression &&
		cmp "$TMP/one" "$TMP/stdout" && cmp "$TMP/one.err" "$TMP/stderr" &&
		grep -q "^conform: 49 scenarios" "$TMP/stdout"
	'
	# --policy linux-2.4 on 3.0.8 (the smallest image): differences, so shrinking in the guests
	test_expect "--random, JSON, shrinking: --jobs 2 prints and writes what one guest does" '
		cd "$TOP" && mkdir "$TMP/o1" "$TMP/o2" &&
		expect_exit 1 "$NPG" conform --kernel "$image" --policy linux-2.4 --jobs 1 -f json --random 6 -o "$TMP/o1" &&
		mv "$TMP/stdout" "$TMP/one" && sed "s|$TMP/o1|DIR|" "$TMP/stderr" >"$TMP/one.err" &&
		expect_exit 1 "$NPG" conform --kernel "$image" --policy linux-2.4 --jobs 2 -f json --random 6 -o "$TMP/o2" &&
		sed "s|$TMP/o2|DIR|" "$TMP/stderr" >"$TMP/two.err" &&
		cmp "$TMP/one" "$TMP/stdout" && cmp "$TMP/one.err" "$TMP/two.err" &&
		grep -q "shrunk in" "$TMP/one.err" &&
		[ -n "$(ls "$TMP/o1")" ] && diff -r "$TMP/o1" "$TMP/o2" &&
		jq -e ".summary.differ > 0" "$TMP/stdout" >/dev/null
	'
	test_expect "compare --jobs 4: the report of --jobs 1" '
		cd "$TOP" &&
		expect_exit 0 "$NPG" compare --jobs 1 "$image" "$image" scenarios/article &&
		mv "$TMP/stdout" "$TMP/one" &&
		expect_exit 0 "$NPG" compare --jobs 4 "$image" "$image" scenarios/article &&
		cmp "$TMP/one" "$TMP/stdout" && grep -q "^compare: 9 scenarios" "$TMP/stdout"
	'
fi

test_done
