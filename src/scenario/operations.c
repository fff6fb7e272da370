/*
 * Operations: what a step does, 'TASK: OPERATION ARGS' -- the set*id
 * calls, fork and threads, exit, wait, kill, execve, limits, capabilities,
 * prctl, ptrace and the user namespace calls -- as the model's system
 * calls take them.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "scenario/parse.h"


const struct npg_op_spec npg_op_specs[] = {
	{ "setuid", NPG_OP_SETUID, 1, false, false },
	{ "seteuid", NPG_OP_SETEUID, 1, false, false },
	{ "setreuid", NPG_OP_SETREUID, 2, false, true },
	{ "setresuid", NPG_OP_SETRESUID, 3, false, true },
	{ "setfsuid", NPG_OP_SETFSUID, 1, false, false },
	{ "setgid", NPG_OP_SETGID, 1, true, false },
	{ "setegid", NPG_OP_SETEGID, 1, true, false },
	{ "setregid", NPG_OP_SETREGID, 2, true, true },
	{ "setresgid", NPG_OP_SETRESGID, 3, true, true },
	{ "setfsgid", NPG_OP_SETFSGID, 1, true, false },
	{ "fork", NPG_OP_FORK, 0, false, false },
	{ "thread", NPG_OP_THREAD, 0, false, false },
	{ "vfork", NPG_OP_VFORK, 0, false, false },
	{ "securebits", NPG_OP_SECUREBITS, 0, false, false },
	{ "ambient", NPG_OP_AMBIENT, 0, false, false },
	{ "exit", NPG_OP_EXIT, 0, false, false },
	{ "wait", NPG_OP_WAIT, 0, false, false },
	{ "setgroups", NPG_OP_SETGROUPS, 0, false, false },
	{ "setrlimit", NPG_OP_SETRLIMIT, 0, false, false },
	{ "prlimit", NPG_OP_PRLIMIT, 0, false, false },
	{ "prctl", NPG_OP_KEEPCAPS, 0, false, false },
	{ "capset", NPG_OP_CAPSET, 0, false, false },
	{ "execve", NPG_OP_EXECVE, 0, false, false },
	{ "kill", NPG_OP_KILL, 0, false, false },
	{ "unshare", NPG_OP_UNSHARE_USER, 0, false, false },
	{ "ptrace", NPG_OP_PTRACE, 0, false, false },
	{ "clone", NPG_OP_CLONE_USER, 0, false, false },
	{ "setns", NPG_OP_SETNS_USER, 0, false, false },
	{ "write", NPG_OP_WRITE_IDMAP, 0, false, false },
	{ "sysctl", NPG_OP_MAX_USERNS, 0, false, false },
	{ NULL, 0, 0, false, false },
};

/*
 * The signals kill may send: 0 (the permission check alone) and those
 * whose default action terminates the process without a core dump, so
 * that what happens is the same on every machine.
 */
static bool parse_kill_signal(struct parser *p, const struct npg_token *t, int *sig)
{
	static const int fatal[] = { SIGKILL, SIGTERM, SIGHUP, SIGINT, SIGUSR1, SIGUSR2, SIGALRM };
	char name[16];
	const char *n;

	if (npg_tok_is(t, "0")) {
		*sig = 0;
		return true;
	}
	if (t->kind == NPG_TOK_WORD && npg_tok_copy(t, name, sizeof(name))) {
		n = strncmp(name, "SIG", 3) == 0 ? name + 3 : name;
		for (size_t k = 0; k < sizeof(fatal) / sizeof(fatal[0]); k++)
			if (strcmp(n, sigabbrev_np(fatal[k])) == 0) {
				*sig = fatal[k];
				return true;
			}
	}
	npg_parse_error(p, t->col, "kill sends 0, KILL, TERM, HUP, INT, USR1, USR2 or ALRM, not '%.*s%s'",
			TOKLEN(t->len), t->start, TOKCUT(t->len));
	return false;
}

