/*
 * The scenario arguments of every command that reads them (run, conform,
 * export, explore, compare), one rule for all: a file is read as named;
 * "-" is standard input, once; a directory stands for the *.npg files
 * under it that the command reads -- sequential ones for run, conform,
 * export and compare, concurrent ones ("TASK runs:") for explore -- in
 * sorted order, its subdirectories included, names beginning with a dot
 * left out, and no symbolic link followed (as find(1) does by default: a
 * link to a directory above would give the same files again under ever
 * longer paths). A file system loop (a bind mount of a directory inside
 * itself) is said and not entered twice, as find says it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/scenario_files.h"
#include "explore/program.h"
#include "scenario/scenario.h"

/* The directories being walked, outermost first: a loop returns to one */
struct ancestor {
	dev_t dev;
	ino_t ino;
	const char *path;
	const struct ancestor *up;
};

struct walk {
	const char *cmd;
	struct npg_scenario_files *out;
	bool concurrent;
	int found, other;	/* files of the kind, of the other kind */
};

static int add(const char *cmd, struct npg_scenario_files *f, const char *path)
{
	char **grown, *copy;

	if (f->n == f->cap) {
		int cap = f->cap ? 2 * f->cap : 64;

		if (!(grown = realloc(f->path, (size_t)cap * sizeof(*grown))))
			goto nomem;
		f->path = grown;
		f->cap = cap;
	}
	if (!(copy = strdup(path)))
		goto nomem;
	f->path[f->n++] = copy;
	return 0;
nomem:
	fprintf(stderr, "nprocguard %s: out of memory\n", cmd);
	return -1;
}

static bool is_npg(const char *name)
{
	size_t len = strlen(name);

	return len > 4 && strcmp(name + len - 4, ".npg") == 0;
}

static int walk_dir(struct walk *w, const char *dir, const struct stat *st,
		    const struct ancestor *up)
{
	struct ancestor here = { st->st_dev, st->st_ino, dir, up };
	struct dirent **ents;
	int n, rc = 0;

	for (const struct ancestor *a = up; a; a = a->up)
		if (a->dev == st->st_dev && a->ino == st->st_ino) {
			fprintf(stderr, "nprocguard %s: %s: file system loop detected; it is the same "
				"directory as %s: not entered again\n", w->cmd, dir, a->path);
			return 0;
		}
	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "nprocguard %s: %s: %s\n", w->cmd, dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		char *path;
		struct stat sub;

		if (name[0] == '.' || rc < 0)
			continue;
		if (asprintf(&path, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", name) < 0) {
			fprintf(stderr, "nprocguard %s: out of memory\n", w->cmd);
			rc = -1;
			continue;
		}
		/* lstat: a symbolic link is neither a directory nor a regular file here */
		if (lstat(path, &sub) < 0) {
			fprintf(stderr, "nprocguard %s: %s: %s\n", w->cmd, path, strerror(errno));
			rc = -1;
		} else if (S_ISDIR(sub.st_mode)) {
			rc = walk_dir(w, path, &sub, &here);
		} else if (S_ISREG(sub.st_mode) && is_npg(name)) {
			/* one we cannot read is kept, for the reader to say why, not skipped */
			if (access(path, R_OK) == 0 &&
			    npg_cprog_is_concurrent_file(path) != w->concurrent)
				w->other++;
			else if ((rc = add(w->cmd, w->out, path)) == 0)
				w->found++;
		}
		free(path);
	}
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	return rc;
}

int npg_scenario_files(const char *cmd, char *const *args, int nargs, bool concurrent,
		       struct npg_scenario_files *out)
{
	memset(out, 0, sizeof(*out));
	out->stdin_index = -1;
	for (int i = 0; i < nargs; i++) {
		const char *arg = args[i];
		struct stat st;

		if (strcmp(arg, "-") == 0) {
			if (out->has_stdin) {
				fprintf(stderr, "nprocguard %s: - (standard input) given twice: it can "
					"be read once\n", cmd);
				goto fail;
			}
			out->has_stdin = true;
			out->stdin_index = out->n;
			if (add(cmd, out, arg) < 0)
				goto fail;
		} else if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
			/* named on the command line: followed, as find -H would */
			struct walk w = { .cmd = cmd, .out = out, .concurrent = concurrent };

			if (walk_dir(&w, arg, &st, NULL) < 0)
				goto fail;
			if (w.found == 0) {
				fprintf(stderr, "nprocguard %s: %s: a directory with no %s scenario "
					"(*.npg) in it (%d %s: %s)\n", cmd, arg,
					concurrent ? "concurrent" : "sequential", w.other,
					concurrent ? "sequential ones; name one to explore its one "
						     "interleaving" : "concurrent ones",
					concurrent ? "or run them" : "for nprocguard explore");
				goto fail;
			}
		} else if (add(cmd, out, arg) < 0) {	/* read as named; the reader says what is wrong */
			goto fail;
		}
	}
	return 0;
