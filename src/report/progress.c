/* The progress line of long runs (see progress.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/progress.h"
#include "report/report.h"

#define PROGRESS_INTERVAL 0.2	/* seconds between two redraws */

static double since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

void npg_progress_init(struct npg_progress *p, const char *cmd)
{
	const char *after = getenv("NPG_PROGRESS_AFTER_MS");
	const char *want = getenv("NPG_PROGRESS");

	memset(p, 0, sizeof(*p));
	p->cmd = cmd;
	/* NPG_PROGRESS=0: a terminal nobody watches (a guest's serial port) */
	p->enabled = isatty(STDOUT_FILENO) && isatty(STDERR_FILENO) &&
		     !(want && strcmp(want, "0") == 0);
	/* the tests' way to see the line without waiting a second */
	p->after = after && *after ? atof(after) / 1000.0 : 1.0;
}

void npg_progress_begin(struct npg_progress *p, const char *label, long total, const char *unit)
{
	if (!p || !p->enabled)
		return;
	npg_progress_clear(p);
	npg_safe_text(label ? label : "", p->label, sizeof(p->label));
	p->total = total;
	p->unit = unit;
	p->last = -1;
	clock_gettime(CLOCK_MONOTONIC, &p->start);
}

static void format_duration(double s, char *buf, size_t len)
{
	long t = (long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, len, "%ldh %02ldm", t / 3600, t / 60 % 60);
	else if (t >= 60)
		snprintf(buf, len, "%ldm %02lds", t / 60, t % 60);
	else
		snprintf(buf, len, "%lds", t);
}

void npg_progress_update(struct npg_progress *p, long done)
{
	double elapsed, rate;
	char left[32] = "";

	if (!p || !p->enabled)
		return;
	elapsed = since(&p->start);
	if (elapsed < p->after || (p->last >= 0 && elapsed - p->last < PROGRESS_INTERVAL))
		return;
	p->last = elapsed;
	rate = elapsed > 0 ? (double)done / elapsed : 0;
	if (rate > 0 && done < p->total) {
		char d[24];

		format_duration((double)(p->total - done) / rate, d, sizeof(d));
		snprintf(left, sizeof(left), ", %s left", d);
	}
	/* \r and "erase to end of line": the line is rewritten in place */
	fprintf(stderr, "\rnprocguard %s: %s%s%ld/%ld %s, %.0f/s%s\033[K", p->cmd, p->label,
		p->label[0] ? ": " : "", done, p->total, p->unit, rate, left);
	fflush(stderr);
	p->shown = true;
}

void npg_progress_clear(struct npg_progress *p)
{
	if (!p || !p->shown)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	p->shown = false;
}