/* NAME[,NAME...] or none: the securebits prctl(PR_SET_SECUREBITS) is given */
static int parse_securebits(struct parser *p, int i, int end, int *bits)
{
	static const char *const names[] = { "noroot", "noroot-locked", "no-setuid-fixup",
					      "no-setuid-fixup-locked", "keep-caps",
					      "keep-caps-locked", "no-cap-ambient-raise",
					      "no-cap-ambient-raise-locked" };

	*bits = 0;
	if (i < end && npg_tok_is(&p->tok[i], "none"))
		return i + 1;
	for (;;) {
		int b;

		if (i >= end) {
			npg_parse_error(p, npg_parse_end_col(p), "missing securebit (noroot, no-setuid-fixup, keep-caps, "
					"no-cap-ambient-raise, each with or without -locked, or none)");
			return -1;
		}
		for (b = 0; b < 8 && !npg_tok_is(&p->tok[i], names[b]); b++)
			;
		if (b == 8) {
			npg_parse_error(p, p->tok[i].col, "unknown securebit '%.*s%s'", TOKLEN(p->tok[i].len),
					p->tok[i].start, TOKCUT(p->tok[i].len));
			return -1;
		}
		*bits |= 1 << b;
		if (++i < end && p->tok[i].kind == NPG_TOK_COMMA) {
			i++;
			continue;
		}
		return i;
	}
}

/* "uidmap INSIDE OUTSIDE COUNT[, INSIDE OUTSIDE COUNT ...]": tokens from @i */
static int parse_idmap(struct parser *p, int i, int end, bool gid, struct npg_idmap *m)
{
	if (m->nr) {
		npg_parse_error(p, p->tok[i - 1].col, "%s given twice", gid ? "gidmap" : "uidmap");
		return -1;
	}
	for (;;) {
		struct npg_idmap_extent *e;
		uint64_t count;

		if (m->nr == NPG_IDMAP_MAX) {
			npg_parse_error(p, p->tok[i < end ? i : end - 1].col,
					"more than %d lines in one map", NPG_IDMAP_MAX);
			return -1;
		}
		e = &m->extent[m->nr];
		if (!npg_parse_id(p, i, gid, false, &e->first) ||
		    !npg_parse_id(p, i + 1, gid, false, &e->lower_first))
			return -1;
		if (i + 2 >= end || !npg_tok_u64(&p->tok[i + 2], &count) || count == 0 ||
		    count > UINT32_MAX) {
			npg_parse_error(p, p->tok[i + 2 < end ? i + 2 : end - 1].col,
					"expected a count of ids (1 to 4294967295)");
			return -1;
		}
		e->count = (npg_id)count;
		m->nr++;
		i += 3;
		if (i < end && p->tok[i].kind == NPG_TOK_COMMA) {
			i++;
			continue;
		}
		return i;
	}
}

/*
 * unshare user NAME [uidmap ...] [gidmap ...], and the same after
 * "clone CHILD": the new namespace NAME, made by @creator, is 1 + its
 * index in *@ns
 */
static bool parse_new_userns(struct parser *p, struct npg_op *op, int creator, int i, int end,
			     const char *what, int *ns)
{
	struct npg_scenario *sc = p->sc;
	struct npg_userns_decl *grown;
	int name = i + 1;

	if (!npg_parse_expect_word(p, i, "'user'") || !npg_tok_is(&p->tok[i], "user")) {
		if (i < end)
			npg_parse_error(p, p->tok[i].col, "only '%s user' is modelled", what);
		return false;
	}
	if (!npg_parse_expect_word(p, i + 1, "the new namespace's name"))
		return false;
	if (!npg_parse_valid_identifier(&p->tok[i + 1]) || npg_tok_is(&p->tok[i + 1], "initial") ||
	    npg_parse_find_userns(sc, &p->tok[i + 1]) >= 0) {
		npg_parse_error(p, p->tok[i + 1].col, "%s namespace name '%.*s%s'",
				npg_parse_valid_identifier(&p->tok[i + 1]) ? "duplicate" : "bad",
				TOKLEN(p->tok[i + 1].len), p->tok[i + 1].start, TOKCUT(p->tok[i + 1].len));
		return false;
	}
	if (sc->nuserns == NPG_MAX_USERNS) {
		npg_parse_error(p, p->tok[i + 1].col, "more than %d user namespaces", NPG_MAX_USERNS);
		return false;
	}
	for (i += 2; i < end;) {
		bool gid = npg_tok_is(&p->tok[i], "gidmap");

		if (!gid && !npg_tok_is(&p->tok[i], "uidmap")) {
			npg_parse_error(p, p->tok[i].col, "expected 'uidmap' or 'gidmap'");
			return false;
		}
		i = parse_idmap(p, i + 1, end, gid, gid ? &op->gid_map : &op->uid_map);
		if (i < 0)
			return false;
	}
	grown = realloc(sc->userns, (size_t)(sc->nuserns + 1) * sizeof(*grown));
	if (!grown) {
		perror("nprocguard");
		exit(2);
	}
	sc->userns = grown;
	grown[sc->nuserns] = (struct npg_userns_decl){
		.name = npg_tok_dup(&p->tok[name]),
		.line = p->line, .creator = creator };
	*ns = ++sc->nuserns;
	return true;
}

