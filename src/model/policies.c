/* The registry of policies, in historical order. */
#include <stdio.h>
#include <string.h>

#include "model/policy.h"

const struct npg_policy *const npg_policies[] = {
	&npg_policy_linux_2_4,
	&npg_policy_linux_2_6,
	&npg_policy_ow_2006,
	&npg_policy_kulikov_2011,
	&npg_policy_brown_flag_2011,
	&npg_policy_linux_3_1,
	&npg_policy_linux_5_14,
	&npg_policy_linux_6,
	NULL,
};

const struct npg_policy *npg_policy_find(const char *name)
{
	for (int i = 0; npg_policies[i]; i++)
		if (strcmp(npg_policies[i]->name, name) == 0)
			return npg_policies[i];
	return NULL;
}

int npg_policy_index(const struct npg_policy *p)
{
	for (int i = 0; npg_policies[i]; i++)
		if (npg_policies[i] == p)
			return i;
	return -1;
}

/*
 * A kernel built from one of this project's patches (kernel/patches/,
 * tools/seed-kernels.sh) names its policy in its local version, with
 * LOCALVERSION=-NAME: "3.0.8-kulikov-2011", "3.0.8-seed001-kulikov-2011",
 * "3.0.8-linux-3.1". The release must end with '-' and the name of one of
 * our policies; nothing else in a local version ("-32-amd64") names one.
 */
const struct npg_policy *npg_policy_named_by_release(const char *release)
{
	size_t n = strlen(release);

	for (int i = 0; npg_policies[i]; i++) {
		size_t k = strlen(npg_policies[i]->name);

		if (n > k + 1 && release[n - k - 1] == '-' &&
		    strcmp(release + n - k, npg_policies[i]->name) == 0)
			return npg_policies[i];
	}
	return NULL;
}

/*
 * The policy a local version names (above), else the era of the version's
 * major.minor. npg_release_parse() refines it by the point release (the
 * 5.15.y and 5.16.y that took linux-6's rules).
 */
const struct npg_policy *npg_policy_for_release(const char *release)
{
	const struct npg_policy *named = npg_policy_named_by_release(release);
	int major = 0, minor = 0;

	if (sscanf(release, "%d.%d", &major, &minor) != 2)
		return NULL;
	if (named)
		return named;
	if (major < 2 || (major == 2 && minor < 6))
		return &npg_policy_linux_2_4;
	if (major == 2 || (major == 3 && minor == 0))
		return &npg_policy_linux_2_6;
	if (major < 5 || (major == 5 && minor < 14))
		return &npg_policy_linux_3_1;
	if (major == 5 && minor < 17)
		return &npg_policy_linux_5_14;
	return &npg_policy_linux_6;
}
