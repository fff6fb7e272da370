/*
 * libFuzzer harness for the records `nprocguard compare` reads back
 * (src/compare/record.c): what a kernel -- here or in a guest, whose
 * kernel and /init may be anything -- says it did. Any input must read as
 * a record or give "LINE: what", never a crash, a hang or a leak; a
 * record that reads is then compared as compare does, against the model
 * of every candidate policy.
 *
 * The input is a record alone, or SCENARIO SEP RECORD [SEP RECORD] (SEP
 * the line "====="): the scenario's text (its file is "fuzz") and the
 * records of the two sides (one record: both sides). Each side's release
 * is the one its record names, as an image's header names it.
 * `make fuzz FUZZ_TARGETS=record`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"
#include "quiet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SEP "\n=====\n"

/* The next part of [*p, end): up to SEP or the end */
static const char *part(const char **p, const char *end, size_t *len)
{
	const char *start = *p, *sep = memmem(start, (size_t)(end - start), SEP, strlen(SEP));

	*len = (size_t)((sep ? sep : end) - start);
	*p = sep ? sep + strlen(SEP) : end;
	return start;
}

/* Read @len bytes as a record into @r: 0 or -1 */
static int read_record(const char *text, size_t len, struct npg_record *r)
{
	char err[256];
	/* fmemopen() of 0 bytes fails: an empty record is read from /dev/null */
	FILE *f = len ? fmemopen((void *)text, len, "r") : fopen("/dev/null", "r");
	int rc;

	if (!f)
		abort();
	err[0] = '\0';
	rc = npg_record_read(f, r, err, sizeof(err));
	fclose(f);
	if (rc < 0 && (!err[0] || !memchr(err, '\0', sizeof(err))))
		abort();	/* a refusal always says why */
	return rc;
}

/* A side named after its record's release, as compare names an image after its header */
static void side_of(struct npg_side *s, struct npg_record *r)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->release, sizeof(s->release), "%s", r->release);
	snprintf(s->version, sizeof(s->version), "%s", r->version);
	snprintf(s->name, sizeof(s->name), "%s", r->release[0] ? r->release : "unknown");
	s->has_rel = npg_release_parse(&s->rel, s->release, s->version) == 0;
	s->rec = *r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size, *text[3];
	size_t len[3];
	int nparts = 0;
	struct npg_record rec[2] = { 0 };
	struct npg_scenario *sc = NULL;
	struct npg_compare *c;

	npg_fuzz_quiet_begin();
	while (nparts < 3 && (nparts == 0 || p < end)) {
		text[nparts] = part(&p, end, &len[nparts]);
		nparts++;
	}
	if (nparts == 1) {		/* a record alone */
		read_record(text[0], len[0], &rec[0]);
		npg_record_free(&rec[0]);
		npg_fuzz_quiet_end();
		return 0;
	}
	if (read_record(text[1], len[1], &rec[0]) < 0 ||
	    read_record(text[nparts - 1], len[nparts - 1], &rec[1]) < 0)
		goto out;
	if (!(sc = npg_scenario_parse("fuzz", text[0], len[0], npg_fuzz_null)))
		goto out;
	if (!(c = calloc(1, sizeof(*c))))
		abort();
	side_of(&c->sides[0], &rec[0]);
	side_of(&c->sides[1], &rec[1]);
	memset(rec, 0, sizeof(rec));	/* the sides hold them now */
	npg_compare_init(c);
	c->quiet = size & 1;
	{
		int first = -1;
		struct npg_difference_kind k;

		if (npg_compare_records(c, &sc, 1, &first) == 0 && first >= 0)
			npg_compare_divergence(c, sc, 0, first, &k);
	}
	npg_compare_summary(c, npg_fuzz_null);
	npg_side_free(&c->sides[0]);
	npg_side_free(&c->sides[1]);
	free(c);
out:
	npg_scenario_free(sc);
	npg_record_free(&rec[0]);
	npg_record_free(&rec[1]);
	npg_fuzz_quiet_end();
	return 0;
}
