#!/bin/sh
# nprocguard guest --kernel IMAGE -- PROGRAM: any program run as root in a
# kernel under QEMU, its output and exit status brought back. The stand-in
# for QEMU (fixtures/fake-qemu) checks the failure paths; the last tests
# boot the smallest real image of $NPG_KERNELS with a static and a dynamic
# program built here.
. "$(dirname "$0")/lib.sh"

stand_in_qemu
export NPROCGUARD_CACHE="$TMP/cache"

test_expect "no --kernel or no program is a usage error, status 125" '
	expect_exit 125 "$NPG" guest -- /bin/true &&
	grep -q "give --kernel IMAGE and a PROGRAM" "$TMP/stderr" &&
	expect_exit 125 "$NPG" guest --kernel "$IMG" &&
	expect_exit 125 "$NPG" guest --kernel "$IMG" --no-such-option /bin/true
'

test_expect "a program that is not there is named, status 125" '
	expect_exit 125 "$NPG" guest --kernel "$IMG" -- "$TMP/no-such-program" &&
	grep -q "no-such-program: No such file or directory" "$TMP/stderr"
'

test_expect "a program that is not an ELF file is refused before QEMU starts" '
	printf "#!/bin/sh\necho hi\n" >"$TMP/script" && chmod +x "$TMP/script" &&
	NPROCGUARD_QEMU="$TMP/no-qemu" expect_exit 125 "$NPG" guest --kernel "$IMG" "$TMP/script" &&
	grep -q "not an ELF program the guest can run" "$TMP/stderr"
'

test_expect "the options after the program are its own" '
	NPROCGUARD_QEMU="$TMP/no-qemu" expect_exit 125 "$NPG" guest --kernel "$IMG" /bin/true --kernel x &&
	grep -q "cannot run $TMP/no-qemu" "$TMP/stderr"
'

test_expect "a guest that panics gives no result: status 125, and why" '
	FAKE_QEMU=panic NPROCGUARD_QEMU="$FAKE" expect_exit 125 "$NPG" guest --kernel "$IMG" /bin/true &&
	grep -q "the guest kernel panicked" "$TMP/stderr"
'

test_expect "a hung guest is stopped at --guest-timeout" '
	FAKE_QEMU=hang FAKE_QEMU_PID="$TMP/qemu.pid" NPROCGUARD_QEMU="$FAKE" \
		expect_exit 125 "$NPG" guest --guest-timeout 1 --kernel "$IMG" /bin/true &&
	grep -q "the guest hung" "$TMP/stderr" &&
	! kill -0 "$(cat "$TMP/qemu.pid")" 2>/dev/null
'

# 3.0.8 writes nothing on its console under "quiet": before, a program that
# started and then slept was "not a bootable x86_64 kernel"
test_expect "a program that started and never ends is said to hang, not to be an unbootable image" '
	FAKE_QEMU=started-hang FAKE_QEMU_PID="$TMP/qemu.pid" NPROCGUARD_QEMU="$FAKE" \
		expect_exit 125 "$NPG" guest --guest-timeout 1 --kernel "$IMG" /bin/sleep 100 &&
	grep -q "^nprocguard guest: the program was running in the guest (3.0.8) but gave no exit status: it hung: still running after [0-9]* s, the --guest-timeout, and the guest was stopped; the guest.s console is empty$" "$TMP/stderr" &&
	! kill -0 "$(cat "$TMP/qemu.pid")" 2>/dev/null
'

test_expect "--env takes NAME=VALUE or a NAME set here, a NAME of letters, digits and _" '
	for v in "" =x 1A=x A-B=x "A B=x" "A.B"; do
		NPROCGUARD_QEMU="$TMP/no-qemu" expect_exit 125 "$NPG" guest --env "$v" --kernel "$IMG" /bin/true &&
		grep -q "^nprocguard guest: bad --env .$v.: NAME=VALUE or NAME, a NAME of letters, digits and ._., not starting with a digit$" "$TMP/stderr" ||
		exit 1
	done &&
	unset NPG_NOT_SET_HERE &&
	NPROCGUARD_QEMU="$TMP/no-qemu" expect_exit 125 "$NPG" guest --env NPG_NOT_SET_HERE --kernel "$IMG" /bin/true &&
	grep -q "^nprocguard guest: --env NPG_NOT_SET_HERE: NPG_NOT_SET_HERE is not set here (give --env NPG_NOT_SET_HERE=VALUE)$" "$TMP/stderr" &&
	NPROCGUARD_QEMU="$TMP/no-qemu" expect_exit 125 "$NPG" guest --env _A1= -e B="x=y z" --kernel "$IMG" /bin/true &&
	grep -q "cannot run $TMP/no-qemu" "$TMP/stderr"
'

