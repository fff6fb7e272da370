#!/bin/sh
# nprocguard exec and npg_drop_privileges(3): root only (CI runs as root).
. "$(dirname "$0")/lib.sh"
INJECT="$NPG_BUILD/tests/inject"
U=$((NPG_TEST_UID_BASE + 600001))
G=$((NPG_TEST_UID_BASE + 600002))

if [ "$(id -u)" -ne 0 ]; then
	test_skip "exec" "needs root: it drops from root to test users"
	test_done
	exit 0
fi
chmod 1777 "$TMP"	# dropped commands leave markers here

test_expect "drops to a bare uid: real, effective, saved ids and no groups" '
	expect_exit 0 "$NPG" exec --user $U --group $G -- sh -c "cat /proc/self/status" &&
	grep -qx "Uid:	$U	$U	$U	$U" "$TMP/stdout" &&
	grep -qx "Gid:	$G	$G	$G	$G" "$TMP/stdout" &&
	grep -Eqx "Groups:	 *" "$TMP/stdout"
'
test_expect "capabilities are all cleared, ambient and inheritable included" '
	expect_exit 0 "$NPG" exec --user $U --group $G -- cat /proc/self/status &&
	test $(grep -E "^Cap(Inh|Prm|Eff|Amb):	0000000000000000$" "$TMP/stdout" | wc -l) -eq 4
'
test_expect "--groups sets exactly those supplementary groups" '
	expect_exit 0 "$NPG" exec --user $U --group $G --groups 5,$((NPG_TEST_UID_BASE + 600003)) -- cat /proc/self/status &&
	grep -qx "Groups:	5 $((NPG_TEST_UID_BASE + 600003)) " "$TMP/stdout"
'
test_expect "--init-groups takes the group database (nobody)" '
	want=$(id -G nobody | tr " " "\n" | sort -n | tr "\n" " ")
	expect_exit 0 "$NPG" exec --user nobody --init-groups -- id -G &&
	test "$(tr " " "\n" <"$TMP/stdout" | sort -n | tr "\n" " ")" = "$want"
'
test_expect "--no-new-privs sets NoNewPrivs" '
	expect_exit 0 "$NPG" exec -u $U -g $G --no-new-privs -- cat /proc/self/status &&
	grep -qx "NoNewPrivs:	1" "$TMP/stdout"
'
test_expect "the command runs with its arguments and its exit status" '
	expect_exit 7 "$NPG" exec -u $U -g $G -- sh -c "exit 7" arg0
'
test_expect "exit 127 when the command is not found" '
	expect_exit 127 "$NPG" exec -u $U -g $G -- /no/such/command &&
	grep -q "unable to execute /no/such/command: No such file or directory" "$TMP/stderr"
'
test_expect "exit 126 when the command is not executable" '
	printf "x" >"$TMP/plain" && chmod 644 "$TMP/plain" &&
	expect_exit 126 "$NPG" exec -u $U -g $G -- "$TMP/plain"
'
test_expect "exit 100 on usage errors" '
	expect_exit 100 "$NPG" exec -- true &&
	expect_exit 100 "$NPG" exec -u $U -- true &&
	expect_exit 100 "$NPG" exec -u $U -g $G --keep-caps all -- true &&
	expect_exit 100 "$NPG" exec -u $U -g $G -c -i -- true &&
	expect_exit 100 "$NPG" exec -u no-such-user-here -- true
'

test_expect "a PATH directory the user cannot search hides nothing: not found is 127, not 126" '
	mkdir -p "$TMP/locked" && chmod 700 "$TMP/locked" &&
	PATH="$TMP/locked:$PATH" expect_exit 127 "$NPG" exec -u $U -g $G -- nosuchcommand &&
	grep -q "unable to execute nosuchcommand: No such file or directory" "$TMP/stderr" &&
	PATH="$TMP/locked:$PATH" expect_exit 0 "$NPG" exec -u $U -g $G -- true
