#!/bin/sh
# scenario.sh N: the benchmark's scenario with N workers, for nprocguard
n=$1
cat <<EOT
scenario "bench: $n root workers switch to www and exec while www execs (linux-3.1)"
user root 0
user www 1000 procs 1
task innocent uid www nproc 2 2
EOT
names=""
i=1
while [ "$i" -le "$n" ]; do
	echo "task w$i uid root"
	names="$names w$i"
	i=$((i + 1))
done
cat <<EOT
${names# } runs:
    setgroups none
    setgid www
    setrlimit nproc 2 2
    setuid www
    if it failed: exit 1
    setuid root
    if it succeeded: exit 2
    execve /bin/sh
    if it failed: exit 1
    exit 0
innocent runs:
    execve /bin/true
    execve /bin/true
EOT
