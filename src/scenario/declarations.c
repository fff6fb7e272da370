/*
 * Declarations: scenario, source, policies, bounding, yama, file, user,
 * group and task -- what the machine and the scenario's tasks are before
 * the first step.
 */
#include <inttypes.h>
#include <string.h>

#include "model/policy.h"
#include "scenario/parse.h"

/* ---- declarations ---- */

void npg_parse_string_decl(struct parser *p, char **field, const char *what)
{
	if (p->ntok != 2 || p->tok[1].kind != NPG_TOK_STRING) {
		npg_parse_error(p, p->ntok > 1 ? p->tok[1].col : npg_parse_end_col(p),
				"expected: %s \"TEXT\"", what);
		return;
	}
	if (*field) {
		npg_parse_error(p, p->tok[0].col, "%s given twice", what);
		return;
	}
	*field = npg_tok_dup(&p->tok[1]);
}

void npg_parse_policies(struct parser *p)
{
	uint32_t mask = 0;

	if (p->ntok < 2) {
		npg_parse_error(p, npg_parse_end_col(p), "expected policy names or 'all'");
		return;
	}
	for (int i = 1; i < p->ntok; i++) {
		const struct npg_token *t = &p->tok[i];
		char name[64];
		const struct npg_policy *pol;

		if (t->kind == NPG_TOK_COMMA)
			continue;
		if (npg_tok_is(t, "all")) {
			mask = (1u << NPG_NPOLICIES) - 1;
			continue;
		}
		pol = (t->kind == NPG_TOK_WORD && npg_tok_copy(t, name, sizeof(name)))
			      ? npg_policy_find(name) : NULL;
		if (!pol) {
			npg_parse_error(p, t->col, "unknown policy '%.*s%s' (see 'nprocguard policies')",
					TOKLEN(t->len), t->start, TOKCUT(t->len));
			return;
		}
		mask |= 1u << npg_policy_index(pol);
	}
	p->sc->policies = mask;
}

/*
 * bounding LIST: the capability bounding set of the machine the scenario
 * is about (a container, a host without CAP_SYS_RESOURCE). What root's
 * tasks start with and what execve() grants (cap_bprm_creds_from_file()).
 */
void npg_parse_bounding(struct parser *p)
{
	uint64_t caps;
	int next;

	if (p->sc->nstmts > 0 || p->sc->ntasks > 0) {
		npg_parse_error(p, p->tok[0].col, "declare 'bounding' before the tasks and steps");
		return;
	}
	if (p->sc->has_bounding) {
		npg_parse_error(p, p->tok[0].col, "bounding given twice");
		return;
	}
	next = npg_parse_caps(p, 1, p->ntok, &caps);
	if (next < 0)
		return;
	/* "all but LIST": a host that lacks a few (CapBnd 000001fffeffffff) */
	if (next < p->ntok && npg_tok_is(&p->tok[next], "but") && caps == NPG_CAP_ALL) {
		uint64_t without;

		next = npg_parse_caps(p, next + 1, p->ntok, &without);
		if (next < 0)
			return;
		caps &= ~without;
	}
	if (!npg_parse_expect_end(p, next, p->ntok))
		return;
	p->sc->has_bounding = true;
	p->sc->bounding = caps;
}

/*
 * yama ptrace_scope N: the machine has Yama (3.4+) with
 * kernel.yama.ptrace_scope N, 0 (classic) to 3 (no attach); without the
 * declaration it has no Yama, and PR_SET_PTRACER is EINVAL
 */
