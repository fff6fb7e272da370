/*
 * What one kernel did with a list of scenarios, statement by statement, in
 * the fields conform compares (runner/conform.h): written where the kernel
 * runs (`nprocguard compare --record`, in a guest or here), read back where
 * two such records are compared. Text, one item a line:
 *
 *   npg-record 1
 *   host release|version|bset|yama|suid_dumpable|no_new_privs|userns VALUE
 *   scenario FILE
 *   error MESSAGE                  the scenario could not start there
 *   root_procs N                   root's tasks outside it there, when a guest's
 *                                  own were more than the file declares
 *   stmt INDEX LINE
 *   unreproducible REASON          not run faithfully there: not compared
 *   field NAME<TAB>VALUE           after "stmt", one per field
 *   end
 *   done                           the last line: the record is whole
 *
 * Text items escape backslash, tab and newline as \\, \t and \n.
 */
#ifndef NPG_COMPARE_RECORD_H
#define NPG_COMPARE_RECORD_H

#include <stdio.h>

#include "backend/backend.h"
#include "runner/conform.h"

struct npg_record_stmt {
	int line;
	char *reason;			/* unreproducible there: why; else NULL */
	struct npg_fields fields;
};

struct npg_record_scenario {
	char *file;
	char *error;			/* could not start: why; else NULL */
	/* a guest kept more root tasks than the file declares: how many
	 * (struct npg_backend.root_raised); the model starts from them; 0 none */
	long root_procs;
	int nstmts;
	struct npg_record_stmt *stmts;	/* [nstmts], by statement index */
};

struct npg_record {
	char release[128], version[256];	/* uname -r, uname -v */
	/* what the model takes from that machine: cap_bnd, no_new_privs,
	 * yama_scope, suid_dumpable, userns, userns_legacy */
	struct npg_host host;
	int nscen;
	struct npg_record_scenario *scen;
	bool complete;			/* "done" was read */
};

/*
 * Run each scenario of @sc on the running kernel (real backend, uids from
 * @uid_base) and write its record to @out. 0, or -1 when the output could
 * not be written or memory ran out (said on stderr).
 */
int npg_record_write(const struct npg_host *host, uint32_t uid_base,
		     struct npg_scenario *const *sc, int n, FILE *out);

/*
 * Read a record. 0, or -1 with @err when it is not one (its first line),
 * or a line cannot be read: "LINE: what". A record cut short reads as far
 * as it goes, with complete false.
 */
int npg_record_read(FILE *in, struct npg_record *r, char *err, size_t errlen);
/*
 * The records of @n shards of one run (shard K: scenarios K, K+N, ...),
 * each complete, into @r, scenario by scenario in the run's order; the
 * machine is the first one's. The parts are emptied. 0, or -1 (out of
 * memory, or shards that do not fit together: said in @err).
 */
int npg_record_merge(struct npg_record *r, struct npg_record *parts, int n, char *err,
		     size_t errlen);
void npg_record_free(struct npg_record *r);

#endif
