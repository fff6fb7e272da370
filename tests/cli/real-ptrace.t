#!/bin/sh
# ptrace and dumpability on the real kernel: a puppet that attached
# tracees passes their signals on and takes their exits, as the model's
# harness tracer does (src/backend/real/tracer.c), and the controller
# waits for it before it observes (tracing.c). Each scenario goes through
# conform (0 differences) and run --real (its expectations hold). Root
# only: the real backend makes processes of other users.
. "$(dirname "$0")/lib.sh"
BASE=$((NPG_TEST_UID_BASE + 300000))	# a window of its own within this run's slot
S="$TOP/scenarios/regression"

if [ "$(id -u)" -ne 0 ]; then
	test_skip "real backend" "needs root: it creates processes of other users"
	test_done
	exit 0
fi

# The expectations below are this machine's defaults: no Yama (scope 0
# would change nothing they say, a higher scope refuses the attaches)
# and fs.suid_dumpable 0.
if [ -e /proc/sys/kernel/yama/ptrace_scope ] && [ "$(cat /proc/sys/kernel/yama/ptrace_scope)" != 0 ]; then
	test_skip "ptrace on the real kernel" "kernel.yama.ptrace_scope is $(cat /proc/sys/kernel/yama/ptrace_scope): the scenarios' attaches are refused here"
	test_done
	exit 0
fi
if [ "$(cat /proc/sys/fs/suid_dumpable)" != 0 ]; then
	test_skip "ptrace on the real kernel" "fs.suid_dumpable is $(cat /proc/sys/fs/suid_dumpable), the expectations say 0"
	test_done
	exit 0
fi


cat >"$TMP/seize.npg" <<'NPG'
scenario "who may attach"
user root 0
user www 1000
user bob 1001
task d uid root
task a uid www
task b uid www
task o uid bob
task s uid www euid bob
task c uid www caps setuid
a: ptrace b                  => ok
check b tracer               => a
# another user's process
a: ptrace o                  => EPERM
# a set-uid-changed task: its ids are not all the caller's, and it is not dumpable
check s dumpable             => 0
a: ptrace s                  => EPERM
# more permitted capabilities than the caller (cap_ptrace_access_check())
a: ptrace c                  => EPERM
# root may (CAP_SYS_PTRACE), but not a task already traced
d: ptrace c                  => ok
d: ptrace b                  => EPERM
check c tracer               => d
NPG

test_expect "a seize by the same user, and its EPERM cases: other user, set-uid, more capabilities" '
	agrees_and_holds "$TMP/seize.npg"
'

cat >"$TMP/setuid-exec.npg" <<'NPG'
scenario "a traced set-uid-root exec"
user root 0
user www 1000
file /usr/bin/passwd setuid root
task d uid root
task dbg uid www
task s uid www
task t uid www
dbg: ptrace s                => ok
s: execve /usr/bin/passwd    => ok
check s uids                 => www www www
check s dumpable             => 1
d: ptrace t                  => ok
t: execve /usr/bin/passwd    => ok
check t uids                 => www root root
check t dumpable             => 0
NPG

test_expect "a traced set-uid-root exec is downgraded unless the tracer is root" '
	agrees_and_holds "$TMP/setuid-exec.npg"
'

cat >"$TMP/signals.npg" <<'NPG'
scenario "signals and exits of tracees"
user root 0
user www 1000
task a uid www
task b uid www
task p uid www
a: ptrace b                  => ok
# the tracee stops on SIGTERM; the loop passes it on
a: kill b TERM               => ok
check b exit                 => killed SIGTERM
check b state                => reaped
# a tracee whose tracer is not its parent: its exit is taken at once,
# and the parent's wait reaps it
p: fork k                    => ok
a: ptrace k                  => ok
k: exit 7                    => ok
check k tracer               => none
check k state                => zombie
p: wait k                    => ok
check k exit                 => exited 7
# a traced thread: released at its exit
p: thread t                  => ok
a: ptrace t                  => ok
check count www              => 3
t: exit                      => ok
check t state                => reaped
check count www              => 2
NPG

test_expect "SIGTERM to a tracee kills it, a tracee's exit is its parent's to reap, a traced thread's exit frees its count" '
	agrees_and_holds "$TMP/signals.npg"
'

cat >"$TMP/links.npg" <<'NPG'
scenario "a tracer that exits, execs, detaches"
user root 0
user www 1000
task a uid www
task b uid www
task c uid www
task x uid www
a: ptrace b                  => ok
a: execve                    => ok
check b tracer               => a
b: execve                    => ok
check b tracer               => a
a: ptrace detach b           => ok
check b tracer               => none
a: ptrace detach b           => ESRCH
# a tracer thread that execs takes its process's id and keeps its tracee
x: thread xt                 => ok
xt: ptrace b                 => ok
xt: execve                   => ok
check x state                => reaped
check b tracer               => xt
xt: kill b USR1              => ok
check b exit                 => killed SIGUSR1
# a tracer that exits lets go
c: fork n                    => ok
a: ptrace n                  => ok
a: exit                      => ok
check n tracer               => none
n: exit                      => ok
check n state                => zombie
NPG

test_expect "a tracer that execs still traces, detach lets go, a tracer's exit detaches" '
	agrees_and_holds "$TMP/links.npg"