fail:
	npg_scenario_files_free(out);
	return -1;
}

/*
 * The copy of standard input is removed when a signal ends the command:
 * the guest's clean-up restores these handlers and raises the signal
 * again (npg_guest_release_signals()), which lands here last
 */
static char copy_file[PATH_MAX], copy_dir[PATH_MAX];
static const int fatal[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static struct sigaction fatal_saved[4];

static void remove_copy_and_die(int sig)
{
	unlink(copy_file);
	rmdir(copy_dir);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void remove_copy_on_signal(const char *path)
{
	struct sigaction sa = { .sa_handler = remove_copy_and_die };
	char *slash;

	snprintf(copy_file, sizeof(copy_file), "%s", path);
	snprintf(copy_dir, sizeof(copy_dir), "%s", path);
	if ((slash = strrchr(copy_dir, '/')))
		*slash = '\0';
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 4; i++)
		sigaction(fatal[i], &sa, &fatal_saved[i]);
}

int npg_scenario_files_copy_stdin(const char *cmd, struct npg_scenario_files *f)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4096], *path = NULL, *text;
	size_t len;
	FILE *out;

	if (!f->has_stdin)
		return 0;
	if (!(text = npg_scenario_read("-", "<stdin>", &len, stderr)))
		return -1;
	snprintf(dir, sizeof(dir), "%s/nprocguard-stdin.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir) || asprintf(&path, "%s/stdin.npg", dir) < 0 || !(out = fopen(path, "w"))) {
		fprintf(stderr, "nprocguard %s: a copy of standard input in %s: %s\n", cmd, dir,
			strerror(errno));
		if (path)
			rmdir(dir);
		free(path);
		free(text);
		return -1;
	}
	if (fwrite(text, 1, len, out) != len || fclose(out) != 0) {
		fprintf(stderr, "nprocguard %s: %s: %s\n", cmd, path, strerror(errno));
		unlink(path);
		rmdir(dir);
		free(path);
		free(text);
		return -1;
	}
	free(text);
	free(f->path[f->stdin_index]);
	f->path[f->stdin_index] = path;
	f->stdin_copy = path;
	remove_copy_on_signal(path);
	return 0;
}

int npg_scenario_files_copyable(const char *cmd, const struct npg_scenario_files *f)
{
	for (int i = 0; i < f->n; i++) {
		struct stat st;

		if (i == f->stdin_index || stat(f->path[i], &st) < 0)
			continue;	/* "-" is copied; a missing file is said by the reader */
		if (!S_ISREG(st.st_mode)) {
			fprintf(stderr, "nprocguard %s: %s: %s, not a regular file: the run in a guest "
				"or a child process reads regular files only (give it as -, standard "
				"input)\n",
				cmd, f->path[i], S_ISFIFO(st.st_mode) ? "a FIFO or a pipe" :
				S_ISCHR(st.st_mode) ? "a character device" : S_ISSOCK(st.st_mode) ?
				"a socket" : S_ISBLK(st.st_mode) ? "a block device" : "not a file");
			return -1;
		}
	}
	return 0;
}

struct npg_scenario *npg_scenario_files_load(const struct npg_scenario_files *f, int i,
					     const char *stdin_file)
{
	/* the copy of standard input, made by the command that ran this one */
	if (stdin_file && strcmp(f->path[i], stdin_file) == 0)
		return npg_scenario_load_as(f->path[i], "<stdin>", stderr);
	if (f->stdin_copy && i == f->stdin_index)
		return npg_scenario_load_as(f->path[i], "<stdin>", stderr);
	return npg_scenario_load(f->path[i], stderr);
}

void npg_scenario_files_free(struct npg_scenario_files *f)
{
	if (f->stdin_copy) {
		char *slash = strrchr(f->stdin_copy, '/');

		for (int i = 0; i < 4; i++)
			sigaction(fatal[i], &fatal_saved[i], NULL);
		unlink(f->stdin_copy);
		*slash = '\0';
		rmdir(f->stdin_copy);
		f->stdin_copy = NULL;	/* freed below, as path[stdin_index] */
	}
	for (int i = 0; i < f->n; i++)
		free(f->path[i]);
	free(f->path);
	memset(f, 0, sizeof(*f));
}
