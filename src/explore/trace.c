/* Counterexample writers (trace.h). */
#include <stdio.h>
#include <string.h>

#include "explore/trace.h"

static void result_text(const struct npg_cprog *cp, const struct npg_trace_step *ts, char *buf,
			size_t len)
{
	npg_render_result(cp->sc, ts->st, ts->result, buf, len);
}

static void counts_text(const struct npg_cprog *cp, const long *counts, char *buf, size_t len)
{
	size_t pos = 0;

	buf[0] = '\0';
	for (int u = 0; u < cp->nuids && pos < len; u++) {
		char name[64];

		npg_render_uid(cp->sc, cp->uids[u], false, name, sizeof(name));
		pos += (size_t)snprintf(buf + pos, len - pos, "%s%s=%ld", u ? " " : "", name, counts[u]);
	}
}

int npg_trace_print(FILE *out, const struct npg_cprog *cp, const char *policy,
		    const struct npg_check_result *cr)
{
	const struct npg_trace *tr = &cr->trace;

	fprintf(out, "%s: %s: %s violated in %d step%s\n", cp->sc->file, policy, cr->name,
		cr->steps, cr->steps == 1 ? "" : "s");
	if (tr->n)
		fprintf(out, "  %4s  %-12s %-24s %-15s %-16s %-5s %s\n", "STEP", "TASK", "CALL",
			"RESULT", "UIDS AFTER", "FLAG", "COUNTS AFTER");
	for (int i = 0; i < tr->n; i++) {
		const struct npg_trace_step *ts = &tr->steps[i];
		char res[96], counts[256], r[32], e[32], uids[72] = "-";

		result_text(cp, ts, res, sizeof(res));
		counts_text(cp, ts->counts, counts, sizeof(counts));
		if (ts->after.state == NPG_TASK_RUNNING) {
			npg_render_uid(cp->sc, ts->after.cred.uid.real, false, r, sizeof(r));
			npg_render_uid(cp->sc, ts->after.cred.uid.eff, false, e, sizeof(e));
			snprintf(uids, sizeof(uids), "%s %s", r, e);
		}
		fprintf(out, "  %4d  %-12s %-24s %-15s %-16s %-5s %s\n", i + 1,
			cp->sc->tasks[ts->task].name, ts->st->text, res, uids,
			ts->after.nproc_exceeded ? "set" : "clear", counts);
	}
	fprintf(out, "  => %s\n", tr->message);
	return ferror(out) ? -1 : 0;
}

int npg_trace_write_scenario(FILE *out, const struct npg_cprog *cp, const char *policy,
			     const struct npg_check_result *cr)
{
	const struct npg_trace *tr = &cr->trace;
	const struct npg_trace_step *last = tr->n ? &tr->steps[tr->n - 1] : NULL;

	fprintf(out, "# Counterexample found by nprocguard explore in %s:\n", cp->sc->file);
	fprintf(out, "# %s under %s, %d step%s: %s\n", cr->name, policy, cr->steps,
		cr->steps == 1 ? "" : "s", tr->message);
	fprintf(out, "# Replay on the model: nprocguard run FILE; on this kernel (root): "
		"nprocguard run --real FILE\n");
	for (int i = 0; i < cp->ndecl; i++) {
		size_t len;
		const char *line = npg_cprog_line(cp, cp->decl_lines[i], &len);

		fprintf(out, "%.*s\n", (int)len, line);
	}
	fprintf(out, "policies %s\n\n", policy);
	for (int i = 0; i < tr->n; i++) {
		const struct npg_trace_step *ts = &tr->steps[i];
		char res[96];

		result_text(cp, ts, res, sizeof(res));
		fprintf(out, "%s: %s => %s\n", cp->sc->tasks[ts->task].name, ts->st->text, res);
	}
	if (last) {
		const char *name = cp->sc->tasks[last->task].name;
		char r[32], e[32], s[32];

		if (last->after.state == NPG_TASK_RUNNING) {
			npg_render_uid(cp->sc, last->after.cred.uid.real, false, r, sizeof(r));
			npg_render_uid(cp->sc, last->after.cred.uid.eff, false, e, sizeof(e));
			npg_render_uid(cp->sc, last->after.cred.uid.saved, false, s, sizeof(s));
			fprintf(out, "check %s uids => %s %s %s\n", name, r, e, s);
			fprintf(out, "check %s flag => %s\n", name,
				last->after.nproc_exceeded ? "set" : "clear");
		}
		for (int u = 0; u < cp->nuids; u++) {
			char un[64];

			if (cp->uids[u] == 0)
				continue;	/* root's count on a real machine includes the machine */
			npg_render_uid(cp->sc, cp->uids[u], false, un, sizeof(un));
			fprintf(out, "check count %s => %ld\n", un, last->counts[u]);
		}
	}
	return ferror(out) ? -1 : 0;
}

