/* Every id a scenario names, for whoever lays them out as kernel ids. */
#include <stdlib.h>

#include "scenario/scenario.h"

static int cmp_id(const void *a, const void *b)
{
	npg_id x = *(const npg_id *)a, y = *(const npg_id *)b;

	return x < y ? -1 : x > y;
}

static void add_id(npg_id *ids, int *n, npg_id id)
{
	if (id != NPG_ID_NONE)
		ids[(*n)++] = id;
}

int npg_scenario_ids(const struct npg_scenario *sc, npg_id **out)
{
	size_t max = (size_t)sc->nnames + (size_t)sc->ntasks * (6 + NPG_NGROUPS) +
		     (size_t)sc->nstmts * (3 + NPG_NGROUPS) + (size_t)sc->nfiles * 3 + 1;
	npg_id *ids = calloc(max, sizeof(*ids));
	int n = 0, k = 0;

	if (!ids)
		return -1;
	for (int i = 0; i < sc->nnames; i++)
		add_id(ids, &n, sc->names[i].id);
	for (int i = 0; i < sc->ntasks; i++) {
		const struct npg_cred *c = &sc->tasks[i].cred;

		add_id(ids, &n, c->uid.real), add_id(ids, &n, c->uid.eff);
		add_id(ids, &n, c->uid.saved), add_id(ids, &n, c->gid.real);
		add_id(ids, &n, c->gid.eff), add_id(ids, &n, c->gid.saved);
		for (int g = 0; g < c->ngroups; g++)
			add_id(ids, &n, c->groups[g]);
	}
	for (int i = 0; i < sc->nstmts; i++) {
		const struct npg_op *op = &sc->stmts[i].op;

		if (sc->stmts[i].kind != NPG_STMT_STEP)
			continue;
		for (int j = 0; j < 3; j++)
			add_id(ids, &n, op->id[j]);
		for (int g = 0; g < op->ngroups; g++)
			add_id(ids, &n, op->groups[g]);
	}
	for (int i = 0; i < sc->nfiles; i++) {
		if (sc->files[i].exec.setuid)
			add_id(ids, &n, sc->files[i].exec.uid);
		if (sc->files[i].exec.setgid)
			add_id(ids, &n, sc->files[i].exec.gid);
		if (sc->files[i].exec.fcap_v3)
			add_id(ids, &n, sc->files[i].exec.fcap_rootid);
	}
	qsort(ids, (size_t)n, sizeof(*ids), cmp_id);
	for (int i = 0; i < n; i++)
		if (k == 0 || ids[i] != ids[k - 1])
			ids[k++] = ids[i];
	*out = ids;
	return k;
}
