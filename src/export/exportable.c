/*
 * What an exported test performs is what the statement says, with plain
 * system calls and nothing of nprocguard at run time. A statement whose
 * faithful performance needs the real backend's heavier machinery -- a
 * tracer loop, privileged map writers, set-id copies of a program, a
 * vfork() child serving in its parent's memory -- is refused here, at
 * export time, never dropped from the test.
 */
#include "export/export.h"

static void refuse(FILE *err, const struct npg_scenario *sc, const struct npg_stmt *st,
		   const char *what, const char *why)
{
	fprintf(err, "%s:%d:%d: cannot export %s: %s\n", sc->file, st->line, st->col, what, why);
}

#define USERNS_WHY "user namespaces (their maps written by a privileged helper, counts per " \
	"namespace) are not in exported tests; run it with 'nprocguard run --real'"
#define PTRACE_WHY "ptrace needs a tracer loop that passes each stop on; not in exported " \
	"tests, run it with 'nprocguard run --real'"

/* Why step @st cannot be exported, or NULL */
static const char *step_refusal(const struct npg_stmt *st, const char **what)
{
	const struct npg_op *op = &st->op;

	switch (op->code) {
	case NPG_OP_PTRACE:
		*what = "'ptrace'";
		return PTRACE_WHY;
	case NPG_OP_PTRACER:
		*what = "'prctl ptracer'";
		return PTRACE_WHY;
	case NPG_OP_UNSHARE_USER:
		*what = "'unshare user'";
		return USERNS_WHY;
	case NPG_OP_CLONE_USER:
		*what = "'clone ... user'";
		return USERNS_WHY;
	case NPG_OP_SETNS_USER:
		*what = "'setns user'";
		return USERNS_WHY;
	case NPG_OP_WRITE_IDMAP:
	case NPG_OP_WRITE_SETGROUPS:
		*what = "'write'";
		return USERNS_WHY;
	case NPG_OP_MAX_USERNS:
		*what = "'sysctl user.max_user_namespaces'";
		return USERNS_WHY;
	case NPG_OP_EXECVE:
		*what = "'execve' of a declared file";
		if (op->file && op->exec.fcap_v3)
			return "v3 file capabilities (a root id of a user namespace) are not in "
			       "exported tests; run it with 'nprocguard run --real'";
		return NULL;
	default:
		return NULL;
	}
}

static const char *check_refusal(const struct npg_stmt *st, const char **what)
{
	switch (st->check) {
	case NPG_CHECK_USERNS:
		*what = "'check ... userns'";
		return USERNS_WHY;
	case NPG_CHECK_TRACER:
		*what = "'check ... tracer'";
		return PTRACE_WHY;
	case NPG_CHECK_COUNT:
		*what = "'check count ... in NS'";
		return st->ns > 0 ? USERNS_WHY : NULL;
	default:
		return NULL;
	}
}

int npg_export_check(const struct npg_scenario *sc, FILE *err)
{
	int refused = 0;

	for (int i = 0; i < sc->nstmts; i++) {
		const struct npg_stmt *st = &sc->stmts[i];
		const char *what = NULL;
		const char *why = st->kind == NPG_STMT_STEP ? step_refusal(st, &what) :
				  check_refusal(st, &what);

		if (why) {
			refuse(err, sc, st, what, why);
			refused++;
		}
	}
	return refused;
}
