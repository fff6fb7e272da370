/*
 * identify: configurations as text, the probes linked in (each separates
 * every pair its header names, on a machine with and without
 * CAP_SYS_RESOURCE), and the decision -- from "kernels" that are the model
 * of a known configuration, identify finds one the probes cannot tell
 * from it, and every rule it calls decided is.
 */
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "identify/candidates.h"
#include "identify/identify.h"
#include "identify/probes.h"
#include "identify/trace.h"
#include "model/config.h"
#include "model/policy.h"
#include "model/release.h"
#include "tap.h"

static struct npg_host host_of(const char *release, bool sys_resource)
{
	struct npg_host h;

	memset(&h, 0, sizeof(h));
	snprintf(h.release, sizeof(h.release), "%s", release);
	npg_release_parse(&h.rel, release, NULL);
	h.policy = h.rel.policy;
	h.root = true;
	h.yama_scope = -1;
	h.cap_bnd = h.cap_eff = NPG_CAP_ALL & ~(sys_resource ? 0 : NPG_CAP(NPG_CAP_SYS_RESOURCE));
	return h;
}

static void config_text(void)
{
	struct npg_config c, d;
	char buf[512], err[256];

	tap_ok(npg_config_parse(&c, "linux-6", err, sizeof(err)) == 0 &&
	       c.policy == &npg_policy_linux_6 && c.rules.exec_id_changed, "linux-6 is its own rules");
	npg_config_format(&c, buf, sizeof(buf));
	tap_ok(strcmp(buf, "linux-6") == 0, "linux-6 written back as linux-6");
	tap_ok(npg_config_parse(&c, "linux-3.1,+setresuid_noop_fastpath,ptrace_seize=1,-ambient_caps",
				err, sizeof(err)) == 0 && c.rules.setresuid_noop_fastpath &&
	       c.rules.ptrace_seize == 1 && !c.rules.ambient_caps, "changes apply");
	npg_config_format(&c, buf, sizeof(buf));
	tap_ok(npg_config_parse(&d, buf, err, sizeof(err)) == 0 && npg_config_equal(&c, &d),
	       "a configuration read back from its text is itself (%s)", buf);
	tap_ok(npg_config_parse(&c, "linux-7", err, sizeof(err)) < 0 &&
	       strstr(err, "'linux-7': not a policy"), "an unknown policy is refused: %s", err);
	tap_ok(npg_config_parse(&c, "linux-6,+frob", err, sizeof(err)) < 0 &&
	       strstr(err, "'frob': no such rule"), "an unknown rule is refused: %s", err);
	tap_ok(npg_config_parse(&c, "linux-6,ptrace_seize=3", err, sizeof(err)) < 0 &&
	       npg_config_parse(&c, "linux-6,+ptrace_seize", err, sizeof(err)) < 0 &&
	       npg_config_parse(&c, "linux-6,ambient_caps=1", err, sizeof(err)) < 0 &&
	       npg_config_parse(&c, "linux-6,-ambient_caps,+ambient_caps", err, sizeof(err)) < 0 &&
	       npg_config_parse(&c, "linux-6,ambient_caps", err, sizeof(err)) < 0,
	       "values out of range, the wrong form, a rule twice, a bare word are refused");
	tap_ok(npg_config_parse(&c, "linux-5.14,+flag_nproc_exceeded", err, sizeof(err)) == 0 &&
	       npg_config_policy_name(&c) == &npg_policy_linux_6 &&
	       npg_config_parse(&c, "linux-6,-flag_nproc_exceeded", err, sizeof(err)) == 0 &&
	       npg_config_policy_name(&c) == &npg_policy_linux_5_14,
	       "the ucounts hooks are named by flag_nproc_exceeded, as a release is");
}

/* Does @sc tell @a from @b on @host? */
static bool tells_apart(const struct npg_scenario *sc, const struct npg_config *a,
			const struct npg_config *b, const struct npg_host *host)
{
	struct npg_trace ta, tb;
	bool yes;

	if (npg_trace_model(&ta, sc, a, host, NULL, 0, false) < 0 ||
	    npg_trace_model(&tb, sc, b, host, NULL, 0, false) < 0)
		return false;
	yes = npg_trace_differences(&ta, &tb, NULL) > 0;
	npg_trace_free(&ta);
	npg_trace_free(&tb);
	return yes;
}

