/* The JSON report, written statement by statement as the run goes. */
#include <stdlib.h>
#include <string.h>

#include "report/report_impl.h"

int npg_format_parse(const char *name, enum npg_format *out)
{
	if (strcmp(name, "text") == 0)
		*out = NPG_FORMAT_TEXT;
	else if (strcmp(name, "json") == 0)
		*out = NPG_FORMAT_JSON;
	else if (strcmp(name, "tap") == 0)
		*out = NPG_FORMAT_TAP;
	else
		return -1;
	return 0;
}

void npg_report_json_begin(FILE *out, const char *what)
{
	fprintf(out, "{\n  \"report\": ");
	npg_json_string(out, what);
	fprintf(out, ",\n  \"scenarios\": [");
}

/*
 * What every statement of a run repeats, encoded once when it begins: each
 * column's label and each count's name, as JSON strings followed by ": ".
 */
struct npg_json {
	struct npg_buf keys;	/* the columns' keys, then the counts' */
	size_t *end;		/* [ncols + ncounts]: where each key ends in keys */
	bool *is_count;		/* [ncounts]: false for a group's (no count) */
};

static void json_key(struct npg_json *j, int i, const char *name)
{
	npg_buf_json(&j->keys, name);
	npg_buf_put(&j->keys, ": ", 2);
	j->end[i] = j->keys.len;
}

/* key @i of @j: its bytes and length */
static void put_key(struct npg_buf *b, const struct npg_json *j, int i)
{
	size_t start = i ? j->end[i - 1] : 0;

	npg_buf_put(b, j->keys.data + start, j->end[i] - start);
}

static int json_keys(struct npg_report *r, const struct npg_run *run)
{
	const struct npg_scenario *sc = run->sc;
	int ncounts = npg_ncounts(sc);
	struct npg_json *j = calloc(1, sizeof(*j));

	r->json = j;
	if (!j)
		return NPG_REPORT_NO_MEMORY;
	j->end = calloc((size_t)(run->ncols + ncounts), sizeof(*j->end));
	j->is_count = calloc((size_t)ncounts + 1, sizeof(*j->is_count));
	if (!j->end || !j->is_count)
		return NPG_REPORT_NO_MEMORY;
	for (int c = 0; c < run->ncols; c++)
		json_key(j, c, run->cols[c].backend->label);
	for (int k = 0; k < ncounts; k++) {
		char name[160];

		j->is_count[k] = npg_count_label(sc, k, name, sizeof(name));
		json_key(j, run->ncols + k, name);
	}
	return j->keys.no_memory ? NPG_REPORT_NO_MEMORY : 0;
}

void npg_json_discard(struct npg_report *r)
{
	struct npg_json *j = r->json;

	if (!j)
		return;
	npg_buf_free(&j->keys);
	free(j->end);
	free(j->is_count);
	free(j);
	r->json = NULL;
}

static void put_bool(struct npg_buf *b, bool v)
{
	if (v)
		npg_buf_put(b, "true", 4);
	else
		npg_buf_put(b, "false", 5);
}

static void json_obs(struct npg_buf *b, const struct npg_json *j, const struct npg_run *run,
		     const struct npg_stmt *st, const struct npg_obs *o)
{
	const struct npg_scenario *sc = run->sc;
	bool first = true;

	npg_buf_puts(b, "{\"value\": ");
	npg_buf_json(b, o->text);
	npg_buf_puts(b, ", \"expected\": ");
	if (o->expected)
		npg_buf_json(b, o->expected);
	else
		npg_buf_put(b, "null", 4);
	npg_buf_puts(b, ", \"ok\": ");
	put_bool(b, o->ok);
	npg_buf_puts(b, ", \"unreproducible\": ");
	put_bool(b, o->unreproducible);
	if (o->unreproducible) {
		npg_buf_puts(b, ", \"reason\": ");
		npg_buf_json(b, o->reason);
	}
	if (st->task >= 0 && o->actor.state != NPG_TASK_ABSENT) {
		npg_buf_puts(b, ", \"uids\": [");
		npg_buf_long(b, o->actor.cred.uid.real);
		npg_buf_put(b, ", ", 2);
		npg_buf_long(b, o->actor.cred.uid.eff);
		npg_buf_put(b, ", ", 2);
		npg_buf_long(b, o->actor.cred.uid.saved);
		npg_buf_put(b, ", ", 2);
		npg_buf_long(b, o->actor.cred.uid.fs);
		npg_buf_puts(b, "], \"flag\": ");
		put_bool(b, o->actor.nproc_exceeded);
	}
	npg_buf_puts(b, ", \"counts\": {");
	for (int k = 0; k < npg_ncounts(sc); k++) {
		if (!j->is_count[k])
			continue;
		if (!first)
			npg_buf_put(b, ", ", 2);
		put_key(b, j, run->ncols + k);
		if (o->counts[k] == NPG_COUNT_UNKNOWN)
			npg_buf_put(b, "null", 4);
		else
			npg_buf_long(b, o->counts[k]);
		first = false;
	}
	npg_buf_put(b, "}}", 2);
}