void npg_parse_yama(struct parser *p)
{
	uint64_t v;

	if (p->sc->nstmts > 0 || p->sc->ntasks > 0) {
		npg_parse_error(p, p->tok[0].col, "declare 'yama' before the tasks and steps");
		return;
	}
	if (p->sc->yama_scope >= 0) {
		npg_parse_error(p, p->tok[0].col, "yama given twice");
		return;
	}
	if (!npg_parse_expect_word(p, 1, "'ptrace_scope'"))
		return;
	if (!npg_tok_is(&p->tok[1], "ptrace_scope")) {
		npg_parse_error(p, p->tok[1].col, "expected 'ptrace_scope'");
		return;
	}
	if (!npg_parse_expect_word(p, 2, "0, 1, 2 or 3"))
		return;
	if (!npg_tok_u64(&p->tok[2], &v) || v > 3) {
		npg_parse_error(p, p->tok[2].col, "ptrace_scope is 0, 1, 2 or 3");
		return;
	}
	if (!npg_parse_expect_end(p, 3, p->ntok))
		return;
	p->sc->yama_scope = (int)v;
}

/* file PATH missing: what execve PATH finds there */
void npg_parse_file_decl(struct parser *p)
{
	struct npg_scenario *sc = p->sc;
	struct npg_file f = { 0 };
	int i = 2;

	if (p->sc->nstmts > 0) {
		npg_parse_error(p, p->tok[0].col, "declare files before the first step");
		return;
	}
	if (!npg_parse_expect_word(p, 1, "a path"))
		return;
	if (p->tok[1].start[0] != '/' || p->tok[1].len > 200) {
		npg_parse_error(p, p->tok[1].col, "a file is an absolute path of at most 200 bytes");
		return;
	}
	if (npg_parse_find_file(sc, &p->tok[1]) >= 0) {
		npg_parse_error(p, p->tok[1].col, "file '%.*s%s' declared twice", TOKLEN(p->tok[1].len),
				p->tok[1].start, TOKCUT(p->tok[1].len));
		return;
	}
	if (i < p->ntok && npg_tok_is(&p->tok[i], "missing")) {
		f.exec.missing = true;
		i++;
	}
	/* setuid U, setgid G, caps LIST (fP), inheritable LIST (fI), effective (fE) */
	while (!f.exec.missing && i < p->ntok) {
		const struct npg_token *k = &p->tok[i];

		if (npg_tok_is(k, "setuid") || npg_tok_is(k, "setgid")) {
			bool gid = npg_tok_is(k, "setgid");

			if (!npg_parse_id(p, i + 1, gid, false, gid ? &f.exec.gid : &f.exec.uid))
				return;
			*(gid ? &f.exec.setgid : &f.exec.setuid) = true;
			i += 2;
		} else if (npg_tok_is(k, "caps") || npg_tok_is(k, "inheritable")) {
			bool inh = npg_tok_is(k, "inheritable");

			i = npg_parse_caps(p, i + 1, p->ntok, inh ? &f.exec.fcap_inheritable :
					   &f.exec.fcap_permitted);
			if (i < 0)
				return;
			f.exec.has_fcaps = true;
		} else if (npg_tok_is(k, "effective")) {
			f.exec.fcap_effective = f.exec.has_fcaps = true;
			i++;
		} else if (npg_tok_is(k, "nosuid")) {
			f.exec.nosuid = true;
			i++;
		} else if (npg_tok_is(k, "rootid")) {
			/* v3 capabilities, as written inside a namespace whose root is USER */
			if (!npg_parse_id(p, i + 1, false, false, &f.exec.fcap_rootid))
				return;
			f.exec.fcap_v3 = true;
			i += 2;
		} else {
			break;
		}
	}
	if (!f.exec.missing && !f.exec.setuid && !f.exec.setgid && !f.exec.has_fcaps) {
		npg_parse_error(p, i < p->ntok ? p->tok[i].col : npg_parse_end_col(p),
				"expected 'missing', or setuid USER, setgid GROUP, caps LIST, "
				"inheritable LIST, effective, rootid USER, nosuid");
		return;
	}
	if (f.exec.fcap_v3 && !f.exec.has_fcaps) {
		npg_parse_error(p, p->tok[1].col, "'rootid' is of file capabilities: give caps, "
				"inheritable or effective too");
		return;
	}
	if (!npg_parse_expect_end(p, i, p->ntok))
		return;
	if (sc->nfiles == NPG_MAX_FILES) {
		npg_parse_error(p, p->tok[0].col, "more than %d files", NPG_MAX_FILES);
		return;
	}
	f.path = npg_tok_dup(&p->tok[1]);
	sc->files[sc->nfiles++] = f;
}

