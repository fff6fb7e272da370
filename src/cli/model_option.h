/*
 * --model of run, conform, explain and audit: "identified" -- what
 * `nprocguard identify` found for this boot of this kernel, probed at once
 * when nothing is kept -- or a configuration written as identify and the
 * probes write one ("linux-6,-coredump_one_group").
 */
#ifndef NPG_CLI_MODEL_OPTION_H
#define NPG_CLI_MODEL_OPTION_H

#include <stdbool.h>
#include <stdint.h>

#include "model/config.h"
#include "model/release.h"

struct npg_host;

struct npg_model_choice {
	const char *arg;	/* NULL: no --model */
	bool identified;
	struct npg_config config;	/* a configuration given */
};

/* Parse --model @arg of @cmd; -1 (reported, with the option and value) if bad */
int npg_model_parse(const char *cmd, const char *arg, struct npg_model_choice *m);
/* Does identify keep a configuration for this boot of @host's kernel? */
bool npg_model_kept(const struct npg_host *host);
/*
 * @rel stands for the choice on the kernel of @host: a configuration as
 * given, or the one identify found (kept for this boot, else probed now in
 * the uid window from @uid_base, which the caller holds). -1 (reported)
 * when identify cannot run or finds no configuration that fits.
 */
int npg_model_resolve(const char *cmd, const struct npg_model_choice *m,
		      const struct npg_host *host, uint32_t uid_base, struct npg_release *rel);

#endif
