/* compare's record of a kernel's run: read back as written, refused when it is not one. */
#include <limits.h>
#include <string.h>

#include "compare/predict.h"
#include "compare/record.h"
#include "tap.h"

static int read_text(const char *text, struct npg_record *r, char *err, size_t errlen)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc = npg_record_read(f, r, err, errlen);

	fclose(f);
	return rc;
}

static const char whole[] =
	"npg-record 1\n"
	"host release 3.0.8\n"
	"host version #1 1970-01-01\n"
	"host bset 0xffffffffffffffff\n"
	"host yama -1\n"
	"host suid_dumpable 0\n"
	"host no_new_privs 0\n"
	"host userns 2.6.39\n"
	"host a-key-of-a-newer-writer 7\n"
	"scenario a\\tb\\\\c.npg\n"
	"stmt 0 12\n"
	"field result\tok\n"
	"field count www in c\t3\n"
	"stmt 1 13\n"
	"unreproducible root's count\\nhere\n"
	"end\n"
	"scenario other.npg\n"
	"error the window is in use\n"
	"end\n"
	"done\n";

static void test_whole(void)
{
	struct npg_record r;
	char err[256] = "";

	tap_is(read_text(whole, &r, err, sizeof(err)), 0, "a whole record is read (%s)", err);
	tap_ok(r.complete, "and is complete");
	tap_ok(strcmp(r.release, "3.0.8") == 0 && strcmp(r.version, "#1 1970-01-01") == 0,
	       "the release and version are kept");
	tap_ok(r.host.cap_bnd == ~0ull && r.host.yama_scope == -1 && r.host.userns_legacy &&
	       !r.host.userns, "the machine: bounding set, no Yama, 2.6.39's namespaces");
	tap_is(r.nscen, 2, "two scenarios");
	tap_ok(strcmp(r.scen[0].file, "a\tb\\c.npg") == 0, "a file name with a tab and a backslash");
	tap_is(r.scen[0].nstmts, 2, "two statements");
	tap_is(r.scen[0].stmts[0].line, 12, "with their lines");
	tap_ok(npg_field_find(&r.scen[0].stmts[0].fields, "count www in c") &&
	       strcmp(npg_field_find(&r.scen[0].stmts[0].fields, "count www in c")->value, "3") == 0,
	       "a field whose name has blanks");
	tap_ok(r.scen[0].stmts[1].reason && strcmp(r.scen[0].stmts[1].reason, "root's count\nhere") == 0,
	       "an unreproducible statement keeps its reason, newline and all");
	tap_ok(r.scen[1].error && strcmp(r.scen[1].error, "the window is in use") == 0,
	       "a scenario that could not start says why");
	npg_record_free(&r);
}

static void test_cut_short(void)
{
	struct npg_record r;
	char err[256], cut[sizeof(whole)];

	/* a guest that died in the middle of the second statement */
	snprintf(cut, sizeof(cut), "%.*s", (int)(strstr(whole, "stmt 1") - whole), whole);
	tap_is(read_text(cut, &r, err, sizeof(err)), 0, "a record cut short reads as far as it goes");
	tap_ok(!r.complete && r.nscen == 1 && r.scen[0].nstmts == 1, "and says it is not complete");
	npg_record_free(&r);
}

static void test_not_a_record(void)
{
	struct npg_record r;
	char err[256];

	tap_is(read_text("conform: 1 scenarios\n", &r, err, sizeof(err)), -1,
	       "another program's output is refused");
	tap_ok(strstr(err, "1: not a record") != NULL, "at its first line (%s)", err);
	npg_record_free(&r);
	tap_is(read_text("npg-record 1\nscenario x\nstmt 5 3\n", &r, err, sizeof(err)), -1,
	       "a statement out of order is refused");
	tap_ok(strncmp(err, "3: ", 3) == 0, "with its line (%s)", err);
	npg_record_free(&r);
	tap_is(read_text("npg-record 1\nfield result\tok\n", &r, err, sizeof(err)), -1,
	       "a field outside a statement is refused");
	npg_record_free(&r);
	tap_is(read_text("", &r, err, sizeof(err)), -1, "an empty record is refused");
	npg_record_free(&r);
}

/* The candidates of two sides: every policy, then each side's era with its release */
static void test_candidates(void)
{
	struct npg_side sides[2] = { 0 };
	struct npg_candidate c[NPG_CANDIDATES_MAX];
	int n;

	snprintf(sides[0].name, sizeof(sides[0].name), "3.0.8");
	sides[0].has_rel = npg_release_parse(&sides[0].rel, "3.0.8", NULL) == 0;
	snprintf(sides[1].name, sizeof(sides[1].name), "5.10.0-32-amd64");
	sides[1].has_rel = npg_release_parse(&sides[1].rel, "5.10.0-32-amd64",
					     "#1 SMP Debian 5.10.223-1 (2024-08-10)") == 0;
	n = npg_candidates(sides, 2, c);
	tap_is(n, NPG_NPOLICIES + 2, "eight policies and two releases");
	tap_ok(strcmp(c[NPG_NPOLICIES].label, "linux-2.6 as 3.0.8") == 0, "%s", c[NPG_NPOLICIES].label);
	tap_ok(strcmp(c[NPG_NPOLICIES + 1].label, "linux-3.1 as 5.10.223") == 0 &&
	       c[NPG_NPOLICIES + 1].release->rules.setresuid_noop_fastpath,
	       "%s, with the no-op fast path of 5.10.179", c[NPG_NPOLICIES + 1].label);
}

int main(void)
{
	test_whole();
	test_cut_short();
	test_not_a_record();
	test_candidates();
	return tap_done();
}