'

cat >"$TMP/dumpable.npg" <<'NPG'
scenario "dumpability after set*id and prctl"
user root 0
user www 1000
task d uid root
task w uid www
task g uid root gid root egid www
check d dumpable             => 1
check w dumpable             => 1
check g dumpable             => 0
d: setresuid -1 www -1       => ok
check d dumpable             => 0
d: prctl dumpable 1          => ok
check d dumpable             => 1
d: thread dt                 => ok
dt: prctl dumpable 0         => ok
check d dumpable             => 0
w: prctl dumpable 2          => EINVAL
w: prctl ptracer any         => EINVAL
NPG

test_expect "check dumpable after a set*id and after prctl dumpable 1, a thread's prctl is its process's" '
	agrees_and_holds "$TMP/dumpable.npg"
'

test_expect "the regression scenarios on ptrace and dumpability conform" '
	expect_exit 0 "$NPG" conform -u $BASE "$S"/ptrace-links.npg "$S"/ptrace-permission.npg \
		"$S"/ptrace-setuid-exec.npg "$S"/dumpable.npg &&
	grep -q "^conform: 4 scenarios, [0-9]* statements, 0 differences" "$TMP/stdout" &&
	no_leftovers
'

# PTRACE_ATTACH: its SIGSTOP is taken and dropped, an attached tracee's
# exec SIGTRAP too, and detach works whoever may signal whom
test_expect "ptrace attach: the regression scenario agrees and holds, every statement compared" '
	agrees_and_holds "$S"/ptrace-attach.npg
'

cat >"$TMP/attach.npg" <<'NPG'
scenario "an attached tracee is not left stopped"
user root 0
user www 1000
user bob 1001
task d uid root
task a uid www
task b uid www
a: ptrace attach b           => ok
b: thread bt                 => ok
a: ptrace attach bt          => ok
check bt tracer              => a
# each answers at once: neither waits in a stop (a stopped puppet would not)
b: setuid www                => ok
bt: setuid www               => ok
b: execve                    => ok
check b tracer               => a
check bt state               => reaped
# the tracer loses the right to signal it (kill_ok_by_cred()): still lets go
d: ptrace attach a           => ok
a: setresuid bob bob bob     => EPERM
d: ptrace detach a           => ok
d: fork r                    => ok
r: ptrace attach b           => EPERM
r: setuid bob                => ok
a: ptrace detach b           => ok
b: fork c                    => ok
check b tracer               => none
NPG

test_expect "ptrace attach: threads, exec, detach; no tracee stays stopped" '
	agrees_and_holds "$TMP/attach.npg"
'

# wait_for_vfork_done(): the attach's SIGSTOP would stop b only once v exits
test_expect "ptrace attach: a task asleep in vfork() is unreproducible, not a hang" '
	printf "user www 1000\ntask a uid www\ntask b uid www\nb: vfork v\na: ptrace attach b\nv: exit 0\ncheck b tracer\n" \
		>"$TMP/attach-vfork.npg" &&
	expect_exit 0 "$NPG" conform -u $BASE "$TMP/attach-vfork.npg" &&
	grep -q "PTRACE_ATTACH of a task asleep in vfork()" "$TMP/stdout" &&
	grep -q "0 differences, 3 unreproducible" "$TMP/stdout" && no_leftovers
'

cat >"$TMP/vfork.npg" <<'NPG'
user root 0
user www 1000
task a uid www
task b uid www
b: ptrace a                  => ok
b: vfork v                   => ok
a: kill a TERM
check a exit
NPG

test_expect "a signal to a tracee whose tracer sleeps in vfork() is unreproducible, not a hang" '
	expect_exit 0 "$NPG" conform -u $BASE "$TMP/vfork.npg" &&
	grep -q "sleeps in vfork()" "$TMP/stdout" && no_leftovers
'

# A tracee stopped when the controller is told to go: the teardown kills it
cat >"$TMP/term.npg" <<'NPG'
user root 0
user www 1000
task a uid www
task b uid www
a: ptrace b                  => ok
b: thread bt                 => ok
a: ptrace bt                 => ok
a: setuid www
a: setuid www
a: setuid www
a: setuid www
NPG

# (each effect 500 ms late: the signal comes once both are traced)
test_expect "SIGTERM to the controller leaves no tracee behind" '
	NPG_PUPPET_DELAY_MS=500 "$NPG" run --real -u $BASE "$TMP/term.npg" >"$TMP/o" 2>&1 &
	pid=$!
	sleep 2.3
	kill -TERM $pid
	wait $pid
	grep -q "interrupted by SIGTERM" "$TMP/o" && no_leftovers_after_init
'

# No difference, ptrace's or any other's: the backend makes every step
# now (the namespace placeholders are gone). Each one conform found is
# shrunk into $TMP/shrunk and shown.
test_expect "random scenarios with ptrace conform" '
	mkdir "$TMP/shrunk" &&
	"$NPG" conform -u $BASE -q --random 60 --seed 11 -o "$TMP/shrunk" >"$TMP/r" 2>&1
	grep -q "^conform: 60 scenarios, [0-9]* statements, 0 differences" "$TMP/r" ||
		{ cat "$TMP/r" "$TMP"/shrunk/*.npg; exit 1; }
	no_leftovers
'

test_done
