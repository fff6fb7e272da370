#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/random.h"

#define MAX_GEN_TASKS 24

/* xorshift64*: small, fast, and the same everywhere */
struct rng {
	uint64_t s;
};

static uint64_t next(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545F4914F6CDD1DULL;
}

static int pick(struct rng *r, int n)
{
	return (int)(next(r) % (uint64_t)n);
}

struct gen {
	struct rng rng;
	unsigned flags;
	char *buf;
	size_t len, used;
	bool overflow;
	int ntasks;
	struct {
		char name[16];
		bool alive, thread;
		int leader, parent;
		int ns;		/* 0, or 1 + the generated namespace it is in */
	} t[MAX_GEN_TASKS];
	int nuserns;
};

static void out(struct gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void out(struct gen *g, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (g->overflow)
		return;
	va_start(ap, fmt);
	n = vsnprintf(g->buf + g->used, g->len - g->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= g->len - g->used)
		g->overflow = true;
	else
		g->used += (size_t)n;
}

static const char *const users[] = { "root", "u1", "u2", "u3" };
/*
 * Uids no `user` line names, as files written from probe programs give
 * them: each is a user all the same (counted, mapped into the run's uid
 * window), and stands wherever a user's name may
 */
static const char *const numeric_uids[] = { "2001", "2002" };
static const char *const caps[] = { "setuid", "setgid", "sys_admin", "sys_resource", "setpcap",
				    "kill", "setfcap", "sys_ptrace", "net_raw" };

static const char *const secbits[] = { "noroot", "noroot-locked", "no-setuid-fixup",
				       "no-setuid-fixup-locked", "keep-caps", "keep-caps-locked",
				       "no-cap-ambient-raise", "no-cap-ambient-raise-locked" };
/* what execve may find: declared in every scenario */
static const char *const files[] = { "/nonexistent", "/usr/bin/passwd", "/usr/bin/su1",
				     "/usr/bin/newgrp", "/usr/bin/ping", "/media/usb/passwd",
				     "/opt/ctr/ping" };

/* one of the first six capabilities, or of all nine with NPG_RANDOM_WIDE */
static const char *any_cap(struct gen *g)
{
	return caps[pick(&g->rng, g->flags & NPG_RANDOM_WIDE ? 9 : 6)];
}

/* users[from..3] by name, or now and then a uid no line names */
static const char *user(struct gen *g, int from)
{
	if (pick(&g->rng, 5) == 0)
		return numeric_uids[pick(&g->rng, 2)];
	return users[from + pick(&g->rng, 4 - from)];
}

/* a name, or a small number: the ids a namespace's maps make mean something */
static const char *any_id(struct gen *g, bool allow_none)
{
	if (allow_none && pick(&g->rng, 5) == 0)
		return "-1";
	if (pick(&g->rng, 6) == 0)
		return (const char *[]){ "1", "2" }[pick(&g->rng, 2)];
	return user(g, 0);
}

#define MAX_GEN_USERNS 4

/*
 * unshare user with maps a privileged writer may write: one id (what
 * `unshare -r` and rootless containers make), several ranges, a uid map
 * alone, none, or lines that overlap (EINVAL). A first-level namespace
 * maps kernel ids (the scenario's users); a nested one, ids of its parent.
 */
static void gen_maps(struct gen *g, bool nested, char *map, size_t len)
{
	const char *one = nested ? (const char *[]){ "0", "1" }[pick(&g->rng, 2)] : user(g, 0);

	switch (pick(&g->rng, 6)) {
	case 0:
		map[0] = '\0';
		break;
	case 1:
		snprintf(map, len, " uidmap 0 %s 1", one);
		break;
	case 2:
		snprintf(map, len, " uidmap 0 %s 1, 1 %s 2 gidmap 0 %s 1, 1 %s 2",
			 nested ? "1" : "root", nested ? "2" : "u1", nested ? "1" : "root",
			 nested ? "2" : "u1");
		break;
	case 3:
		snprintf(map, len, " uidmap 0 %s 1, 0 %s 1", one, nested ? "2" : "u2");
		break;
	default:
		snprintf(map, len, " uidmap 0 %s 1 gidmap 0 %s 1", one, one);
		break;
	}
}

static int add_task(struct gen *g, const char *prefix, bool thread, int leader, int parent);

static void unshare(struct gen *g, int a)
{
	char map[96];

	if (g->nuserns == MAX_GEN_USERNS)
		return;
	/*
	 * NPG_RANDOM_WIDE: now and then `unshare -r` itself -- the task writes
	 * its own uid map, uid 0 inside for the id it has, after dropping
	 * CAP_SETFCAP half the time: what 5.12's verify_root_map() refuses
	 */
	if ((g->flags & NPG_RANDOM_WIDE) && pick(&g->rng, 3) == 0) {
		if (pick(&g->rng, 2))
			out(g, "%s: capset drop setfcap\n", g->t[a].name);
		g->nuserns++;
		out(g, "%s: unshare user ns%d\n%s: write %s uid_map 0 %s 1\n", g->t[a].name, g->nuserns,
		    g->t[a].name, g->t[a].name, pick(&g->rng, 2) ? "root" : user(g, 1));
		g->t[a].ns = g->nuserns;
		return;
	}
	/* no maps at all half the time: `write` steps may follow */
	gen_maps(g, g->t[a].ns != 0, map, sizeof(map));
	g->nuserns++;
	out(g, "%s: unshare user ns%d%s\n", g->t[a].name, g->nuserns, map);
	/* a threaded process gets EINVAL: the model and the kernel decide; this
	 * bookkeeping only chooses between kernel ids and a parent's ids */
	g->t[a].ns = g->nuserns;
}

/* clone(CLONE_NEWUSER): the child in a new namespace, maps by the harness or none */
static void clone_user(struct gen *g, int a)
{
	char map[96];
	int c;

	if (g->nuserns == MAX_GEN_USERNS || g->ntasks == MAX_GEN_TASKS)
		return;
	gen_maps(g, g->t[a].ns != 0, map, sizeof(map));
	/* 2.6.39-3.4: no map can be written (ENOENT), so mostly none */
	if ((g->flags & NPG_RANDOM_USERNS_2_6_39) && pick(&g->rng, 4))
		map[0] = '\0';
	c = add_task(g, "c", false, 0, g->t[a].leader);
	g->nuserns++;
	g->t[c].ns = g->nuserns;
	out(g, "%s: clone %s user ns%d%s\n", g->t[a].name, g->t[c].name, g->nuserns, map);
}

/*
 * The administration of a namespace: setns() into one, /proc/PID/uid_map,
 * gid_map (the writer's own id, another, root's, two ids) and setgroups
 * by any task, user.max_user_namespaces
 */
static void administer(struct gen *g, int a)
{
	int b = pick(&g->rng, g->ntasks);
	const char *id = (const char *[]){ "0", "1", "root", "u1", "u2", "2001" }[pick(&g->rng, 6)];

	switch (pick(&g->rng, 6)) {
	case 0:
		if (g->nuserns) {
			int ns = 1 + pick(&g->rng, g->nuserns);

			out(g, "%s: setns user ns%d\n", g->t[a].name, ns);
			g->t[a].ns = ns;
		}
		break;
	case 1:
	case 2:
		out(g, "%s: write %s %s 0 %s %d\n", g->t[a].name, g->t[b].name,
		    pick(&g->rng, 2) ? "uid_map" : "gid_map", id, pick(&g->rng, 4) ? 1 : 2);
		break;
	case 3:
		out(g, "%s: write %s setgroups %s\n", g->t[a].name, g->t[b].name,
		    pick(&g->rng, 4) ? "deny" : "allow");
		break;
	default:
		out(g, "%s: sysctl user.max_user_namespaces %d\n", g->t[a].name, pick(&g->rng, 4));
		break;
	}
}

static int add_task(struct gen *g, const char *prefix, bool thread, int leader, int parent)
{
	int i = g->ntasks++;

	snprintf(g->t[i].name, sizeof(g->t[i].name), "%s%d", prefix, i);
	g->t[i].ns = 0;
	g->t[i].alive = true;
	g->t[i].thread = thread;
	g->t[i].leader = thread ? leader : i;
	g->t[i].parent = parent;
	return i;
}

static int alive_task(struct gen *g)
{
	int alive[MAX_GEN_TASKS], n = 0;

	for (int i = 0; i < g->ntasks; i++)
		if (g->t[i].alive)
			alive[n++] = i;
	return n ? alive[pick(&g->rng, n)] : -1;
}

static void limit(struct gen *g)
{
	int soft = 1 + pick(&g->rng, 4);

	out(g, " nproc %d %d", soft, soft + pick(&g->rng, 3));
}

static void step(struct gen *g)
{
	int a = alive_task(g), b;
	const char *who;

	if (a < 0)
		return;
	who = g->t[a].name;
	switch (pick(&g->rng, 33)) {
	case 0: case 1: case 2:
		if (g->ntasks < MAX_GEN_TASKS) {
			b = add_task(g, "c", false, 0, g->t[a].leader);
			g->t[b].ns = g->t[a].ns;
			out(g, "%s: fork %s\n", who, g->t[b].name);
		}
		break;
	case 3:
		if (g->ntasks < MAX_GEN_TASKS) {
			b = add_task(g, "t", true, g->t[a].leader, -1);
			g->t[b].ns = g->t[a].ns;
			out(g, "%s: thread %s\n", who, g->t[b].name);
		}
		break;
	case 21: case 22:	/* user namespaces: rootless containers and others */
		if (g->flags & NPG_RANDOM_NO_USERNS)
			break;
		if (!(g->flags & NPG_RANDOM_USERNS_2_6_39) || pick(&g->rng, 4) == 0)
			unshare(g, a);
		else
			clone_user(g, a);
		break;
	case 27:	/* PTRACE_SEIZE or PTRACE_ATTACH of any task, a thread, a dead one, itself */
		b = pick(&g->rng, g->ntasks);
		out(g, "%s: ptrace %s%s\ncheck %s tracer\n", who, pick(&g->rng, 2) ? "attach " : "",
		    g->t[b].name, g->t[b].name);
		break;
	case 28:	/* let go of a tracee, or name a tracer for Yama */
		b = pick(&g->rng, g->ntasks);
		if (pick(&g->rng, 2))
			out(g, "%s: ptrace detach %s\ncheck %s tracer\n", who, g->t[b].name,
			    g->t[b].name);
		else if (pick(&g->rng, 2))
			out(g, "%s: prctl ptracer %s\n", who, g->t[b].name);
		else
			out(g, "%s: prctl ptracer %s\n", who, pick(&g->rng, 2) ? "any" : "none");
		break;
	case 29:	/* PR_SET_DUMPABLE: 0, 1, or 2 (EINVAL) */
		out(g, "%s: prctl dumpable %d\n", who, pick(&g->rng, 5) ? pick(&g->rng, 2) : 2);
		break;
	case 30:
		if (!(g->flags & NPG_RANDOM_NO_USERNS))
			clone_user(g, a);
		break;
	case 31: case 32:
		if (!(g->flags & NPG_RANDOM_NO_USERNS) &&
		    (!(g->flags & NPG_RANDOM_USERNS_2_6_39) || pick(&g->rng, 4) == 0))
			administer(g, a);
		break;
	case 4:
		out(g, "%s: exit %d\n", who, pick(&g->rng, 3));
		for (int i = 0; i < g->ntasks; i++)
			if (i == a || (!g->t[a].thread && g->t[i].leader == a))
				g->t[i].alive = false;
		break;
	case 5:
		b = pick(&g->rng, g->ntasks);
		out(g, "%s: wait %s\n", who, g->t[b].name);
		break;
	case 6: case 7:	/* raw, or glibc's wrapper on every thread */
		out(g, "%s: %ssetuid %s\n", who, pick(&g->rng, 3) ? "" : "glibc ", any_id(g, false));
		break;
	case 8:
		out(g, "%s: seteuid %s\n", who, any_id(g, false));
		break;
	case 9:
		out(g, "%s: setreuid %s %s\n", who, any_id(g, true), any_id(g, true));
		break;
	case 10:
		out(g, "%s: %ssetresuid %s %s %s\n", who, pick(&g->rng, 3) ? "" : "glibc ",
		    any_id(g, true), any_id(g, true), any_id(g, true));
		break;
	case 11:
		out(g, "%s: setfsuid %s\n", who, any_id(g, false));
		break;
	case 12:
		switch (pick(&g->rng, 6)) {
		case 0: out(g, "%s: setgid %s\n", who, any_id(g, false)); break;
		case 1: out(g, "%s: setresgid %s %s %s\n", who, any_id(g, true), any_id(g, true), any_id(g, true)); break;
		case 2: out(g, "%s: setegid %s\n", who, any_id(g, false)); break;
		case 3: out(g, "%s: setregid %s %s\n", who, any_id(g, true), any_id(g, true)); break;
		case 4: out(g, "%s: setfsgid %s\n", who, any_id(g, false)); break;
		default: out(g, "%s: setgroups %s\n", who, pick(&g->rng, 2) ? "none" : any_id(g, false)); break;
		}
		break;
	case 13: case 14:
		/* prlimit of another process: the permission rule across users and namespaces */
		b = pick(&g->rng, g->ntasks);
		if (pick(&g->rng, 3) == 0 && !g->t[b].thread)
			out(g, "%s: prlimit %s", who, g->t[b].name);
		else
			out(g, "%s: setrlimit", who);
		limit(g);
		out(g, "\n");
		break;
	case 15:
		if (pick(&g->rng, 3))
			out(g, "%s: prctl keepcaps %d\n", who, pick(&g->rng, 2));
		else	/* then set-id and file-capability programs give nothing */
			out(g, "%s: prctl no_new_privs %d\n", who, pick(&g->rng, 5) != 0);
		break;
	case 17:	/* kill a process: permission rule, or 0 for the check alone */
		b = pick(&g->rng, g->ntasks);
		if (g->t[b].thread)
			break;
		out(g, "%s: kill %s %s\n", who, g->t[b].name,
		    (const char *[]){ "0", "KILL", "TERM", "USR1" }[pick(&g->rng, 4)]);
		break;
	case 18:	/* posix_spawn(): vfork, the child's calls, its execve, its exit if that failed */
		if (g->ntasks >= MAX_GEN_TASKS)
			break;
		b = add_task(g, "v", false, 0, g->t[a].leader);
		g->t[b].ns = g->t[a].ns;
		out(g, "%s: vfork %s\n", who, g->t[b].name);
		if (pick(&g->rng, 2))
			out(g, "%s: setuid %s\n", g->t[b].name, any_id(g, false));
		if (pick(&g->rng, 4))
			out(g, "%s: execve%s\n", g->t[b].name, pick(&g->rng, 3) ? "" : " /nonexistent");
		out(g, "%s: exit 127\n", g->t[b].name);
		g->t[b].alive = false;
		break;
	case 16:
		out(g, "%s: capset %s %s\n", who, (const char *[]){ "drop", "keep", "raise", "lower" }[pick(&g->rng, 4)],
		    any_cap(g));
		break;
	case 19:	/* prctl(PR_SET_SECUREBITS): any of the eight bits */
		b = pick(&g->rng, 256);
		out(g, "%s: securebits ", who);
		if (!b)
			out(g, "none");
		for (int k = 0, first = 1; k < 8; k++)
			if (b & (1 << k)) {
				out(g, "%s%s", first ? "" : ",", secbits[k]);
				first = 0;
			}
		out(g, "\n");
		break;
	case 20:	/* PR_CAP_AMBIENT, and capset of the inheritable set it needs */
		switch (pick(&g->rng, 4)) {
		case 0: out(g, "%s: ambient clear\n", who); break;
		case 1: out(g, "%s: ambient lower %s\n", who, any_cap(g)); break;
		case 2: out(g, "%s: capset inheritable %s\n", who, any_cap(g)); break;
		default: out(g, "%s: ambient raise %s\n", who, any_cap(g)); break;
		}
		break;
	default:
		/* a plain program, one that is not there, a set-id or file-capability one; from a thread too */
		b = pick(&g->rng, 12);
		out(g, "%s: execve%s%s\n", who, b < 5 ? "" : " ", b < 5 ? "" : files[b - 5]);
		break;
	}
}

int npg_random_scenario(uint64_t seed, int n, unsigned flags, char *buf, size_t len)
{
	struct gen g = { .buf = buf, .len = len, .flags = flags };
	int ninitial, nsteps;

	/* distinct, non-zero states per (seed, n) */
	g.rng.s = (seed * 0x9E3779B97F4A7C15ULL) ^ ((uint64_t)n * 0xD1B54A32D192ED03ULL) ^ 1;
	for (int i = 0; i < 4; i++)
		next(&g.rng);
	out(&g, "scenario \"random %llu/%d\"\n", (unsigned long long)seed, n);
	/*
	 * root's own processes, as a file written on a machine declares them:
	 * compared where the run can make root's count the file's (a guest
	 * needs 16-51 of its own: the kernel's threads, /init, nprocguard)
	 */
	out(&g, "user root 0");
	if (pick(&g.rng, 4))
		out(&g, " procs %d", 64 + pick(&g.rng, 48));
	out(&g, "\nuser u1 1001 procs %d\nuser u2 1002 procs %d\nuser u3 1003\n",
	    pick(&g.rng, 4), pick(&g.rng, 3));
	/*
	 * A machine without some capabilities in its bounding set. Always
	 * without CAP_SYS_RESOURCE, which the machines this runs on may lack
	 * (a bounding set cannot be widened: a larger one is unreproducible).
	 */
	if (pick(&g.rng, 4) == 0)
		out(&g, "bounding all but sys_resource,%s\n", caps[pick(&g.rng, 5)]);
	/* conform and run --host take the machine's Yama instead */
	if (pick(&g.rng, 4) == 0)
		out(&g, "yama ptrace_scope %d\n", pick(&g.rng, 4));
	out(&g, "file /nonexistent missing\n");
	out(&g, "file /usr/bin/passwd setuid root\n");
	out(&g, "file /usr/bin/su1 setuid %s setgid u2\n", user(&g, 1));
	out(&g, "file /usr/bin/newgrp setgid root\n");
	out(&g, "file /usr/bin/ping caps %s,kill inheritable setpcap%s\n", any_cap(&g),
	    pick(&g.rng, 2) ? " effective" : "");
	/* the same set-uid-root program on a nosuid mount, sometimes with file capabilities */
	out(&g, "file /media/usb/passwd setuid root%s nosuid\n", pick(&g.rng, 3) ? "" : " caps kill effective");
	/* capabilities written inside a namespace whose root is u1 or root (v3) */
	out(&g, "file /opt/ctr/ping caps %s effective rootid %s\n", any_cap(&g),
	    pick(&g.rng, 3) ? "u1" : user(&g, 2));
	out(&g, "task %s uid root", g.t[add_task(&g, "d", false, 0, -1)].name);
	if (pick(&g.rng, 2))
		limit(&g);
	out(&g, "\n");
	ninitial = 1 + pick(&g.rng, 3);
	for (int i = 0; i < ninitial; i++) {
		int t = add_task(&g, "p", false, 0, -1);

		out(&g, "task %s uid %s", g.t[t].name, user(&g, 1));
		if (pick(&g.rng, 3) == 0)
			out(&g, " euid %s", user(&g, 0));
		limit(&g);
		out(&g, "\n");
	}
	nsteps = 8 + pick(&g.rng, 20);
	for (int i = 0; i < nsteps; i++) {
		int c;

		step(&g);
		/* dumpability follows every id change and exec: look at it often */
		if (pick(&g.rng, 4) == 0 && (c = alive_task(&g)) >= 0)
			out(&g, "check %s dumpable\n", g.t[c].name);
	}
	return g.overflow ? -1 : (int)g.used;
}

/* --- shrinking --- */

static size_t split_lines(char *text, char ***lines)
{
	size_t n = 0, cap = 16;
	char **v = malloc(cap * sizeof(*v));

	for (char *p = text; v && *p;) {
		char *nl = strchr(p, '\n');

		if (n == cap) {
			char **grown = realloc(v, (cap *= 2) * sizeof(*v));

			if (!grown) {
				free(v);
				v = NULL;
				break;
			}
			v = grown;
		}
		v[n++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	*lines = v;
	return v ? n : 0;
}

static void join_lines(char **lines, const bool *keep, size_t n, char *out)
{
	size_t used = 0;

	for (size_t i = 0; i < n; i++) {
		size_t l;

		if (!keep[i])
			continue;
		l = strlen(lines[i]);
		memmove(out + used, lines[i], l);
		used += l;
		out[used++] = '\n';
	}
	out[used] = '\0';
}

int npg_shrink_lines(char *text, bool (*still_fails)(const char *text, void *arg), void *arg)
{
	size_t len = strlen(text);
	char *copy = strdup(text), *candidate = malloc(len + 2), **lines = NULL;
	size_t n = copy ? split_lines(copy, &lines) : 0;
	bool *keep = calloc(n + 1, sizeof(*keep)), *trial = calloc(n + 1, sizeof(*trial));
	int tries = 0;

	if (!copy || !candidate || !lines || !keep || !trial)
		goto out;
	for (size_t i = 0; i < n; i++)
		keep[i] = true;
	/* chunks of half the lines, then smaller, down to single lines, to a fixed point */
	for (size_t chunk = n / 2 ? n / 2 : 1;; chunk = chunk > 1 ? chunk / 2 : 1) {
		bool progress = false;

		for (size_t start = 0; start < n; start += chunk) {
			bool any = false;

			memcpy(trial, keep, n * sizeof(*keep));
			for (size_t i = start; i < start + chunk && i < n; i++) {
				any |= trial[i];
				trial[i] = false;
			}
			if (!any)
				continue;
			join_lines(lines, trial, n, candidate);
			tries++;
			if (still_fails(candidate, arg)) {
				memcpy(keep, trial, n * sizeof(*keep));
				progress = true;
			}
		}
		if (chunk == 1 && !progress) {
			/*
			 * Lines that only go together (a vfork and its child's
			 * exit, a fork and the child's only step) whatever the
			 * chunks' alignment: each two kept lines in a row, at once
			 */
			for (size_t i = 0; i < n; i++) {
				size_t j = i + 1;

				while (j < n && !keep[j])
					j++;
				if (!keep[i] || j >= n)
					continue;
				memcpy(trial, keep, n * sizeof(*keep));
				trial[i] = trial[j] = false;
				join_lines(lines, trial, n, candidate);
				tries++;
				if (still_fails(candidate, arg)) {
					memcpy(keep, trial, n * sizeof(*keep));
					progress = true;
				}
			}
			if (!progress)
				break;
		}
	}
	join_lines(lines, keep, n, candidate);
	memcpy(text, candidate, strlen(candidate) + 1);
out:
	free(copy);
	free(candidate);
	free(lines);
	free(keep);
	free(trial);
	return tries;
}
