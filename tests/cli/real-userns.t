#!/bin/sh
# User namespaces on the real kernel: unshare user, maps written from the
# parent namespace, counts at every level of the ucounts chain, and what
# this machine cannot do said unreproducible. Root only (CI runs as root).
. "$(dirname "$0")/lib.sh"
BASE=$((NPG_TEST_UID_BASE + 200000))	# a window of its own within this run's slot
S="$TOP/scenarios/regression"

if [ "$(id -u)" -ne 0 ]; then
	test_skip "real backend" "needs root: it creates processes of other users"
	test_done
	exit 0
fi

# Does this machine let every task make user namespaces? If not (a sysctl,
# or a chroot, where create_user_ns() refuses CLONE_NEWUSER), the
# scenarios' namespaces are unreproducible here, and only "no difference"
# can be asserted; the tests that need namespaces say why they skip.
userns_why=$(userns_refused)
userns_open() {
	[ -z "$userns_why" ]
}

# conform_clean FILE...: 0 differences, and nothing unreproducible where namespaces are open
conform_clean() {
	expect_exit 0 "$NPG" conform -u $BASE "$@" || return 1
	grep -q "^conform: $# scenarios, [0-9]* statements, 0 differences" "$TMP/stdout" || { cat "$TMP/stdout"; return 1; }
	if userns_open; then
		grep -q " 0 differences, 0 unreproducible here" "$TMP/stdout" || { cat "$TMP/stdout"; return 1; }
	fi
}

# count_at FILE LINE LABEL: the kernel's count LABEL ("alice in box") after statement LINE
count_at() {
	jq -r --argjson l "$2" --arg k "$3" \
		'.scenarios[0].statements[] | select(.line == $l) | .observed[].counts[$k]' "$1"
}

# value_at FILE LINE: the kernel's result or value at statement LINE
value_at() {
	jq -r --argjson l "$2" '.scenarios[0].statements[] | select(.line == $l) | .observed[].value' "$1"
}

# userns-2-6-39.npg among them: 2.6.39-3.4's, whose expectations are not
# this kernel's, but whose steps conform here too (and in a 3.0 guest:
# kernel-legacy-userns.t)
test_expect "every userns scenario conforms: model and kernel agree step by step" '
	conform_clean "$S"/userns-*.npg && no_leftovers
'

test_expect "every userns scenario holds on the running kernel" '
	expect_exit 0 "$NPG" run --real -u $BASE "$S"/userns-*.npg &&
	grep -q "^[0-9]* files, [0-9]* expectations: [0-9]* held, 0 failed$" "$TMP/stdout" && no_leftovers
'

test_expect "the rootless container of the lead's scenario conforms too" '
	conform_clean "$S"/rootless-container.npg && no_leftovers
'

if userns_open; then
test_expect "counts at each level: threads and zombies inside, the owner outside" '
	"$NPG" run --real -u $BASE -f json "$S/userns-counts.npg" >"$TMP/c.json" &&
	f="$TMP/c.json" &&
	test "$(count_at $f 20 "alice in box")" = 1 && test "$(count_at $f 20 alice)" = 3 &&
	test "$(count_at $f 30 "alice in box")" = 3 && test "$(count_at $f 30 alice)" = 5 &&
	test "$(value_at $f 32)" = box &&
	test "$(count_at $f 36 "alice in box")" = 1 &&
	test "$(count_at $f 44 "dave in big")" = 1 && test "$(count_at $f 44 dave)" = 0 &&
	test "$(count_at $f 52 "carol in big")" = 1 && test "$(count_at $f 52 carol)" = 0 &&
	test "$(count_at $f 61 "carol in big")" = 0 && no_leftovers
'

test_expect "nested namespaces: a count at every level, and the limit a parent level recorded" '
	"$NPG" run --real -u $BASE -f json "$S/userns-nested.npg" >"$TMP/n.json" &&
	f="$TMP/n.json" &&
	test "$(value_at $f 23)" = ok && test "$(count_at $f 23 "u3 in L1")" = 2 &&
	test "$(value_at $f 36)" = EAGAIN &&
	test "$(value_at $f 43)" = ok && test "$(count_at $f 45 "u5 in L3")" = 1 &&
	test "$(count_at $f 45 "u5 in L2")" = 2 && test "$(count_at $f 45 "u3 in L1")" = 2 &&
	test "$(count_at $f 45 u3)" = 0 && test "$(value_at $f 50)" = EAGAIN && no_leftovers
'

test_expect "fork inside fails at the creator's count against the limit recorded at unshare" '
	"$NPG" run --real -u $BASE -f json "$S/userns-limit-recorded.npg" >"$TMP/l.json" &&
	f="$TMP/l.json" &&
	test "$(value_at $f 21)" = ok && test "$(value_at $f 20)" = "8 8" &&
	test "$(value_at $f 24)" = EAGAIN && test "$(count_at $f 24 alice)" = 4 &&
	test "$(count_at $f 24 "alice in box")" = 2 && test "$(value_at $f 44)" = ok && no_leftovers
