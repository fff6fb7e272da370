#!/bin/sh
# nprocguard status: exact figures on known tasks (made by the real backend).
# As root the whole file runs in a private mount namespace: the --pin tests
# mount their own bpffs at /sys/fs/bpf (and /proc with hidepid), so they
# neither depend on nor change the host's mounts, and every mount and pin
# goes with the namespace when the file ends, even on failure.
#
# The mounts are made private from / where / is a mount point; in a chroot
# (sbuild, pbuilder) it is not, so /proc and /sys, where this file mounts,
# are made private instead -- `unshare --propagation private` would fail.
private='mount --make-rprivate / 2>/dev/null || { mount --make-rprivate /proc && mount --make-rprivate /sys; }'
if [ "$(id -u)" -eq 0 ] && [ -z "${NPG_STATUS_MNTNS:-}" ] &&
	unshare -m --propagation unchanged sh -c "$private" 2>/dev/null; then
	NPG_STATUS_MNTNS=1 exec unshare -m --propagation unchanged sh -c "$private && exec sh \"\$0\" \"\$@\"" "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
BASE=$((NPG_TEST_UID_BASE + 500000))
U1=$((BASE + 1))
U2=$((BASE + 2))
U3=$((BASE + 3))
FIX="$TOP/tests/cli/fixtures/status.npg"
# our own pin path: an administrator's pinned iterator is neither used nor touched
export NPROCGUARD_BPF_PIN=/sys/fs/bpf/npg-test-$$
trap 'rm -f "${NPROCGUARD_BPF_PIN:-}"; rm -rf "$TMP"' EXIT INT TERM HUP

test_expect "status lists root with its task count" '
	expect_exit 0 "$NPG" status -r -n -o UID,TASKS &&
	grep -Eq "^0 [0-9]+$" "$TMP/stdout"
'
test_expect "--help describes every column" '
	expect_exit 0 "$NPG" status --help &&
	for c in UID USER TASKS PROCS ZOMBIES NPROC NPROC-MAX HEADROOM FLAGGED KCOUNT EXEMPT PID TID COMM STATE; do
		grep -q "^ *$c  " "$TMP/stdout" || { echo "no help for $c"; exit 1; }
	done
'
test_expect "an unknown column is a usage error" '
	expect_exit 2 "$NPG" status -o UID,COLOUR && grep -q "unknown column .COLOUR." "$TMP/stderr"
'
test_expect "a bad --check is a usage error" 'expect_exit 2 "$NPG" status --check lots'
test_expect "a bad --source is a usage error" '
	expect_exit 2 "$NPG" status --source kmem && grep -q "bad --source .kmem." "$TMP/stderr"
'
test_expect "--pin and --unpin together are a usage error" '
	expect_exit 2 "$NPG" status --pin --unpin && grep -q "exclude each other" "$TMP/stderr"
'
if [ "$(id -u)" -ne 0 ]; then
	test_expect "auto reads /proc when nothing is pinned (not root)" '
		expect_exit 0 env NPROCGUARD_DEBUG=1 "$NPG" status -o UID &&
		grep -q "tasks from /proc$" "$TMP/stderr"
	'
fi
test_expect "-t --sort takes the task columns" '
	expect_exit 0 "$NPG" status -t -r -n -o PID,COMM --sort COMM &&
	sort -k2,2 -s "$TMP/stdout" | cut -d" " -f2 >"$TMP/want" && cut -d" " -f2 "$TMP/stdout" | cmp - "$TMP/want" &&
	expect_exit 0 "$NPG" status -t -r -n -o PID --sort PID &&
	sort -n "$TMP/stdout" | cmp - "$TMP/stdout" &&
	expect_exit 2 "$NPG" status -t --sort HEADROOM && grep -qx "nprocguard status: bad --sort .HEADROOM.: no such column with --tasks (sort by one of the task columns listed by --help)" "$TMP/stderr"
