/*
 * Progress of a long run on a terminal, as dd status=progress or pv show
 * it: items done, rate, time left, on one line of stderr rewritten in
 * place. Only when stdout and stderr are both terminals (nothing in a pipe,
 * a file or a log), not before a second has passed, at most five times a
 * second, and erased before anything else is written.
 */
#ifndef NPG_REPORT_PROGRESS_H
#define NPG_REPORT_PROGRESS_H

#include <stdbool.h>
#include <time.h>

struct npg_progress {
	bool enabled;
	bool shown;		/* a line is on the terminal now */
	const char *cmd;	/* "run" */
	char label[96];		/* the file, escaped */
	const char *unit;	/* "steps" */
	long total;
	struct timespec start;
	double last;		/* when the line was last drawn, seconds after start */
	double after;		/* seconds before the first line: 1, or NPG_PROGRESS_AFTER_MS */
};

/* Enabled iff stdout and stderr are terminals. */
void npg_progress_init(struct npg_progress *p, const char *cmd);
/* A new item to count: @total @unit of @label (may be NULL); the clock restarts. */
void npg_progress_begin(struct npg_progress *p, const char *label, long total, const char *unit);
/* @done of the total: redraw if it is time to. */
void npg_progress_update(struct npg_progress *p, long done);
/* Erase the line, if one is shown; before any other output. */
void npg_progress_clear(struct npg_progress *p);

#endif