'
else
test_skip "counts at each level" "$userns_why"
test_skip "nested namespaces" "$userns_why"
test_skip "the limit recorded at unshare" "$userns_why"
fi

# --- clone, setns, writes of the /proc files, the sysctl, v3 file capabilities ---


cat >"$TMP/self-maps.npg" <<'EOF'
user alice 1000
task sh uid alice
sh: unshare user ctr                  => ok
sh: write sh uid_map 0 alice 1        => ok
sh: write sh uid_map 0 alice 1        => EPERM    # once only
sh: write sh gid_map 0 alice 1        => EPERM    # setgroups still allowed
sh: write sh setgroups deny           => ok
sh: write sh gid_map 0 alice 1        => ok
sh: write sh setgroups allow          => EPERM
sh: setgroups none                    => EPERM
check sh cap sys_admin                => yes
sh: setuid 0                          => ok
check sh uids                         => alice alice alice
EOF

cat >"$TMP/clone-maps.npg" <<'EOF'
user alice 1000
user bob 1001
task rt uid alice
task b uid bob
rt: thread t                          => ok
rt: unshare user no                   => EINVAL   # threads: unshare may not
rt: clone init user ctr               => ok       # clone may
check init userns                     => ctr
check init cap sys_admin              => yes
b: write init uid_map 0 bob 1         => EACCES   # init's files are alice's
rt: write init uid_map 0 alice 1      => ok       # the owner, from the parent namespace
rt: write init setgroups deny         => ok
rt: write init gid_map 0 alice 1      => ok
init: setuid 0                        => ok
check init uids                       => alice alice alice
t: clone c2 user ctr2 uidmap 0 alice 1 gidmap 0 alice 1  => ok   # from a thread
check c2 userns                       => ctr2
c2: thread x                          => ok       # glibc works in the child
x: exit 0                             => ok
c2: setuid 0                          => ok
check c2 uids                         => alice alice alice
EOF

cat >"$TMP/setns.npg" <<'EOF'
user alice 1000
user bob 1001
task sh uid alice
task o uid alice
task b uid bob
sh: unshare user ctr uidmap 0 alice 1 gidmap 0 alice 1  => ok
o: setns user ctr                     => ok       # alice owns ctr: CAP_SYS_ADMIN over it
check o userns                        => ctr
check o cap sys_admin                 => yes
o: setns user ctr                     => EINVAL   # its own namespace
sh: setns user ctr                    => EINVAL
b: setns user ctr                     => EPERM    # bob has no capability over it
o: setuid 0                           => ok
check o uids                          => alice alice alice
b: thread bt                          => ok
b: unshare user never                 => EINVAL
sh: setns user never                  => EBADF    # never made
EOF

cat >"$TMP/max-userns.npg" <<'EOF'
user alice 1000
task sh uid alice
sh: unshare user outer uidmap 0 alice 1 gidmap 0 alice 1  => ok
sh: sysctl user.max_user_namespaces 1 => ok       # outer's own: root of outer may
sh: fork a                            => ok
sh: fork b                            => ok
a: unshare user one                   => ok
b: unshare user two                   => ENOSPC   # (outer, alice) at 1 of 1
b: clone c user three                 => ENOSPC
sh: sysctl user.max_user_namespaces 2 => ok
b: unshare user four                  => ok
sh: sysctl user.max_user_namespaces 2147483648  => EINVAL
EOF

cat >"$TMP/fcaps-v3.npg" <<'EOF'
user alice 1000
user bob 1001
file /home/alice/ctr/ping caps net_raw effective rootid alice
file /home/bob/ctr/ping caps net_raw effective rootid bob
task sh uid alice
task b uid bob
b: execve /home/alice/ctr/ping        => ok
check b cap net_raw                   => no       # alice is no namespace's root here
sh: unshare user ctr uidmap 0 alice 1, 1 bob 1 gidmap 0 alice 1, 1 bob 1  => ok
sh: fork d                            => ok
d: setuid 1                           => ok
check d uids                          => bob bob bob
d: execve /home/alice/ctr/ping        => ok
check d cap net_raw                   => yes      # its rootid is ctr's root
d: execve /home/bob/ctr/ping          => ok
check d cap net_raw                   => no       # bob is 1 in ctr, not 0
EOF

if userns_open; then
test_expect "unshare -r step by step by the task itself: its own uid, once; gid_map only after setgroups deny" '
	agrees_and_holds "$TMP/self-maps.npg"
'

test_expect "clone user from a threaded process, its maps written by the parent; clone from a thread" '
	agrees_and_holds "$TMP/clone-maps.npg"
