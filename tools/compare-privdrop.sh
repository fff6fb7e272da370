#!/bin/sh
# Compare nprocguard exec with setpriv, runuser and gosu on the same
# privilege-drop checks, with faults injected by seccomp (build/tests/inject).
# Root only; gosu is optional (apt-get install gosu). Prints a Markdown table.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
NPG=${NPG:-$TOP/build/nprocguard}
INJECT=${INJECT:-$TOP/build/tests/inject}
# below 2^31: gosu refuses larger uids; far above any real user's
U=2147483001
TMP=$(mktemp -d)
trap 'pkill -u $U sleep 2>/dev/null; rm -rf "$TMP"' EXIT
chmod 1777 "$TMP"	# the dropped command writes its marker here

# drop TOOL COMMAND...: each tool's own way of dropping to $U (gid $U, no
# groups); written to a file so that commands run under inject can use it.
cat >"$TMP/drop.sh" <<DROP
drop() {
	tool=\$1; shift
	case \$tool in
	nprocguard) "$NPG" exec --user $U --group $U --clear-groups -- "\$@" ;;
	setpriv) setpriv --reuid=$U --regid=$U --clear-groups -- "\$@" ;;
	runuser) runuser -u u$U -g "\$(id -gn 0)" -- "\$@" ;;
	gosu) gosu $U:$U "\$@" ;;
	esac
}
DROP
. "$TMP/drop.sh"


check() {	# check TOOL SYSCALLS ERRNO: "fails closed" or "RUNS AS ROOT"
	rm -f "$TMP/marker"
	"$INJECT" "$2" "$3" -- sh -c ". $TMP/drop.sh; drop $1 sh -c 'echo \$(id -u):\$(id -g) > $TMP/marker'" \
		>/dev/null 2>&1
	# the marker says which uid and gid the command ran under, if it ran
	case $(cat "$TMP/marker" 2>/dev/null) in
	"") echo "refuses" ;;
	0:*) echo "**runs as root**" ;;
	*:0) echo "**runs with gid 0**" ;;
	*) echo "runs as the user" ;;
	esac
}

UIDCALLS=setuid,setreuid,setresuid
GIDCALLS=setgid,setregid,setresgid

tools="nprocguard setpriv runuser"
command -v gosu >/dev/null && tools="$tools gosu"
command -v runuser >/dev/null || tools=$(echo $tools | sed 's/runuser//')
getent passwd u$U >/dev/null || useradd -M -N -u $U -g 0 -s /usr/sbin/nologin u$U 2>/dev/null || true

printf '| check |'; for t in $tools; do printf ' %s |' "$t"; done; echo
printf '|---|'; for t in $tools; do printf -- '---|'; done; echo
row() { printf '| %s |' "$1"; shift; for t in $tools; do printf ' %s |' "$("$@" $t)"; done; echo; }

c_uid_eagain() { check $1 $UIDCALLS EAGAIN; }
c_uid_noop() { check $1 $UIDCALLS 0; }
c_gid_noop() { check $1 $GIDCALLS 0; }
c_groups_eperm() { check $1 setgroups EPERM; }
c_caps() {
	out=$(drop $1 sh -c 'grep -E "^Cap(Prm|Eff|Amb)" /proc/self/status' 2>/dev/null | awk '{print $2}' | sort -u)
	[ "$out" = 0000000000000000 ] && echo cleared || echo "**kept**"
}
c_nproc_msg() {
	for i in 1 2 3; do setpriv --reuid=$U --regid=$U --clear-groups sleep 30 & done
	sleep 0.3
	msg=$(prlimit --nproc=2:2 sh -c ". $TMP/drop.sh; drop $1 true" 2>&1 >/dev/null)
	pkill -u $U sleep; wait 2>/dev/null
	case $msg in *RLIMIT_NPROC*) echo "names RLIMIT_NPROC" ;; *) echo "\"${msg#*: }\"" | tr -d '\n' | cut -c1-60 ;; esac
}

row "set*uid fails with EAGAIN (2.6-era RLIMIT_NPROC)" c_uid_eagain
row "set*uid returns 0 but changes nothing" c_uid_noop
row "set*gid returns 0 but changes nothing" c_gid_noop
row "setgroups fails with EPERM" c_groups_eperm
row "capabilities after the drop" c_caps
row "execve refused for RLIMIT_NPROC: what it says" c_nproc_msg
userdel u$U 2>/dev/null || true