'
test_expect "a command found in PATH but not executable is 126" '
	mkdir -p "$TMP/bin" && chmod 755 "$TMP/bin" && printf "x" >"$TMP/bin/notexec" &&
	chmod 644 "$TMP/bin/notexec" &&
	PATH="$TMP/bin:$PATH" expect_exit 126 "$NPG" exec -u $U -g $G -- notexec &&
	grep -q "Permission denied" "$TMP/stderr"
'
test_expect "--groups takes 20,000 groups (the kernel allows 65,536)" '
	seq -s, 1 20000 >"$TMP/groups" &&
	expect_exit 0 "$NPG" exec -u $U -g $G -G "$(cat "$TMP/groups")" -- cat /proc/self/status &&
	test "$(grep "^Groups:" "$TMP/stdout" | wc -w)" -eq 20001
'
test_expect "a bad group in a long list is named, and the list is not echoed whole" '
	expect_exit 100 "$NPG" exec -u $U -g $G -G "$(cat "$TMP/groups"),nosuchgroup-here" -- true &&
	grep -q "unknown group: nosuchgroup-here" "$TMP/stderr" &&
	test "$(wc -c <"$TMP/stderr")" -lt 300 &&
	expect_exit 100 "$NPG" exec -u $U -g $G -G "$(head -c 100000 /dev/zero | tr "\\0" x)" -- true &&
	test "$(wc -c <"$TMP/stderr")" -lt 300 && grep -q "group name too long in --groups: x*\.\.\.$" "$TMP/stderr"
'
test_expect "--groups twice adds up; an empty element is an error" '
	expect_exit 0 "$NPG" exec -u $U -g $G -G 5 -G 6,7 -- cat /proc/self/status &&
	grep -qx "Groups:	5 6 7 " "$TMP/stdout" &&
	expect_exit 100 "$NPG" exec -u $U -g $G -G ",,," -- true &&
	grep -q "empty group name in --groups: ,,," "$TMP/stderr" &&
	expect_exit 100 "$NPG" exec -u $U -g $G -G "5,,6" -- true &&
	expect_exit 100 "$NPG" exec -u $U -g $G -G "" -- true
'
test_expect "inherited descriptors above 2 are closed; --keep-fds passes some on" '
	echo secret >"$TMP/secret" && chmod 600 "$TMP/secret" &&
	expect_exit 2 "$NPG" exec -u $U -g $G -- sh -c "cat <&3" 3<"$TMP/secret" &&
	grep -q "Bad file descriptor" "$TMP/stderr" &&
	! grep -q secret "$TMP/stdout" &&
	expect_exit 0 "$NPG" exec -u $U -g $G --keep-fds 3 -- sh -c "cat <&3" 3<"$TMP/secret" &&
	grep -qx secret "$TMP/stdout" &&
	expect_exit 0 "$NPG" exec -u $U -g $G -f 5,4 -- sh -c "test -e /proc/self/fd/4 && test -e /proc/self/fd/5 && ! test -e /proc/self/fd/7" \
		4<"$TMP/secret" 5<"$TMP/secret" 7<"$TMP/secret" &&
	expect_exit 100 "$NPG" exec -u $U -g $G --keep-fds 2 -- true
'
test_expect "HOME, USER and LOGNAME are the target user's, not root's" '
	home=$(getent passwd nobody | cut -d: -f6)
	HOME=/root USER=root LOGNAME=root expect_exit 0 "$NPG" exec -u nobody -- sh -c "echo \$HOME \$USER \$LOGNAME" &&
	test "$(cat "$TMP/stdout")" = "$home nobody nobody" &&
	HOME=/root USER=root expect_exit 0 "$NPG" exec -u $U -g $G -- sh -c "echo \${HOME-unset} \$USER \$LOGNAME" &&
	test "$(cat "$TMP/stdout")" = "unset $U $U"
