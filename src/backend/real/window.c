/*
 * The run's uid window: scenario ids other than 0 as kernel ids of
 * otherwise unused uids from the run's base (checked empty by
 * real_start()), laid out so that every map line a step writes covers
 * consecutive kernel ids, and read back the other way. Part of the
 * controller's core: every step family maps its ids through here.
 */
#include <stdlib.h>
#include <string.h>

#include "backend/real/real_priv.h"

/*
 * Scenario ids other than 0 are kernel ids of the run's window: each run
 * of consecutive scenario ids that a map line may cover stays consecutive
 * there (a map line maps a range), and the runs are packed one after the
 * other from base + 1.
 */
struct id_seg {
	uint64_t lo, hi;	/* scenario ids lo..hi */
	uint32_t real;		/* the real id of lo */
};

static size_t max_ids(const struct npg_scenario *sc)
{
	return (size_t)sc->nnames + (size_t)sc->ntasks * (8 + NPG_NGROUPS) +
	       (size_t)sc->nstmts * (3 + NPG_NGROUPS) + (size_t)sc->nfiles * 2 + 1;
}

struct id_seg *npg_real_window_new(const struct npg_scenario *sc)
{
	/* a segment per id, and per line of every map a step writes (collect_map_ranges()) */
	return calloc(max_ids(sc) + (size_t)sc->nstmts * 2 * NPG_IDMAP_MAX + 1,
		      sizeof(struct id_seg));
}

static uint64_t seg_len(const struct id_seg *s)
{
	return s->hi - s->lo + 1;
}

/*
 * Add scenario ids lo..hi (0 < lo <= hi) to the window, merged with the
 * runs they touch; false, and nothing added, when the window would
 * overflow.
 */
static bool seg_insert(struct real_priv *r, uint64_t lo, uint64_t hi)
{
	uint64_t used = r->window_used + (hi - lo + 1);
	int first = r->nsegs, last = -1;

	for (int i = 0; i < r->nsegs; i++) {
		const struct id_seg *s = &r->segs[i];

		if (s->hi + 1 < lo || s->lo > hi + 1)
			continue;	/* neither overlaps nor touches */
		if (first == r->nsegs)
			first = i;
		last = i;
		if (s->lo <= hi && s->hi >= lo)
			used -= (s->hi < hi ? s->hi : hi) - (s->lo > lo ? s->lo : lo) + 1;
	}
	if (used >= NPG_UID_WINDOW)
		return false;
	if (last >= 0) {
		lo = r->segs[first].lo < lo ? r->segs[first].lo : lo;
		hi = r->segs[last].hi > hi ? r->segs[last].hi : hi;
		memmove(&r->segs[first + 1], &r->segs[last + 1],
			(size_t)(r->nsegs - last - 1) * sizeof(*r->segs));
		r->nsegs -= last - first;
	} else {
		for (first = 0; first < r->nsegs && r->segs[first].lo < lo; first++)
			;
		memmove(&r->segs[first + 1], &r->segs[first],
			(size_t)(r->nsegs - first) * sizeof(*r->segs));
		r->nsegs++;
	}
	r->segs[first] = (struct id_seg){ .lo = lo, .hi = hi };
	r->window_used = (uint32_t)used;
	return true;
}

/* A step that writes a uid map: the harness's after unshare or clone, or a task's */
bool npg_real_writes_uid_map(const struct npg_op *op)
{
	return op->code == NPG_OP_UNSHARE_USER || op->code == NPG_OP_CLONE_USER ||
	       (op->code == NPG_OP_WRITE_IDMAP && op->value == 0);
}

static bool writes_gid_map(const struct npg_op *op)
{
	return op->code == NPG_OP_UNSHARE_USER || op->code == NPG_OP_CLONE_USER ||
	       (op->code == NPG_OP_WRITE_IDMAP && op->value == 1);
}

/*
 * The outside ids of every map line, as kernel ids of a namespace whose
 * parent is the initial one (those of a nested namespace are ids of its
 * parent, and need no room: a harmless reservation; so are a task's
 * written lines, whose namespace is known only when they are written). Uid 0 stays 0. A
 * range the window cannot hold is left out: writing that map then
 * cannot be done faithfully (map_line()).
 */