int npg_json_run_begin(struct npg_report *r, const struct npg_run *run)
{
	const struct npg_scenario *sc = run->sc;
	FILE *out = r->out;

	fprintf(out, "%s\n    {\"file\": ", r->json_started ? "," : "");
	r->json_started = true;
	npg_json_string(out, sc->file);
	fprintf(out, ", \"title\": ");
	npg_json_string(out, sc->title ? sc->title : "");
	fprintf(out, ", \"source\": ");
	npg_json_string(out, sc->source ? sc->source : "");
	fprintf(out, ",\n     \"columns\": [");
	for (int c = 0; c < run->ncols; c++) {
		fprintf(out, "%s{\"label\": ", c ? ", " : "");
		npg_json_string(out, run->cols[c].backend->label);
		fprintf(out, ", \"policy\": ");
		npg_json_string(out, run->cols[c].backend->policy->name);
		fprintf(out, ", \"started\": %s", run->cols[c].started ? "true" : "false");
		if (!run->cols[c].started) {
			fprintf(out, ", \"error\": ");
			npg_json_string(out, run->cols[c].error);
		}
		fputc('}', out);
	}
	fprintf(out, "],\n     \"statements\": [");
	return json_keys(r, run);
}

int npg_json_statement(struct npg_report *r, const struct npg_run *run, int s,
		       const struct npg_obs *obs)
{
	const struct npg_stmt *st = &run->sc->stmts[s];
	struct npg_buf *b = &r->buf;
	char label[160];

	npg_stmt_label(run->sc, st, label, sizeof(label));
	if (s)
		npg_buf_putc(b, ',');
	npg_buf_puts(b, "\n       {\"line\": ");
	npg_buf_long(b, st->line);
	npg_buf_puts(b, st->kind == NPG_STMT_STEP ? ", \"kind\": \"step\", \"statement\": "
						   : ", \"kind\": \"check\", \"statement\": ");
	npg_buf_json(b, label);
	npg_buf_puts(b, ", \"observed\": {");
	for (int c = 0; c < run->ncols; c++) {
		if (c)
			npg_buf_putc(b, ',');
		npg_buf_puts(b, "\n         ");
		put_key(b, r->json, c);
		/* a backend that did not start observed nothing */
		if (run->cols[c].started)
			json_obs(b, r->json, run, st, &obs[c]);
		else
			npg_buf_put(b, "null", 4);
	}
	npg_buf_put(b, "}}", 2);
	/* the statement in one piece, before its mismatch lines on stderr */
	return npg_buf_flush(b, r->out) < 0 ? NPG_REPORT_NO_MEMORY : 0;
}

void npg_json_run_finish(struct npg_report *r, const struct npg_run *run)
{
	fprintf(r->out, "],\n     \"summary\": {\"expectations\": %d, \"held\": %d, "
		"\"failed\": %d, \"unreproducible\": %d}}", run->expectations, run->held,
		run->failed, run->unreproducible);
}

void npg_report_json_end(FILE *out, int expectations, int failed, int unreproducible)
{
	fprintf(out, "\n  ],\n  \"summary\": {\"expectations\": %d, \"held\": %d, \"failed\": %d, "
		"\"unreproducible\": %d}\n}\n", expectations, expectations - failed, failed,
		unreproducible);
}
