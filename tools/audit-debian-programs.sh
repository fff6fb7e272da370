#!/bin/sh
# Audit three Debian programs that drop privileges -- setpriv, runuser,
# start-stop-daemon --chuid -- under each policy; linux-2.6 and ow-2006 with
# the target user already at the limit (three processes, RLIMIT_NPROC 2).
# Root only. Prints a Markdown table of verdicts.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
NPG=${NPG:-$TOP/build/nprocguard}
U=3000830001
NAME=npgaudit
useradd -M -N -u $U -g 0 -s /bin/sh $NAME 2>/dev/null || true
trap 'pkill -u $U 2>/dev/null; sleep 0.2; userdel $NAME 2>/dev/null' EXIT

at_limit() {	# run "$@" while $U has three processes, under RLIMIT_NPROC 2
	for i in 1 2 3; do setpriv --reuid=$U --regid=0 --clear-groups sleep 30 & done
	sleep 0.3
	"$@"; r=$?
	pkill -u $U sleep; wait 2>/dev/null
	return $r
}
verdict() { "$NPG" audit -p "$@" 2>/dev/null | head -1 | sed 's/nprocguard audit: //'; }

echo "| program | always | once | linux-2.6 (user at its limit) | ow-2006 (user at its limit) |"
echo "|---|---|---|---|---|"
for prog in "setpriv --reuid=$U --regid=0 --clear-groups -- true" \
	    "runuser -u $NAME -- true" \
	    "start-stop-daemon --start --chuid $NAME --exec /bin/true"; do
	# shellcheck disable=SC2086
	printf "| \`%s\` | %s | %s | %s | %s |\n" "$prog" "$(verdict always $prog)" "$(verdict once $prog)" \
		"$(at_limit verdict linux-2.6 prlimit --nproc=2:2 $prog)" \
		"$(at_limit verdict ow-2006 prlimit --nproc=2:2 $prog)"
done
