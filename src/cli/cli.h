/* Subcommands of the nprocguard binary. */
#ifndef NPG_CLI_CLI_H
#define NPG_CLI_CLI_H

#include <stdnoreturn.h>

/* Exit codes shared by the subcommands */
#define NPG_EXIT_OK 0
#define NPG_EXIT_FAILED 1	/* an expectation failed, a difference was found */
#define NPG_EXIT_USAGE 2	/* bad usage or bad input */
/*
 * run --real, conform (--kernel too): the run could not start or gave no
 * result -- no root, the uid window held by another run or in use, the
 * machine's limits, a guest that panicked, hung or never answered -- so a
 * script can tell "it did not run" from "the kernel disagreed" (1). An
 * interrupted run dies of its signal (128+N in a shell).
 */
#define NPG_EXIT_NOT_RUN 3

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct npg_host;
struct npg_policy;

#define NPG_DEFAULT_UID_BASE 3000000000u

/*
 * Guests at once (conform --kernel, compare --jobs): at most this many;
 * by default the online CPUs (TCG takes a host core per guest), fewer when
 * the memory available does not hold that many 512 MiB guests
 */
#define NPG_JOBS_MAX 64
int npg_default_jobs(void);

int npg_cmd_run(int argc, char **argv);
int npg_cmd_conform(int argc, char **argv);
int npg_cmd_explore(int argc, char **argv);
int npg_cmd_export(int argc, char **argv);
int npg_cmd_status(int argc, char **argv);
int npg_cmd_explain(int argc, char **argv);
int npg_cmd_exec(int argc, char **argv);
int npg_cmd_audit(int argc, char **argv);
int npg_cmd_policies(int argc, char **argv);
int npg_cmd_guest(int argc, char **argv);
int npg_cmd_compare(int argc, char **argv);
int npg_cmd_identify(int argc, char **argv);

/* "Try 'nprocguard CMD --help'." and exit 2 */
noreturn void npg_usage_error(const char *cmd);
/*
 * "nprocguard CMD: bad OPT 'ARG': " and the rest from @fmt, on stderr: a
 * refused value, named with its option and what would be accepted. ARG is
 * shown safe for a terminal, its first 64 bytes only.
 */
void npg_bad_option(const char *cmd, const char *opt, const char *arg, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* @len bytes of @s as a message shows a value: safe for a terminal, its first
 * 64 bytes and "..." if there is more; in @buf of NPG_OPTION_TEXT bytes */
#define NPG_OPTION_TEXT 272
const char *npg_option_text(const char *s, size_t len, char *buf, size_t buflen);
/* --policy of @cmd, "NAME[,NAME...]" or "all": a bit mask; -1 on an unknown or
 * empty name (reported, with the names accepted). */
long npg_parse_policy_list(const char *cmd, const char *arg);
/* --policy of @cmd, one name: the policy, or NULL (reported, with the names). */
const struct npg_policy *npg_parse_policy(const char *cmd, const char *arg);
/* --uid-base of subcommand @cmd: a number with room for the window above it; -1
 * (reported) if not. Warns when an account's uid is in the window. */
int npg_parse_uid_base(const char *cmd, const char *arg, uint32_t *out);
/*
 * A count given to option @opt ("--random") of subcommand @cmd: decimal
 * digits only -- no sign, blank or trailing character -- from @min to @max.
 * -1 (reported, naming the option and the value) if not; @out untouched.
 */
int npg_parse_count(const char *cmd, const char *opt, const char *arg, unsigned long min,
		    unsigned long max, unsigned long *out);
/* The same for a number that is @what ("a process id") */
int npg_parse_number(const char *cmd, const char *opt, const char *arg, const char *what,
		     unsigned long min, unsigned long max, unsigned long *out);
/* A seed given to @opt of @cmd ("--seed"): decimal digits only, 0 to 2^64-1;
 * -1 (reported) if not. */
int npg_parse_seed(const char *cmd, const char *opt, const char *arg, uint64_t *out);
/* --textfile PATH of @cmd may be written (npg_prometheus_check_target()); -1 (reported) if not */
int npg_check_textfile(const char *cmd, const char *path);
/* npg_prometheus_write() of @cmd failed: say @why, with errno's text when there is one */
void npg_textfile_failed(const char *cmd, const char *why);
/* --user of @cmd: a user name or a uid (digits only, below 2^32-1); -1 (reported) if neither */
int npg_parse_user(const char *cmd, const char *arg, uint32_t *uid);
/*
 * -o DIR (@opt as the user gave it) of @cmd, before any work: a directory
 * we may write into, made (one level, as mkdir(1)) when nothing is there.
 * -1 (said) if refused.
 */
int npg_out_dir(const char *cmd, const char *opt, const char *dir);
/* Probe the host for the real backend: root, /proc. Reports and returns -1 if unusable. */
int npg_real_preflight(struct npg_host *host);
/* Hold the uid window's lock for the rest of the process (see uidlock.h);
 * with @wait, wait for its holder. Reports and returns -1 if refused. */
int npg_real_claim_window(const char *cmd, uint32_t base, bool wait);

#endif
