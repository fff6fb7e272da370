/* The probes linked into the binary, and their headers. */
#include <stdlib.h>
#include <string.h>

#include "identify/probes.h"

/* probes-blob.S */
struct probe_file {
	const char *name, *start, *end;
};
extern const struct probe_file npg_identify_probe_files[];

/* A, and B: a configuration, or A's changes ("+RULE", "-RULE", "RULE=N") */
static int parse_pair(struct npg_probe_pair *pair, const char *a, const char *b, char *why,
		      size_t len)
{
	if (npg_config_parse(&pair->a, a, why, len) < 0)
		return -1;
	pair->b = pair->a;
	if (*b == '+' || *b == '-' || (strchr(b, '=') && !strchr(b, ',')))
		return npg_config_apply(&pair->b, b, why, len);
	return npg_config_parse(&pair->b, b, why, len);
}

/* "# separates: A | B": one pair per line */
static int parse_pairs(struct npg_probe *p, const char *text, size_t len, FILE *err)
{
	static const char tag[] = "# separates: ";
	const char *line = text, *end = text + len;

	for (int no = 1; line < end; no++) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);
		char buf[1024], *bar, *end_a, why[256];
		struct npg_probe_pair *grown;

		if (n > sizeof(tag) - 1 && memcmp(line, tag, sizeof(tag) - 1) == 0) {
			if (n >= sizeof(buf) || !(bar = memchr(line, '|', n))) {
				fprintf(err, "%s:%d:1: a separates line is \"# separates: A | B\"\n",
					p->file, no);
				return -1;
			}
			memcpy(buf, line + sizeof(tag) - 1, n - (sizeof(tag) - 1));
			buf[n - (sizeof(tag) - 1)] = '\0';
			bar = strchr(buf, '|');
			*bar = '\0';
			for (end_a = bar; end_a > buf && end_a[-1] == ' ';)
				*--end_a = '\0';
			grown = realloc(p->pairs, (size_t)(p->npairs + 1) * sizeof(*grown));
			if (!grown)
				return -1;
			p->pairs = grown;
			bar += 1 + strspn(bar + 1, " ");
			if (parse_pair(&p->pairs[p->npairs], buf, bar, why, sizeof(why)) < 0) {
				fprintf(err, "%s:%d:1: %s\n", p->file, no, why);
				return -1;
			}
			p->npairs++;
		}
		line += n + 1;
	}
	return 0;
}

int npg_probe_parse(struct npg_probe *p, const char *file, const char *text, size_t len,
		    FILE *err)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->file, sizeof(p->file), "%s", file);
	if (!(p->sc = npg_scenario_parse(p->file, text, len, err)))
		return -1;
	return parse_pairs(p, text, len, err);
}

int npg_probes_load(struct npg_probes *out, FILE *err)
{
	int n = 0;

	memset(out, 0, sizeof(*out));
	while (npg_identify_probe_files[n].name)
		n++;
	out->p = calloc((size_t)n + 1, sizeof(*out->p));
	if (!out->p)
		return -1;
	for (int i = 0; i < n; i++) {
		const struct probe_file *f = &npg_identify_probe_files[i];
		char file[128];

		snprintf(file, sizeof(file), "%s/%s", NPG_PROBE_DIR, f->name);
		out->n = i + 1;
		if (npg_probe_parse(&out->p[i], file, f->start, (size_t)(f->end - f->start), err) < 0)
			return -1;
	}
	return 0;
}

void npg_probes_free(struct npg_probes *ps)
{
	for (int i = 0; i < ps->n; i++) {
		if (ps->p[i].sc)
			npg_scenario_free(ps->p[i].sc);
		free(ps->p[i].pairs);
	}
	free(ps->p);
	memset(ps, 0, sizeof(*ps));
}