void npg_parse_name_decl(struct parser *p, bool group)
{
	struct npg_scenario *sc = p->sc;
	struct npg_name n = { .group = group };
	uint64_t v;
	int i = 3;

	if (!npg_parse_expect_word(p, 1, group ? "a group name" : "a user name"))
		return;
	if (!npg_parse_valid_identifier(&p->tok[1])) {
		npg_parse_error(p, p->tok[1].col, "bad name '%.*s%s'", TOKLEN(p->tok[1].len), p->tok[1].start, TOKCUT(p->tok[1].len));
		return;
	}
	for (int k = 0; k < sc->nnames; k++)
		if (sc->names[k].group == group && strlen(sc->names[k].name) == p->tok[1].len &&
		    memcmp(sc->names[k].name, p->tok[1].start, p->tok[1].len) == 0) {
			npg_parse_error(p, p->tok[1].col, "duplicate %s '%s'", group ? "group" : "user",
					sc->names[k].name);
			return;
		}
	if (!npg_parse_expect_word(p, 2, group ? "a gid" : "a uid"))
		return;
	if (!npg_tok_u64(&p->tok[2], &v) || v >= NPG_ID_NONE) {
		npg_parse_error(p, p->tok[2].col, "%s out of range or not a number: '%.*s%s'",
				group ? "gid" : "uid", TOKLEN(p->tok[2].len), p->tok[2].start, TOKCUT(p->tok[2].len));
		return;
	}
	n.id = (npg_id)v;
	for (int k = 0; k < sc->nnames; k++)
		if (sc->names[k].group == group && sc->names[k].id == n.id) {
			npg_parse_error(p, p->tok[2].col, "%s %" PRIu32 " is already named '%s'",
					group ? "gid" : "uid", n.id, sc->names[k].name);
			return;
		}
	if (!group && i < p->ntok && npg_tok_is(&p->tok[i], "procs")) {
		if (!npg_parse_expect_word(p, i + 1, "a process count"))
			return;
		if (!npg_tok_u64(&p->tok[i + 1], &v) || v > 100000) {
			npg_parse_error(p, p->tok[i + 1].col, "bad process count (0 to 100000)");
			return;
		}
		n.procs = (long)v;
		i += 2;
	}
	if (!npg_parse_expect_end(p, i, p->ntok))
		return;
	if (sc->nnames == MAX_NAMES) {
		npg_parse_error(p, p->tok[0].col, "more than %d users and groups", MAX_NAMES);
		return;
	}
	n.name = npg_tok_dup(&p->tok[1]);
	sc->names[sc->nnames++] = n;
}

