/*
 * nprocguard status: how close each user is to RLIMIT_NPROC, as the
 * kernel counts (threads and zombies included, by real uid), and which
 * tasks carry PF_NPROC_EXCEEDED and will fail their next execve(). The
 * options, the columns and the printing; what is read, summed and
 * checked is src/tools/status/.
 */
#include <errno.h>
#include <getopt.h>
#include <libsmartcols.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <strings.h>
#include <unistd.h>

#include "cli/cli.h"
#include "identify/cache.h"
#include "model/release.h"
#include "system/procscan.h"
#include "system/taskiter.h"
#include "system/usernames.h"
#include "tools/metrics/prometheus.h"
#include "tools/status/status.h"

enum { COL_UID, COL_USER, COL_TASKS, COL_PROCS, COL_ZOMBIES, COL_NPROC, COL_NPROC_MAX,
       COL_HEADROOM, COL_FLAGGED, COL_KCOUNT, COL_EXEMPT, NUSERCOLS };
enum { TCOL_PID, TCOL_TID, TCOL_USER, TCOL_COMM, TCOL_STATE, TCOL_FLAGGED, TCOL_NPROC,
       TCOL_KCOUNT, NTASKCOLS };

/* Monitoring can tell "nothing found" from "could not see everything" */
#define NPG_EXIT_PARTIAL 3

struct colinfo {
	const char *name;
	double whint;
	int flags;
	int json_type;
	const char *help;
};

static const struct colinfo user_cols[NUSERCOLS] = {
	[COL_UID] = { "UID", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "real user id" },
	[COL_USER] = { "USER", 10, 0, SCOLS_JSON_STRING, "user name" },
	[COL_TASKS] = { "TASKS", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
			"tasks the kernel counts: processes, threads and zombies" },
	[COL_PROCS] = { "PROCS", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "processes (thread groups)" },
	[COL_ZOMBIES] = { "ZOMBIES", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
			  "exited, not yet reaped: still counted" },
	[COL_NPROC] = { "NPROC", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
			"lowest soft RLIMIT_NPROC among the user's processes (JSON: null\n"
			"              for unlimited)" },
	[COL_NPROC_MAX] = { "NPROC-MAX", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
			    "highest soft RLIMIT_NPROC among the user's processes" },
	[COL_HEADROOM] = { "HEADROOM", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
			   "NPROC minus TASKS: forks left to the most limited process\n"
			   "              (JSON: null for unlimited or exempt)" },
	[COL_FLAGGED] = { "FLAGGED", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
			  "how many tasks have PF_NPROC_EXCEEDED (a count; per task, -t,\n"
			  "              it is a boolean): their next execve() may fail" },
	[COL_KCOUNT] = { "KCOUNT", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
			 "the kernel's own RLIMIT_NPROC counter of the user (ucounts; user_struct\n"
			 "              before 5.14), which copy_process() compares: it also charges\n"
			 "              tasks of user namespaces the user created (BPF source only)" },
	[COL_EXEMPT] = { "EXEMPT", 3, SCOLS_FL_RIGHT, SCOLS_JSON_BOOLEAN,
			 "1 if copy_process() ignores the limit for every live task of the user:\n"
			 "              root, or CAP_SYS_RESOURCE/CAP_SYS_ADMIN effective (HEADROOM\n"
			 "              then reads 'exempt')" },
};

static const struct colinfo task_cols[NTASKCOLS] = {
	[TCOL_PID] = { "PID", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "process id" },
	[TCOL_TID] = { "TID", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "thread id" },
	[TCOL_USER] = { "USER", 10, 0, SCOLS_JSON_STRING, "real user" },
	[TCOL_COMM] = { "COMM", 16, 0, SCOLS_JSON_STRING, "command name" },
	[TCOL_STATE] = { "STATE", 6, 0, SCOLS_JSON_STRING, "running or zombie" },
	[TCOL_FLAGGED] = { "FLAGGED", 3, SCOLS_FL_RIGHT, SCOLS_JSON_BOOLEAN,
			   "1 if PF_NPROC_EXCEEDED is set: execve() will re-check the limit" },
	[TCOL_NPROC] = { "NPROC", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
			 "soft RLIMIT_NPROC of its process (JSON: null for unlimited)" },
	[TCOL_KCOUNT] = { "KCOUNT", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
			  "the kernel's RLIMIT_NPROC counter its real credentials are charged to" },
};

