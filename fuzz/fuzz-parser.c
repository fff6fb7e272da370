/*
 * libFuzzer harness for the scenario parser, and for running what parses:
 * any input must give a scenario or file:line:col errors, never a crash,
 * a hang or a leak. `make fuzz FUZZ_SECONDS=600`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "backend/backend.h"
#include "runner/run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *devnull = fopen("/dev/null", "w");
	struct npg_scenario *sc = npg_scenario_parse("fuzz", (const char *)data, size, devnull);

	if (sc) {
		struct npg_backend b;
		struct npg_column col = { .backend = &b };
		struct npg_run run;
		struct npg_sink sink = { 0 };	/* observations are made and dropped */

		/* the model must survive whatever the language lets through */
		for (int i = 0; npg_policies[i]; i++) {
			npg_model_backend_init(&b, npg_policies[i], NPG_CAP_ALL);
			col.policy_index = i;
			npg_run_scenario(&run, sc, &col, 1, &sink);
			npg_run_free(&run);
		}
		npg_scenario_free(sc);
	}
	if (devnull)
		fclose(devnull);
	return 0;
}
