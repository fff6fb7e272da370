/*
 * Steps: 'TASK: OPERATION [-> EXPECTED]', with what the text itself tells
 * of the tasks (which exited, which wait in vfork()) to refuse a step no
 * run could make.
 */
#include "scenario/parse.h"

static void mark_dead(struct parser *p, int t)
{
	const struct npg_scenario *sc = p->sc;

	if (sc->tasks[t].thread) {
		p->dead[t] = true;
		return;
	}
	for (int i = 0; i < sc->ntasks; i++)
		if (npg_parse_leader_of(sc, i) == t)
			p->dead[i] = true;
}

/* The task whose vfork() child @c is, statically, or -1 */
static int vfork_waiter(const struct parser *p, int c)
{
	for (int i = 0; i < p->sc->ntasks; i++)
		if (p->vfork_child[i] == c + 1)
			return i;
	return -1;
}

/*
 * vfork(): the parent makes no call until the child has execve'd or
 * exited (wait_for_vfork_done()); until then the child shares its
 * parent's memory, where a puppet cannot create tasks (fork, vfork and
 * thread would run glibc's bookkeeping in the parent's memory) nor take
 * part in glibc's set*id broadcast. Both are decided here, on the text;
 * what only the run decides (the execve failed) yields 'suspended'.
 */
static bool vfork_allows(struct parser *p, int task, enum npg_opcode code, bool glibc)
{
	const struct npg_scenario *sc = p->sc;
	int waiter;

	if (p->vfork_child[task]) {
		npg_parse_error(p, p->tok[0].col, "task '%s' waits in vfork() until '%s' execs or exits",
				sc->tasks[task].name, sc->tasks[p->vfork_child[task] - 1].name);
		return false;
	}
	waiter = vfork_waiter(p, task);
	if (waiter >= 0 && (glibc || code == NPG_OP_FORK || code == NPG_OP_VFORK ||
			    code == NPG_OP_THREAD || code == NPG_OP_CLONE_USER)) {
		npg_parse_error(p, p->tok[2].col, "'%s' shares the memory of '%s' (vfork) until it execs "
				"or exits: fork, vfork, clone, thread and glibc are not modelled there",
				sc->tasks[task].name, sc->tasks[waiter].name);
		return false;
	}
	return true;
}

/* A vfork starts the wait; the child's execve or exit, or a fatal signal to it, ends it */
static void vfork_track(struct parser *p, const struct npg_stmt *st)
{
	int waiter;

	if (st->op.code == NPG_OP_VFORK) {
		p->vfork_child[st->task] = st->op.target + 1;
		return;
	}
	if (st->op.code == NPG_OP_EXIT || st->op.code == NPG_OP_EXECVE)
		waiter = vfork_waiter(p, st->task);
	else if (st->op.code == NPG_OP_KILL && st->op.value != 0)
		waiter = vfork_waiter(p, st->op.target);
	else
		return;
	if (waiter >= 0)
		p->vfork_child[waiter] = 0;
}

/* glibc's INLINE_SETXID_SYSCALL wrappers (nptl/nptl_setxid.c); setfsuid is per thread */
static bool glibc_broadcasts(enum npg_opcode code)
{
	return (code >= NPG_OP_SETUID && code <= NPG_OP_SETRESUID) ||
	       (code >= NPG_OP_SETGID && code <= NPG_OP_SETRESGID) || code == NPG_OP_SETGROUPS;
}

void npg_parse_step(struct parser *p)
{
	struct npg_stmt *st = npg_parse_new_stmt(p, NPG_STMT_STEP);
	int arrow = npg_parse_find_arrow(p), opi;
	const struct npg_op_spec *spec;

	if (!npg_parse_task_ref(p, 0, &st->task))
		goto bad;
	if (p->dead[st->task]) {
		npg_parse_error(p, p->tok[0].col, "task '%s' has already exited",
				p->sc->tasks[st->task].name);
		goto bad;
	}
	if (!npg_parse_expect_word(p, 2, "an operation"))
		goto bad;
	/* "glibc OP": the set*id wrapper that applies OP to every thread */
	opi = npg_tok_is(&p->tok[2], "glibc") ? 3 : 2;
	if (opi == 3 && !npg_parse_expect_word(p, 3, "a set*id operation after 'glibc'"))
		goto bad;
	for (spec = npg_op_specs; spec->name && !npg_tok_is(&p->tok[opi], spec->name); spec++)
		;
	if (!spec->name) {
		npg_parse_error(p, p->tok[opi].col, "unknown operation '%.*s%s'", TOKLEN(p->tok[opi].len),
				p->tok[opi].start, TOKCUT(p->tok[opi].len));
		goto bad;
	}
	if (opi == 3 && !glibc_broadcasts(spec->code)) {
		npg_parse_error(p, p->tok[3].col, "glibc applies set*uid, set*gid and setgroups to every "
				"thread; not '%s'", spec->name);
		goto bad;
	}
	st->op.glibc = opi == 3;
	if (!vfork_allows(p, st->task, spec->code, st->op.glibc))
		goto bad;
	st->text = npg_parse_keep_text(p, 2, arrow);
	if (!npg_parse_op(p, st, spec, opi + 1, arrow))
		goto bad;
	if (arrow < p->ntok && !npg_parse_expect(p, st, arrow))
		goto bad;
	vfork_track(p, st);
	if (st->op.code == NPG_OP_EXIT)
		mark_dead(p, st->task);
	npg_parse_commit_stmt(p);
bad:
	return;	/* what the statement kept goes with the scenario */
}
