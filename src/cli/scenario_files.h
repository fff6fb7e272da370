/*
 * The scenario arguments of a command: files, "-" (standard input) and
 * directories, expanded by one rule for every command (scenario_files.c).
 */
#ifndef NPG_CLI_SCENARIO_FILES_H
#define NPG_CLI_SCENARIO_FILES_H

#include <stdbool.h>

struct npg_scenario;

struct npg_scenario_files {
	char **path;		/* to read, in order; "-" for standard input */
	int n, cap;
	bool has_stdin;
	int stdin_index;	/* path[] of "-" (or of its copy), -1 without */
	char *stdin_copy;	/* npg_scenario_files_copy_stdin()'s file, removed by _free() */
};

/*
 * @args of @cmd into @out: a directory becomes its *.npg files of the kind
 * @cmd reads (@concurrent: those with "runs:" programs; else the others),
 * sorted, recursively, symbolic links not followed; a directory with none
 * of them is an error; "-" may be given once. 0, or -1 (said).
 */
int npg_scenario_files(const char *cmd, char *const *args, int nargs, bool concurrent,
		       struct npg_scenario_files *out);
/*
 * For a command that hands the files to another process or a guest:
 * standard input's scenario copied to a temporary file, which takes the
 * place of "-" in @f->path (its loader names it <stdin>). 0 (nothing to do
 * without "-"), or -1 (said).
 */
int npg_scenario_files_copy_stdin(const char *cmd, struct npg_scenario_files *f);
/*
 * For the same commands: every path but "-" that exists is a regular file,
 * which the guest's copy (or a second reader) gets whole, where a FIFO
 * would block or be read once. 0, or -1 (said, naming the file).
 */
int npg_scenario_files_copyable(const char *cmd, const struct npg_scenario_files *f);
/* Scenario @i of @f, named <stdin> when it is standard input, its copy, or
 * @stdin_file (the copy another nprocguard made: conform --stdin-file) */
struct npg_scenario *npg_scenario_files_load(const struct npg_scenario_files *f, int i,
					     const char *stdin_file);
void npg_scenario_files_free(struct npg_scenario_files *f);

#endif
