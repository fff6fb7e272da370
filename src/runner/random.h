/* Random scenarios for differential testing, and shrinking what fails. */
#ifndef NPG_RUNNER_RANDOM_H
#define NPG_RUNNER_RANDOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Write the text of random scenario number @n of seed @seed to @buf: a few
 * users with processes of their own, a root daemon and user tasks with
 * limits near their counts, then forks, threads, exits, reaps, the set*id
 * calls, limits, keep-caps, capability drops and execve. Same seed, n and
 * flags, same text. Returns the length, or -1 if @len is too small.
 */
int npg_random_scenario(uint64_t seed, int n, unsigned flags, char *buf, size_t len);
/* for a kernel without user namespaces (before 3.8, or CONFIG_USER_NS=n):
 * none of their operations, whose every later step could not be compared */
#define NPG_RANDOM_NO_USERNS 1u
/* for a kernel with the namespaces of 2.6.39-3.4 (3.0-3.7): mostly clone()
 * without maps, which is all it has; the rest rarely, for their refusals */
#define NPG_RANDOM_USERNS_2_6_39 2u
/* capabilities beyond conform's six (CAP_SETFCAP, CAP_SYS_PTRACE,
 * CAP_NET_RAW), which some rules turn on: identify's search for probes */
#define NPG_RANDOM_WIDE 4u

/*
 * Delta-debug @text line by line: remove lines while @still_fails says the
 * smaller text still fails (it must parse too). The result replaces @text
 * (same buffer, NUL-terminated). Returns the number of tries.
 */
int npg_shrink_lines(char *text, bool (*still_fails)(const char *text, void *arg), void *arg);

#endif
