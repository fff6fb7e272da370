/* nprocguard policies: the modelled kernel eras. */
#include <getopt.h>
#include <libsmartcols.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "model/policy.h"

static void usage(void)
{
	printf("Usage:\n nprocguard policies [options]\n\n"
	       "List the kernel policies the model reproduces, oldest first.\n\n"
	       "Options:\n -J, --json          use JSON output format\n"
	       " -r, --raw           use raw output format\n"
	       " -n, --noheadings    don't print headings\n"
	       " -h, --help          display this help\n");
}

int npg_cmd_policies(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "raw", no_argument, NULL, 'r' },
		{ "noheadings", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct libscols_table *tb;
	struct libscols_column *flag = NULL;
	int c;
	bool json = false, raw = false, noheadings = false;

	while ((c = getopt_long(argc, argv, "Jrnh", longopts, NULL)) != -1) {
		switch (c) {
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
	scols_table_set_name(tb, "policies");
	scols_table_enable_raw(tb, raw);
	scols_table_enable_noheadings(tb, noheadings);
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