static void dot_escape(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
}

int npg_trace_write_dot(FILE *out, const struct npg_cprog *cp, const char *policy,
			const struct npg_check_result *cr)
{
	const struct npg_trace *tr = &cr->trace;
	const struct npg_scenario *sc = cp->sc;
	int nlanes = 0, lane_of[257];

	for (int t = 0; t < sc->ntasks && t < 256; t++)
		lane_of[t] = -1;
	for (int i = 0; i < tr->n; i++)
		if (lane_of[tr->steps[i].task] < 0)
			lane_of[tr->steps[i].task] = nlanes++;
	fprintf(out, "digraph counterexample {\n\trankdir=TB;\n\tnewrank=true;\n"
		"\tnode [fontname=\"monospace\", fontsize=10];\n\tlabelloc=t;\n\tlabel=\"");
	dot_escape(out, sc->file);
	fprintf(out, ": %s: %s violated in %d steps\\n", policy, cr->name, cr->steps);
	dot_escape(out, tr->message);
	fprintf(out, "\";\n");
	/* one lane per task that acts: a head, then one node per step row */
	for (int t = 0; t < sc->ntasks && t < 256; t++) {
		int l = lane_of[t];

		if (l < 0)
			continue;
		fprintf(out, "\th%d [shape=box, style=bold, label=\"%s\"];\n", l, sc->tasks[t].name);
		for (int i = 0; i < tr->n; i++) {
			const struct npg_trace_step *ts = &tr->steps[i];

			if (ts->task == t) {
				char res[96], counts[256];

				result_text(cp, ts, res, sizeof(res));
				counts_text(cp, ts->counts, counts, sizeof(counts));
				fprintf(out, "\tn%d_%d [shape=box, label=\"%d. ", l, i, i + 1);
				dot_escape(out, ts->st->text);
				fprintf(out, "\\n-> %s\\n%s\"%s];\n", res, counts,
					i == tr->n - 1 ? ", color=red, penwidth=2" : "");
			} else {
				fprintf(out, "\tn%d_%d [shape=point, width=0.02, label=\"\"];\n", l, i);
			}
			if (i)
				fprintf(out, "\tn%d_%d -> n%d_%d [arrowhead=none];\n", l, i - 1, l, i);
			else
				fprintf(out, "\th%d -> n%d_0 [arrowhead=none];\n", l, l);
		}
	}
	/* steps in time order: each row on its own rank */
	for (int i = 0; i < tr->n; i++) {
		fprintf(out, "\t{ rank=same;");
		for (int l = 0; l < nlanes; l++)
			fprintf(out, " n%d_%d;", l, i);
		fprintf(out, " }\n");
	}
	fprintf(out, "\t{ rank=same;");
	for (int l = 0; l < nlanes; l++)
		fprintf(out, " h%d;", l);
	fprintf(out, " }\n");
	/* a fork points at its child's lane */
	for (int i = 0; i < tr->n; i++) {
		const struct npg_trace_step *ts = &tr->steps[i];
		int child = ts->st->op.target;

		if ((ts->st->op.code == NPG_OP_FORK || ts->st->op.code == NPG_OP_THREAD) &&
		    ts->result.kind == NPG_R_OK && child >= 0 && child < 256 && lane_of[child] >= 0)
			fprintf(out, "\tn%d_%d -> h%d [style=dashed, constraint=false];\n",
				lane_of[ts->task], i, lane_of[child]);
	}
	fprintf(out, "}\n");
	return ferror(out) ? -1 : 0;
}