'
test_expect "--reset-env clears the environment but TERM" '
	FOO=bar TERM=dumb expect_exit 0 "$NPG" exec -u nobody --reset-env -- env &&
	! grep -q "^FOO=" "$TMP/stdout" && grep -qx "TERM=dumb" "$TMP/stdout" &&
	grep -qx "PATH=/usr/local/bin:/bin:/usr/bin" "$TMP/stdout" && grep -qx "USER=nobody" "$TMP/stdout"
'
test_expect "a drop to uid 0 is warned about" '
	expect_exit 0 "$NPG" exec -u root -- true &&
	grep -q "warning: root is uid 0: nothing is dropped" "$TMP/stderr"
'
if command -v script >/dev/null && test -x /usr/bin/python3; then
	cat >"$TMP/sti.py" <<-\EOP
	import fcntl, termios
	try:
	    fcntl.ioctl(0, termios.TIOCSTI, b" ")
	    print("TIOCSTI injected")
	except OSError as e:
	    print("TIOCSTI refused", e.errno)
	EOP
	chmod 644 "$TMP/sti.py"
	test_expect "on a terminal the command gets a new session: TIOCSTI into it is refused" '
		script -qec "\"$NPG\" exec -u $U -g $G -- /usr/bin/python3 \"$TMP/sti.py\"" /dev/null >"$TMP/out.tty" &&
		grep -q "TIOCSTI refused 1" "$TMP/out.tty"
	'
	test_expect "in a new session the command's exit status and signal come through" '
		rc=0; script -qec "\"$NPG\" exec -u $U -g $G -- sh -c \"exit 3\"" /dev/null >/dev/null || rc=$?
		test $rc -eq 3 &&
		rc=0; script -qec "\"$NPG\" exec -u $U -g $G -- sh -c \"kill -TERM \\\$\\\$\"" /dev/null >/dev/null || rc=$?
		test $rc -eq 143
	'
else
	test_skip "new session on a terminal" "needs script(1) and /usr/bin/python3 for a pty and TIOCSTI"
fi

# Each step's failure, injected: exit 111, the step named, the command never run.
inject_refused() {	# inject_refused SYSCALLS ERRNO EXPECTED-MESSAGE
	rm -f "$TMP/ran"
	expect_exit 111 "$INJECT" "$1" "$2" -- "$NPG" exec -u $U -g $G -- touch "$TMP/ran" &&
	grep -qF "$3" "$TMP/stderr" && ! test -e "$TMP/ran"
}
test_expect "setgroups failing stops the drop" '
	inject_refused setgroups EPERM "unable to drop privileges: setgroups(0): Operation not permitted"
'
test_expect "setresgid failing stops the drop" '
	inject_refused setresgid EAGAIN "setresgid($G, $G, $G): Resource temporarily unavailable"
'
test_expect "setresuid failing with EAGAIN (the 2.6-era RLIMIT_NPROC) stops the drop" '
	inject_refused setresuid EAGAIN "setresuid($U, $U, $U): Resource temporarily unavailable"
'
test_expect "a setresuid that returns 0 but changes nothing is caught" '
	inject_refused setresuid 0 "setresuid reported success but the uids are 0 0 0"
'
test_expect "a setresgid that returns 0 but changes nothing is caught" '
	inject_refused setresgid 0 "setresgid reported success but the gids are 0 0 0"
'
test_expect "a setgroups that returns 0 but changes nothing is caught" '
	"$NPG" exec -u 0 -g 0 --groups 5,6 -- "$INJECT" setgroups 0 -- \
		"$NPG" exec -u $U -g $G -- touch "$TMP/ran" >/dev/null 2>"$TMP/stderr"
	test $? -eq 111 && grep -q "supplementary groups are not what was set" "$TMP/stderr" &&
	! test -e "$TMP/ran"
'
test_expect "a regainable root (setuid(0) succeeds afterwards) is caught" '
	inject_refused setuid 0 "setuid(0) succeeded after the drop: root can be regained"