static void probes_separate(const struct npg_probes *ps)
{
	struct npg_host full = host_of("6.18.0", true), lean = host_of("6.18.0", false);

	tap_ok(ps->n > 0, "%d probes are linked in", ps->n);
	for (int i = 0; i < ps->n; i++) {
		const struct npg_probe *p = &ps->p[i];
		int bad = -1;

		for (int k = 0; k < p->npairs && bad < 0; k++)
			if (!tells_apart(p->sc, &p->pairs[k].a, &p->pairs[k].b, &full) ||
			    !tells_apart(p->sc, &p->pairs[k].a, &p->pairs[k].b, &lean))
				bad = k;
		if (!tap_ok(p->npairs > 0 && bad < 0, "%s separates its %d pairs, with and without "
			    "CAP_SYS_RESOURCE", p->file, p->npairs)) {
			char a[512], b[512];

			if (bad >= 0) {
				npg_config_format(&p->pairs[bad].a, a, sizeof(a));
				npg_config_format(&p->pairs[bad].b, b, sizeof(b));
				printf("#   not: %s | %s\n", a, b);
			}
		}
	}
}

/* root's tasks @sc declares */
static long root_declared(const struct npg_scenario *sc)
{
	for (int i = 0; i < sc->nnames; i++)
		if (!sc->names[i].group && sc->names[i].id == 0)
			return sc->names[i].procs;
	return 0;
}

/*
 * The probes' traces on the model of @kernel, as if a kernel had run them;
 * in a guest that keeps @guest_root root tasks of its own (0: none), as
 * the real backend records them where they outnumber the probe's
 */
static struct npg_trace *kernel_in(const struct npg_probes *ps, const struct npg_config *kernel,
				   const struct npg_host *host, long guest_root)
{
	struct npg_trace *t = calloc((size_t)ps->n + 1, sizeof(*t));

	for (int i = 0; t && i < ps->n; i++) {
		long raised = guest_root > root_declared(ps->p[i].sc) ? guest_root : 0;

		if (npg_trace_model(&t[i], ps->p[i].sc, kernel, host, &host->rel, raised, true) < 0)
			return NULL;
		t[i].root_raised = raised;
	}
	return t;
}

static struct npg_trace *kernel_of(const struct npg_probes *ps, const struct npg_config *kernel,
				   const struct npg_host *host)
{
	return kernel_in(ps, kernel, host, 0);
}

static void free_kernel(const struct npg_probes *ps, struct npg_trace *t)
{
	for (int i = 0; t && i < ps->n; i++)
		npg_trace_free(&t[i]);
	free(t);
}

/* No probe tells @a from @b: the same prediction everywhere */
static bool indistinguishable(const struct npg_probes *ps, const struct npg_config *a,
			      const struct npg_config *b, const struct npg_host *host)
{
	for (int i = 0; i < ps->n; i++)
		if (tells_apart(ps->p[i].sc, a, b, host))
			return false;
	return true;
}

static void decides_in(const struct npg_probes *ps, const char *kernel_release,
		       const char *version_says, long guest_root)
{
	struct npg_host host = host_of(version_says, false);
	struct npg_release kr;
	struct npg_config kernel;
	struct npg_identified id;
	struct npg_trace *t;
	bool decided_right = true;

	npg_release_parse(&kr, kernel_release, NULL);
	kernel.policy = kr.policy;
	kernel.rules = kr.rules;
	t = kernel_in(ps, &kernel, &host, guest_root);
	if (!tap_ok(t && npg_identify_decide(ps, t, &host, &id) == 0, "identify decides a kernel "
		    "that follows %s's rules%s", kernel_release,
		    guest_root ? ", in a guest whose root keeps tasks of its own" : "")) {
		free_kernel(ps, t);
		return;
	}
	tap_ok(id.fits && id.in_history && indistinguishable(ps, &id.config, &kernel, &host),
	       "%s (its version saying %s%s): %s, which no probe tells from its rules",
	       kernel_release, version_says, guest_root ? ", root keeping tasks" : "", id.spec);
	tap_ok(npg_config_policy_name(&id.config) == kr.policy, "%s: policy %s", kernel_release,
	       kr.policy->name);
	/* a dimension decided is one the kernel's own rules agree with */
	for (int i = 0; i < id.nruled; i++) {
		const struct npg_ruled_out *r = &id.ruled[i];

		if (r->decision != NPG_DECIDED || !r->dim.rule)
			continue;
		if (npg_rule_get(&id.config.rules, r->dim.rule) != npg_rule_get(&kernel.rules, r->dim.rule))
			decided_right = false;
	}
	tap_ok(decided_right, "%s: every rule identify calls decided has the kernel's value",
	       kernel_release);
	free_kernel(ps, t);
}

