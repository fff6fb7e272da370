/* The configurations identify chooses among, and their neighbours. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "identify/candidates.h"
#include "model/history.h"
#include "model/policy.h"
#include "model/release.h"

int npg_candidates_add(struct npg_candidates *cs, const struct npg_config *c, const char *where)
{
	for (int i = 0; i < cs->n; i++) {
		if (!npg_config_equal(&cs->c[i].config, c))
			continue;
		/* a few releases say where it stands; more would say nothing more */
		if (where && !strstr(cs->c[i].where, where) &&
		    strlen(cs->c[i].where) + strlen(where) + 2 < sizeof(cs->c[i].where)) {
			size_t n = strlen(cs->c[i].where);

			snprintf(cs->c[i].where + n, sizeof(cs->c[i].where) - n, "%s%s", n ? ", " : "",
				 where);
		}
		return i;
	}
	if (cs->n == cs->cap) {
		int cap = cs->cap ? 2 * cs->cap : 64;
		struct npg_candidate *grown = realloc(cs->c, (size_t)cap * sizeof(*grown));

		if (!grown)
			return -1;
		cs->c = grown;
		cs->cap = cap;
	}
	memset(&cs->c[cs->n], 0, sizeof(cs->c[cs->n]));
	cs->c[cs->n].config = *c;
	snprintf(cs->c[cs->n].where, sizeof(cs->c[cs->n].where), "%s", where ? where : "");
	return cs->n++;
}

void npg_candidates_free(struct npg_candidates *cs)
{
	free(cs->c);
	memset(cs, 0, sizeof(*cs));
}

static int add_release(struct npg_candidates *cs, const char *release)
{
	struct npg_release r;
	struct npg_config c;

	if (npg_release_parse(&r, release, NULL) < 0)
		return 0;
	c.policy = r.policy;
	c.rules = r.rules;
	return npg_candidates_add(cs, &c, release) < 0 ? -1 : 0;
}

static int add_version(struct npg_candidates *cs, int major, int minor, int patch)
{
	char v[40];

	if (major < 2 || minor < 0 || patch < 0)
		return 0;
	snprintf(v, sizeof(v), "%d.%d.%d", major, minor, patch);
	return add_release(cs, v);
}

int npg_candidates_of_history(struct npg_candidates *out)
{
	/* where an era begins: the releases before and at each boundary */
	static const int eras[][2] = { { 2, 4 }, { 2, 6 }, { 3, 0 }, { 3, 1 }, { 5, 14 }, { 5, 17 } };
	int err = 0;

	memset(out, 0, sizeof(*out));
	for (int i = 0; npg_policies[i]; i++) {
		struct npg_config c;

		char own[64];

		npg_config_of_policy(&c, npg_policies[i]);
		snprintf(own, sizeof(own), "%s's own (%d.%d)", npg_policies[i]->name,
			 npg_policies[i]->release.major, npg_policies[i]->release.minor);
		err |= npg_candidates_add(out, &c, own) < 0;
	}
	/* the seed kernels: 3.0.8 with a patch of kernel/patches/ */
	for (int i = 0; npg_policies[i]; i++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "3.0.8-%s", npg_policies[i]->name);
		if (npg_policy_named_by_release(rel))
			err |= add_release(out, rel);
	}
	for (size_t i = 0; i < sizeof(eras) / sizeof(eras[0]); i++)
		err |= add_version(out, eras[i][0], eras[i][1], 0);
	/* each change: the mainline release before and at it, each stable branch
	 * before and at its backport, and that branch's last releases */
	for (int id = 0; id < NPG_NCHANGES; id++) {
		const struct npg_change *c = &npg_changes[id];

		err |= add_version(out, c->mainline.major, c->mainline.minor - 1, 999);
		err |= add_version(out, c->mainline.major, c->mainline.minor, 0);
		for (const struct npg_backport *b = c->backports; b->major; b++) {
			err |= add_version(out, b->major, b->minor, b->patch - 1);
			err |= add_version(out, b->major, b->minor, b->patch);
			err |= add_version(out, b->major, b->minor, 999);
		}
	}
	return err ? -1 : 0;
}

const char *npg_dimension_name(const struct npg_dimension *d)
{
	return d->rule ? d->rule->name : "policy";
}

/* the hooks of @p: linux-5.14 and linux-6 share theirs (policy/ucounts.c) */
static bool same_hooks(const struct npg_policy *p, const struct npg_policy *q)
{
	return p == q || (p->ucounts && q->ucounts);
}

int npg_neighbours(const struct npg_config *a, struct npg_config *out,
		   struct npg_dimension *dims, int max)
{
	int n = 0;

	for (int i = 0; npg_policies[i] && n < max; i++) {
		const struct npg_policy *q = npg_policies[i];
		struct npg_rules own;

		/* one neighbour per set of hooks: linux-6 stands for the ucounts ones */
		if (same_hooks(q, a->policy) || q == &npg_policy_linux_5_14)
			continue;
		npg_policy_rules(q, &own);
		out[n].policy = q;
		out[n].rules = a->rules;
		for (int k = 0; k < npg_nrules; k++)
			if (npg_rule_infos[k].family == NPG_RULE_NPROC)
				npg_rule_set(&out[n].rules, &npg_rule_infos[k],
					     npg_rule_get(&own, &npg_rule_infos[k]));
		dims[n] = (struct npg_dimension){ NULL, i };
		n++;
	}
	for (int k = 0; k < npg_nrules && n < max; k++) {
		const struct npg_rule_info *ri = &npg_rule_infos[k];
		int now = npg_rule_get(&a->rules, ri);

		if (ri->family == NPG_RULE_NPROC && !a->policy->ucounts)
			continue;
		for (int v = 0; v <= (ri->is_int ? 2 : 1) && n < max; v++) {
			if (v == now)
				continue;
			out[n] = *a;
			npg_rule_set(&out[n].rules, ri, v);
			dims[n] = (struct npg_dimension){ ri, v };
			n++;
		}
	}
	return n;
}