'

test_expect "setns user: the owner may, another user EPERM, its own namespace EINVAL, one never made EBADF" '
	agrees_and_holds "$TMP/setns.npg"
'

test_expect "user.max_user_namespaces written inside a namespace, then ENOSPC below it" '
	agrees_and_holds "$TMP/max-userns.npg"
'

test_expect "a v3 file capability applies where its rootid is root, not outside, not for another rootid" '
	agrees_and_holds "$TMP/fcaps-v3.npg"
'

test_expect "a map line a task writes wider than the uid window: unreproducible, nothing compared after" '
	printf "%s\n" "user root 0" "user alice 1000" "task d uid root" "task a uid alice" "d: fork c" \
		"c: unshare user n" "c: write c uid_map 0 100000 65536" "a: fork x" >"$TMP/wide-w.npg" &&
	expect_exit 0 "$NPG" conform -u $BASE "$TMP/wide-w.npg" &&
	grep -q "wide-w.npg:7: .*unreproducible here: the map line .0 100000 65536. covers more kernel ids than the run.s uid window" "$TMP/stdout" &&
	grep -q "wide-w.npg:8: .*unreproducible here: .*the run is not compared after it" "$TMP/stdout" &&
	grep -q "^conform: 1 scenarios, 4 statements, 0 differences, 2 unreproducible" "$TMP/stdout" && no_leftovers
'
else
for t in "writes of a task's own maps" "clone user" "setns user" "user.max_user_namespaces inside" \
	 "v3 file capabilities" "a written map wider than the window"; do
	test_skip "$t" "$userns_why"
done
fi

# The machine's own limit is never changed by a run. Here root lacks
# CAP_SYS_RESOURCE in its bounding set and the kernel refuses (EACCES); on
# a machine whose root holds it the step is not run.
test_expect "sysctl user.max_user_namespaces from the initial namespace never changes the machine's" '
	before=$(cat /proc/sys/user/max_user_namespaces) &&
	printf "%s\n" "user root 0" "task r uid root" "r: sysctl user.max_user_namespaces 7" \
		"r: fork c" >"$TMP/host-max.npg" &&
	expect_exit 0 "$NPG" conform -u $BASE "$TMP/host-max.npg" &&
	{ grep -q "^conform: 1 scenarios, 2 statements, 0 differences, 0 unreproducible" "$TMP/stdout" ||
	  grep -q "host-max.npg:3: .*unreproducible here: .*would change this machine.s user.max_user_namespaces" "$TMP/stdout"; } &&
	"$NPG" run --real -u $BASE "$TMP/host-max.npg" >/dev/null &&
	test "$(cat /proc/sys/user/max_user_namespaces)" = "$before" && no_leftovers
'

# --- what cannot be done faithfully here is said, never compared ---

if userns_open; then
test_expect "a map wider than the uid window is unreproducible, and what it touches" '
	printf "%s\n" "user alice 1000" "user bob 1001" "task a uid alice" "task b uid bob" \
		"a: unshare user sub uidmap 0 100000 65536 gidmap 0 100000 65536" "a: setuid 0" \
		"check count alice" "b: fork c" "check count bob => 2" >"$TMP/wide.npg" &&
	expect_exit 0 "$NPG" conform -u $BASE "$TMP/wide.npg" &&
	grep -q "wide.npg:5: .*unreproducible here: the map line .0 100000 65536. covers more kernel ids than the run.s uid window" "$TMP/stdout" &&
	grep -q "wide.npg:7: .*unreproducible here: a task that could not be reproduced acts on this user" "$TMP/stdout" &&
	grep -q "^conform: 1 scenarios, 5 statements, 0 differences, 3 unreproducible" "$TMP/stdout" && no_leftovers
'

test_expect "a nested map across a line the backend had to cut at uid 0 is unreproducible" '
	printf "%s\n" "user root 0" "task d uid root" "d: fork c" \
		"c: unshare user n3 uidmap 0 0 3 gidmap 0 0 3 => ok" "c: fork c2" \
		"c2: unshare user n4 uidmap 0 0 2 gidmap 0 0 1" "c: setuid 1 => ok" >"$TMP/cut.npg" &&
	expect_exit 0 "$NPG" conform -u $BASE "$TMP/cut.npg" &&
	grep -q "cut.npg:6: .*unreproducible here: the parent namespace.s uid_map was written with uid 0 apart" "$TMP/stdout" &&
	grep -q "^conform: 1 scenarios, 5 statements, 0 differences, 1 unreproducible" "$TMP/stdout" && no_leftovers
'

