/*
 * Ids: the scenario's and the kernel's. A scenario id other than 0 is a
 * uid or gid of the test's window (kst_uid_base + its offset); shown as
 * the scenario names it.
 */
#include "npg_kst.h"

#include <stdio.h>

static const struct kst_id *id_entry(uint32_t id)
{
	for (int i = 0; i < kst_sc->nids; i++)
		if (kst_sc->ids[i].id == id)
			return &kst_sc->ids[i];
	return NULL;
}

/* A scenario id as a kernel id: 0 and -1 stay */
uint32_t kst_map_id(uint32_t id)
{
	const struct kst_id *e;

	if (id == 0 || id == KST_ID_NONE || !(e = id_entry(id)) || e->offset == 0)
		return id;
	return kst_uid_base + e->offset;
}

/* A kernel id as the scenario's (one outside the window stays as it is) */
uint32_t kst_unmap_id(uint32_t real)
{
	for (int i = 0; i < kst_sc->nids && real > kst_uid_base; i++)
		if (kst_sc->ids[i].offset && kst_uid_base + kst_sc->ids[i].offset == real)
			return kst_sc->ids[i].id;
	return real;
}

/* An id shown as the scenario names it: a user's or group's name, else its number */
void kst_render_id(uint32_t id, bool gid, char *buf, size_t len)
{
	const struct kst_id *e = id_entry(id);
	const char *name = e ? (gid ? e->gname : e->uname) : NULL;

	if (name)
		snprintf(buf, len, "%s", name);
	else if (id == KST_ID_NONE)
		snprintf(buf, len, "-1");
	else
		snprintf(buf, len, "%u", id);
}
