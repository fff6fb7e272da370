#!/bin/sh
# long-scenario.sh N: a scenario of N statements for the benchmarks of
# `nprocguard run` (run-memory, run-throughput): one fork, then limits and
# counts alternately, every statement with an expectation that every
# policy holds.
echo 'scenario "long"'
echo 'user root 0'
echo 'user www 1000 procs 1'
echo 'task daemon uid root'
echo 'daemon: fork a => ok'
yes 'a: setrlimit nproc 5 5 => ok
check count www => 1' | head -n "$(($1 - 1))"