static void decides(const struct npg_probes *ps, const char *kernel_release,
		    const char *version_says)
{
	decides_in(ps, kernel_release, version_says, 0);
}

/*
 * 5.14-5.16's set_user() reads the caller's old count (c923a8e7edb0 moved
 * it): a root caller in a 5.15.24 guest meets the guest's own root tasks.
 * A model that starts from the file's count fits no configuration there
 * -- what identify --kernel said of 5.15.24 before the models started
 * from the kernel run's root_raised.
 */
static void guest_root_needed(const struct npg_probes *ps)
{
	struct npg_host host = host_of("5.15.24", false);
	struct npg_release kr;
	struct npg_config kernel;
	struct npg_identified id;
	struct npg_trace *t;

	npg_release_parse(&kr, "5.15.24", NULL);
	kernel.policy = kr.policy;
	kernel.rules = kr.rules;
	t = kernel_in(ps, &kernel, &host, 20);
	for (int i = 0; t && i < ps->n; i++)
		t[i].root_raised = 0;	/* the models not told */
	tap_ok(t && npg_identify_decide(ps, t, &host, &id) == 0 && !id.fits,
	       "5.15.24 in a guest, root's own tasks not given to the models: nothing fits (%s)",
	       t ? id.spec : "no memory");
	free_kernel(ps, t);
}

static void no_fit(const struct npg_probes *ps)
{
	struct npg_host host = host_of("6.18.0", false);
	struct npg_config kernel;
	struct npg_identified id;
	struct npg_trace *t;
	char err[128];
	int p = -1;

	/* a combination no release has: linux-6 that kept 5.14's euid keying */
	npg_config_parse(&kernel, "linux-6,-ucounts_real_uid", err, sizeof(err));
	t = kernel_of(ps, &kernel, &host);
	if (t && npg_identify_decide(ps, t, &host, &id) == 0)
		tap_ok(id.fits && indistinguishable(ps, &id.config, &kernel, &host),
		       "a combination of rules no release has is found from its neighbours: %s "
		       "(in the history: %s)", id.spec, id.in_history ? "yes" : "no");
	free_kernel(ps, t);
	/* a kernel that does what no configuration says */
	npg_config_of_policy(&kernel, &npg_policy_linux_6);
	t = kernel_of(ps, &kernel, &host);
	for (int i = 0; t && i < ps->n && p < 0; i++)
		for (int s = 0; s < t[i].n && p < 0; s++)
			if (t[i].s[s].fields.n && strcmp(t[i].s[s].fields.f[0].name, "result") == 0) {
				snprintf(t[i].s[s].fields.f[0].value, sizeof(t[i].s[s].fields.f[0].value),
					 "E2BIG");
				t[i].s[s].digest ^= 1;
				p = i;
			}
	if (t && p >= 0 && npg_identify_decide(ps, t, &host, &id) == 0) {
		bool named = false;

		for (int i = 0; i < id.nagainst_all; i++)
			named |= id.against_all[i] == p;
		tap_ok(!id.fits && id.contradictions > 0 && named,
		       "a result no configuration gives: no fit, the nearest named (%s), and %s "
		       "among the probes every configuration contradicts", id.spec, ps->p[p].file);
	} else {
		tap_ok(false, "a result no configuration gives");
	}
	free_kernel(ps, t);
}

int main(void)
{
	struct npg_probes ps;

	config_text();
	if (!tap_ok(npg_probes_load(&ps, stdout) == 0, "the probes linked in parse"))
		return tap_done();
	probes_separate(&ps);
	decides(&ps, "3.0.8", "6.18.0");
	decides(&ps, "3.0.8-kulikov-2011", "3.0.8");
	decides(&ps, "3.0.8-ow-2006", "3.0.8");
	decides(&ps, "5.10.223", "5.10.223");
	decides(&ps, "5.15.24", "5.15.0");
	decides(&ps, "5.15.85", "5.15.24");
	decides(&ps, "6.1.176", "6.1.0");
	decides(&ps, "6.18.0", "5.14.0");
	/* the guests boot with root tasks of their own: 16 on 3.0.8, 20 on 5.x */
	decides_in(&ps, "3.0.8", "3.0.8", 16);
	decides_in(&ps, "5.15.24", "5.15.24", 20);
	decides_in(&ps, "5.15.85", "5.15.85", 20);
	guest_root_needed(&ps);
	no_fit(&ps);
	npg_probes_free(&ps);
	return tap_done();
}
