/*
 * The operations of explore's concurrent programs ('TASK... runs:'), parsed
 * as a step's are, without the ones a program cannot hold.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/parse.h"

/*
 * For the explorer's programs (src/explore/program.c): the operation in
 * tokens [first, end of line) of line @line_no, performed by task @task,
 * parsed exactly as a step's operation is (a fork or thread adds its task
 * to @sc). Returns 0, or -1 with file:line:col errors written to @err.
 */
int npg_scenario_parse_op(struct npg_scenario *sc, const char *file, int line_no,
			  const char *line, size_t len, int first, int task,
			  struct npg_stmt *out, FILE *err)
{
	struct parser p = { .file = file, .err = err, .line = line_no, .text = line,
			    .textlen = len, .sc = sc };
	const struct npg_op_spec *spec;
	const char *msg;
	int err_col;

	memset(out, 0, sizeof(*out));
	out->kind = NPG_STMT_STEP;
	out->line = line_no;
	out->task = task;
	p.ntok = npg_lex_line(line, len, p.tok, NPG_MAX_TOKENS, &err_col, &msg);
	if (p.ntok < 0) {
		npg_parse_error(&p, err_col, "%s", msg);
		return -1;
	}
	if (!npg_parse_expect_word(&p, first, "an operation"))
		return -1;
	out->col = p.tok[first].col;
	for (spec = npg_op_specs; spec->name && !npg_tok_is(&p.tok[first], spec->name); spec++)
		;
	if (!spec->name) {
		npg_parse_error(&p, p.tok[first].col, "unknown operation '%.*s%s'",
				TOKLEN(p.tok[first].len), p.tok[first].start, TOKCUT(p.tok[first].len));
		return -1;
	}
	if (spec->code == NPG_OP_VFORK) {
		npg_parse_error(&p, p.tok[first].col, "vfork is not modelled in a concurrent program: its "
				"parent would block until the child execs or exits");
		return -1;
	}
	if (spec->code == NPG_OP_UNSHARE_USER || spec->code == NPG_OP_CLONE_USER ||
	    spec->code == NPG_OP_SETNS_USER || spec->code == NPG_OP_WRITE_IDMAP ||
	    spec->code == NPG_OP_MAX_USERNS) {
		/* a program's statements may run many times, or in any order:
		 * a namespace is named by the one step that creates it */
		npg_parse_error(&p, p.tok[first].col, "%s is not modelled in a concurrent program: "
				"each namespace is created by one step of a scenario", spec->name);
		return -1;
	}
	if (spec->code == NPG_OP_PTRACE ||
	    (spec->code == NPG_OP_KEEPCAPS && first + 1 < p.ntok &&
	     npg_tok_is(&p.tok[first + 1], "ptracer"))) {
		/* the explorer's symmetry swaps the tasks of a class: a link
		 * from one task to another would not follow */
		npg_parse_error(&p, p.tok[first].col, "ptrace and prctl ptracer are not modelled in a "
				"concurrent program: they link one task to another");
		return -1;
	}
	p.dead = npg_parse_calloc(MAX_TASKS, sizeof(*p.dead));
	if (!npg_parse_op(&p, out, spec, first + 1, p.ntok)) {
		free(p.dead);
		return -1;
	}
	free(p.dead);
	out->text = npg_parse_stmt_text(&p, first, p.ntok);
	return p.nerrors ? -1 : 0;
}
