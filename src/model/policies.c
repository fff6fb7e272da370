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

/* By version number only: distributions' stable backports may differ. */
const struct npg_policy *npg_policy_for_release(const char *release)
{
	int major = 0, minor = 0;

	if (sscanf(release, "%d.%d", &major, &minor) != 2)
		return NULL;
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