static const int user_default[] = { COL_UID, COL_USER, COL_TASKS, COL_PROCS, COL_ZOMBIES,
				    COL_NPROC, COL_HEADROOM, COL_FLAGGED };
static const int task_default[] = { TCOL_PID, TCOL_TID, TCOL_USER, TCOL_COMM, TCOL_STATE,
				    TCOL_FLAGGED, TCOL_NPROC };

static void usage(void)
{
	printf("Usage:\n nprocguard status [options]\n\n"
	       "Show each user's task count (threads and zombies included, by real uid, as\n"
	       "the kernel charges RLIMIT_NPROC) against its soft limit, and the tasks\n"
	       "flagged PF_NPROC_EXCEEDED.\n\n"
	       "Options:\n"
	       " -o, --output LIST    columns to print (\"+LIST\" adds to the default)\n"
	       "     --output-all     print all columns\n"
	       " -J, --json           use JSON output format\n"
	       " -r, --raw            use raw output format\n"
	       " -n, --noheadings     don't print headings\n"
	       " -u, --user USER      only this user (name or uid; may be repeated)\n"
	       " -s, --sort COLUMN    sort by this column\n"
	       " -t, --tasks          one row per task instead of per user\n"
	       "     --source SOURCE  where tasks are read from: proc, bpf, or auto (default:\n"
	       "                      the pinned BPF iterator if there is one; as root, one\n"
	       "                      loaded for the run (--pin spares that load); else /proc)\n"
	       "     --pin            load the BPF task iterator and pin it in bpffs, so that\n"
	       "                      later runs read every task in one pass (root, per boot)\n"
	       "     --unpin          remove that pin\n"
	       " -c, --check PERCENT  monitoring: exit 1 naming each user at PERCENT%% of its\n"
	       "                      limit or more (0 to 1000), and each flagged task; at the\n"
	       "                      limit, the cause as `nprocguard explain` names it\n"
	       "     --format FORMAT  table (default), json, or prometheus (node_exporter\n"
	       "                      textfile format)\n"
	       "     --textfile PATH  with --format prometheus: write PATH atomically\n"
	       "                      (a temporary file beside it, then rename); PATH must be\n"
	       "                      absent or a regular file (a symlink is not followed)\n"
	       " -h, --help           display this help\n\nUser columns:\n");
	for (int i = 0; i < NUSERCOLS; i++)
		printf(" %11s  %s\n", user_cols[i].name, user_cols[i].help);
	printf("\nTask columns (--tasks):\n");
	for (int i = 0; i < NTASKCOLS; i++)
		printf(" %11s  %s\n", task_cols[i].name, task_cols[i].help);
	printf("\nThe BPF iterator is pinned at %s ($NPROCGUARD_BPF_PIN overrides).\n"
	       "\nExit status: 0 ok, 1 --check found something, 2 usage or read error, 3 the view\n"
	       "is partial (/proc mounted with hidepid hides other users' tasks) and --check\n"
	       "found nothing in it.\n",
	       npg_taskiter_pin_path());
}

static int column_id(const struct colinfo *cols, int n, const char *name, size_t len)
{
	for (int i = 0; i < n; i++)
		if (strlen(cols[i].name) == len && strncasecmp(cols[i].name, name, len) == 0)
			return i;
	return -1;
}

/*
 * "A,B,C" or "+A,B" (added to the defaults) into ids; -1 (reported) on an
 * unknown or empty name: "", "+" and "A,,B" name no column, and a table of
 * none is no table
 */