/* task NAME uid U [euid U] [suid U] [gid G] [egid G] [sgid G] [groups L] [nproc S H] [caps L] [keepcaps] */
void npg_parse_task_decl(struct parser *p)
{
	struct npg_task_decl d = { .creator = -1, .initial = true, .line = p->line,
				   .nproc_cur = NPG_RLIM_INFINITY, .nproc_max = NPG_RLIM_INFINITY };
	bool have_uid = false, have_euid = false, have_suid = false;
	bool have_gid = false, have_egid = false, have_sgid = false;
	uint64_t caps = 0;
	int idx;

	if (!npg_parse_expect_word(p, 1, "a task name") || !npg_parse_check_fresh_name(p, &p->tok[1], "task"))
		return;
	for (int i = 2; i < p->ntok;) {
		const struct npg_token *k = &p->tok[i];
		int next;

		if (npg_tok_is(k, "uid") || npg_tok_is(k, "euid") || npg_tok_is(k, "suid")) {
			npg_id *dst = npg_tok_is(k, "uid") ? &d.cred.uid.real
				      : npg_tok_is(k, "euid") ? &d.cred.uid.eff : &d.cred.uid.saved;

			if (!npg_parse_id(p, i + 1, false, false, dst))
				return;
			have_uid |= npg_tok_is(k, "uid");
			have_euid |= npg_tok_is(k, "euid");
			have_suid |= npg_tok_is(k, "suid");
			i += 2;
		} else if (npg_tok_is(k, "gid") || npg_tok_is(k, "egid") || npg_tok_is(k, "sgid")) {
			npg_id *dst = npg_tok_is(k, "gid") ? &d.cred.gid.real
				      : npg_tok_is(k, "egid") ? &d.cred.gid.eff : &d.cred.gid.saved;

			if (!npg_parse_id(p, i + 1, true, false, dst))
				return;
			have_gid |= npg_tok_is(k, "gid");
			have_egid |= npg_tok_is(k, "egid");
			have_sgid |= npg_tok_is(k, "sgid");
			i += 2;
		} else if (npg_tok_is(k, "groups")) {
			next = npg_parse_groups(p, i + 1, p->ntok, &d.cred.ngroups, d.cred.groups);
			if (next < 0)
				return;
			i = next;
		} else if (npg_tok_is(k, "nproc")) {
			if (!npg_parse_nproc(p, i, &d.nproc_cur, &d.nproc_max))
				return;
			if (d.nproc_cur > d.nproc_max) {
				npg_parse_error(p, p->tok[i + 1].col, "soft limit above hard limit");
				return;
			}
			i += 3;
		} else if (npg_tok_is(k, "caps")) {
			next = npg_parse_caps(p, i + 1, p->ntok, &caps);
			if (next < 0)
				return;
			d.caps_explicit = true;
			i = next;
		} else if (npg_tok_is(k, "keepcaps")) {
			d.cred.keepcaps = true;
			i++;
		} else {
			npg_parse_error(p, k->col, "unknown task attribute '%.*s%s'", TOKLEN(k->len), k->start, TOKCUT(k->len));
			return;
		}
	}
	if (!have_uid) {
		npg_parse_error(p, npg_parse_end_col(p), "task needs 'uid USER'");
		return;
	}
	if (!have_euid)
		d.cred.uid.eff = d.cred.uid.real;
	if (!have_suid)
		d.cred.uid.saved = d.cred.uid.eff;
	d.cred.uid.fs = d.cred.uid.eff;
	if (!have_gid)
		d.cred.gid.real = d.cred.uid.real;	/* a user's primary group, by number */
	if (!have_egid)
		d.cred.gid.eff = d.cred.gid.real;
	if (!have_sgid)
		d.cred.gid.saved = d.cred.gid.eff;
	d.cred.gid.fs = d.cred.gid.eff;
	d.cred.cap_bset = p->sc->has_bounding ? p->sc->bounding : NPG_CAP_ALL;
	if (d.caps_explicit) {
		d.cred.cap_permitted = d.cred.cap_effective = caps;
	} else if (d.cred.uid.real == 0 || d.cred.uid.eff == 0) {
		/* as a freshly exec'd program (cap_bprm_creds_from_file()): root
		 * gets the bounding set, effective only with euid 0 */
		d.cred.cap_permitted = d.cred.cap_bset;
		d.cred.cap_effective = d.cred.uid.eff == 0 ? d.cred.cap_bset : 0;
	}
	d.cred.charged_to = d.cred.uid.real;
	idx = npg_parse_add_task(p, &p->tok[1]);
	if (idx < 0)
		return;
	d.name = p->sc->tasks[idx].name;
	p->sc->tasks[idx] = d;
}
