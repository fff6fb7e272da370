/*
 * The random scenario generator: every scenario it writes parses, runs on
 * the model of every policy, and together they use every operation of the
 * language (conform --random only tests what the generator produces).
 */
#include <stdlib.h>
#include <string.h>

#include "backend/model_step.h"
#include "runner/random.h"
#include "tap.h"

#define N 2000

/* "keep" must stay; "a" and "b" only go together (a vfork and its child's exit) */
static bool pair_fails(const char *text, void *arg)
{
	(void)arg;
	return strstr(text, "keep") && !strstr(text, "a\n") == !strstr(text, "b\n");
}

/* Lines that only go together are dropped at once, however the chunks fall */
static void test_shrink_pairs(void)
{
	char text[] = "keep\na\nb\nx\n";

	npg_shrink_lines(text, pair_fails, NULL);
	tap_ok(strcmp(text, "keep\n") == 0, "shrink: two lines that go together are dropped together "
	       "(left: '%s')", text);
}

int main(void)
{
	test_shrink_pairs();
	static char text[65536];
	bool used[NPG_OP_MAX_USERNS + 1] = { false }, nested = false;
	bool ptrace_used[NPG_PTRACE_ATTACH + 1] = { false };
	int parsed = 0, ran = 0, userns_ok = 0;

	for (int n = 0; n < N; n++) {
		int len = npg_random_scenario(1, n, 0, text, sizeof(text));
		struct npg_scenario *sc;

		if (len < 0)
			continue;
		sc = npg_scenario_parse("random", text, (size_t)len, stdout);
		if (!sc)
			continue;
		parsed++;
		for (int s = 0; s < sc->nstmts; s++)
			if (sc->stmts[s].kind == NPG_STMT_STEP) {
				used[sc->stmts[s].op.code] = true;
				if (sc->stmts[s].op.code == NPG_OP_PTRACE)
					ptrace_used[sc->stmts[s].op.value] = true;
			}
		for (int pi = 0; pi < NPG_NPOLICIES; pi++) {
			struct npg_backend b;
			struct npg_world *w;

			npg_model_backend_init(&b, npg_policies[pi], NPG_CAP_ALL);
			if (b.ops->start(&b, sc) < 0)
				continue;
			for (int s = 0; s < sc->nstmts; s++)
				if (sc->stmts[s].kind == NPG_STMT_STEP)
					b.ops->step(&b, &sc->stmts[s]);
			w = npg_model_world(&b);
			for (int k = 1; w->userns && k <= NPG_MAX_USERNS; k++) {
				userns_ok += w->userns[k].exists && pi == NPG_NPOLICIES - 1;
				nested |= w->userns[k].exists && w->userns[k].level > 1;
			}
			b.ops->stop(&b);
			ran++;
		}
		npg_scenario_free(sc);
	}
	tap_is(parsed, N, "every generated scenario parses");
	tap_is(ran, N * NPG_NPOLICIES, "and runs on the model of every policy");
	for (int op = 0; op <= NPG_OP_MAX_USERNS; op++)
		tap_ok(used[op], "operation %d is generated", op);
	tap_ok(ptrace_used[NPG_PTRACE_SEIZE] && ptrace_used[NPG_PTRACE_ATTACH] &&
	       ptrace_used[NPG_PTRACE_DETACH], "ptrace, ptrace attach and ptrace detach are generated");
	tap_ok(userns_ok > N / 10, "namespaces are created (%d under linux-6)", userns_ok);
	tap_ok(nested, "nested ones too");
	{
		/* for a kernel without user namespaces: none of their operations */
		int with_ns = 0, parsed_plain = 0;

		for (int n = 0; n < N; n++) {
			int len = npg_random_scenario(1, n, NPG_RANDOM_NO_USERNS, text, sizeof(text));
			struct npg_scenario *sc = len < 0 ? NULL :
				npg_scenario_parse("random", text, (size_t)len, stdout);

			if (!sc)
				continue;
			parsed_plain++;
			for (int s = 0; s < sc->nstmts; s++) {
				enum npg_opcode c = sc->stmts[s].op.code;

				with_ns += sc->stmts[s].kind == NPG_STMT_STEP &&
					   (c == NPG_OP_UNSHARE_USER || c == NPG_OP_CLONE_USER ||
					    c == NPG_OP_SETNS_USER || c == NPG_OP_WRITE_IDMAP ||
					    c == NPG_OP_WRITE_SETGROUPS || c == NPG_OP_MAX_USERNS);
			}
			npg_scenario_free(sc);
		}
		tap_is(parsed_plain, N, "without user namespaces: every scenario parses");
		tap_is(with_ns, 0, "and none touches a namespace");
	}
	{
		/* 2.6.39-3.4's: clone() mostly, its namespaces made under linux-2.6 */
		int clones = 0, others = 0, made = 0;

		for (int n = 0; n < N; n++) {
			int len = npg_random_scenario(1, n, NPG_RANDOM_USERNS_2_6_39, text, sizeof(text));
			struct npg_scenario *sc = len < 0 ? NULL :
				npg_scenario_parse("random", text, (size_t)len, stdout);
			struct npg_backend b = { 0 };
			const struct npg_world *w;

			if (!sc)
				continue;
			for (int s = 0; s < sc->nstmts; s++) {
				enum npg_opcode c = sc->stmts[s].op.code;

				if (sc->stmts[s].kind != NPG_STMT_STEP)
					continue;
				clones += c == NPG_OP_CLONE_USER;
				others += c == NPG_OP_UNSHARE_USER || c == NPG_OP_SETNS_USER ||
					  c == NPG_OP_WRITE_IDMAP;
			}
			npg_model_backend_init(&b, &npg_policy_linux_2_6, NPG_CAP_ALL);
			if (b.ops->start(&b, sc) == 0) {
				for (int s = 0; s < sc->nstmts; s++)
					if (sc->stmts[s].kind == NPG_STMT_STEP)
						b.ops->step(&b, &sc->stmts[s]);
				w = npg_model_world(&b);
				for (int k = 1; w->userns && k <= NPG_MAX_USERNS; k++)
					made += w->userns[k].exists;
				b.ops->stop(&b);
			}
			npg_scenario_free(sc);
		}
		tap_ok(clones > 2 * others, "2.6.39-3.4: clone %d times, the rest %d", clones, others);
		tap_ok(made > N / 20, "and namespaces are made under linux-2.6 (%d)", made);
	}
	return tap_done();
}