static int parse_columns(const char *arg, const struct colinfo *cols, int ncols, int *ids,
			 int *n, int max)
{
	const char *p = arg;

	if (*p == '+')
		p++;
	else
		*n = 0;
	for (;;) {
		size_t len = strcspn(p, ",");
		int id = column_id(cols, ncols, p, len);
		char shown[NPG_OPTION_TEXT];

		if (len == 0) {
			npg_bad_option("status", "--output", arg, "%s (COLUMN[,COLUMN...], or "
				       "+COLUMN... to add to the default; the columns are in --help)",
				       *arg ? "an empty column name" : "empty");
			return -1;
		}
		if (id < 0) {
			npg_bad_option("status", "--output", arg, "unknown column '%s' (%s "
				       "columns are listed by --help)", npg_option_text(p, len, shown,
				       sizeof(shown)), cols == user_cols ? "the user" :
				       "with --tasks, the task");
			return -1;
		}
		if (*n == max) {
			npg_bad_option("status", "--output", arg, "more than %d columns", max);
			return -1;
		}
		ids[(*n)++] = id;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

static bool json_output;	/* JSON has no words in number columns: null instead */

/* NULL (JSON null) for unlimited in JSON */
static const char *limit_text(uint64_t v, char *buf, size_t len)
{
	if (v == UINT64_MAX && json_output)
		return NULL;
	if (v == UINT64_MAX)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

static int sort_col;

static int cmp_rows(const void *a, const void *b)
{
	const struct npg_status_user *x = a, *y = b;
	long long vx, vy;

	switch (sort_col) {
	case COL_USER:
		return strcmp(x->name, y->name);
	case COL_TASKS: vx = x->u.tasks, vy = y->u.tasks; break;
	case COL_PROCS: vx = x->u.procs, vy = y->u.procs; break;
	case COL_ZOMBIES: vx = x->u.zombies, vy = y->u.zombies; break;
	case COL_FLAGGED: vx = x->u.flagged, vy = y->u.flagged; break;
	case COL_EXEMPT: vx = npg_status_exempt(x), vy = npg_status_exempt(y); break;
	case COL_KCOUNT: vx = x->u.kernel_count, vy = y->u.kernel_count; break;
	case COL_NPROC: return x->u.nproc_min < y->u.nproc_min ? -1 : x->u.nproc_min > y->u.nproc_min;
	case COL_NPROC_MAX: return x->u.nproc_max < y->u.nproc_max ? -1 : x->u.nproc_max > y->u.nproc_max;
	case COL_HEADROOM: vx = npg_status_headroom(x), vy = npg_status_headroom(y); break;
	default: vx = x->u.uid, vy = y->u.uid; break;
	}
	return vx < vy ? -1 : vx > vy;
}

/* NULL: no value (JSON null, an empty cell) */
static const char *user_cell(const struct npg_status_user *r, int col, char *buf, size_t len)
{
	long long h;

	switch (col) {
	case COL_KCOUNT:
		if (r->u.kernel_count < 0)
			return NULL;
		snprintf(buf, len, "%lld", (long long)r->u.kernel_count);
		break;
	case COL_UID: snprintf(buf, len, "%u", r->u.uid); break;
	case COL_USER: snprintf(buf, len, "%s", r->name); break;
	case COL_TASKS: snprintf(buf, len, "%ld", r->u.tasks); break;
	case COL_PROCS: snprintf(buf, len, "%ld", r->u.procs); break;
	case COL_ZOMBIES: snprintf(buf, len, "%ld", r->u.zombies); break;
	case COL_FLAGGED: snprintf(buf, len, "%ld", r->u.flagged); break;
	case COL_NPROC: return limit_text(r->u.nproc_min, buf, len);
	case COL_NPROC_MAX: return limit_text(r->u.nproc_max, buf, len);
	case COL_EXEMPT: snprintf(buf, len, "%d", npg_status_exempt(r)); break;
	case COL_HEADROOM:
		h = npg_status_headroom(r);
		if (json_output && (npg_status_exempt(r) || h == LLONG_MAX))
			return NULL;
		if (npg_status_exempt(r))
			snprintf(buf, len, "exempt");
		else if (h == LLONG_MAX)
			snprintf(buf, len, "unlimited");
		else
			snprintf(buf, len, "%lld", h);
		break;
	}
	return buf;
}

static struct libscols_table *new_table(bool json, bool raw, bool noheadings, const char *name)
{
	struct libscols_table *tb = scols_new_table();

	if (!tb)
		return NULL;
	scols_table_enable_json(tb, json);
	scols_table_set_name(tb, name);
	scols_table_enable_raw(tb, raw);
	scols_table_enable_noheadings(tb, noheadings);
	return tb;
}

static int add_columns(struct libscols_table *tb, const struct colinfo *cols, const int *ids, int n)
{
	for (int i = 0; i < n; i++) {
		struct libscols_column *cl = scols_table_new_column(tb, cols[ids[i]].name,
								    cols[ids[i]].whint,
								    cols[ids[i]].flags);

		if (!cl)
			return -1;
		scols_column_set_json_type(cl, cols[ids[i]].json_type);
	}
	return 0;
}

/*
 * --check's findings: a line of text each, or with -J an object of the
 * "check" array: kind ("user", "exempt", "refused", "machine" or "task"),
 * uid, tid (null for a user), and the sentence.
 */
static void print_finding(void *ctx, const char *kind, uint32_t uid, pid_t tid, const char *text)
{
	struct libscols_table *check_json = ctx;
	struct libscols_line *ln;
	char num[32];

	if (!check_json) {
		printf("%s\n", text);
		return;
	}
	ln = scols_table_new_line(check_json, NULL);
	if (!ln)
		return;
	scols_line_set_data(ln, 0, kind);
	snprintf(num, sizeof(num), "%u", uid);
	scols_line_set_data(ln, 1, num);
	snprintf(num, sizeof(num), "%d", (int)tid);
	scols_line_set_data(ln, 2, tid ? num : NULL);
	scols_line_set_data(ln, 3, text);
}

/* --check: problems on stdout, one line each (or JSON); 1 if any */
static int check(struct npg_status_user *rows, size_t n, const struct npg_scan *s, double percent,
		 const uint32_t *users, int nusers, bool json)
{
	static const struct { const char *name; int type; } cols[] = {
		{ "kind", SCOLS_JSON_STRING }, { "uid", SCOLS_JSON_NUMBER },
		{ "tid", SCOLS_JSON_NUMBER }, { "message", SCOLS_JSON_STRING },
	};
	struct libscols_table *check_json = NULL;
	int found;

	if (json) {
		check_json = new_table(true, false, false, "check");
		for (size_t i = 0; check_json && i < sizeof(cols) / sizeof(cols[0]); i++) {
			struct libscols_column *cl = scols_table_new_column(check_json, cols[i].name, 0, 0);

			if (cl)
				scols_column_set_json_type(cl, cols[i].type);
		}
	}
	found = npg_status_check(rows, n, s, percent, users, nusers, print_finding, check_json);
	if (check_json) {
		scols_print_table(check_json);
		scols_unref_table(check_json);
	}
	return found;
}

/*
 * libsmartcols 2.38 prints nothing at all for a table without lines: print
 * the header it would have printed, as lsns and lsblk show an empty table.
 */
static int print_table(struct libscols_table *tb, bool json, bool noheadings)
{
	if (json || noheadings || scols_table_get_nlines(tb) > 0)
		return scols_print_table(tb);
	for (size_t i = 0; i < scols_table_get_ncols(tb); i++) {
		struct libscols_column *cl = scols_table_get_column(tb, i);

		printf("%s%s", i ? " " : "", scols_cell_get_data(scols_column_get_header(cl)));
	}
	putchar('\n');
	return 0;
}

static int print_users(struct npg_status_user *rows, size_t n, const int *cols, int ncols, bool json,
		       bool raw, bool noheadings)
{
	struct libscols_table *tb = new_table(json, raw, noheadings, "users");
	char buf[64];
	int rc;

	if (!tb || add_columns(tb, user_cols, cols, ncols) < 0)
		return -1;
	qsort(rows, n, sizeof(*rows), cmp_rows);
	for (size_t i = 0; i < n; i++) {
		struct libscols_line *ln;

		if (!rows[i].shown)
			continue;
		ln = scols_table_new_line(tb, NULL);
		if (!ln)
			return -1;
		for (int c = 0; c < ncols; c++) {
			scols_line_set_data(ln, (size_t)c,
					    user_cell(&rows[i], cols[c], buf, sizeof(buf)));
		}
	}
	rc = print_table(tb, json, noheadings);
	scols_unref_table(tb);
	return rc;
}

static const struct npg_status_user *task_rows;	/* for the task sort by USER */
static size_t task_nrows;

static const char *task_user(uint32_t uid)
{
	const struct npg_status_user *r = npg_status_find(task_rows, task_nrows, uid);

	return r ? r->name : "";
}

static int cmp_tasks(const void *a, const void *b)
{
	const struct npg_scan_task *x = a, *y = b;
	long long vx, vy;

	switch (sort_col) {
	case TCOL_USER: return strcmp(task_user(x->ruid), task_user(y->ruid));
	case TCOL_COMM: return strcmp(x->comm, y->comm);
	case TCOL_TID: vx = x->tid, vy = y->tid; break;
	case TCOL_STATE: vx = x->zombie, vy = y->zombie; break;
	case TCOL_FLAGGED: vx = x->flagged, vy = y->flagged; break;
	case TCOL_KCOUNT: vx = x->kernel_count, vy = y->kernel_count; break;
	case TCOL_NPROC: return x->nproc_soft < y->nproc_soft ? -1 : x->nproc_soft > y->nproc_soft;
	default: vx = x->pid, vy = y->pid; break;
	}
	if (vx == vy)	/* a stable order: pid, tid */
		return x->pid != y->pid ? (x->pid < y->pid ? -1 : 1) : (x->tid > y->tid) - (x->tid < y->tid);
	return vx < vy ? -1 : 1;
}

/* @rows sorted by uid: the names come from there */
static int print_tasks(struct npg_scan *s, const struct npg_status_user *rows, size_t nrows,
		       const int *cols, int ncols, bool json, bool raw, bool noheadings,
		       const uint32_t *users, int nusers)
{
	struct libscols_table *tb = new_table(json, raw, noheadings, "tasks");
	char buf[64];
	int rc;

	if (!tb || add_columns(tb, task_cols, cols, ncols) < 0)
		return -1;
	task_rows = rows;
	task_nrows = nrows;
	if (sort_col != TCOL_PID)
		qsort(s->tasks, s->ntasks, sizeof(s->tasks[0]), cmp_tasks);
	for (size_t i = 0; i < s->ntasks; i++) {
		const struct npg_scan_task *t = &s->tasks[i];
		struct libscols_line *ln;

		if (!npg_status_wanted(t->ruid, users, nusers))
			continue;
		ln = scols_table_new_line(tb, NULL);
		if (!ln)
			return -1;
		for (int c = 0; c < ncols; c++) {
			const char *cell = buf;

			switch (cols[c]) {
			case TCOL_PID: snprintf(buf, sizeof(buf), "%d", (int)t->pid); break;
			case TCOL_TID: snprintf(buf, sizeof(buf), "%d", (int)t->tid); break;
			case TCOL_USER: {
				const struct npg_status_user *r = npg_status_find(rows, nrows, t->ruid);

				cell = r ? r->name : NULL;
				break;
			}
			case TCOL_COMM: snprintf(buf, sizeof(buf), "%s", t->comm); break;
			case TCOL_STATE: snprintf(buf, sizeof(buf), "%s", t->zombie ? "zombie" : "running"); break;
			case TCOL_FLAGGED: snprintf(buf, sizeof(buf), "%d", t->flagged); break;
			case TCOL_NPROC: cell = limit_text(t->nproc_soft, buf, sizeof(buf)); break;
			case TCOL_KCOUNT:
				if (t->kernel_count < 0)
					cell = NULL;
				else
					snprintf(buf, sizeof(buf), "%lld", (long long)t->kernel_count);
				break;
			}
			scols_line_set_data(ln, (size_t)c, cell);
		}
	}
	rc = print_table(tb, json, noheadings);
	scols_unref_table(tb);
	return rc;
}

static bool needs_names(bool tasks, const int *cols, int ncols, int sort)
{
	if (!tasks && sort == COL_USER)
		return true;
	for (int i = 0; i < ncols; i++)
		if (tasks ? cols[i] == TCOL_USER : cols[i] == COL_USER)
			return true;
	return false;
}

/* /proc/PID/limits is the costliest file: read it only when a column needs it */
static bool needs_limits(bool tasks, const int *cols, int ncols, bool checking, int sort)
{
	if (checking)
		return true;
	if (!tasks && (sort == COL_NPROC || sort == COL_NPROC_MAX || sort == COL_HEADROOM))
		return true;
	for (int i = 0; i < ncols; i++)
		if (tasks ? cols[i] == TCOL_NPROC
			  : (cols[i] == COL_NPROC || cols[i] == COL_NPROC_MAX || cols[i] == COL_HEADROOM))
			return true;
	return false;
}

static int pin_action(bool pin)
{
	const char *path = npg_taskiter_pin_path(), *why = NULL;
	bool mounted = false;

	if (!pin) {
		if (npg_taskiter_unpin(path, &why) < 0) {
			fprintf(stderr, "nprocguard status: %s: %s: %s\n", path, why, strerror(errno));
			return NPG_EXIT_USAGE;
		}
		return NPG_EXIT_OK;
	}
	if (npg_taskiter_pin(path, &mounted, &why) < 0) {
		fprintf(stderr, "nprocguard status: %s: %s: %s\n", path, why, strerror(errno));
		return NPG_EXIT_USAGE;
	}
	if (mounted)
		printf("nprocguard status: mounted a bpf filesystem at /sys/fs/bpf (mode 0700)\n");
	printf("nprocguard status: BPF task iterator pinned at %s\n", path);
	return NPG_EXIT_OK;
}

/*
 * --format prometheus: every user's figures and every limited pids cgroup
 * in the node_exporter textfile format, written atomically to @path.
 */
static int write_metrics(const char *source, const char *path)
{
	struct npg_scan scan;
	struct npg_scan_user *users;
	bool partial = false;
	char why[512];
	size_t n;
	int rc;

	memset(&scan, 0, sizeof(scan));
	if (npg_status_scan(&scan, source, true, &partial) < 0)
		return NPG_EXIT_USAGE;
	rc = npg_scan_users(&scan, &users, &n);
	npg_scan_free(&scan);
	if (rc < 0) {
		fprintf(stderr, "nprocguard status: out of memory\n");
		return NPG_EXIT_USAGE;
	}
	rc = npg_prometheus_write(path, users, n, "", why, sizeof(why));
	free(users);
	if (rc < 0) {
		npg_textfile_failed("status", why);
		return NPG_EXIT_USAGE;
	}
	return partial ? NPG_EXIT_PARTIAL : NPG_EXIT_OK;
}

/*
 * The kernel's version names its rules; when identify found others for
 * this boot, one line on stderr says so (the table and JSON stay as they
 * are: a script reads them)
 */
static void say_identified(bool json)
{
	struct npg_release rel;
	struct utsname u;
	char line[1200];

	if (json || uname(&u) < 0 || npg_running_release(&rel) < 0)
		return;
	if (npg_identified_differs(&rel, u.release, line, sizeof(line)))
		fprintf(stderr, "nprocguard status: %s\n", line);
}

int npg_cmd_status(int argc, char **argv)
{
	enum { OPT_OUTPUT_ALL = 256, OPT_SOURCE, OPT_PIN, OPT_UNPIN, OPT_FORMAT, OPT_TEXTFILE };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "output-all", no_argument, NULL, OPT_OUTPUT_ALL },
		{ "json", no_argument, NULL, 'J' },
		{ "raw", no_argument, NULL, 'r' },
		{ "noheadings", no_argument, NULL, 'n' },
		{ "user", required_argument, NULL, 'u' },
		{ "sort", required_argument, NULL, 's' },
		{ "tasks", no_argument, NULL, 't' },
		{ "check", required_argument, NULL, 'c' },
		{ "source", required_argument, NULL, OPT_SOURCE },
		{ "pin", no_argument, NULL, OPT_PIN },
		{ "unpin", no_argument, NULL, OPT_UNPIN },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "textfile", required_argument, NULL, OPT_TEXTFILE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int cols[32], ncols = -1, c, rc = NPG_EXIT_OK, nusers = 0;
	uint32_t users[64];
	const char *output = NULL, *sort = NULL, *source = "auto";
	bool pin = false, unpin = false, partial = false, prom = false;
	const char *textfile = NULL;
	bool json = false, raw = false, noheadings = false, tasks = false, all = false;
	double percent = -1;	/* --check: 0 to 1000 */
	struct npg_scan scan;
	struct npg_usernames *names = NULL;
	struct npg_status_user *rows;
	size_t nrows = 0;
	char *end;

	while ((c = getopt_long(argc, argv, "o:Jrnu:s:tc:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': output = optarg; break;
		case OPT_OUTPUT_ALL: all = true; break;
		case 'J': json = true; break;
		case 'r': raw = true; break;
		case 'n': noheadings = true; break;
		case 't': tasks = true; break;
		case 's': sort = optarg; break;
		case 'u':
			if (nusers == 64) {
				npg_bad_option("status", "--user", optarg, "more than 64 --user");
				npg_usage_error("status");
			}
			if (npg_parse_user("status", optarg, &users[nusers]) < 0)
				npg_usage_error("status");
			nusers++;
			break;
		case 'c':
			/* strtod() would skip blanks and take nan, inf, 0x... */
			errno = 0;
			percent = strtod(optarg, &end);
			if (errno || end == optarg || (*optarg < '0' || *optarg > '9') ||
			    (*end && strcmp(end, "%") != 0) || !(percent >= 0) || percent > 1000) {
				npg_bad_option("status", "--check", optarg, "a percentage from 0 to "
					       "1000, optionally followed by %%");
				npg_usage_error("status");
			}
			break;
		case OPT_SOURCE:
			if (strcmp(optarg, "auto") && strcmp(optarg, "bpf") && strcmp(optarg, "proc")) {
				fprintf(stderr, "nprocguard status: bad --source '%s' (auto, bpf or proc)\n",
					optarg);
				npg_usage_error("status");
			}
			source = optarg;
			break;
		case OPT_PIN: pin = true; break;
		case OPT_UNPIN: unpin = true; break;
		case OPT_FORMAT:
			if (strcmp(optarg, "prometheus") == 0)
				prom = true;
			else if (strcmp(optarg, "json") == 0)
				json = true;
			else if (strcmp(optarg, "table") != 0) {
				fprintf(stderr, "nprocguard status: bad --format '%.64s' (table, json or "
					"prometheus)\n", optarg);
				npg_usage_error("status");
			}
			break;
		case OPT_TEXTFILE: textfile = optarg; break;
		case 'h': usage(); return NPG_EXIT_OK;
		default: npg_usage_error("status");
		}
	}
	if (pin || unpin) {
		if (pin && unpin) {
			fprintf(stderr, "nprocguard status: --pin and --unpin exclude each other\n");
			npg_usage_error("status");
		}
		return pin_action(pin);
	}
	if (optind < argc) {
		fprintf(stderr, "nprocguard status: unexpected argument '%s'\n", argv[optind]);
		npg_usage_error("status");
	}
	if (textfile && !prom) {
		fprintf(stderr, "nprocguard status: --textfile goes with --format prometheus\n");
		npg_usage_error("status");
	}
	if (textfile && npg_check_textfile("status", textfile) < 0)
		return NPG_EXIT_USAGE;	/* before the scan, before anything is written */
	if (prom)
		return write_metrics(source, textfile ? textfile : "-");
	if (json && raw) {
		fprintf(stderr, "nprocguard status: --json and --raw exclude each other\n");
		npg_usage_error("status");
	}
	json_output = json;
	{
		const struct colinfo *info = tasks ? task_cols : user_cols;
		int ninfo = tasks ? NTASKCOLS : NUSERCOLS;
		const int *def = tasks ? task_default : user_default;
		int ndef = tasks ? (int)(sizeof(task_default) / sizeof(int))
				 : (int)(sizeof(user_default) / sizeof(int));

		ncols = 0;
		for (int i = 0; i < (all ? ninfo : ndef); i++)
			cols[ncols++] = all ? i : def[i];
		if (output && parse_columns(output, info, ninfo, cols, &ncols, 32) < 0)
			npg_usage_error("status");
		sort_col = COL_UID;	/* TCOL_PID with --tasks */
		if (sort) {
			sort_col = column_id(info, ninfo, sort, strlen(sort));
			if (sort_col < 0) {
				npg_bad_option("status", "--sort", sort, "%s%s (sort by one of the "
					       "%s columns listed by --help)", *sort ? "no such column" :
					       "empty", tasks && *sort ? " with --tasks" : "",
					       tasks ? "task" : "user");
				npg_usage_error("status");
			}
		}
	}
	memset(&scan, 0, sizeof(scan));
	if (percent < 0 && needs_names(tasks, cols, ncols, sort_col)) {
		names = npg_usernames_new();
		if (!names) {
			fprintf(stderr, "nprocguard status: out of memory\n");
			return NPG_EXIT_USAGE;
		}
		/* without --user, every uid is shown: look names up while scanning */
		if (nusers == 0)
			scan.names = names;
	}
	if (npg_status_scan(&scan, source, needs_limits(tasks, cols, ncols, percent >= 0, sort_col),
		       &partial) < 0) {
		npg_usernames_free(names);
		return NPG_EXIT_USAGE;
	}
	rows = npg_status_users(&scan, users, nusers, &nrows);
	if (!rows && scan.ntasks) {
		npg_scan_free(&scan);
		npg_usernames_free(names);
		fprintf(stderr, "nprocguard status: out of memory\n");
		return NPG_EXIT_USAGE;
	}
	if (percent >= 0)
		rc = check(rows, nrows, &scan, percent, users, nusers, json) ? NPG_EXIT_FAILED : NPG_EXIT_OK;
	else if (names)
		npg_status_name_users(names, rows, nrows);
	if (percent < 0 &&
	    (tasks ? print_tasks(&scan, rows, nrows, cols, ncols, json, raw, noheadings, users, nusers)
		   : print_users(rows, nrows, cols, ncols, json, raw, noheadings)) < 0) {
		fprintf(stderr, "nprocguard status: %s\n", strerror(errno));
		rc = NPG_EXIT_USAGE;
	}
	if (rc == NPG_EXIT_OK && partial)
		rc = NPG_EXIT_PARTIAL;
	say_identified(json);
	/* a write error on stdout is reported, exit 2, by npg_close_stdout() at exit */
	free(rows);
	npg_scan_free(&scan);
	npg_usernames_free(names);
	return rc;
}
