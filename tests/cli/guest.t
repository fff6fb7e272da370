#!/bin/sh
# nprocguard guest --kernel IMAGE -- PROGRAM: any program run as root in a
# kernel under QEMU, its output and exit status brought back. The stand-in
# for QEMU (fixtures/fake-qemu) checks the failure paths; the last tests
# boot the smallest real image of $NPG_KERNELS with a static and a dynamic
# program built here.
. "$(dirname "$0")/lib.sh"

FAKE="$TOP/tests/cli/fixtures/fake-qemu"
export NPROCGUARD_CACHE="$TMP/cache"

test_expect "no --kernel or no program is a usage error, status 125" '
	expect_exit 125 "$NPG" guest -- /bin/true &&
	grep -q "give --kernel IMAGE and a PROGRAM" "$TMP/stderr" &&
	expect_exit 125 "$NPG" guest --kernel "$FAKE" &&
	expect_exit 125 "$NPG" guest --kernel "$FAKE" --no-such-option /bin/true
'

test_expect "a program that is not there is named, status 125" '
	expect_exit 125 "$NPG" guest --kernel "$FAKE" -- "$TMP/no-such-program" &&
	grep -q "no-such-program: No such file or directory" "$TMP/stderr"
'

test_expect "a program that is not an ELF file is refused before QEMU starts" '
	printf "#!/bin/sh\necho hi\n" >"$TMP/script" && chmod +x "$TMP/script" &&
	NPROCGUARD_QEMU="$TMP/no-qemu" expect_exit 125 "$NPG" guest --kernel "$FAKE" "$TMP/script" &&
	grep -q "not an ELF program the guest can run" "$TMP/stderr"
'

test_expect "the options after the program are its own" '
	NPROCGUARD_QEMU="$TMP/no-qemu" expect_exit 125 "$NPG" guest --kernel "$FAKE" /bin/true --kernel x &&
	grep -q "cannot run $TMP/no-qemu" "$TMP/stderr"
'

test_expect "a guest that panics gives no result: status 125, and why" '
	FAKE_QEMU=panic NPROCGUARD_QEMU="$FAKE" expect_exit 125 "$NPG" guest --kernel "$FAKE" /bin/true &&
	grep -q "the guest kernel panicked" "$TMP/stderr"
'

test_expect "a hung guest is stopped at --guest-timeout" '
	FAKE_QEMU=hang FAKE_QEMU_PID="$TMP/qemu.pid" NPROCGUARD_QEMU="$FAKE" \
		expect_exit 125 "$NPG" guest --guest-timeout 1 --kernel "$FAKE" /bin/true &&
	grep -q "the guest hung" "$TMP/stderr" &&
	! kill -0 "$(cat "$TMP/qemu.pid")" 2>/dev/null
'

test_expect "the program's status, output and error come back (stand-in)" '
	FAKE_QEMU=report NPROCGUARD_QEMU="$FAKE" expect_exit 1 "$NPG" guest --kernel "$FAKE" /bin/true &&
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
		"a program killed by a signal gives 128+N" "--file copies a file at its path"; do
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
fi
test_expect "the user's program is not kept in the cache" '
	! ls "$NPROCGUARD_CACHE"/initramfs-*.cpio 2>/dev/null
'

test_done
