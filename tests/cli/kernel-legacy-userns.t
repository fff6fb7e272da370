#!/bin/sh
# The user namespaces of 2.6.39-3.4 on their own kernel: conform --kernel
# boots a 2.6.39-3.4 image of $NPG_KERNELS (default ../shared/kernels;
# linux-3.0.8 there) and compares, statement by statement, what its
# clone(CLONE_NEWUSER) namespaces do -- counts per (namespace, real uid),
# root's inside one included, the creator's rights, the refusals of
# unshare, setns and the map files -- with the model of that era. The
# files' expectations hold on the model too (nprocguard run), so the two
# together pin the kernel's values. No root needed here: the guest is root.
. "$(dirname "$0")/lib.sh"
export NPROCGUARD_CACHE="$TMP/cache"

kdir=${NPG_KERNELS:-$TOP/../shared/kernels}
image=
for f in "$kdir"/*; do
	case ${f##*/} in
	*2.6.39[.-]*bzImage* | *-3.[0-4][.-]*bzImage* | vmlinuz-2.6.39[.-]* | vmlinuz-3.[0-4][.-]*)
		image=$f
		break
		;;
	esac
done
if ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
	test_skip "2.6.39-3.4's user namespaces in their kernel" \
		"qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)"
	test_done
	exit 0
fi
if [ -z "$image" ]; then
	test_skip "2.6.39-3.4's user namespaces in their kernel" \
		"no 2.6.39-3.4 kernel image in $kdir (set NPG_KERNELS)"
	test_done
	exit 0
fi

# Counts: every namespace has user_structs of its own (3.0's alloc_uid(ns,
# uid)), a task counts once, for its raw real uid in its namespace
cat >"$TMP/legacy-counts.npg" <<'NPG'
scenario "2.6.39-3.4: counts per (namespace, real uid), root's inside the namespace included"
policies linux-2.6
user root 0
user www 1000 procs 2
user bob 1001
task d uid root nproc 5 10
task w uid www nproc 5 5
d: clone c user box uidmap 0 www 1 gidmap 0 www 1 => ENOENT   # no /proc/PID/uid_map
check c userns                   => box
check c uids                     => root root root
check c nproc                    => 5 10
check count root in box          => 1
check count www in box           => 0
check count www                  => 3
c: fork f1                       => ok
c: fork f2                       => ok
c: fork f3                       => ok
c: thread t1                     => ok
check count root in box          => 5
check t1 userns                  => box
f1: setuid www                   => ok
check count www in box           => 1
check count www                  => 3
check count root in box          => 4
f1: fork g1                      => ok
f1: fork g2                      => ok
f1: fork g3                      => ok
f1: fork g4                      => ok
f1: fork g5                      => EAGAIN    # (box, www) at 5 of 5
check count www in box           => 5
f2: setrlimit nproc 1 1          => ok
f2: setuid bob                   => ok
f2: execve /bin/sh               => ok
f2: fork h1                      => EAGAIN
f3: setresuid bob bob root       => ok
check f3 uids                    => bob bob root
f3: setfsuid www                 => bob
g1: exit 3                       => ok
check g1 state                   => zombie
check count www in box           => 5
f1: wait g1                      => ok
check count www in box           => 4
t1: execve /bin/true             => ok
check c state                    => reaped
check t1 userns                  => box
check count root in box          => 1
t1: vfork k1                     => ok
k1: setuid bob                   => ok
k1: execve /bin/true             => ok
check k1 userns                  => box
check count bob in box           => 3
check count bob                  => 0
w: kill g2 0                     => EPERM     # same number, another namespace
d: kill g2 0                     => ok
d: prlimit g2 nproc 1 1          => ok
w: prlimit g2 nproc 1 1          => EPERM
check g2 nproc                   => 1 1
g2: fork x1                      => EAGAIN
NPG

# Who may clone (do_fork(): capable() of CAP_SYS_ADMIN, CAP_SETUID and
# CAP_SETGID), the creator's rights, and the 3.8 interfaces not there
cat >"$TMP/legacy-admin.npg" <<'NPG'
scenario "2.6.39-3.4: who may clone, and the 3.8 interfaces that are not there"
policies linux-2.6
user root 0
user www 1000 procs 2
user bob 1001
task d uid root nproc 4 10
task p uid www nproc 3 3 caps sys_admin,setuid,setgid
task q uid www caps sys_admin,setuid
task b uid bob
p: clone c0 user n0              => ok        # CAP_SYS_ADMIN: no limit test
q: clone c1 user n1              => EPERM     # no CAP_SETGID
b: clone c9 user nb              => EPERM
p: clone c2 user n2              => ok
check c2 uids                    => root root root
check count www                  => 4
check count root in n2           => 1
p: capset drop all               => ok
p: kill c2 0                     => ok        # n2's creator
p: prlimit c2 nproc 1 1          => ok
c2: fork c3                      => EAGAIN
c2: setuid www                   => ok
check count www in n2            => 1
q: kill c2 0                     => ok
b: kill c2 0                     => EPERM
p: unshare user n3               => EINVAL
c2: unshare user n4              => EINVAL
d: setns user n2                 => ENOENT
c2: setns user n2                => ENOENT
d: setns user n1                 => EBADF
d: write c2 uid_map 0 www 1      => ENOENT
d: write c2 gid_map 0 www 1      => ENOENT
d: write c2 setgroups deny       => ENOENT
c2: write c2 uid_map 0 0 1       => ENOENT
d: sysctl user.max_user_namespaces 3 => ENOENT
d: clone c4 user n5 gidmap 0 www 1   => ENOENT
d: thread dt                     => ok
dt: clone c7 user n8             => ok
check c7 userns                  => n8
c4: clone c8 user n9             => EPERM     # capable() asks the initial namespace
c4: thread t4                    => ok
t4: glibc setuid www             => ok
check c4 uids                    => www www www
check count www in n5            => 2
check count root in n5           => 0
NPG

# Orphans in a child namespace at the end: uid 0 there, out of the uid
# window, and no subreaper before 3.4 -- the stop must still see them go
cat >"$TMP/legacy-orphans.npg" <<'NPG'
policies linux-2.6
user root 0
user www 1000
task d uid root
d: clone c user box              => ok
c: fork f                        => ok
f: fork g                        => ok
f: fork g2                       => ok
g2: setuid www                   => ok
f: exit                          => ok
g: fork h                        => ok
check count root in box          => 4    # c, f a zombie, g, h
check count www in box           => 1
NPG

test_expect "the files' expectations hold on the model of 2.6.39-3.4 (linux-2.6)" '
	expect_exit 0 "$NPG" run "$TMP"/legacy-*.npg &&
	grep -q "^3 files, [0-9]* expectations: [0-9]* held, 0 failed$" "$TMP/stdout"
'

test_expect "$(basename "$image"): every statement compared, 0 differences" '
	cd "$TOP" &&
	expect_exit 0 "$NPG" conform --guest-timeout 900 --kernel "$image" \
		scenarios/regression/userns-2-6-39.npg "$TMP"/legacy-*.npg &&
	grep -q "^model linux-2.6 for release 3.0.8, picked for kernel " "$TMP/stdout" &&
	grep -q "^conform: 4 scenarios, [0-9]* statements, 0 differences, 0 unreproducible here" \
		"$TMP/stdout" &&
	grep -q "legacy-counts.npg: 51 statements: 51 agree" "$TMP/stdout" &&
	! grep -q "warning" "$TMP/stderr"
'

test_done
