/*
 * explain's answer: text for people (each check with its numbers, the one
 * that refuses marked), JSON for machines, and the one sentence exec and
 * status --check print.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "report/report.h"
#include "tools/explain/explain.h"

static void facts_notes(FILE *out, const struct npg_explain_facts *f)
{
	if (!f->have_task)
		return;
	if (!f->init_userns)
		fprintf(out, "note: pid %d is in a user namespace: the kernel also checks each "
			"ancestor level's count against the RLIMIT_NPROC its creator had "
			"(enforced_nproc_rlimit(), kernel/ucount.c), which /proc does not show; the "
			"count above is by real uid in the initial namespace, and its capabilities "
			"do not exempt it (capable() asks the initial namespace)\n", (int)f->pid);
	if (f->flagged_tasks > 0)
		fprintf(out, "evidence: %ld of the user's tasks carry PF_NPROC_EXCEEDED now (a set*uid "
			"found the user over the limit)\n", f->flagged_tasks);
}

void npg_explain_print_text(FILE *out, const struct npg_explain_facts *f, const struct npg_explain *e)
{
	for (int i = 0; i < e->nchecks; i++) {
		const struct npg_explain_check *c = &e->checks[i];

		npg_safe_fputs(c->subject, out);
		fprintf(out, "\n  %s: ", c->kernel);
		npg_safe_fputs(c->verdict, out);
		if (i == e->first_refusal)
			fputs("    <- this limit refuses", out);
		else if (c->refuses)
			fputs("    (would refuse too; not reached)", out);
		fputc('\n', out);
	}
	facts_notes(out, f);
	if (e->first_refusal >= 0)
		fprintf(out, "answer: %s fails with EAGAIN: %s (kernel %s, policy %s)\n",
			npg_explain_op_name(e->op), e->checks[e->first_refusal].kernel, f->release,
			e->policy);
	else
		fprintf(out, "answer: %s passes every check now (kernel %s, policy %s)\n",
			npg_explain_op_name(e->op), f->release, e->policy);
}

static void json_num(FILE *out, const char *key, long v, bool comma)
{
	if (v < 0)
		fprintf(out, "\"%s\": null%s", key, comma ? ", " : "");
	else
		fprintf(out, "\"%s\": %ld%s", key, v, comma ? ", " : "");
}

static void json_str(FILE *out, const char *key, const char *v, bool comma)
{
	fprintf(out, "\"%s\": ", key);
	if (v)
		npg_json_string(out, v);
	else
		fputs("null", out);
	if (comma)
		fputs(", ", out);
}

void npg_explain_print_json(FILE *out, const struct npg_explain_facts *f, const struct npg_explain *e)
{
	fputs("{", out);
	json_str(out, "op", npg_explain_op_name(e->op), true);
	json_str(out, "kernel", f->release, true);
	json_str(out, "policy", e->policy, true);
	json_str(out, "refused_by", e->first_refusal >= 0 ? e->checks[e->first_refusal].id : NULL,
		 true);
	fputs("\"task\": ", out);
	if (f->have_task) {
		fputs("{", out);
		json_num(out, "pid", f->pid, true);
		json_str(out, "comm", f->comm, true);
		json_num(out, "uid", (long)f->ruid, true);
		json_str(out, "user", f->user, true);
		json_num(out, "tasks", f->tasks, true);
		json_num(out, "processes", f->procs, true);
		json_num(out, "threads", f->threads, true);
		json_num(out, "zombies", f->zombies, true);
		json_num(out, "kernel_count", (long)f->kernel_count, true);
		json_num(out, "nproc_soft", f->nproc_soft == UINT64_MAX ? -1 : (long)f->nproc_soft, true);
		json_num(out, "nproc_hard", f->nproc_hard == UINT64_MAX ? -1 : (long)f->nproc_hard, true);
		fprintf(out, "\"flagged\": %s, \"init_userns\": %s, ", f->flagged ? "true" : "false",
			f->init_userns ? "true" : "false");
		json_num(out, "flagged_tasks", f->flagged_tasks, true);
		json_str(out, "count_source", f->count_source, false);
		fputs("}, ", out);
	} else
		fputs("null, ", out);
	fputs("\"checks\": [", out);
	for (int i = 0; i < e->nchecks; i++) {
		const struct npg_explain_check *c = &e->checks[i];

		fputs(i ? ", {" : "{", out);
		json_str(out, "id", c->id, true);
		json_str(out, "kernel_function", c->kernel, true);
		json_num(out, "used", c->used, true);
		json_num(out, "limit", c->limit, true);
		fprintf(out, "\"refuses\": %s, \"checked\": %s, \"first\": %s, ",
			c->refuses ? "true" : "false", c->applies ? "true" : "false",
			i == e->first_refusal ? "true" : "false");
		json_str(out, "subject", c->subject, true);
		json_str(out, "verdict", c->verdict, false);
		fputs("}", out);
	}
	fputs("]}\n", out);
}

int npg_explain_cause(pid_t pid, enum npg_explain_op op, char *buf, size_t len)
{
	static struct npg_explain_facts f;	/* large: kept off the stack */
	static struct npg_explain e;
	struct npg_explain_source src = { "", "auto" };
	const struct npg_explain_check *c;
	char why[256];

	if (npg_explain_gather(&f, &src, pid, why, sizeof(why)) < 0)
		return -1;
	npg_explain_decide(&f, op, &e);
	if (e.first_refusal < 0)
		return 0;
	c = &e.checks[e.first_refusal];
	snprintf(buf, len, "%s: %s (%s)", c->subject, c->verdict, c->kernel);
	return 1;
}
