#!/bin/sh
# model.sh N: the benchmark's scenario with N workers, in Promela, written
# by hand from the linux-3.1 rules (src/model/policy/linux-3.1.c): set_user()
# flags the caller if the new user already has >= L processes; execve()
# fails with EAGAIN if flagged and the user has > L, else clears the flag.
# Under linux-3.1 set_user() never fails, so "if it failed: exit 1" after
# setuid is never taken and has no counterpart here; nor has "if it
# succeeded: exit 2" after the attempt to regain root, which fails (EPERM:
# no capability is left and no id is 0).
n=$1
cat <<EOT
#define L 2
#define UNLIMITED 255
byte cnt_www = 2;	/* one process outside, plus innocent */
byte cnt_root = $n;

proctype worker()
{
	bool flag = false;
	bool crossed = false;
	bool regained = false;
	byte lim = UNLIMITED;
	byte ngroups = 1;
	short gid = 0;
	short uid = 0;

	ngroups = 0;				/* setgroups none */
	gid = 1000;				/* setgid www */
	lim = L;				/* setrlimit nproc 2 2 */
	atomic {				/* setuid www: set_user(), commit_creds() */
		flag = (cnt_www >= lim);
		cnt_www++;
		cnt_root--;
		uid = 1000;
		crossed = (cnt_www > lim)
	};
	regained = (uid == 0);			/* setuid root: EPERM (POS37-C) */
	atomic {				/* execve: do_execve_common() */
		if
		:: (flag && cnt_www > lim) -> assert(crossed)	/* EAGAIN: no-collateral-execve-failure */
		:: else -> flag = false
		fi
	};
	cnt_www--				/* exit 1 or exit 0: reaped at once */
}

proctype innocent()
{
	bool flag = false;

	atomic { if :: (flag && cnt_www > L) -> assert(false) :: else -> flag = false fi };
	atomic { if :: (flag && cnt_www > L) -> assert(false) :: else -> flag = false fi }
}

init {
	atomic {
		run innocent();
EOT
i=1
while [ "$i" -le "$n" ]; do
	echo "		run worker();"
	i=$((i + 1))
done
cat <<EOT
	}
}
EOT
