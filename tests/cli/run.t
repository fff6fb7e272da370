#!/bin/sh
# nprocguard run: formats, policies, exit codes.
. "$(dirname "$0")/lib.sh"
A="$TOP/scenarios/article"

test_expect "every seed scenario holds under every policy" '
	expect_exit 0 "$NPG" run "$A"/*.npg &&
	grep -q "^9 files, [0-9]* expectations: [0-9]* held, 0 failed$" "$TMP/stdout"
'

test_expect "every regression scenario holds under every policy" '
	expect_exit 0 "$NPG" run "$TOP"/scenarios/regression/*.npg
'

test_expect "the side-by-side table has one column per policy" '
	expect_exit 0 "$NPG" run "$A/03-unchecked-drop.npg" &&
	head -3 "$TMP/stdout" | grep -q "linux-2.4 *linux-2.6 *ow-2006 *kulikov-2011 *brown-flag-2011 *linux-3.1 *linux-5.14 *linux-6"
'

test_expect "one policy gives a trace with uids, flag and counts" '
	expect_exit 0 "$NPG" run --policy linux-2.6 "$A/03-unchecked-drop.npg" &&
	grep -q "^backend: linux-2.6$" "$TMP/stdout" &&
	grep -Eq "session +setuid www +EAGAIN +EAGAIN +root root root" "$TMP/stdout"
'

test_expect "the sendmail-style drop leaves the command running as root under linux-2.6" '
	expect_exit 0 "$NPG" run -p linux-2.6 -f json "$A/03-unchecked-drop.npg" &&
	jq -e ".scenarios[0].statements[] | select(.statement == \"check session uids\")
	       | .observed[\"linux-2.6\"].value == \"root root root\"" "$TMP/stdout" >/dev/null
'

test_expect "JSON output is valid and counts every expectation" '
	expect_exit 0 "$NPG" run --format json "$A"/*.npg &&
	jq -e ".summary.failed == 0 and .summary.expectations > 400 and (.scenarios | length) == 9" \
		"$TMP/stdout" >/dev/null
'

test_expect "TAP output is accepted by prove" '
	"$NPG" run --format tap "$A"/*.npg >"$TMP/all.tap" &&
	prove -e cat "$TMP/all.tap" >/dev/null
'

test_expect "a failed expectation exits 1 and names file:line and policy" '
	sed "s/=> ok | linux-2.4: EAGAIN/=> ok/" "$A/02-lprng.npg" >"$TMP/wrong.npg" &&
	expect_exit 1 "$NPG" run "$TMP/wrong.npg" &&
	grep -q "^$TMP/wrong.npg:24: linux-2.4: lpr: fork job: expected ok, got EAGAIN$" "$TMP/stderr"
'

test_expect "a failed expectation is a failing TAP test" '
	expect_exit 1 "$NPG" run -f tap "$TMP/wrong.npg" &&
	grep -q "^not ok .* linux-2.4: lpr: fork job => ok$" "$TMP/stdout"
'

test_expect "--policy takes a comma-separated list" '
	expect_exit 0 "$NPG" run -p linux-3.1,linux-6 "$A/07-off-by-one.npg" &&
	head -3 "$TMP/stdout" | grep -Eq "STEP +linux-3.1 +linux-6 *$"
'

test_expect "an unknown policy is a usage error" '
	expect_exit 2 "$NPG" run -p linux-9 "$A/01-cgiwrap.npg" &&
	grep -q "unknown policy .linux-9." "$TMP/stderr"
'

test_expect "an unknown format is a usage error" '
	expect_exit 2 "$NPG" run -f xml "$A/01-cgiwrap.npg" &&
	grep -q "Try .nprocguard run --help." "$TMP/stderr"
'

test_expect "no file is a usage error" 'expect_exit 2 "$NPG" run'
test_expect "a missing file is reported with its name" '
	expect_exit 2 "$NPG" run "$TMP/none.npg" &&
	grep -q "none.npg: No such file or directory" "$TMP/stderr"
'
test_expect "one bad file stops the run before any result" '
	printf "task x uid 0\nx: frobnicate\n" >"$TMP/bad.npg" &&
	expect_exit 2 "$NPG" run "$A/01-cgiwrap.npg" "$TMP/bad.npg" &&
	! test -s "$TMP/stdout"
'
test_expect "run --help exits 0" 'expect_exit 0 "$NPG" run --help && grep -q "^Usage:" "$TMP/stdout"'
test_expect "--version prints the version" '
	expect_exit 0 "$NPG" --version && grep -Eq "^nprocguard [0-9]+\.[0-9]+" "$TMP/stdout"
'
test_expect "an unknown command exits 2" 'expect_exit 2 "$NPG" frobnicate'

test_expect "policies lists all eight, oldest first" '
	expect_exit 0 "$NPG" policies -r -n &&
	test "$(cut -d" " -f1 "$TMP/stdout" | tr "\n" " ")" = "linux-2.4 linux-2.6 ow-2006 kulikov-2011 brown-flag-2011 linux-3.1 linux-5.14 linux-6 "
'
test_expect "policies --json is valid JSON" '
	expect_exit 0 "$NPG" policies --json &&
	jq -e ".policies | length == 8" "$TMP/stdout" >/dev/null
'
test_expect "make install puts the binary and the man page under DESTDIR" '
	make -s -C "$TOP" install BUILD="$NPG_BUILD" PREFIX=/usr DESTDIR="$TMP/root" >/dev/null &&
	test -x "$TMP/root/usr/bin/nprocguard" &&
	test -f "$TMP/root/usr/share/man/man1/nprocguard.1" &&
	"$TMP/root/usr/bin/nprocguard" --version | grep -q "^nprocguard "
'
# --- bounding LIST and run --host (issue 10) ---
test_expect "bounding: root cannot raise a capability outside the declared set" '
	printf "bounding all but sys_resource\ntask d uid 0\nd: capset raise sys_resource => EPERM\nd: capset raise sys_admin => ok\ncheck d cap sys_resource => no\n" >"$TMP/b.npg" &&
	expect_exit 0 "$NPG" run "$TMP/b.npg"
'
test_expect "without bounding, run models the full set" '
	printf "task d uid 0\ncheck d cap sys_resource => yes\n" >"$TMP/full.npg" &&
	expect_exit 0 "$NPG" run "$TMP/full.npg"
'
test_expect "run --host takes the bounding set of this machine, over the file" '
	bnd=$(sed -n "s/^CapBnd:\t//p" /proc/self/status) &&
	if [ $(( 0x$bnd >> 24 & 1 )) -eq 1 ]; then want=yes; else want=no; fi &&
	printf "bounding none\ntask d uid 0\ncheck d cap sys_resource => $want\n" >"$TMP/host.npg" &&
	expect_exit 0 "$NPG" run --host -p linux-6 "$TMP/host.npg"
'
test_expect "bounding given twice, or after a task, is an error with its place" '
	printf "bounding all\nbounding none\n" >"$TMP/b2.npg" &&
	expect_exit 2 "$NPG" run "$TMP/b2.npg" && grep -q "b2.npg:2:1: bounding given twice" "$TMP/stderr" &&
	printf "task d uid 0\nbounding none\n" >"$TMP/b3.npg" &&
	expect_exit 2 "$NPG" run "$TMP/b3.npg" && grep -q "b3.npg:2:1: declare .bounding. before" "$TMP/stderr" &&
	printf "bounding all but frob\ntask d uid 0\n" >"$TMP/b4.npg" &&
	expect_exit 2 "$NPG" run "$TMP/b4.npg" && grep -q "b4.npg:1:18: unknown capability .frob." "$TMP/stderr"
'
test_expect "file PATH: a path declared twice, a relative path, a bad kind are errors" '
	printf "file /x missing\nfile /x missing\ntask d uid 0\n" >"$TMP/f1.npg" &&
	expect_exit 2 "$NPG" run "$TMP/f1.npg" && grep -q "f1.npg:2:6: file ./x. declared twice" "$TMP/stderr" &&
	printf "file x missing\ntask d uid 0\n" >"$TMP/f2.npg" &&
	expect_exit 2 "$NPG" run "$TMP/f2.npg" && grep -q "f2.npg:1:6: a file is an absolute path" "$TMP/stderr" &&
	printf "file /x frob\ntask d uid 0\n" >"$TMP/f3.npg" &&
	expect_exit 2 "$NPG" run "$TMP/f3.npg" && grep -q "f3.npg:1:9: expected" "$TMP/stderr"
'
test_expect "execve of a declared missing file is ENOENT, of an undeclared path a program" '
	printf "file /nonexistent missing\ntask d uid 0\nd: execve /nonexistent => ENOENT\nd: execve /bin/true => ok\n" >"$TMP/enoent.npg" &&
	expect_exit 0 "$NPG" run "$TMP/enoent.npg"
'
test_expect "vfork: a step of the waiting parent, or a fork in the child before it execs, is an error with its place" '
	printf "task d uid 0\nd: vfork c\nd: setuid 5\n" >"$TMP/v1.npg" &&
	expect_exit 2 "$NPG" run "$TMP/v1.npg" &&
	grep -q "v1.npg:3:1: task .d. waits in vfork() until .c. execs or exits" "$TMP/stderr" &&
	printf "task d uid 0\nd: vfork c\nc: fork g\n" >"$TMP/v2.npg" &&
	expect_exit 2 "$NPG" run "$TMP/v2.npg" &&
	grep -q "v2.npg:3:4: .c. shares the memory of .d. (vfork) until it execs or exits" "$TMP/stderr"
'
test_expect "vfork: the parent runs again once the child execs or exits; after a failed execve its step yields suspended" '
	printf "file /x missing\ntask d uid 0\nd: vfork c\nc: execve /x => ENOENT\nd: setuid 5 => suspended\nc: exit 127\nd: setuid 5 => ok\nd: wait c => ok\n" >"$TMP/v3.npg" &&
	expect_exit 0 "$NPG" run "$TMP/v3.npg"
'
test_expect "vfork in a concurrent program is refused with its place" '
	printf "task d uid 0\nd runs:\n    vfork c\n" >"$TMP/v4.npg" &&
	expect_exit 2 "$NPG" explore "$TMP/v4.npg" &&
	grep -q "v4.npg:3:5: vfork is not modelled in a concurrent program" "$TMP/stderr"
'
test_expect "ptrace, prctl ptracer and the namespace operations in a concurrent program are refused with their place" '
	printf "task d uid 0\ntask e uid 0\nd runs:\n    ptrace e\n" >"$TMP/p1.npg" &&
	expect_exit 2 "$NPG" explore "$TMP/p1.npg" &&
	grep -q "p1.npg:4:5: ptrace and prctl ptracer are not modelled in a concurrent program" "$TMP/stderr" &&
	printf "task d uid 0\ntask e uid 0\nd runs:\n    prctl ptracer e\n" >"$TMP/p2.npg" &&
	expect_exit 2 "$NPG" explore "$TMP/p2.npg" &&
	grep -q "p2.npg:4:5: ptrace and prctl ptracer are not modelled" "$TMP/stderr" &&
	printf "task d uid 0\nd runs:\n    clone c user ns\n" >"$TMP/p3.npg" &&
	expect_exit 2 "$NPG" explore "$TMP/p3.npg" &&
	grep -q "p3.npg:3:5: clone is not modelled in a concurrent program" "$TMP/stderr" &&
	printf "task d uid 0\nd runs:\n    prctl dumpable 0\n" >"$TMP/p4.npg" &&
	expect_exit 0 "$NPG" explore "$TMP/p4.npg"
'
test_expect "ptrace, write, clone, setns, sysctl, yama and rootid: bad words are errors with their place" '
	printf "task d uid 0\nd: ptrace nobody\n" >"$TMP/q1.npg" &&
	expect_exit 2 "$NPG" run "$TMP/q1.npg" && grep -q "q1.npg:2:11: unknown task .nobody." "$TMP/stderr" &&
	printf "task d uid 0\nd: write d frob 0 0 1\n" >"$TMP/q2.npg" &&
	expect_exit 2 "$NPG" run "$TMP/q2.npg" && grep -q "q2.npg:2:12: expected uid_map, gid_map or setgroups" "$TMP/stderr" &&
	printf "task d uid 0\nd: setns user nowhere\n" >"$TMP/q3.npg" &&
	expect_exit 2 "$NPG" run "$TMP/q3.npg" && grep -q "q3.npg:2:15: unknown namespace .nowhere." "$TMP/stderr" &&
	printf "task d uid 0\nd: sysctl kernel.pid_max 5\n" >"$TMP/q4.npg" &&
	expect_exit 2 "$NPG" run "$TMP/q4.npg" && grep -q "q4.npg:2:11: only .sysctl user.max_user_namespaces N. is modelled" "$TMP/stderr" &&
	printf "yama ptrace_scope 4\ntask d uid 0\n" >"$TMP/q5.npg" &&
	expect_exit 2 "$NPG" run "$TMP/q5.npg" && grep -q "q5.npg:1:19: ptrace_scope is 0, 1, 2 or 3" "$TMP/stderr" &&
	printf "file /x setuid 0 rootid 0\ntask d uid 0\n" >"$TMP/q6.npg" &&
	expect_exit 2 "$NPG" run "$TMP/q6.npg" && grep -q "q6.npg:1:6: .rootid. is of file capabilities" "$TMP/stderr" &&
	printf "task d uid 0\nd: prctl dumpable 3\n" >"$TMP/q7.npg" &&
	expect_exit 2 "$NPG" run "$TMP/q7.npg" && grep -q "q7.npg:2:19: expected 0, 1 or 2" "$TMP/stderr" &&
	printf "task d uid 0\nd: fork c\ncheck c dumpable => maybe\n" >"$TMP/q8.npg" &&
	expect_exit 2 "$NPG" run "$TMP/q8.npg" && grep -q "q8.npg:3:21: dumpable is 0, 1, 2 or none" "$TMP/stderr"
'
test_expect "file PATH setuid/setgid/caps, securebits and ambient: bad words are errors with their place" '
	printf "user www 1000\nfile /x setuid nobody\ntask d uid 0\n" >"$TMP/s1.npg" &&
	expect_exit 2 "$NPG" run "$TMP/s1.npg" && grep -q "s1.npg:2:16: " "$TMP/stderr" &&
	printf "file /x caps frob\ntask d uid 0\n" >"$TMP/s2.npg" &&
	expect_exit 2 "$NPG" run "$TMP/s2.npg" && grep -q "s2.npg:1:14: unknown capability .frob." "$TMP/stderr" &&
	printf "file /x\ntask d uid 0\n" >"$TMP/s3.npg" &&
	expect_exit 2 "$NPG" run "$TMP/s3.npg" && grep -q "s3.npg:1:8: expected .missing., or setuid USER" "$TMP/stderr" &&
	printf "task d uid 0\nd: securebits noroot,frob\n" >"$TMP/s4.npg" &&
	expect_exit 2 "$NPG" run "$TMP/s4.npg" && grep -q "s4.npg:2:22: unknown securebit .frob." "$TMP/stderr" &&
	printf "task d uid 0\nd: ambient up kill\n" >"$TMP/s5.npg" &&
	expect_exit 2 "$NPG" run "$TMP/s5.npg" && grep -q "s5.npg:2:12: expected raise CAP, lower CAP or clear" "$TMP/stderr"
'
test_expect "a set-uid-root program at the limit: euid root, the count unchanged; noroot; ambient" '
	printf "user root 0\nuser www 1000\nfile /p setuid root\ntask d uid 0\ntask s uid www nproc 1 1\ns: execve /p => ok\ncheck s uids => www root root\ncheck count www => 1\nd: securebits noroot => ok\nd: execve => ok\ncheck d cap kill => no\n" >"$TMP/s6.npg" &&
	expect_exit 0 "$NPG" run "$TMP/s6.npg"
'

# --release: the model of one kernel release, picked as conform picks it for
# the running kernel -- a file written from Debian's 5.10.223, whose
# setresuid() has 659c0ce1cb9e's no-op fast path (a diverged fsuid stays)
printf '%s\n' 'scenario "fsuid after a no-op setresuid, as on a 5.10.223 kernel"' \
	'policies linux-3.1' 'user root 0' 'user u3 1003' 'task d0 uid root' \
	'd0: setfsuid u3 => root' 'check d0 fsuid => u3' 'd0: setresuid root -1 root => ok' \
	'check d0 fsuid => u3' >"$TMP/rel.npg"
test_expect "run --release 5.10.223: the point release's rules, which --policy linux-3.1 lacks" '
	expect_exit 1 "$NPG" run -p linux-3.1 "$TMP/rel.npg" &&
	expect_exit 0 "$NPG" run --release 5.10.223 "$TMP/rel.npg" &&
	grep -q "^model linux-3.1 for release 5.10.223: with setresuid_noop_fastpath (659c0ce1cb9e, stable 5.10.179)" \
		"$TMP/stdout" &&
	expect_exit 1 "$NPG" run --release 5.10.178 "$TMP/rel.npg" &&
	grep -q "linux-3.1 for 5.10.178: check d0 fsuid: expected u3, got root" "$TMP/stderr"
'
test_expect "run --release takes Debian's form as conform does: uname -r with uname -v" '
	expect_exit 0 "$NPG" run --release "5.10.0-32-amd64 #1 SMP Debian 5.10.223-1 (2024-08-10)" "$TMP/rel.npg" &&
	grep -q "for release 5.10.223" "$TMP/stdout" &&
	expect_exit 0 "$NPG" run --release "5.10.0-32-amd64 Debian 5.10.223-1" -f json "$TMP/rel.npg" &&
	expect_exit 1 "$NPG" run --release 5.10.0-32-amd64 "$TMP/rel.npg" &&
	grep -q "5.10.0-32-amd64 hides its point release (taken as 5.10.0): Debian names it in uname -v" "$TMP/stderr" &&
	grep -q "nprocguard identify. asks the kernel" "$TMP/stderr"
'
# The stable branches of 5.14-5.16: one outcome per moved rule
# (tests/cli/fixtures/stable-branches.npg: alice's count after unshare(),
# the root caller's flag, the fork under a root-made namespace), and the
# row of `policies --releases` each rests on
SB="$TOP/tests/cli/fixtures/stable-branches.npg"
outcomes() {
	jq -r '[.scenarios[0].statements[] | select(.statement | test("^check|fork r1"))
		| .observed | to_entries[0].value.value] | join(" ")' "$TMP/stdout"
}
history_row() {	# COMMIT BRANCH FROM EVIDENCE...
	"$NPG" policies --releases -J >"$TMP/history" &&
	jq -e --arg c "$1" --arg b "$2" --arg f "$3" --arg e "$4" ".releases[] |
		select(.commit == \$c and .branch == \$b and .from == \$f and (.evidence | contains(\$e)))" \
		"$TMP/history" >/dev/null
}
test_expect "run --release 5.14.0: linux-5.14 without 2863643fb8b9 (no 5.14.y backport) or 629715adc62b (5.14.15)" '
	expect_exit 0 "$NPG" run --release 5.14.0 "$SB" &&
	grep -q "^model linux-5.14 for release 5.14.0: without set_user_capable (2863643fb8b9, mainline 5.15, no 5.14.y backport), without ucounts_max_parent (59ec71575ab4, mainline 5.16, no 5.14.y backport), without commit_creds_userns_dec (629715adc62b, from stable 5.14.15)" "$TMP/stdout" &&
	expect_exit 0 "$NPG" run --release 5.14.0 -f json "$SB" && test "$(outcomes)" = "2 set ok" &&
	history_row 2863643fb8b9 other none "none in 5.14.y: no"
'
test_expect "run --release 5.14.21: the commit_creds() fix of 5.14.15, still no capable() in set_user()" '
	expect_exit 0 "$NPG" run --release 5.14.21 -f json "$SB" && test "$(outcomes)" = "1 set ok" &&
	expect_exit 0 "$NPG" run --release 5.14.21 "$SB" &&
	! grep -q commit_creds_userns_dec "$TMP/stdout" &&
	history_row 629715adc62b 5.14.y 5.14.15 "review 5.14.15-rc1 of 2021-10-25, \"[PATCH 5.14 094/169]"
'
test_expect "run --release 5.15.24: linux-5.14, whose set_user() spares a capable root caller" '
	expect_exit 0 "$NPG" run --release 5.15.24 "$SB" &&
	grep -q "^model linux-5.14 for release 5.15.24: without coredump_one_group (0258b5fd7c71, mainline 5.16, no 5.15.y backport)$" "$TMP/stdout" &&
	expect_exit 0 "$NPG" run --release 5.15.24 -f json "$SB" && test "$(outcomes)" = "1 clear EAGAIN" &&
	history_row 59ec71575ab4 5.15.y 5.15.12 "review 5.15.12-rc1 of 2021-12-27"
'
test_expect "run --release 5.15.25: linux-6, the February 2022 series of stable 5.15.25, not yet 0ac983f51203" '
	expect_exit 0 "$NPG" run --release 5.15.25 "$SB" &&
	grep -q "^model linux-6 for release 5.15.25: 5.15.y took linux-6.s RLIMIT_NPROC rules in 5.15.25 (8f2f9c4d82f2, a55d07294f1e, c16bdeb5a39f, c923a8e7edb0, 0cbae9e24fa7), without enforced_nproc_rlimit (0ac983f51203, from stable 5.15.27)" "$TMP/stdout" &&
	expect_exit 0 "$NPG" run --release 5.15.25 -f json "$SB" && test "$(outcomes)" = "1 set EAGAIN" &&
	history_row 8f2f9c4d82f2 5.15.y 5.15.25 "review 5.15.25-rc1 of 2022-02-21, \"[PATCH 5.15 181/196] ucounts: Enforce RLIMIT_NPROC not RLIMIT_NPROC+1\""
'
test_expect "run --release 5.15.131: linux-6 with 0ac983f51203 (5.15.27) and 659c0ce1cb9e (5.15.109)" '
	expect_exit 0 "$NPG" run --release 5.15.131 "$SB" &&
	grep -q "^model linux-6 for release 5.15.131: 5.15.y took linux-6.s RLIMIT_NPROC rules in 5.15.25 .*, without exec_id_changed (337490f0007f, mainline 6.17, no 5.15.y backport), without coredump_one_group (0258b5fd7c71, mainline 5.16, no 5.15.y backport)$" "$TMP/stdout" &&
	expect_exit 0 "$NPG" run --release 5.15.131 -f json "$SB" && test "$(outcomes)" = "1 set ok" &&
	expect_exit 0 "$NPG" run --release 5.15.131 "$A/03-unchecked-drop.npg" &&
	grep -Eq "^ +17 session +execve /bin/sh +EAGAIN" "$TMP/stdout" &&
	history_row 0ac983f51203 5.15.y 5.15.27 "review 5.15.27-rc1 of 2022-03-07"
'
test_expect "run --release 5.16.10 is linux-5.14, 5.16.20 linux-6 (stable 5.16.11)" '
	expect_exit 0 "$NPG" run --release 5.16.10 "$SB" &&
	grep -q "^model linux-5.14 for release 5.16.10$" "$TMP/stdout" &&
	expect_exit 0 "$NPG" run --release 5.16.10 -f json "$SB" && test "$(outcomes)" = "1 clear EAGAIN" &&
	expect_exit 0 "$NPG" run --release 5.16.20 "$SB" &&
	grep -q "^model linux-6 for release 5.16.20: 5.16.y took linux-6.s RLIMIT_NPROC rules in 5.16.11" "$TMP/stdout" &&
	expect_exit 0 "$NPG" run --release 5.16.20 -f json "$SB" && test "$(outcomes)" = "1 set ok" &&
	history_row c923a8e7edb0 5.16.y 5.16.11 "review 5.16.11-rc1 of 2022-02-21, \"[PATCH 5.16 177/227]"
'
test_expect "run --release 5.15.0-91-generic reads the point release from Ubuntu's /proc/version_signature" '
	expect_exit 0 "$NPG" run --release "5.15.0-91-generic Ubuntu 5.15.0-91.101-generic 5.15.131" "$SB" &&
	grep -q "^model linux-6 for release 5.15.131: " "$TMP/stdout" && ! test -s "$TMP/stderr" &&
	expect_exit 0 "$NPG" run --release 5.15.0-91-generic "$SB" &&
	grep -q "^model linux-5.14 for release 5.15.0: without ucounts_max_parent (59ec71575ab4, from stable 5.15.12)" "$TMP/stdout" &&
	grep -q "5.15.0-91-generic hides its point release (taken as 5.15.0): Ubuntu names it in /proc/version_signature" "$TMP/stderr"
'
test_expect "run --release of an el9 5.14.0 says its backports cannot be known and points to identify" '
	expect_exit 0 "$NPG" run --release 5.14.0-362.8.1.el9_3.x86_64 "$SB" &&
	grep -q "^model linux-5.14 for release 5.14.0" "$TMP/stdout" &&
	grep -q "^nprocguard run: --release: 5.14.0-362.8.1.el9_3.x86_64 is a Red Hat Enterprise Linux (or a rebuild) kernel: its vendor backports fixes that no version number reveals, so the rules of 5.14.0 may not be its own; .nprocguard identify. asks the kernel$" "$TMP/stderr" &&
	expect_exit 0 "$NPG" run --release 5.14.21-150500.55.39-default "$SB" &&
	grep -q "is a SUSE Linux Enterprise kernel" "$TMP/stderr" &&
	expect_exit 0 "$NPG" run --release 5.15.0-200.131.27.el8uek.x86_64 "$SB" &&
	grep -q "is a Oracle Linux (UEK) kernel" "$TMP/stderr"
'
test_expect "run --release picks the era: 6.18 is linux-6, 3.0.8 linux-2.6" '
	expect_exit 0 "$NPG" run --release 6.18.44 -f json "$TMP/rel.npg" &&
	grep -q "\"policy\": \"linux-6\"" "$TMP/stdout" &&
	expect_exit 0 "$NPG" run --release 3.0.8 "$A/01-cgiwrap.npg" &&
	grep -q "^backend: linux-2.6 for 3.0.8" "$TMP/stdout"
'
test_expect "run --release: a bad release, or with --policy or --real, is a usage error" '
	expect_exit 2 "$NPG" run --release frob "$TMP/rel.npg" &&
	grep -q "release .frob.: not a kernel release" "$TMP/stderr" &&
	expect_exit 2 "$NPG" run --release 5.10.223 -p linux-6 "$TMP/rel.npg" &&
	expect_exit 2 "$NPG" run --release 5.10.223 --real "$TMP/rel.npg"
'

# A uid given as a number with no `user` line is a user all the same: its
# tasks count, and every step shows its count under the number
test_expect "a uid no user line names is counted: check count N, and the COUNTS column" '
	printf "%s\n" "task d uid 0" "d: fork c" "c: setuid 31158" "c: thread t" \
		"check c uids => 31158 31158 31158" "check count 31158 => 2" >"$TMP/n1.npg" &&
	expect_exit 0 "$NPG" run -p linux-6 "$TMP/n1.npg" &&
	grep -q "^   6      check count 31158 .* 0=1 31158=2$" "$TMP/stdout" &&
	expect_exit 0 "$NPG" run -p linux-6 -f json "$TMP/n1.npg" &&
	jq -e "[.scenarios[0].statements[-1].observed[].counts[\"31158\"]] == [2]" "$TMP/stdout"
'
test_expect "a user line after the first use of its number names it: one user, not two" '
	printf "%s\n" "task a uid 31158" "user x 31158" "task d uid 0" "check count x => 1" >"$TMP/n2.npg" &&
	expect_exit 0 "$NPG" run -p linux-6 "$TMP/n2.npg" &&
	grep -q "^   4      check count x .* x=1 0=1$" "$TMP/stdout"
'
test_expect "1,024 uids given as numbers beside 1,024 names; the 1025th is refused where it stands" '
	{ i=1; while [ $i -le 1024 ]; do echo "user u$i $i"; i=$((i + 1)); done
	  i=0; while [ $i -lt 1024 ]; do echo "task t$i uid $((5000 + i))"; i=$((i + 1)); done; } >"$TMP/n3.npg" &&
	expect_exit 0 "$NPG" run -p linux-6 "$TMP/n3.npg" &&
	echo "task x uid 99999" >>"$TMP/n3.npg" &&
	expect_exit 2 "$NPG" run -p linux-6 "$TMP/n3.npg" &&
	grep -q "n3.npg:2049:12: more than 1024 uids given as numbers that no user line names" "$TMP/stderr"
'
test_done
