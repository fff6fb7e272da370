#!/bin/sh
# Runs every unit-test binary of $NPG_BUILD as one TAP stream per binary,
# so prove shows them as subtests of this script.
set -eu
: "${NPG_BUILD:?set NPG_BUILD to a build directory}"
n=0
for t in "$NPG_BUILD"/tests/test-*; do
	n=$((n + 1))
	if out=$("$t" 2>&1); then
		echo "ok $n - $(basename "$t")"
	else
		echo "not ok $n - $(basename "$t")"
		printf '%s\n' "$out" | sed 's/^/# /'
	fi
done
echo "1..$n"