static void collect_map_ranges(struct real_priv *r)
{
	const struct npg_scenario *sc = r->sc;

	for (int i = 0; i < sc->nstmts; i++) {
		const struct npg_op *op = &sc->stmts[i].op;

		if (sc->stmts[i].kind != NPG_STMT_STEP ||
		    (!npg_real_writes_uid_map(op) && !writes_gid_map(op)))
			continue;
		for (int m = 0; m < 2; m++) {
			const struct npg_idmap *map = m ? &op->gid_map : &op->uid_map;

			for (int k = 0; k < map->nr; k++) {
				const struct npg_idmap_extent *e = &map->extent[k];
				uint64_t lo = e->lower_first ? e->lower_first : 1;
				uint64_t hi = (uint64_t)e->lower_first + e->count - 1;

				if (e->lower_first == NPG_ID_NONE || hi >= NPG_ID_NONE || hi < lo)
					continue;
				seg_insert(r, lo, hi);
			}
		}
	}
}

/* The window's layout: 0, or -1 when the scenario names more ids than it holds */
int npg_real_window_layout(struct real_priv *r)
{
	/* every id the scenario names as a kernel id, or as an id of a namespace (harmless) */
	npg_id *ids;
	int n = npg_scenario_ids(r->sc, &ids);
	uint32_t real;

	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		if (ids[i] == 0)
			continue;	/* root stays root */
		if (!seg_insert(r, ids[i], ids[i])) {
			free(ids);
			return -1;
		}
	}
	free(ids);
	collect_map_ranges(r);
	real = r->base + 1;
	for (int i = 0; i < r->nsegs; i++) {
		r->segs[i].real = real;
		real += (uint32_t)seg_len(&r->segs[i]);
	}
	return 0;
}

static const struct id_seg *seg_of(const struct real_priv *r, uint64_t id)
{
	int lo = 0, hi = r->nsegs - 1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (id < r->segs[mid].lo)
			hi = mid - 1;
		else if (id > r->segs[mid].hi)
			lo = mid + 1;
		else
			return &r->segs[mid];
	}
	return NULL;
}

uint32_t npg_real_map_id(const struct real_priv *r, npg_id id)
{
	const struct id_seg *s;

	if (id == 0 || id == NPG_ID_NONE || !(s = seg_of(r, id)))
		return id;	/* not in the window: cannot happen for an id the scenario names */
	return s->real + (uint32_t)(id - s->lo);
}

bool npg_real_window_holds(const struct real_priv *r, uint64_t lo, uint64_t hi)
{
	const struct id_seg *s = seg_of(r, lo);

	return s && s->hi >= hi;
}

npg_id npg_real_unmap_id(const struct real_priv *r, uint32_t real)
{
	int lo = 0, hi = r->nsegs - 1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		const struct id_seg *s = &r->segs[mid];

		if (real < s->real)
			hi = mid - 1;
		else if (real - s->real >= seg_len(s))
			lo = mid + 1;
		else
			return (npg_id)(s->lo + (real - s->real));
	}
	return real;
}

/*
 * Are @t's ids the window's? A task of the initial namespace names kernel
 * ids. So does one of a child namespace before 3.5: ids are raw there,
 * no map translates them, and each namespace has its own user_structs
 * (2.6.39-3.4's alloc_uid(ns, uid)), so the window's ids serve in every
 * namespace and /proc shows them as the task's namespace names them.
 */
bool npg_real_ids_in_window(const struct real_priv *r, const struct real_task *t)
{
	return t->ns == 0 || r->uns.legacy;
}

/* Ids a task names in its set*id calls are kernel ids only in the initial namespace */
void npg_real_map_op(const struct real_priv *r, struct npg_op *op)
{
	for (int k = 0; k < 3; k++)
		op->id[k] = npg_real_map_id(r, op->id[k]);
	for (int g = 0; g < op->ngroups; g++)
		op->groups[g] = npg_real_map_id(r, op->groups[g]);
}
