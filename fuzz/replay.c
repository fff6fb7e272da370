/*
 * A harness without libFuzzer: each FILE, or each file of each DIRECTORY
 * (sorted by name), given once to LLVMFuzzerTestOneInput(), as libFuzzer
 * replays a crash. Built with the project's own compiler and sanitizers
 * ($(BUILD)/fuzz/replay-NAME), so that `make check` replays every corpus
 * and every regression input (tests/cli/fuzz.t).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static long inputs;

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (cap - len < 4096) {
			char *p = realloc(buf, cap = cap ? 2 * cap : 65536);

			if (!p) {
				fprintf(stderr, "replay: %s: out of memory\n", path);
				exit(2);
			}
			buf = p;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	if (ferror(f)) {
		fprintf(stderr, "replay: %s: read error\n", path);
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	/* exactly @len bytes, as libFuzzer gives them: ASan sees a read past them */
	{
		uint8_t *exact = malloc(len ? len : 1);

		if (!exact)
			exit(2);
		memcpy(exact, buf, len);
		free(buf);
		LLVMFuzzerTestOneInput(exact, len);
		free(exact);
	}
	inputs++;
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int replay(const char *path)
{
	struct stat st;
	struct dirent **names;
	int n, bad = 0;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path);
	if ((n = scandir(path, &names, NULL, by_name)) < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char sub[4096];

		if (names[i]->d_name[0] != '.' &&
		    snprintf(sub, sizeof(sub), "%s/%s", path, names[i]->d_name) < (int)sizeof(sub))
			bad |= replay(sub);
		free(names[i]);
	}
	free(names);
	return bad;
}

int main(int argc, char **argv)
{
	int bad = 0;

	if (argc < 2) {
		fprintf(stderr, "Usage: %s FILE|DIRECTORY...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++)
		bad |= replay(argv[i]);
	printf("replay: %ld inputs\n", inputs);
	return bad ? 1 : 0;
}