# Before: a FIFO blocked the command in open(), a device was opened (some
# act when opened), a sparse 200 MiB file was read whole into memory
test_expect "--file takes regular files only, not opened otherwise, and at most 128 MiB, said before any work" '
	refused() {
		NPROCGUARD_QEMU="$TMP/no-qemu" expect_exit 125 timeout 20 "$NPG" guest --kernel "$IMG" \
			--file "$1" /bin/true &&
		grep -q "^nprocguard guest: --file $1: $2$" "$TMP/stderr"
	}
	mkfifo "$TMP/ff" && mkdir "$TMP/dir" && truncate -s 200M "$TMP/huge" &&
	refused "$TMP/ff" "not a regular file (the guest gets a copy of regular files only)" &&
	refused "$TMP/dir" "not a regular file (the guest gets a copy of regular files only)" &&
	refused "$TMP/huge" "larger than 128 MiB, more than a guest holds" &&
	refused "$TMP/none" "No such file or directory" &&
	if mknod "$TMP/full" c 1 7 2>/dev/null; then refused "$TMP/full" "not a regular file (the guest gets a copy of regular files only)"; fi
'

test_expect "the program's status, output and error come back (stand-in)" '
	FAKE_QEMU=report NPROCGUARD_QEMU="$FAKE" expect_exit 1 "$NPG" guest --kernel "$IMG" /bin/true &&
	grep -q "^conform: 1 scenarios" "$TMP/stdout" &&
	grep -q "^a warning from the guest" "$TMP/stderr"
'

smallest_image
if [ -z "$why" ]; then
	cat >"$TMP/probe.c" <<-'EOF'
	#include <signal.h>
	#include <stdio.h>
	#include <string.h>
	#include <sys/utsname.h>
	#include <unistd.h>
	int main(int argc, char **argv)
	{
		struct utsname u;
		char cwd[4096];

		uname(&u);
		printf("release %s uid %d pid1 %d cwd %s args", u.release, (int)getuid(),
		       getppid() == 1, getcwd(cwd, sizeof(cwd)) ? cwd : "?");
		for (int i = 1; i < argc; i++)
			printf(" %s", argv[i]);
		printf("\n");
		fflush(stdout);
		fprintf(stderr, "probe: to stderr\n");
		if (argc > 1 && strcmp(argv[1], "die") == 0)
			raise(SIGTERM);
		if (argc > 1 && strcmp(argv[1], "cat") == 0) {
			FILE *f = fopen(argv[2], "r");
			char line[256];

			while (f && fgets(line, sizeof(line), f))
				fputs(line, stdout);
		}
		return 7;
	}
	EOF
	${CC:-cc} -static -O2 -o "$TMP/probe-static" "$TMP/probe.c" 2>"$TMP/cc.err" &&
	${CC:-cc} -O2 -o "$TMP/probe-dynamic" "$TMP/probe.c" 2>>"$TMP/cc.err" ||
		why="cannot build the probe program: $(head -n 1 "$TMP/cc.err")"
fi
if [ -n "$why" ]; then
	for t in "a static program runs as root in the guest" "a dynamic program runs with its libraries" \
		"a program killed by a signal gives 128+N" "--file copies a file at its path" \
		"the program's environment is /init's and --env's, not ours"; do
		test_skip "$t" "$why"
	done
else
	test_expect "a static program runs as root in $(basename "$image"), its status comes back" '
		cd "$TMP" &&
		expect_exit 7 "$NPG" guest --guest-timeout 600 --kernel "$image" ./probe-static a "b c" &&
		grep -q "^release .* uid 0 pid1 1 cwd $TMP args a b c$" "$TMP/stdout" &&
		grep -q "^probe: to stderr" "$TMP/stderr"
	'
	test_expect "a dynamic program runs with its libraries" '
		expect_exit 7 "$NPG" guest --guest-timeout 600 --kernel "$image" "$TMP/probe-dynamic" &&
		grep -q "^release .* uid 0 " "$TMP/stdout"
	'
	test_expect "a program killed by a signal gives 128+N" '
		expect_exit 143 "$NPG" guest --guest-timeout 600 --kernel "$image" "$TMP/probe-static" die
	'
	test_expect "--file copies a file at its path" '
		echo "a line of data" >"$TMP/data" &&
		expect_exit 7 "$NPG" guest --guest-timeout 600 --kernel "$image" --file "$TMP/data" \
			"$TMP/probe-static" cat "$TMP/data" &&
		grep -q "^a line of data$" "$TMP/stdout"
	'
	# Before: no --env, and NPG_KSELFTEST_TIMEOUT=600 of the caller
	# silently did not reach an exported test in the guest
	test_expect "the program's environment is /init's and --env's, not ours" '
		FOO=not-passed NPG_KSELFTEST_TIMEOUT=600 expect_exit 0 "$NPG" guest --guest-timeout 600 \
			--kernel "$image" --env NPG_KSELFTEST_TIMEOUT --env "BAR=a b=c" -e TMPDIR=/run \
			/usr/bin/env &&
		sort "$TMP/stdout" >"$TMP/env" &&
		printf "%s\n" "BAR=a b=c" HOME=/ NPG_GUEST_KERNEL=1 NPG_GUEST_REAPED=/npg-reaped \
			NPG_KSELFTEST_TIMEOUT=600 NPG_PROGRESS=0 TERM=linux TMPDIR=/run | sort | diff - "$TMP/env"
	'
fi
test_expect "the user's program is not kept in the cache" '
	! ls "$NPROCGUARD_CACHE"/initramfs-*.cpio 2>/dev/null
'

test_done
