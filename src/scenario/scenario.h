/*
 * A parsed scenario: users, initial tasks, and statements (steps and
 * checks), each with its expected outcome per policy. The language is
 * described in doc/scenario-language.md.
 */
#ifndef NPG_SCENARIO_SCENARIO_H
#define NPG_SCENARIO_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/model.h"

enum npg_opcode {
	NPG_OP_FORK, NPG_OP_THREAD, NPG_OP_EXIT, NPG_OP_WAIT,
	NPG_OP_SETUID, NPG_OP_SETEUID, NPG_OP_SETREUID, NPG_OP_SETRESUID, NPG_OP_SETFSUID,
	NPG_OP_SETGID, NPG_OP_SETEGID, NPG_OP_SETREGID, NPG_OP_SETRESGID, NPG_OP_SETFSGID,
	NPG_OP_SETGROUPS, NPG_OP_SETRLIMIT, NPG_OP_PRLIMIT, NPG_OP_KEEPCAPS, NPG_OP_CAPSET,
	NPG_OP_EXECVE, NPG_OP_KILL, NPG_OP_VFORK, NPG_OP_SECUREBITS, NPG_OP_AMBIENT,
	NPG_OP_UNSHARE_USER, NPG_OP_NO_NEW_PRIVS,
	NPG_OP_PTRACE,		/* ptrace [attach|detach] TASK: value NPG_PTRACE_* */
	NPG_OP_DUMPABLE,	/* prctl dumpable 0|1: PR_SET_DUMPABLE, value */
	NPG_OP_PTRACER,		/* prctl ptracer TASK|any|none: Yama's PR_SET_PTRACER */
	NPG_OP_CLONE_USER,	/* clone CHILD user NS [maps]: target the child, value NS */
	NPG_OP_SETNS_USER,	/* setns user NS: target NS */
	NPG_OP_WRITE_IDMAP,	/* write TASK uid_map|gid_map LINES: value 1 for gid_map */
	NPG_OP_WRITE_SETGROUPS,	/* write TASK setgroups allow|deny: value 1 allow */
	NPG_OP_MAX_USERNS,	/* sysctl user.max_user_namespaces N: lim_cur N */
};

/* NPG_OP_PTRACE's value */
enum { NPG_PTRACE_SEIZE = 0, NPG_PTRACE_DETACH = 1, NPG_PTRACE_ATTACH = 2 };
/* NPG_OP_PTRACER's value: enum npg_ptracer (model.h) */

enum npg_capset_mode { NPG_CAPSET_DROP, NPG_CAPSET_KEEP, NPG_CAPSET_RAISE, NPG_CAPSET_LOWER,
		       NPG_CAPSET_INHERITABLE };

struct npg_op {
	enum npg_opcode code;
	int target;		/* task index: new child or thread, waited child, prlimit target */
	npg_id id[3];		/* ids for set*id; NPG_ID_NONE is "-1" */
	uint64_t lim_cur, lim_max;
	int value;		/* exit code; keepcaps 0/1; capset mode; securebits; PR_CAP_AMBIENT_* */
	uint64_t caps;
	int ngroups;
	npg_id groups[NPG_NGROUPS];
	int file;		/* execve: 1 + index into the scenario's files, 0: a plain program */
	struct npg_exec_file exec;	/* execve: what that file is (a copy of the declaration) */
	bool glibc;		/* set*id: glibc's wrapper, applied to every thread of the process */
	/* unshare user, setns user: @target is the namespace (1 + index into
	 * the scenario's userns; clone: @value); the maps the harness writes
	 * after unshare or clone (nr 0: none), or the lines of a `write` */
	struct npg_idmap uid_map, gid_map;
};

/* Apply a capset step to the current sets; shared by every backend. */
void npg_capset_compute(const struct npg_op *op, uint64_t cur_eff, uint64_t cur_prm,
			uint64_t cur_inh, uint64_t *eff, uint64_t *prm, uint64_t *inh);

enum npg_check_kind {
	NPG_CHECK_COUNT,	/* check count USER */
	NPG_CHECK_UIDS, NPG_CHECK_RUID, NPG_CHECK_EUID, NPG_CHECK_SUID, NPG_CHECK_FSUID,
	NPG_CHECK_GIDS,
	NPG_CHECK_FLAG,
	NPG_CHECK_STATE,
	NPG_CHECK_EXIT,
	NPG_CHECK_CAP,
	NPG_CHECK_NPROC,
	NPG_CHECK_USERNS,	/* check TASK userns: the namespace's name, or "initial" */
	NPG_CHECK_NO_NEW_PRIVS,	/* check TASK no_new_privs: yes or no */
	NPG_CHECK_TRACER,	/* check TASK tracer: the tracing task's name, or "none" */
	NPG_CHECK_DUMPABLE,	/* check TASK dumpable: 0, 1 or 2 (the mm's dumpability) */
};

/* One alternative of an expectation: for the policies in @mask (0: all others). */
struct npg_expect_alt {
	uint32_t mask;
	char *text;		/* canonical rendering, compared with what was observed */
	int line, col;
};

struct npg_expect {
	int nalt;
	struct npg_expect_alt *alt;
};

