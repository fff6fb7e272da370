/* nprocguard policies: the modelled kernel eras. */
#include <getopt.h>
#include <libsmartcols.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "model/history.h"
#include "model/policy.h"

static void usage(void)
{
	printf("Usage:\n nprocguard policies [options]\n\n"
	       "List the kernel policies the model reproduces, oldest first; with\n"
	       "--releases, the dated history of every rule inside them instead: each\n"
	       "upstream commit, the first release of mainline and of each stable branch\n"
	       "that has it, and the evidence for each date.\n\n"
	       "Options:\n     --releases      the rules' dates, branch by branch\n"
	       " -J, --json          use JSON output format\n"
	       " -r, --raw           use raw output format\n"
	       " -n, --noheadings    don't print headings\n"
	       " -h, --help          display this help\n");
}

/* One row of the history: @c in @branch ("mainline", "5.15.y", "other") from @from */
static int history_row(struct libscols_table *tb, const struct npg_change *c, const char *branch,
		       const char *from, const char *evidence)
{
	struct libscols_line *ln = scols_table_new_line(tb, NULL);
	char value[48];

	if (!ln)
		return -1;
	if (!c->rule)
		snprintf(value, sizeof(value), "policy linux-5.14");
	else if (strcmp(c->rule, "ptrace_seize") == 0)
		snprintf(value, sizeof(value), "%s=%d", c->rule, c->value);
	else
		snprintf(value, sizeof(value), "%s %s", c->value ? "with" : "without", c->rule);
	if (scols_line_set_data(ln, 0, value) || scols_line_set_data(ln, 1, c->commit) ||
	    scols_line_set_data(ln, 2, branch) || scols_line_set_data(ln, 3, from) ||
	    scols_line_set_data(ln, 4, evidence) || scols_line_set_data(ln, 5, c->title))
		return -1;
	return 0;
}

/*
 * policies --releases: every change of model/history.c, one row for its
 * mainline release, one for each stable branch that took it, one for
 * what was checked of the branches that did not
 */
static int print_releases(struct libscols_table *tb)
{
	static const char *const names[] = { "RULE", "COMMIT", "BRANCH", "FROM", "EVIDENCE", "TITLE" };
	static const double widths[] = { 24, 12, 8, 8, 60, 40 };
	int rc = NPG_EXIT_OK;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!scols_table_new_column(tb, names[i], widths[i], i >= 4 ? SCOLS_FL_WRAP : 0)) {
			perror("nprocguard");
			scols_unref_table(tb);
			return NPG_EXIT_USAGE;
		}
	for (int id = 0; id < NPG_NCHANGES; id++) {
		const struct npg_change *c = &npg_changes[id];
		char from[32], branch[32];

		snprintf(from, sizeof(from), "%d.%d", c->mainline.major, c->mainline.minor);
		if (history_row(tb, c, "mainline", from, c->mainline_evidence) < 0)
			goto fail;
		for (const struct npg_backport *b = c->backports; b->major; b++) {
			snprintf(branch, sizeof(branch), "%d.%d.y", b->major, b->minor);
			snprintf(from, sizeof(from), "%d.%d.%d", b->major, b->minor, b->patch);
			if (history_row(tb, c, branch, from, b->evidence) < 0)
				goto fail;
		}
		if (history_row(tb, c, "other", "none", c->no_backport) < 0)
			goto fail;
	}
	if (scols_print_table(tb) < 0)
		rc = NPG_EXIT_USAGE;
	scols_unref_table(tb);
	return rc;
fail:
	perror("nprocguard");
	scols_unref_table(tb);
	return NPG_EXIT_USAGE;
}

int npg_cmd_policies(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "releases", no_argument, NULL, 'R' },
		{ "json", no_argument, NULL, 'J' },
		{ "raw", no_argument, NULL, 'r' },
		{ "noheadings", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct libscols_table *tb;
	struct libscols_column *flag = NULL;
	int c;
	bool json = false, raw = false, noheadings = false, releases = false;

	while ((c = getopt_long(argc, argv, "Jrnh", longopts, NULL)) != -1) {
		switch (c) {
		case 'R': releases = true; break;
		case 'J': json = true; break;
		case 'r': raw = true; break;
		case 'n': noheadings = true; break;
		case 'h': usage(); return NPG_EXIT_OK;
		default: npg_usage_error("policies");
		}
	}
	if (optind < argc) {
		fprintf(stderr, "nprocguard policies: unexpected argument '%s'\n", argv[optind]);
		npg_usage_error("policies");
	}
	tb = scols_new_table();
	if (!tb) {
		perror("nprocguard");
		return NPG_EXIT_USAGE;
	}
	scols_table_enable_json(tb, json);
	scols_table_set_name(tb, releases ? "releases" : "policies");
	scols_table_enable_raw(tb, raw);
	scols_table_enable_noheadings(tb, noheadings);
	if (releases)
		return print_releases(tb);
	if (!scols_table_new_column(tb, "NAME", 15, 0) ||
	    !scols_table_new_column(tb, "KERNELS", 12, 0) ||
	    !(flag = scols_table_new_column(tb, "FLAG", 4, 0)) ||
	    !scols_table_new_column(tb, "SUMMARY", 60, SCOLS_FL_WRAP) ||
	    !scols_table_new_column(tb, "SOURCE", 40, SCOLS_FL_WRAP)) {
		perror("nprocguard");
		scols_unref_table(tb);
		return NPG_EXIT_USAGE;
	}
	/* yes/no in text, true/false in JSON (libsmartcols reads "no" as false) */
	scols_column_set_json_type(flag, SCOLS_JSON_BOOLEAN);
	for (int i = 0; npg_policies[i]; i++) {
		const struct npg_policy *p = npg_policies[i];
		struct libscols_line *ln = scols_table_new_line(tb, NULL);

		if (!ln) {
			perror("nprocguard");
			scols_unref_table(tb);
			return NPG_EXIT_USAGE;
		}
		scols_line_set_data(ln, 0, p->name);
		scols_line_set_data(ln, 1, p->kernels);
		scols_line_set_data(ln, 2, p->has_flag ? "yes" : "no");
		scols_line_set_data(ln, 3, p->summary);
		scols_line_set_data(ln, 4, p->source);
	}
	scols_print_table(tb);
	scols_unref_table(tb);
	return NPG_EXIT_OK;
}
