/*
 * A scenario's text, from a file or from standard input ("-"), as every
 * command reads it: at most 16 MiB, whatever the file is (a FIFO, a
 * process substitution, /dev/stdin), and a directory said to be one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "scenario/parse.h"

const char *npg_scenario_name(const char *path)
{
	return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

char *npg_scenario_read(const char *path, const char *name, size_t *len, FILE *err)
{
	bool is_stdin = strcmp(path, "-") == 0;
	FILE *f = is_stdin ? stdin : fopen(path, "r");
	char *buf = NULL, *grown;
	size_t cap = 0, n;
	struct stat st;
	const char *why = NULL;
	char limit[64];

	*len = 0;
	if (!f) {
		why = strerror(errno);
		goto fail;
	}
	/* fread() of a directory fails with EISDIR, said as "read error" once */
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		why = strerror(EISDIR);
		goto fail;
	}
	for (;;) {
		if (*len == cap) {
			/* room for one byte past the limit: that byte is what tells */
			size_t want = cap ? cap * 2 : 8192;

			if (want > MAX_FILE + 1)
				want = MAX_FILE + 1;
			if (want == cap)
				break;
			cap = want;
			grown = realloc(buf, cap + 1);
			if (!grown) {
				perror("nprocguard");
				exit(2);
			}
			buf = grown;
		}
		n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		why = errno ? strerror(errno) : "read error";
		goto fail;
	}
	if (*len > MAX_FILE) {
		snprintf(limit, sizeof(limit), "scenario larger than 16 MiB (%u bytes)", MAX_FILE);
		why = limit;
		goto fail;
	}
	if (!is_stdin)
		fclose(f);
	if (!buf && !(buf = malloc(1))) {
		perror("nprocguard");
		exit(2);
	}
	buf[*len] = '\0';
	return buf;
fail:
	if (err)
		fprintf(err, "%s: %s\n", name, why);
	if (f && !is_stdin)
		fclose(f);
	free(buf);
	return NULL;
}

struct npg_scenario *npg_scenario_load_as(const char *path, const char *name, FILE *err)
{
	size_t len;
	char *text = npg_scenario_read(path, name, &len, err);
	struct npg_scenario *sc;

	if (!text)
		return NULL;
	sc = npg_scenario_parse(name, text, len, err);
	free(text);
	return sc;
}

struct npg_scenario *npg_scenario_load(const char *path, FILE *err)
{
	return npg_scenario_load_as(path, npg_scenario_name(path), err);
}
