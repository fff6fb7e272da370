/* --model: a configuration, or the one identify found for this kernel. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend/backend.h"
#include "cli/model_option.h"
#include "identify/cache.h"
#include "identify/identify.h"

int npg_model_parse(const char *cmd, const char *arg, struct npg_model_choice *m)
{
	char why[256];

	memset(m, 0, sizeof(*m));
	m->arg = arg;
	if (strcmp(arg, "identified") == 0) {
		m->identified = true;
		return 0;
	}
	if (npg_config_parse(&m->config, arg, why, sizeof(why)) < 0) {
		fprintf(stderr, "nprocguard %s: bad --model '%s': %s (identified, or POLICY[,+RULE|"
			",-RULE|,RULE=N]...)\n", cmd, arg, why);
		return -1;
	}
	return 0;
}

bool npg_model_kept(const struct npg_host *host)
{
	struct npg_config c;
	char path[4200], why[256];

	return !host->own_kernel &&
	       npg_identified_load(&c, host->release, path, sizeof(path), why, sizeof(why)) == 1;
}

int npg_model_resolve(const char *cmd, const struct npg_model_choice *m,
		      const struct npg_host *host, uint32_t uid_base, struct npg_release *rel)
{
	const struct npg_release *running = host->policy ? &host->rel : NULL;
	struct npg_identified id;
	struct npg_config c;
	char path[4200], why[512];
	int kept;

	if (!m->identified) {
		npg_release_of_config(rel, &m->config, running, "given by --model");
		return 0;
	}
	kept = host->own_kernel ? 0 : npg_identified_load(&c, host->release, path, sizeof(path),
							   why, sizeof(why));
	if (kept < 0)
		fprintf(stderr, "nprocguard %s: the identified model kept in %s cannot be read (%s): "
			"identify runs again\n", cmd, path, why);
	if (kept > 0) {
		npg_release_of_config(rel, &c, running, "identified (kept for this boot)");
		return 0;
	}
	if (!host->root) {
		fprintf(stderr, "nprocguard %s: --model identified: nothing is kept for this boot of "
			"%s, and identify needs root to probe it: run 'nprocguard identify' as root\n",
			cmd, host->release);
		return -1;
	}
	if (npg_identify_kernel(host, uid_base, &id, why, sizeof(why)) < 0) {
		fprintf(stderr, "nprocguard %s: --model identified: %s\n", cmd, why);
		return -1;
	}
	if (!id.fits) {
		fprintf(stderr, "nprocguard %s: --model identified: no configuration fits every probe "
			"on %s (nearest: %s; 'nprocguard identify' says which probes disagree): give "
			"--model or --policy\n", cmd, host->release, id.spec);
		return -1;
	}
	if (!host->own_kernel && npg_identified_save(&id, host->release) < 0)
		fprintf(stderr, "nprocguard %s: cannot keep the identified model: %s\n", cmd,
			strerror(errno));
	fprintf(stderr, "nprocguard %s: identified %s (%d probes, %.1f s)\n", cmd, id.spec,
		id.nprobes, id.seconds);
	npg_release_of_config(rel, &id.config, running, "identified");
	return 0;
}