test_expect "a namespace owned by root with a finite limit: its decisions meet the machine's root count, unreproducible" '
	printf "%s\n" "user root 0" "user alice 1000" "file /usr/bin/su setuid root" \
		"task a uid alice nproc 3 3" "a: execve /usr/bin/su => ok" \
		"a: unshare user r uidmap 0 0 1 gidmap 0 alice 1 => ok" "a: fork x" >"$TMP/rootns.npg" &&
	expect_exit 0 "$NPG" conform -u $BASE "$TMP/rootns.npg" &&
	grep -q "rootns.npg:7: .*unreproducible here: the ucounts of this task.s user namespace meet root.s count" "$TMP/stdout" &&
	grep -q " 0 differences, 1 unreproducible" "$TMP/stdout" && no_leftovers
'
else
for t in "a map wider than the uid window" "a nested map across a cut line" \
	 "a namespace owned by root with a finite limit"; do
	test_skip "$t" "$userns_why"
done
fi

# A seccomp filter that refuses unshare(CLONE_NEWUSER) with EPERM, as a
# container runtime's may: a refusal of the machine, not of the kernel's rules.
cat >"$TMP/no-userns.c" <<'EOF'
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	if (argc < 2 || !ctx ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
			     SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)) < 0 ||
	    seccomp_load(ctx) < 0) {
		fprintf(stderr, "no-userns: cannot load the filter\n");
		return 126;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
EOF
if ${CC:-cc} -o "$TMP/no-userns" "$TMP/no-userns.c" -lseccomp 2>"$TMP/cc.err"; then
test_expect "a machine that refuses unshare(CLONE_NEWUSER) (seccomp): unreproducible with the reason, no difference" '
	expect_exit 0 "$TMP/no-userns" "$NPG" conform -u $BASE "$S/userns-counts.npg" "$S/userns-threaded.npg" &&
	grep -q "userns-counts.npg:20: .*unreproducible here: unshare(CLONE_NEWUSER) failed with EPERM under a seccomp filter" "$TMP/stdout" &&
	grep -q "userns-threaded.npg:16: .*unreproducible here: unshare(CLONE_NEWUSER) failed with EPERM under a seccomp filter" "$TMP/stdout" &&
	grep -q "^conform: 2 scenarios, [0-9]* statements, 0 differences" "$TMP/stdout" && no_leftovers
'
else
test_skip "a machine that refuses unshare(CLONE_NEWUSER)" "no C compiler or libseccomp to make the seccomp filter"
fi

# --- teardown: tasks in namespaces go like the others, on every path ---

# A long scenario whose tasks live in namespaces (rootless and root-made,
# nested), so that the controller can be stopped in the middle of it.
ns_scenario() {
	printf "user root 0\nuser u 1000 procs 2\nuser v 2000\ntask d uid root\ntask s uid u\n"
	printf "s: unshare user box uidmap 0 u 1 gidmap 0 u 1\nd: fork r\n"
	printf "r: unshare user big uidmap 0 v 4 gidmap 0 v 4\nr: fork q\nq: setuid 2\n"
	printf "r: fork r2\nr2: setresgid 3 3 3\nr2: setresuid 3 3 3\n"
	printf "r2: unshare user deep uidmap 0 1 2 gidmap 0 1 2\n"
	i=0
	while [ $i -lt 150 ]; do
		printf "s: fork c%d\nc%d: thread t%d\nr2: fork k%d\nq: fork j%d\nj%d: exit\n" \
			$i $i $i $i $i $i
		i=$((i + 1))
	done
}
ns_scenario >"$TMP/ns.npg"

if userns_open; then
test_expect "SIGKILL of the controller leaves no task of a namespace behind" '
	"$NPG" run "$TMP/ns.npg" >/dev/null &&
	{ timeout -s KILL 1 "$NPG" run --real -u $BASE "$TMP/ns.npg" >/dev/null 2>&1
	  test $? -eq 137; } &&
	no_leftovers_after_init
'

test_expect "SIGTERM of the controller leaves no task of a namespace behind" '
	{ timeout -s TERM 1 "$NPG" run --real -u $BASE "$TMP/ns.npg" >"$TMP/term.out" 2>&1
	  rc=$?; test $rc -eq 124 || { echo "exit $rc"; head -3 "$TMP/term.out"; false; }; } &&
	grep -q "^nprocguard: interrupted by SIGTERM at .*ns.npg:[0-9]*" "$TMP/term.out" &&
	no_leftovers
'
else
test_skip "SIGKILL of the controller with tasks in namespaces" "$userns_why"
test_skip "SIGTERM of the controller with tasks in namespaces" "$userns_why"
fi

test_expect "to the end, with every puppet effect delayed: the window is empty after" '
	head -n 44 "$TMP/ns.npg" >"$TMP/ns-short.npg" &&
	NPG_PUPPET_DELAY_MS=20 expect_exit 0 "$NPG" conform -u $BASE "$TMP/ns-short.npg" &&
	grep -q " 0 differences" "$TMP/stdout" && no_leftovers
'

test_done
