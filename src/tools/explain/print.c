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
	if (!f->init_userns && f->nuserns > 1)
		fprintf(out, "note: pid %d is in a user namespace at level %d: on 5.14+ each of its "
			"forks is charged at every level up to the initial one (inc_rlimit_ucounts(), "
			"kernel/ucount.c), each level's count shown above; a parent level's limit is "
			"the RLIMIT_NPROC the namespace's creator had when it was made "
			"(set_userns_rlimit_max() in create_user_ns()), which /proc does not show; "
			"its capabilities do not exempt it (capable() asks the initial namespace)\n",
			(int)f->pid, f->userns_level);
	if (!f->init_userns && f->nuserns > 1 && f->userns_unread > 0)
		fprintf(out, "note: the user namespace of %ld %s could not be read (exited while "
			"read, or refused): not counted above\n", f->userns_unread,
			f->userns_unread == 1 ? "process" : "processes");
	else if (!f->init_userns)
		fprintf(out, "note: pid %d is in a user namespace whose chain could not be read "
			"here (%s): on 5.14+ the kernel also checks each ancestor level's count "
			"against the RLIMIT_NPROC its creator had (is_rlimit_overlimit(), "
			"kernel/ucount.c); the count above is by real uid in the initial namespace, "
			"and its capabilities do not exempt it (capable() asks the initial namespace)\n",
			(int)f->pid, f->root[0] ? "a recorded tree has no namespace files"
						: "NS_GET_PARENT refused, or deeper than 8 levels");
	if (f->pidns_hidden > 0)
		fprintf(out, "note: %d pid namespace %s between the initial one and the task's are "
			"not shown (alloc_pid() takes a pid there too; explain shows %d levels)\n",
			f->pidns_hidden, f->pidns_hidden == 1 ? "level" : "levels",
			NPG_EXPLAIN_MAX_PIDNS);
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
	if (e->identified[0])
		fprintf(out, "%s: --model identified decides by it\n", e->identified);
	if (e->first_refusal >= 0)
		fprintf(out, "answer: %s fails with EAGAIN: %s (kernel %s, policy %s)\n",
			npg_explain_op_name(e->op), e->checks[e->first_refusal].kernel, f->release,
			e->policy);
	else {
		int unchecked = 0;

		for (int i = 0; i < e->nchecks; i++)
			unchecked += !e->checks[i].applies;
		if (unchecked)
			fprintf(out, "answer: %s passes every check that could be read now; %d not "
				"checked, as said above (kernel %s, policy %s)\n",
				npg_explain_op_name(e->op), unchecked, f->release, e->policy);
		else
			fprintf(out, "answer: %s passes every check now (kernel %s, policy %s)\n",
				npg_explain_op_name(e->op), f->release, e->policy);
	}
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
	json_str(out, "model", e->model, true);
	json_str(out, "identified_differs", e->identified[0] ? e->identified : NULL, true);
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
		fputs("\"userns\": [", out);
		for (int i = 0; i < f->nuserns; i++) {
			const struct npg_userns_level *l = &f->userns[i];

			fprintf(out, "%s{\"level\": %d, \"inode\": %llu, \"uid\": %u, ", i ? ", " : "",
				l->level, l->inode, l->uid);
			json_num(out, "uid_inside", (long)l->uid_inside, true);
			json_num(out, "count", l->count, true);
			/* null: unlimited or, above the task's own level, not visible */
			json_num(out, "limit", l->limit >= 0 ? (long)l->limit : -1, true);
			fprintf(out, "\"limit_visible\": %s}", l->limit == -2 ? "false" : "true");
		}
		fputs("], ", out);
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
		if (c->exempt)
			json_str(out, "exempt", c->exempt, true);
		else
			fputs("\"exempt\": null, ", out);
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
	npg_explain_decide(&f, NULL, op, &e);
	if (e.first_refusal < 0)
		return 0;
	c = &e.checks[e.first_refusal];
	snprintf(buf, len, "%s: %s (%s)", c->subject, c->verdict, c->kernel);
	return 1;
}