/* "user NS": a namespace an earlier unshare or clone named */
static bool userns_ref(struct parser *p, int i, int *ns)
{
	if (!npg_parse_expect_word(p, i, "'user'") || !npg_tok_is(&p->tok[i], "user")) {
		if (i < p->ntok)
			npg_parse_error(p, p->tok[i].col, "only user namespaces are modelled: 'user NS'");
		return false;
	}
	if (!npg_parse_expect_word(p, i + 1, "a namespace name"))
		return false;
	*ns = npg_parse_find_userns(p->sc, &p->tok[i + 1]) + 1;
	if (*ns == 0) {
		npg_parse_error(p, p->tok[i + 1].col, "unknown namespace '%.*s%s' (one an earlier 'unshare "
				"user' or 'clone' names)", TOKLEN(p->tok[i + 1].len), p->tok[i + 1].start,
				TOKCUT(p->tok[i + 1].len));
		return false;
	}
	return true;
}

/* write TASK uid_map LINES | gid_map LINES | setgroups allow|deny */
static bool parse_write(struct parser *p, struct npg_op *op, int i, int end)
{
	if (!npg_parse_task_ref(p, i, &op->target) || !npg_parse_expect_word(p, i + 1, "uid_map, gid_map or setgroups"))
		return false;
	if (npg_tok_is(&p->tok[i + 1], "setgroups")) {
		op->code = NPG_OP_WRITE_SETGROUPS;
		if (!npg_parse_expect_word(p, i + 2, "allow or deny"))
			return false;
		if (!npg_tok_is(&p->tok[i + 2], "allow") && !npg_tok_is(&p->tok[i + 2], "deny")) {
			npg_parse_error(p, p->tok[i + 2].col, "expected allow or deny");
			return false;
		}
		op->value = npg_tok_is(&p->tok[i + 2], "allow");
		return npg_parse_expect_end(p, i + 3, end);
	}
	if (!npg_tok_is(&p->tok[i + 1], "uid_map") && !npg_tok_is(&p->tok[i + 1], "gid_map")) {
		npg_parse_error(p, p->tok[i + 1].col, "expected uid_map, gid_map or setgroups");
		return false;
	}
	op->value = npg_tok_is(&p->tok[i + 1], "gid_map");
	if (!npg_parse_expect_word(p, i + 2, "a map line: INSIDE OUTSIDE COUNT"))
		return false;
	i = parse_idmap(p, i + 2, end, op->value, op->value ? &op->gid_map : &op->uid_map);
	return i >= 0 && npg_parse_expect_end(p, i, end);
}

/* prctl ptracer TASK | any | none: Yama's PR_SET_PTRACER */
static bool parse_ptracer(struct parser *p, struct npg_op *op, int i, int end)
{
	op->code = NPG_OP_PTRACER;
	if (!npg_parse_expect_word(p, i, "a task name, 'any' or 'none'"))
		return false;
	if (npg_tok_is(&p->tok[i], "any"))
		op->value = NPG_PTRACER_ANY;
	else if (npg_tok_is(&p->tok[i], "none"))
		op->value = NPG_PTRACER_NONE;
	else if (npg_parse_task_ref(p, i, &op->target))
		op->value = NPG_PTRACER_TASK;
	else
		return false;
	return npg_parse_expect_end(p, i + 1, end);
}

