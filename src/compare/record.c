/* A kernel's record of a run (record.h): written by the real backend's side, read by compare. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "compare/record.h"
#include "report/report.h"

static void put_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", out);
		else if (*s == '\t')
			fputs("\\t", out);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

/* Undo put_text() in place */
static char *unescape(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (*r == '\\' && r[1]) {
			r++;
			*w++ = *r == 't' ? '\t' : *r == 'n' ? '\n' : *r;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
	return s;
}

struct writer {
	FILE *out;
	int rc;
};

static int record_begin(void *arg, const struct npg_run *run)
{
	struct writer *w = arg;

	fputs("scenario ", w->out);
	put_text(w->out, run->sc->file);
	fputc('\n', w->out);
	if (!run->cols[0].started) {
		fputs("error ", w->out);
		put_text(w->out, run->cols[0].error);
		fputc('\n', w->out);
	} else if (run->cols[0].backend->root_raised > 0) {
		fprintf(w->out, "root_procs %ld\n", run->cols[0].backend->root_raised);
	}
	return ferror(w->out) ? NPG_REPORT_WRITE_ERROR : 0;
}

static int record_statement(void *arg, const struct npg_run *run, int s, const struct npg_obs *obs)
{
	struct writer *w = arg;
	struct npg_fields fs = { 0 };

	if (!run->cols[0].started)
		return 0;
	fprintf(w->out, "stmt %d %d\n", s, run->sc->stmts[s].line);
	if (obs[0].unreproducible) {
		fputs("unreproducible ", w->out);
		put_text(w->out, obs[0].reason);
		fputc('\n', w->out);
	} else if (npg_obs_fields(run->sc, s, &obs[0], &fs) < 0) {
		npg_fields_free(&fs);
		return NPG_REPORT_NO_MEMORY;
	}
	for (int i = 0; i < fs.n; i++) {
		fputs("field ", w->out);
		put_text(w->out, fs.f[i].name);
		fputc('\t', w->out);
		put_text(w->out, fs.f[i].value);
		fputc('\n', w->out);
	}
	npg_fields_free(&fs);
	return ferror(w->out) ? NPG_REPORT_WRITE_ERROR : 0;
}

int npg_record_write(const struct npg_host *host, uint32_t uid_base,
		     struct npg_scenario *const *sc, int n, FILE *out)
{
	struct writer w = { .out = out };
	struct npg_sink sink = { .begin = record_begin, .statement = record_statement, .arg = &w };
	struct utsname u;

	if (uname(&u) < 0)
		memset(&u, 0, sizeof(u));
	fputs("npg-record 1\nhost release ", out);
	put_text(out, host->release);
	fputs("\nhost version ", out);
	put_text(out, u.version);
	fprintf(out, "\nhost bset %#" PRIx64 "\nhost yama %d\nhost suid_dumpable %d\n"
		"host no_new_privs %d\nhost userns %s\n", host->cap_bnd, host->yama_scope,
		host->suid_dumpable, host->no_new_privs,
		host->userns ? "yes" : host->userns_legacy ? "2.6.39" : "no");
	for (int i = 0; i < n; i++) {
		struct npg_backend be;
		struct npg_column col;
		struct npg_run run;
		int rc;

		npg_real_backend_init(&be, host, uid_base);
		be.yama_fixed = true;
		col = (struct npg_column){ .backend = &be, .policy_index = -1 };
		rc = npg_run_scenario(&run, sc[i], &col, 1, &sink);
		npg_run_free(&run);
		if (rc == NPG_RUN_NO_MEMORY || rc == NPG_REPORT_NO_MEMORY) {
			fprintf(stderr, "nprocguard compare: %s: out of memory\n", sc[i]->file);
			return -1;
		}
		if (rc == NPG_REPORT_WRITE_ERROR)
			return -1;
		fputs("end\n", out);
	}
	fputs("done\n", out);
	return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

/* --- reading --- */

static void *grow(void *p, int n, int *cap, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? 2 * *cap : 16;
	return realloc(p, (size_t)*cap * size);
}

static int read_host(struct npg_record *r, char *key, char *value)
{
	if (strcmp(key, "release") == 0)
		snprintf(r->release, sizeof(r->release), "%s", unescape(value));
	else if (strcmp(key, "version") == 0)
		snprintf(r->version, sizeof(r->version), "%s", unescape(value));
	else if (strcmp(key, "bset") == 0)
		r->host.cap_bnd = strtoull(value, NULL, 16);
	else if (strcmp(key, "yama") == 0)
		r->host.yama_scope = atoi(value);
	else if (strcmp(key, "suid_dumpable") == 0)
		r->host.suid_dumpable = atoi(value);
	else if (strcmp(key, "no_new_privs") == 0)
		r->host.no_new_privs = atoi(value) != 0;
	else if (strcmp(key, "userns") == 0) {
		r->host.userns = strcmp(value, "yes") == 0;
		r->host.userns_legacy = strcmp(value, "2.6.39") == 0;
	}
	/* a key of a newer writer is skipped */
	return 0;
}

int npg_record_read(FILE *in, struct npg_record *r, char *err, size_t errlen)
{
	char *line = NULL, *arg = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0, scap = 0, stcap = 0, ret = 0;
	struct npg_record_scenario *sc = NULL;
	struct npg_record_stmt *st = NULL;

	memset(r, 0, sizeof(*r));
	r->host.yama_scope = -1;
	while ((len = getline(&line, &cap, in)) > 0) {
		lineno++;
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		arg = strchr(line, ' ');
		if (arg)
			*arg++ = '\0';
		if (lineno == 1) {
			if (strcmp(line, "npg-record") != 0 || !arg || strcmp(arg, "1") != 0) {
				snprintf(err, errlen, "1: not a record of nprocguard compare");
				ret = -1;
				break;
			}
			continue;
		}
		if (strcmp(line, "done") == 0) {
			r->complete = true;
			break;
		}
		if (strcmp(line, "end") == 0) {
			sc = NULL, st = NULL;
			continue;
		}
		if (!arg)
			goto bad;
		if (strcmp(line, "host") == 0) {
			char *value = strchr(arg, ' ');

			if (!value)
				goto bad;
			*value++ = '\0';
			read_host(r, arg, value);
		} else if (strcmp(line, "scenario") == 0) {
			void *p = grow(r->scen, r->nscen, &scap, sizeof(*r->scen));

			if (!p)
				goto nomem;
			r->scen = p;
			sc = &r->scen[r->nscen++];
			*sc = (struct npg_record_scenario){ .file = strdup(unescape(arg)) };
			st = NULL, stcap = 0;
			if (!sc->file)
				goto nomem;
		} else if (sc && strcmp(line, "error") == 0) {
			free(sc->error);
			if (!(sc->error = strdup(unescape(arg))))
				goto nomem;
		} else if (sc && strcmp(line, "root_procs") == 0) {
			char *end;

			errno = 0;
			sc->root_procs = strtol(arg, &end, 10);
			if (errno || end == arg || *end || sc->root_procs < 0 || sc->root_procs > 100000)
				goto bad;
		} else if (sc && strcmp(line, "stmt") == 0) {
			int index, l;
			void *p;

			if (sscanf(arg, "%d %d", &index, &l) != 2 || index != sc->nstmts)
				goto bad;
			if (!(p = grow(sc->stmts, sc->nstmts, &stcap, sizeof(*sc->stmts))))
				goto nomem;
			sc->stmts = p;
			st = &sc->stmts[sc->nstmts++];
			*st = (struct npg_record_stmt){ .line = l };
		} else if (st && strcmp(line, "unreproducible") == 0) {
			free(st->reason);
			if (!(st->reason = strdup(unescape(arg))))
				goto nomem;
		} else if (st && strcmp(line, "field") == 0) {
			char *value = strchr(arg, '\t');

			if (!value)
				goto bad;
			*value++ = '\0';
			if (npg_fields_add(&st->fields, unescape(arg), unescape(value)) < 0)
				goto nomem;
		} else {
			goto bad;
		}
	}
	if (lineno == 0 && ret == 0) {
		snprintf(err, errlen, "the record is empty");
		ret = -1;
	}
	free(line);
	return ret;
bad:
	snprintf(err, errlen, "%d: not a record line: %s%s%.60s", lineno, line, arg ? " " : "",
		 arg ? arg : "");
	free(line);
	return -1;
nomem:
	snprintf(err, errlen, "%d: out of memory", lineno);
	free(line);
	return -1;
}

int npg_record_merge(struct npg_record *r, struct npg_record *parts, int n, char *err,
		     size_t errlen)
{
	int total = 0;

	memset(r, 0, sizeof(*r));
	for (int k = 0; k < n; k++)
		total += parts[k].nscen;
	/* shard K holds the scenarios I with I mod N = K: as many as that */
	for (int k = 0; k < n; k++)
		if (parts[k].nscen != (total - k + n - 1) / n || !parts[k].complete) {
			snprintf(err, errlen, "its part %d of %d holds %d scenarios", k + 1, n,
				 parts[k].nscen);
			return -1;
		}
	*r = parts[0];
	r->nscen = total;
	r->scen = total ? calloc((size_t)total, sizeof(*r->scen)) : NULL;
	if (total && !r->scen) {
		r->nscen = 0;
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < total; i++)
		r->scen[i] = parts[i % n].scen[i / n];
	for (int k = 0; k < n; k++) {
		free(parts[k].scen);
		memset(&parts[k], 0, sizeof(parts[k]));
	}
	return 0;
}

void npg_record_free(struct npg_record *r)
{
	for (int i = 0; i < r->nscen; i++) {
		struct npg_record_scenario *sc = &r->scen[i];

		for (int s = 0; s < sc->nstmts; s++) {
			free(sc->stmts[s].reason);
			npg_fields_free(&sc->stmts[s].fields);
		}
		free(sc->stmts);
		free(sc->file);
		free(sc->error);
	}
	free(r->scen);
	memset(r, 0, sizeof(*r));
}