'
# the session fork refused by something no limit explains (an injected
# EAGAIN): the message says no limit refuses, never ends in a bare ": "
# (LeakSanitizer needs a thread at exit, which the injection refuses)
test_expect "--new-session fork failing with no limit at fault: no dangling colon" '
	rm -f "$TMP/ran"
	ASAN_OPTIONS=detect_leaks=0 expect_exit 111 "$INJECT" clone,clone3,fork,vfork EAGAIN -- \
		"$NPG" exec -s -u $U -g $G -- touch "$TMP/ran" &&
	grep -qx "nprocguard exec: unable to fork for a new session: Resource temporarily unavailable (no limit that .nprocguard explain. reads refuses a fork now)" "$TMP/stderr" &&
	! grep -q ": \$" "$TMP/stderr" && ! test -e "$TMP/ran"
'

# RLIMIT_NPROC: three processes of the user already run.
# LeakSanitizer needs a thread at exit, which RLIMIT_NPROC refuses here
test_expect "a user over the limit: the execve failure is explained, exit 111" '
	ASAN_OPTIONS=detect_leaks=0 with_sleepers $U expect_exit 111 "$NPG" exec -u $U -g $G --rlimit-nproc 2 -- true &&
	grep -q "warning: user $U has 4 tasks, RLIMIT_NPROC is 2: execve would fail with EAGAIN (PF_NPROC_EXCEEDED)" "$TMP/stderr" &&
	# the same cause as `nprocguard explain --op execve` names
	grep -q "unable to execute true: Resource temporarily unavailable: user $U (uid $U): 4 tasks (4 processes, 0 threads, 0 zombies), RLIMIT_NPROC 2 (soft, pid [0-9]* nprocguard): PF_NPROC_EXCEEDED is set and 4 > 2: execve fails with EAGAIN (do_execveat_common()" "$TMP/stderr"
'
test_expect "a user at the limit gets through, and the note says why (5.17+)" '
	with_sleepers $U expect_exit 0 "$NPG" exec -u $U -g $G --rlimit-nproc 3 -- true &&
	grep -q "note: user $U has 4 tasks, RLIMIT_NPROC is 3: over the limit, but execve is allowed" "$TMP/stderr"
'
test_expect "a user under the limit: silent" '
	with_sleepers $U expect_exit 0 "$NPG" exec -u $U -g $G --rlimit-nproc 5 -- true &&
	! test -s "$TMP/stderr"
'
test_expect "the installed library and its pkg-config file build a program that drops" '
	# the sanitized build must stay one: a relink without SAN=1 would break it
	san_make=; nm "$NPG_BUILD/libnprocguard-privdrop.a" 2>/dev/null | grep -q __asan && san_make=SAN=1
	make -s -C "$TOP" install BUILD="$NPG_BUILD" $san_make PREFIX=/usr DESTDIR="$TMP/root" >/dev/null &&
	cat >"$TMP/drop.c" <<-EOC &&
	#include <err.h>
	#include <stdio.h>
	#include <unistd.h>
	#include <nprocguard/privdrop.h>
	int main(void)
	{
		struct npg_privdrop d = { .uid = $U, .gid = $G, .groups = NPG_GROUPS_CLEAR,
					  .rlimit_nproc = -1 };
		if (npg_drop_privileges(&d) < 0)
			errx(111, "%s", d.reason);
		printf("%u\\n", (unsigned)geteuid());
		return 0;
	}
	EOC
	flags=$(PKG_CONFIG_PATH="$TMP/root/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$TMP/root" \
		pkg-config --cflags --libs nprocguard-privdrop) &&
	san=; nm -D "$TMP/root/usr/lib/libnprocguard-privdrop.so.0" | grep -q __asan_init &&
		san=-fsanitize=address,undefined	# the library of the sanitized build
	cc $san -o "$TMP/drop" "$TMP/drop.c" $flags &&
	test "$(LD_LIBRARY_PATH="$TMP/root/usr/lib" "$TMP/drop")" = $U &&
	test -f "$TMP/root/usr/share/man/man3/npg_drop_privileges.3"
'

test_expect "nothing is left running as the test users" '
	test -z "$(ps -eo uid= | awk -v u=$U "\$1 == u")"
'
test_done