/* The operation's arguments, tokens [i, end) */
bool npg_parse_op(struct parser *p, struct npg_stmt *st, const struct npg_op_spec *spec, int i,
			 int end)
{
	struct npg_op *op = &st->op;
	uint64_t v;
	int next, idx;

	op->code = spec->code;
	op->target = -1;
	if (spec->nids) {
		for (int k = 0; k < spec->nids; k++)
			if (!npg_parse_id(p, i + k, spec->gid, spec->allow_none, &op->id[k]))
				return false;
		return npg_parse_expect_end(p, i + spec->nids, end);
	}
	switch (spec->code) {
	case NPG_OP_FORK:
	case NPG_OP_VFORK:
	case NPG_OP_THREAD:
		if (!npg_parse_expect_word(p, i, "the new task's name") ||
		    !npg_parse_check_fresh_name(p, &p->tok[i], "task"))
			return false;
		if (!npg_parse_expect_end(p, i + 1, end))
			return false;
		idx = npg_parse_add_task(p, &p->tok[i]);
		if (idx < 0)
			return false;
		p->sc->tasks[idx].thread = spec->code == NPG_OP_THREAD;
		p->sc->tasks[idx].creator = st->task;
		op->target = idx;
		return true;
	case NPG_OP_EXIT:
		if (i < end) {
			if (!npg_tok_u64(&p->tok[i], &v) || v > 255) {
				npg_parse_error(p, p->tok[i].col, "bad exit code (0 to 255)");
				return false;
			}
			op->value = (int)v;
			i++;
		}
		return npg_parse_expect_end(p, i, end);
	case NPG_OP_WAIT:
		return npg_parse_task_ref(p, i, &op->target) && npg_parse_expect_end(p, i + 1, end);
	case NPG_OP_SETGROUPS:
		next = npg_parse_groups(p, i, end, &op->ngroups, op->groups);
		return next >= 0 && npg_parse_expect_end(p, next, end);
	case NPG_OP_PRLIMIT:
		if (!npg_parse_task_ref(p, i, &op->target))
			return false;
		i++;
		/* fall through */
	case NPG_OP_SETRLIMIT:
		if (spec->code == NPG_OP_SETRLIMIT)
			op->target = st->task;
		if (!npg_parse_nproc(p, i, &op->lim_cur, &op->lim_max))
			return false;
		return npg_parse_expect_end(p, i + 3, end);
	case NPG_OP_KEEPCAPS:
		/* prctl no_new_privs 1: PR_SET_NO_NEW_PRIVS (0 is EINVAL, as the
		 * kernel says); prctl dumpable 0|1 (2 is EINVAL) */
		if (i < end && npg_tok_is(&p->tok[i], "ptracer"))
			return parse_ptracer(p, op, i + 1, end);
		if (i < end && npg_tok_is(&p->tok[i], "no_new_privs"))
			op->code = NPG_OP_NO_NEW_PRIVS;
		else if (i < end && npg_tok_is(&p->tok[i], "dumpable"))
			op->code = NPG_OP_DUMPABLE;
		else if (!npg_parse_expect_word(p, i, "'keepcaps'") || !npg_tok_is(&p->tok[i], "keepcaps")) {
			if (i < end)
				npg_parse_error(p, p->tok[i].col, "only 'prctl keepcaps 0|1', 'prctl "
						"no_new_privs 0|1', 'prctl dumpable 0|1|2' and 'prctl ptracer "
						"TASK|any|none' are modelled");
			return false;
		}
		if (!npg_parse_expect_word(p, i + 1, op->code == NPG_OP_DUMPABLE ? "0, 1 or 2" : "0 or 1"))
			return false;
		if (!npg_tok_u64(&p->tok[i + 1], &v) || v > (op->code == NPG_OP_DUMPABLE ? 2u : 1u)) {
			npg_parse_error(p, p->tok[i + 1].col, op->code == NPG_OP_DUMPABLE ?
					"expected 0, 1 or 2" : "expected 0 or 1");
			return false;
		}
		op->value = (int)v;
		return npg_parse_expect_end(p, i + 2, end);
	case NPG_OP_PTRACE:
		/* ptrace TASK (PTRACE_SEIZE) | ptrace attach TASK | ptrace detach
		 * TASK; a lone word is a task's name, even 'attach' or 'detach' */
		op->value = NPG_PTRACE_SEIZE;
		if (i + 1 < end && npg_tok_is(&p->tok[i], "detach")) {
			op->value = NPG_PTRACE_DETACH;
			i++;
		} else if (i + 1 < end && npg_tok_is(&p->tok[i], "attach")) {
			op->value = NPG_PTRACE_ATTACH;
			i++;
		}
		if (!npg_parse_expect_word(p, i, "a task name") || !npg_parse_task_ref(p, i, &op->target))
			return false;
		return npg_parse_expect_end(p, i + 1, end);
	case NPG_OP_CAPSET: {
		static const char *const modes[] = { [NPG_CAPSET_DROP] = "drop", [NPG_CAPSET_KEEP] = "keep",
						     [NPG_CAPSET_RAISE] = "raise", [NPG_CAPSET_LOWER] = "lower",
						     [NPG_CAPSET_INHERITABLE] = "inheritable" };
		int m;

		if (!npg_parse_expect_word(p, i, "drop, keep, raise, lower or inheritable"))
			return false;
		for (m = 0; m < 5 && !npg_tok_is(&p->tok[i], modes[m]); m++)
			;
		if (m == 5) {
			npg_parse_error(p, p->tok[i].col, "expected drop, keep, raise, lower or inheritable");
			return false;
		}
		op->value = m;
		next = npg_parse_caps(p, i + 1, end, &op->caps);
		return next >= 0 && npg_parse_expect_end(p, next, end);
	}
	case NPG_OP_SECUREBITS:
		/* securebits none | NAME[,NAME...]: prctl(PR_SET_SECUREBITS) */
		next = parse_securebits(p, i, end, &op->value);
		return next >= 0 && npg_parse_expect_end(p, next, end);
	case NPG_OP_AMBIENT:
		/* ambient raise CAP | lower CAP | clear: prctl(PR_CAP_AMBIENT) */
		if (i < end && npg_tok_is(&p->tok[i], "clear")) {
			op->value = PR_CAP_AMBIENT_CLEAR_ALL;
			return npg_parse_expect_end(p, i + 1, end);
		}
		if (i >= end || !(npg_tok_is(&p->tok[i], "raise") || npg_tok_is(&p->tok[i], "lower"))) {
			npg_parse_error(p, i < end ? p->tok[i].col : npg_parse_end_col(p), "expected raise CAP, lower CAP or clear");
			return false;
		}
		op->value = npg_tok_is(&p->tok[i], "raise") ? PR_CAP_AMBIENT_RAISE : PR_CAP_AMBIENT_LOWER;
		if (!npg_parse_expect_word(p, i + 1, "a capability") || !npg_parse_cap_name(p, &p->tok[i + 1], &idx))
			return false;
		op->caps = (uint64_t)idx;
		return npg_parse_expect_end(p, i + 2, end);
	case NPG_OP_KILL:
		/* kill PROCESS [SIGNAL]: SIGTERM as kill(1) */
		if (!npg_parse_task_ref(p, i, &op->target))
			return false;
		if (p->sc->tasks[op->target].thread) {
			npg_parse_error(p, p->tok[i].col, "kill takes a process, not the thread '%s'",
					p->sc->tasks[op->target].name);
			return false;
		}
		op->value = SIGTERM;
		if (++i < end && !parse_kill_signal(p, &p->tok[i++], &op->value))
			return false;
		return npg_parse_expect_end(p, i, end);
	case NPG_OP_UNSHARE_USER:
		return parse_new_userns(p, op, st->task, i, end, "unshare", &op->target);
	case NPG_OP_CLONE_USER:
		/* clone CHILD user NS [maps]: clone(CLONE_NEWUSER | SIGCHLD) */
		if (!npg_parse_expect_word(p, i, "the new task's name") ||
		    !npg_parse_check_fresh_name(p, &p->tok[i], "task"))
			return false;
		idx = npg_parse_add_task(p, &p->tok[i]);
		if (idx < 0)
			return false;
		p->sc->tasks[idx].creator = st->task;
		op->target = idx;
		return parse_new_userns(p, op, idx, i + 1, end, "clone CHILD", &op->value);
	case NPG_OP_SETNS_USER:
		return userns_ref(p, i, &op->target) && npg_parse_expect_end(p, i + 2, end);
	case NPG_OP_WRITE_IDMAP:
		return parse_write(p, op, i, end);
	case NPG_OP_MAX_USERNS:
		/* sysctl user.max_user_namespaces N (0 to INT_MAX, or more: EINVAL) */
		if (!npg_parse_expect_word(p, i, "'user.max_user_namespaces'"))
			return false;
		if (!npg_tok_is(&p->tok[i], "user.max_user_namespaces")) {
			npg_parse_error(p, p->tok[i].col, "only 'sysctl user.max_user_namespaces N' is modelled");
			return false;
		}
		if (!npg_parse_expect_word(p, i + 1, "a number") || !npg_tok_u64(&p->tok[i + 1], &v) ||
		    v > UINT32_MAX) {
			if (i + 1 < end)
				npg_parse_error(p, p->tok[i + 1].col, "expected a number (0 to 4294967295)");
			return false;
		}
		op->lim_cur = v;
		return npg_parse_expect_end(p, i + 2, end);
	case NPG_OP_EXECVE:
		/* from a thread too: de_thread() makes it the process's leader */
		if (i < end) {	/* a declared file, or a plain program named for the reader */
			op->file = npg_parse_find_file(p->sc, &p->tok[i]) + 1;
			if (op->file)
				op->exec = p->sc->files[op->file - 1].exec;
			i++;
		}
		return npg_parse_expect_end(p, i, end);
	default:
		return false;
	}
}