enum npg_stmt_kind { NPG_STMT_STEP, NPG_STMT_CHECK };

struct npg_stmt {
	enum npg_stmt_kind kind;
	int line, col;
	int task;		/* acting task (step), subject task (check), -1 for count */
	struct npg_op op;
	enum npg_check_kind check;
	npg_id user;		/* count USER */
	int ns;			/* count USER in NS: 1 + index into userns; 0 the initial one */
	int cap;		/* check TASK cap NAME */
	char *text;		/* the statement as written, for reports */
	struct npg_expect expect;
};

struct npg_name {
	char *name;
	npg_id id;
	long procs;		/* users: processes outside the scenario */
	bool group;		/* declared with "group" (names a gid only) */
};

struct npg_task_decl {
	char *name;
	int line;
	bool initial;		/* declared with "task" (else created by fork/thread) */
	bool thread;
	int creator;		/* task that forked it, -1 for initial tasks */
	bool caps_explicit;	/* "caps" given: a set a real host may not be able to grant */
	struct npg_cred cred;
	uint64_t nproc_cur, nproc_max;
};

/* A user namespace, named by the `unshare user NAME` step that creates it */
struct npg_userns_decl {
	char *name;
	int line;
	int creator;		/* the task that unshares */
};

/* file PATH ...: what execve PATH finds there */
struct npg_file {
	char *path;
	struct npg_exec_file exec;
};

#define NPG_MAX_FILES 16	/* files declared in one scenario */

/*
 * The language's limits (doc/scenario-language.md, "Limits of the
 * language"): tasks count every `task` and every task forked or started,
 * exited ones included; names count users and groups together; uids given
 * as numbers that no `user` line names are users too (names[] after the
 * declared ones, named by their number), counted apart.
 */
#define NPG_MAX_TASKS 4096
#define NPG_MAX_NAMES 1024
#define NPG_MAX_NUMERIC_UIDS 1024

struct npg_scenario {
	char *file;
	char *title;
	char *source;
	uint32_t policies;	/* bit i: npg_policies[i] */
	/* "bounding LIST": the machine's capability bounding set, when declared */
	bool has_bounding;
	uint64_t bounding;
	/* "yama ptrace_scope N": Yama is built in, with kernel.yama.ptrace_scope
	 * N (0-3); -1: no Yama (not declared) */
	int yama_scope;
	int nfiles;
	struct npg_file *files;
	int nuserns;		/* at most NPG_MAX_USERNS */
	struct npg_userns_decl *userns;
	int nnames;
	struct npg_name *names;
	int ntasks;
	struct npg_task_decl *tasks;
	int nstmts;
	struct npg_stmt *stmts;
	/* where the statements' texts and expectations live: blocks freed
	 * with the scenario (cursor.c) */
	struct npg_scenario_block *blocks;
};

/*
 * Parse @len bytes of @text named @file. On error, writes one
 * "file:line:col: message" line per error to @err (may be NULL) and
 * returns NULL.
 */
struct npg_scenario *npg_scenario_parse(const char *file, const char *text, size_t len,
					FILE *err);
/*
 * @path's text, or standard input's for "-": at most 16 MiB, NUL-ended
 * (*@len bytes before the NUL), in a new buffer; NULL on an error, said on
 * @err as "@name: why" (a directory: "Is a directory").
 */
char *npg_scenario_read(const char *path, const char *name, size_t *len, FILE *err);
/* The name messages and reports give @path: "<stdin>" for "-" */
const char *npg_scenario_name(const char *path);
/* npg_scenario_read() and npg_scenario_parse() of @path, named npg_scenario_name() */
struct npg_scenario *npg_scenario_load(const char *path, FILE *err);
/* The same, named @name (a copy of standard input that must read as "<stdin>") */
struct npg_scenario *npg_scenario_load_as(const char *path, const char *name, FILE *err);
void npg_scenario_free(struct npg_scenario *sc);
/* One operation of a concurrent program (explore); see concurrent.c. */
int npg_scenario_parse_op(struct npg_scenario *sc, const char *file, int line_no,
			  const char *line, size_t len, int first, int task,
			  struct npg_stmt *out, FILE *err);

/*
 * Every id @sc names -- users and groups, the tasks' ids and groups, the
 * ids and groups its steps pass, declared files' owners and v3 root ids --
 * sorted, each once, 0 included, into *@out (to free): how many, or -1
 * out of memory.
 */
int npg_scenario_ids(const struct npg_scenario *sc, npg_id **out);

/* Which expectation applies to policy index @pi (-1: none), or NULL. */
const char *npg_expect_for(const struct npg_expect *e, int pi);

/* Rendering of observed values, in the same canonical form expectations take. */
void npg_render_uid(const struct npg_scenario *sc, npg_id id, bool gid, char *buf, size_t len);
void npg_render_result(const struct npg_scenario *sc, const struct npg_stmt *st,
		       struct npg_result r, char *buf, size_t len);
void npg_render_check(const struct npg_scenario *sc, const struct npg_stmt *st,
		      const struct npg_task *view, long count, char *buf, size_t len);
void npg_render_limit(uint64_t v, char *buf, size_t len);
const char *npg_signal_name(int sig, char *buf, size_t len);

#endif