'
test_expect "--check 0 is accepted (every user with a limit)" '
	"$NPG" status --check 0 -u 0 >/dev/null 2>"$TMP/c0.err"; test $? -ne 2 && ! test -s "$TMP/c0.err"
'
test_expect "-J and -r together are a usage error, not the last one silently winning" '
	expect_exit 2 "$NPG" status -J -r && grep -q "exclude each other" "$TMP/stderr"
'
test_expect "--check -J gives JSON" '
	"$NPG" status --check 0 -J >"$TMP/cj.json"; test $? -ne 2 &&
	jq -e ".check | type == \"array\"" "$TMP/cj.json" >/dev/null
'
test_expect "a user without tasks gets an empty table with its header" '
	expect_exit 0 "$NPG" status -u 4294967294 -o UID,TASKS &&
	test "$(cat "$TMP/stdout")" = "UID TASKS" &&
	expect_exit 0 "$NPG" status -u 4294967294 -J && jq -e ".users == []" "$TMP/stdout" >/dev/null
'
test_expect "JSON: numbers as numbers (nproc, headroom), null for unlimited, booleans as booleans" '
	expect_exit 0 "$NPG" status -J --output-all &&
	jq -e "[.users[] | (.nproc | type == \"number\" or type == \"null\"),
		(.headroom | type == \"number\" or type == \"null\"), (.exempt | type == \"boolean\")] | all" "$TMP/stdout" >/dev/null &&
	expect_exit 0 "$NPG" status -t -J -o PID,FLAGGED,NPROC &&
	jq -e "[.tasks[] | (.flagged | type == \"boolean\"), (.nproc | type == \"number\" or type == \"null\")] | all" "$TMP/stdout" >/dev/null &&
	expect_exit 0 "$NPG" policies --json &&
	jq -e "[.policies[].flag | type == \"boolean\"] | all" "$TMP/stdout" >/dev/null
'
test_expect "a write error on output is an error" '
	"$NPG" status -o UID --source proc >/dev/full 2>"$TMP/full.err"; test $? -eq 2 &&
	grep -q "write error" "$TMP/full.err"
'
test_expect "an unknown user is a usage error" '
	expect_exit 2 "$NPG" status -u no-such-user-here && grep -q "unknown user" "$TMP/stderr"
'
test_expect "--json is valid JSON with numbers for counts" '
	expect_exit 0 "$NPG" status -J &&
	jq -e ".users[] | select(.uid == 0) | (.tasks | type) == \"number\"" "$TMP/stdout" >/dev/null
'

if [ "$(id -u)" -ne 0 ]; then
	test_skip "status on known tasks" "needs root: the real backend makes the tasks"
	test_done
	exit 0
fi

# Run the fixture on the real kernel; while its tasks live, run "$@".
with_fixture() {
	"$NPG" run --real -u $BASE "$FIX" --then "$*" >"$TMP/fixture.out" 2>"$TMP/fixture.err" ||
		{ cat "$TMP/fixture.out" "$TMP/fixture.err"; return 1; }
}

# until_exec PID: wait until PID has become sleep (its limit and caps set)
until_exec() {
	while [ "$(cat /proc/$1/comm 2>/dev/null)" != sleep ]; do
		kill -0 $1 2>/dev/null || return 1
		sleep 0.05
	done
}

# The BPF source needs CAP_BPF and CAP_PERFMON (root has them here) and a
# kernel with BTF; every figure must be the same from both sources.
SOURCES=proc
if "$NPG" status --source bpf -o UID >/dev/null 2>"$TMP/bpf.err"; then
	SOURCES="proc bpf"
else
	test_skip "the BPF source" "$(cat "$TMP/bpf.err")"
fi

for SRC in $SOURCES; do
	KCOUNT=		# the last column: the kernel counter, which only BPF reads
	[ "$SRC" = bpf ] && KCOUNT=3
	test_expect "$SRC: exact per-user figures: tasks, processes, zombies, limits, flagged" '
		with_fixture "\"$NPG\" status --source $SRC -r -n --output-all -u $U1 -u $U2 >$TMP/users" &&
		grep -qx "$U1 $U1 3 3 0 1 [0-9]* -2 1 $KCOUNT 0" "$TMP/users" &&
		grep -qx "$U2 $U2 3 2 1 5 5 2 0 $KCOUNT 0" "$TMP/users"
	'

	test_expect "$SRC: a thread and a zombie each count, one row per task" '
		with_fixture "\"$NPG\" status --source $SRC -t -r -n -o PID,TID,STATE,NPROC -u $U2 >$TMP/tasks" &&
		test $(wc -l <"$TMP/tasks") -eq 3 &&
		test $(grep -c " running 5$" "$TMP/tasks") -eq 2 &&
		test $(grep -c " zombie 5$" "$TMP/tasks") -eq 1 &&
		test $(awk "\$1 != \$2" "$TMP/tasks" | wc -l) -eq 1
	'

	test_expect "$SRC: the flagged task is shown as such" '
		with_fixture "\"$NPG\" status --source $SRC -t -J -u $U1 >$TMP/flagged.json" &&
		jq -e "[.tasks[] | select(.flagged == true)] | length == 1" "$TMP/flagged.json" >/dev/null
	'

	test_expect "$SRC: JSON figures match" '
		with_fixture "\"$NPG\" status --source $SRC -J -u $U2 >$TMP/u2.json" &&
		jq -e ".users == [{\"uid\": $U2, \"user\": \"$U2\", \"tasks\": 3, \"procs\": 2, \"zombies\": 1,
				  \"nproc\": 5, \"headroom\": 2, \"flagged\": 0}]" "$TMP/u2.json" >/dev/null
	'

	test_expect "$SRC: --check names a user over the percentage and the flagged task, exit 1" '
		with_fixture "\"$NPG\" status --source $SRC --check 50 -u $U1 >$TMP/check; echo \$? >$TMP/check.rc" &&
		test "$(cat "$TMP/check.rc")" -eq 1 &&
		grep -q "^user $U1 (uid $U1): 3 tasks, 300% of RLIMIT_NPROC 1$" "$TMP/check" &&
		grep -q "^task [0-9]* (nprocguard, uid $U1) has PF_NPROC_EXCEEDED" "$TMP/check"
	'

	test_expect "$SRC: --check under the percentage and nothing flagged exits 0" '
		with_fixture "\"$NPG\" status --source $SRC --check 90 -u $U2 >$TMP/check2; echo \$? >$TMP/check2.rc" &&
		test "$(cat "$TMP/check2.rc")" -eq 0 && ! test -s "$TMP/check2"
	'

	test_expect "$SRC: root over its limit is exempt, said so, no alarm (copy_process() exempts root)" '
		prlimit --nproc=1 sleep 30 & sp=$!
		until_exec $sp
		"$NPG" status --source $SRC --check 90 -u 0 >"$TMP/root-check"; rc=$?
		"$NPG" status --source $SRC -r -n -o UID,HEADROOM,EXEMPT -u 0 >"$TMP/root-row"
		kill $sp; wait $sp
		test $rc -eq 0 &&
		grep -q "^user root (uid 0): [0-9]* tasks, [0-9]*% of RLIMIT_NPROC 1; not at risk: copy_process() exempts root$" "$TMP/root-check" &&
		test "$(cat "$TMP/root-row")" = "0 exempt 1"
	'
	test_expect "$SRC: a user whose tasks hold CAP_SYS_ADMIN is exempt too" '
		setpriv --reuid=$U3 --regid=$U3 --clear-groups --inh-caps=+sys_admin --ambient-caps=+sys_admin \
			prlimit --nproc=1 sleep 30 & sp=$!
		until_exec $sp
		"$NPG" status --source $SRC --check 90 -u $U3 >"$TMP/cap-check"; rc=$?
		kill $sp; wait $sp
		test $rc -eq 0 && grep -q "^user $U3 (uid $U3): 1 tasks, 100% of RLIMIT_NPROC 1; not at risk: copy_process() exempts its tasks (CAP_SYS_RESOURCE or CAP_SYS_ADMIN)$" "$TMP/cap-check"
	'

	test_expect "$SRC: --sort orders by the column" '
		with_fixture "\"$NPG\" status --source $SRC -r -n -o UID,HEADROOM --sort HEADROOM -u $U1 -u $U2 >$TMP/sorted" &&
		test "$(cut -d" " -f1 "$TMP/sorted" | tr "\n" " ")" = "$U1 $U2 "
	'
done

if [ "$SOURCES" = "proc bpf" ]; then
	test_expect "bpf: KCOUNT is the kernel counter: threads and zombies included" '
		with_fixture "\"$NPG\" status --source bpf -J -o UID,TASKS,KCOUNT -u $U1 -u $U2 >$TMP/k.json" &&
		jq -e ".users == [{\"uid\": $U1, \"tasks\": 3, \"kcount\": 3},
				  {\"uid\": $U2, \"tasks\": 3, \"kcount\": 3}]" "$TMP/k.json" >/dev/null
	'
	test_expect "proc: KCOUNT is null (only the BPF source can read it)" '
		with_fixture "\"$NPG\" status --source proc -J -o UID,KCOUNT -u $U1 >$TMP/k0.json" &&
		jq -e ".users == [{\"uid\": $U1, \"kcount\": null}]" "$TMP/k0.json" >/dev/null
	'
fi

[ "$SOURCES" = "proc bpf" ] && test_expect "as root with no pin, auto loads the iterator" '
	expect_exit 0 env NPROCGUARD_BPF_PIN=/nonexistent/pin NPROCGUARD_DEBUG=1 "$NPG" status -o UID &&
	grep -q "tasks from the BPF iterator," "$TMP/stderr"
'

# The pin tests: inside this file's own mount namespace, with nothing
# mounted at /sys/fs/bpf to begin with, at the default pin path.
if [ "$SOURCES" = "proc bpf" ] && [ -n "${NPG_STATUS_MNTNS:-}" ]; then
	unset NPROCGUARD_BPF_PIN
	PIN=/sys/fs/bpf/nprocguard/tasks
	while mountpoint -q /sys/fs/bpf; do umount -l /sys/fs/bpf || break; done
	PLANT="$NPG_BUILD/tests/audit/plant-bpf-map"

	# (bpffs makes its root sticky whatever the mode)
	test_expect "--pin mounts bpffs (mode 0700) where nothing is mounted, as bpftool does" '
		test "$(stat -f -c %T /sys/fs/bpf)" != bpf_fs &&
		expect_exit 0 "$NPG" status --pin &&
		grep -q "^nprocguard status: mounted a bpf filesystem at /sys/fs/bpf (mode 0700)$" "$TMP/stdout" &&
		test "$(stat -f -c %T /sys/fs/bpf)" = bpf_fs && test "$(stat -c %a /sys/fs/bpf)" = 1700 &&
		test "$(stat -c "%u %a" /sys/fs/bpf/nprocguard)" = "0 755" &&
		expect_exit 0 "$NPG" status --unpin && ! test -e /sys/fs/bpf/nprocguard
	'
	mountpoint -q /sys/fs/bpf || mount -t bpf -o mode=0700 bpf /sys/fs/bpf
	test_expect "--pin pins the iterator, auto then reads it, --unpin removes it" '
		expect_exit 0 "$NPG" status --pin &&
		grep -q "pinned at $PIN" "$TMP/stdout" && test -e "$PIN" &&
		expect_exit 0 env NPROCGUARD_DEBUG=1 "$NPG" status -o UID &&
		grep -q "from the BPF iterator (pinned)" "$TMP/stderr" &&
		expect_exit 0 "$NPG" status --unpin && ! test -e "$PIN"
	'
	test_expect "the pinned iterator gives the figures the /proc scan gives" '
		"$NPG" status --pin >/dev/null &&
		C=UID,USER,TASKS,PROCS,ZOMBIES,NPROC,NPROC-MAX,HEADROOM,FLAGGED,EXEMPT
		with_fixture "\"$NPG\" status -r -n -o $C -u $U1 -u $U2 >$TMP/pinned; \
			\"$NPG\" status --source proc -r -n -o $C -u $U1 -u $U2 >$TMP/procd" &&
		"$NPG" status --unpin && cmp "$TMP/pinned" "$TMP/procd"
	'
	# explain reads what is pinned but never loads (npg_scan_running())
	test_expect "explain reads the pinned iterator: --format prometheus, --since-boot, --user" '
		"$NPG" status --pin >/dev/null &&
		expect_exit 0 "$NPG" explain --format prometheus --textfile "$TMP/pinned.prom" &&
		! test -s "$TMP/stderr" &&
		grep -q "^nprocguard_user_tasks{uid=\"0\",user=\"root\"} [1-9]" "$TMP/pinned.prom" &&
		{ "$NPG" explain --since-boot >"$TMP/stdout" 2>"$TMP/stderr"; test $? -ne 2; } &&
		! test -s "$TMP/stderr" &&
		expect_exit 0 "$NPG" explain -u 0 -J &&
		jq -e ".task.uid == 0 and .task.count_source == \"bpf\"" "$TMP/stdout" >/dev/null &&
		"$NPG" status --unpin
	'
	test_expect "--pin outside bpffs fails and says where to mount it" '
		expect_exit 2 env NPROCGUARD_BPF_PIN="$TMP/pin" "$NPG" status --pin &&
		grep -q "not on a mounted bpf filesystem (mount -t bpf" "$TMP/stderr" &&
		! test -e "$TMP/pin"
	'
	test_expect "--unpin without a pin fails and says so" '
		expect_exit 2 "$NPG" status --unpin && grep -q "No such file" "$TMP/stderr"
	'

	# A bpffs mounted 1777 (a plain mount -t bpf) over ours, for the duration of "$@"
	with_open_bpffs() {
		mount -t bpf -o mode=1777 bpf /sys/fs/bpf || return 1
		"$@"; _wob=$?
		umount -l /sys/fs/bpf
		return $_wob
	}
	hostile_dir_pin() {
		setpriv --reuid=$U1 --regid=$U1 --clear-groups mkdir -m 0777 /sys/fs/bpf/nprocguard &&
		expect_exit 2 "$NPG" status --pin &&
		grep -q "/sys/fs/bpf/nprocguard is owned by uid $U1, not root: refusing" "$TMP/stderr" &&
		! test -e "$PIN"
	}
	test_expect "--pin refuses a directory another user made first in a 1777 bpffs" '
		with_open_bpffs hostile_dir_pin
	'
	hostile_dir_read() {
		"$NPG" status --pin >/dev/null && chown $U1 /sys/fs/bpf/nprocguard &&
		expect_exit 2 "$NPG" status -o UID &&
		grep -q "owned by uid $U1, not root: refusing" "$TMP/stderr" &&
		! grep -q "reading /proc instead" "$TMP/stderr" && ! test -s "$TMP/stdout" &&
		expect_exit 2 "$NPG" status --unpin && test -e "$PIN"
	}
	test_expect "a pin in a directory another user owns is refused, not read, not silently replaced by /proc" '
		with_open_bpffs hostile_dir_read
	'
	planted_object() {
		mkdir -m 0755 /sys/fs/bpf/nprocguard && "$PLANT" "$PIN" &&
		expect_exit 2 "$NPG" status -o UID &&
		grep -q "the pin is a bpf-map, not nprocguard.s task iterator: refusing to read it" "$TMP/stderr" &&
		! test -s "$TMP/stdout" &&
		expect_exit 2 "$NPG" status --unpin && grep -q "refusing" "$TMP/stderr" && test -e "$PIN"
	}
	test_expect "an object planted at the pin path that is not our iterator is refused loudly" '
		with_open_bpffs planted_object
	'
	# status refuses it loudly (above); explain's Prometheus textfile and
	# --since-boot read /proc instead, without a word, as they always have
	explain_planted() {
		mkdir -m 0755 /sys/fs/bpf/nprocguard && "$PLANT" "$PIN" &&
		expect_exit 0 "$NPG" explain --format prometheus --textfile "$TMP/planted.prom" &&
		! test -s "$TMP/stderr" &&
		grep -q "^nprocguard_user_tasks{uid=\"0\",user=\"root\"} [1-9]" "$TMP/planted.prom" &&
		{ "$NPG" explain --since-boot >"$TMP/stdout" 2>"$TMP/stderr"; test $? -ne 2; } &&
		! test -s "$TMP/stderr" && test -e "$PIN"
	}
	test_expect "explain reads /proc where an object not our iterator is planted at the pin path" '
		with_open_bpffs explain_planted
	'
	test_expect "a symbolic link in place of the pin directory is refused" '
		with_open_bpffs sh -c "ln -s /tmp /sys/fs/bpf/nprocguard && ! \"$NPG\" status --pin 2>$TMP/ln.err" &&
		grep -q "not a directory (a symbolic link?): refusing" "$TMP/ln.err" && ! test -e /tmp/tasks
	'
elif [ "$SOURCES" = "proc bpf" ]; then
	test_skip "--pin" "needs a private mount namespace (unshare -m) for its own bpffs"
fi
if [ -n "${NPG_STATUS_MNTNS:-}" ]; then
	# /proc remounted hidepid=invisible in this file's mount namespace only
	hidden_view() {
		mount -t proc -o hidepid=invisible proc /proc || return 1
		R=$(reach_copy "$NPG") &&
		setpriv --reuid=$U1 --regid=$U1 --clear-groups "$R/nprocguard" status --check 50 \
			>"$TMP/hp.out" 2>"$TMP/hp.err"; _hv=$?
		umount -l /proc
		echo $_hv >"$TMP/hp.rc"
	}
	test_expect "under hidepid an unprivileged status says the view is partial and exits 3" '
		hidden_view && test "$(cat "$TMP/hp.rc")" -eq 3 &&
		grep -q "hidepid and hides other users. processes: this view has [0-9]* of the system.s [0-9]* tasks" "$TMP/hp.err"
	'
	test_expect "root under hidepid sees every task: no partial warning" '
		mount -t proc -o hidepid=invisible proc /proc &&
		{ "$NPG" status --source proc -o UID >/dev/null 2>"$TMP/hp-root.err"; r=$?; umount -l /proc; test $r -eq 0; } &&
		! test -s "$TMP/hp-root.err"
	'
fi
if [ "$SOURCES" = "proc bpf" ]; then
	test_expect "bpf: in a child pid namespace, the namespace's pids and no task twice" '
		"$TOP/tests/cli/fixtures/pidns" sh -c "
			\"$NPG\" status --source bpf -t -r -n -o PID,TID >$TMP/ns-tasks &&
			\"$NPG\" status --source bpf -r -n -o UID,TASKS >$TMP/ns-bpf &&
			\"$NPG\" status --source proc -r -n -o UID,TASKS >$TMP/ns-proc" &&
		test "$(cat "$TMP/ns-tasks")" = "$(printf "1 1\n2 2")" &&
		test "$(cat "$TMP/ns-bpf")" = "0 2" && cmp "$TMP/ns-bpf" "$TMP/ns-proc"
	'
	test_expect "processes the iterator does not show are read from /proc" '
		expect_exit 0 env NPROCGUARD_DEBUG=1 "$NPG" status --source bpf -J -o UID,TASKS &&
		grep -Eq "[0-9]+ processes it did not show read from /proc" "$TMP/stderr" &&
		jq -e "[.users[].tasks] | add > 0" "$TMP/stdout" >/dev/null
	'
fi
test_done
