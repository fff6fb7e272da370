/* The JSON report, written statement by statement as the run goes. */
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

static void json_obs(FILE *out, const struct npg_run *run, const struct npg_stmt *st,
		     const struct npg_obs *o)
{
	const struct npg_scenario *sc = run->sc;
	bool first = true;

	fprintf(out, "{\"value\": ");
	npg_json_string(out, o->text);
	fprintf(out, ", \"expected\": ");
	if (o->expected)
		npg_json_string(out, o->expected);
	else
		fputs("null", out);
	fprintf(out, ", \"ok\": %s, \"unreproducible\": %s", o->ok ? "true" : "false",
		o->unreproducible ? "true" : "false");
	if (o->unreproducible) {
		fprintf(out, ", \"reason\": ");
		npg_json_string(out, o->reason);
	}
	if (st->task >= 0 && o->actor.state != NPG_TASK_ABSENT)
		fprintf(out, ", \"uids\": [%u, %u, %u, %u], \"flag\": %s",
			o->actor.cred.uid.real, o->actor.cred.uid.eff, o->actor.cred.uid.saved,
			o->actor.cred.uid.fs, o->actor.nproc_exceeded ? "true" : "false");
	fprintf(out, ", \"counts\": {");
	for (int k = 0; k < npg_ncounts(sc); k++) {
		char name[160];

		if (!npg_count_label(sc, k, name, sizeof(name)))
			continue;
		fprintf(out, "%s", first ? "" : ", ");
		npg_json_string(out, name);
		if (o->counts[k] == NPG_COUNT_UNKNOWN)
			fprintf(out, ": null");
		else
			fprintf(out, ": %ld", o->counts[k]);
		first = false;
	}
	fprintf(out, "}}");
}

void npg_json_run_begin(struct npg_report *r, const struct npg_run *run)
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
}

void npg_json_statement(struct npg_report *r, const struct npg_run *run, int s,
			const struct npg_obs *obs)
{
	const struct npg_stmt *st = &run->sc->stmts[s];
	FILE *out = r->out;
	char label[160];

	npg_stmt_label(run->sc, st, label, sizeof(label));
	fprintf(out, "%s\n       {\"line\": %d, \"kind\": \"%s\", \"statement\": ",
		s ? "," : "", st->line, st->kind == NPG_STMT_STEP ? "step" : "check");
	npg_json_string(out, label);
	fprintf(out, ", \"observed\": {");
	for (int c = 0; c < run->ncols; c++) {
		fprintf(out, "%s\n         ", c ? "," : "");
		npg_json_string(out, run->cols[c].backend->label);
		fprintf(out, ": ");
		/* a backend that did not start observed nothing */
		if (run->cols[c].started)
			json_obs(out, run, st, &obs[c]);
		else
			fputs("null", out);
	}
	fprintf(out, "}}");
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
