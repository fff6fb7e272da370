/* Configurations of the model as text: a policy and its rules that differ. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/config.h"
#include "model/policy.h"

void npg_config_of_policy(struct npg_config *c, const struct npg_policy *p)
{
	memset(c, 0, sizeof(*c));
	c->policy = p;
	npg_policy_rules(p, &c->rules);
}

bool npg_config_equal(const struct npg_config *a, const struct npg_config *b)
{
	if (a->policy != b->policy)
		return false;
	for (int i = 0; i < npg_nrules; i++)
		if (npg_rule_get(&a->rules, &npg_rule_infos[i]) !=
		    npg_rule_get(&b->rules, &npg_rule_infos[i]))
			return false;
	return true;
}

void npg_config_format(const struct npg_config *c, char *buf, size_t len)
{
	struct npg_rules own;
	size_t n;

	npg_policy_rules(c->policy, &own);
	n = (size_t)snprintf(buf, len, "%s", c->policy->name);
	for (int i = 0; i < npg_nrules && n < len; i++) {
		const struct npg_rule_info *ri = &npg_rule_infos[i];
		int v = npg_rule_get(&c->rules, ri);

		if (v == npg_rule_get(&own, ri))
			continue;
		if (ri->is_int)
			n += (size_t)snprintf(buf + n, len - n, ",%s=%d", ri->name, v);
		else
			n += (size_t)snprintf(buf + n, len - n, ",%c%s", v ? '+' : '-', ri->name);
	}
}

/* @c with each of the comma-separated changes of @text: +RULE, -RULE, RULE=N */
int npg_config_apply(struct npg_config *c, const char *text, char *err, size_t errlen)
{
	char copy[1024], *word, *save = NULL;
	bool given[sizeof(struct npg_rules)] = { false };

	if (strlen(text) >= sizeof(copy)) {
		snprintf(err, errlen, "longer than %zu characters", sizeof(copy) - 1);
		return -1;
	}
	snprintf(copy, sizeof(copy), "%s", text);
	for (word = strtok_r(copy, ",", &save); word; word = strtok_r(NULL, ",", &save)) {
		const struct npg_rule_info *ri;
		char name[64];
		long value = 1;
		char *eq = strchr(word, '='), *end;

		if (*word == '+' || *word == '-') {
			value = *word == '+';
			snprintf(name, sizeof(name), "%s", word + 1);
		} else if (eq) {
			snprintf(name, sizeof(name), "%.*s", (int)(eq - word), word);
			value = strtol(eq + 1, &end, 10);
			if (end == eq + 1 || *end || value < 0 || value > 2) {
				snprintf(err, errlen, "'%s': a value from 0 to 2", word);
				return -1;
			}
		} else {
			snprintf(err, errlen, "'%s': +RULE, -RULE or RULE=N", word);
			return -1;
		}
		if (!(ri = npg_rule_find(name))) {
			snprintf(err, errlen, "'%s': no such rule (nprocguard policies --releases "
				 "lists them)", name);
			return -1;
		}
		if (ri->is_int != (eq != NULL)) {
			snprintf(err, errlen, "'%s': %s", word, ri->is_int ? "give RULE=N" :
				 "give +RULE or -RULE");
			return -1;
		}
		if (given[ri - npg_rule_infos]) {
			snprintf(err, errlen, "'%s': rule given twice", name);
			return -1;
		}
		given[ri - npg_rule_infos] = true;
		npg_rule_set(&c->rules, ri, (int)value);
	}
	return 0;
}

int npg_config_parse(struct npg_config *c, const char *text, char *err, size_t errlen)
{
	size_t n = strcspn(text, ",");
	char name[64];

	snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) ? n : sizeof(name) - 1), text);
	if (!npg_policy_find(name)) {
		snprintf(err, errlen, "'%s': not a policy (nprocguard policies lists them)", name);
		return -1;
	}
	npg_config_of_policy(c, npg_policy_find(name));
	return npg_config_apply(c, text + n + (text[n] == ','), err, errlen);
}

const struct npg_policy *npg_config_policy_name(const struct npg_config *c)
{
	if (c->policy == &npg_policy_linux_5_14 || c->policy == &npg_policy_linux_6)
		return c->rules.flag_nproc_exceeded ? &npg_policy_linux_6 : &npg_policy_linux_5_14;
	return c->policy;
}
