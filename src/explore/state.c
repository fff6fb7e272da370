/*
 * The explorer's states: each task's local (its task, program counter and
 * bits) interned once, a state as the words naming its locals, the
 * symmetry's canonical form of a state, and the table of states seen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "backend/model_step.h"
#include "explore/explorer.h"
#include "explore/reduce.h"
#include "explore/search.h"

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/*
 * A state's hash is the sum of one mixed hash per word, keyed by the
 * word's place -- and every member of a symmetry class by its class: the
 * sum is the same for every permutation of a class, so the canonical form
 * need not be made before hashing, and a transition that changes two
 * words changes the sum by two terms (npg_xp_rehash()).
 */
static uint64_t word_hash(uint64_t key, uint32_t w)
{
	return mix(key ^ ((uint64_t)w * 0x9e3779b97f4a7c15ULL));
}

void npg_xp_hash_keys(struct xp *x)
{
	for (int i = 0; i < x->nw; i++)
		x->hkey[i] = mix((uint64_t)i + 1);
	for (int t = 0; x->o->symmetry && t < x->ntasks; t++)
		if (x->cp->klass[t] >= 0 && x->nmembers[x->cp->klass[t]] > 1)
			x->hkey[1 + t] = mix(((uint64_t)1 << 40) + (uint64_t)x->cp->klass[t]);
}

uint64_t npg_xp_hash(const struct xp *x, const uint32_t *v)
{
	uint64_t h = 0;

	for (int i = 0; i < x->nw; i++)
		h += word_hash(x->hkey[i], v[i]);
	return h;
}

uint64_t npg_xp_rehash_word(const struct xp *x, uint64_t h, int i, uint32_t from, uint32_t to)
{
	return h + word_hash(x->hkey[i], to) - word_hash(x->hkey[i], from);
}

uint64_t npg_xp_rehash(const struct xp *x, uint64_t hbase, const uint32_t *base, const uint32_t *v)
{
	for (int i = 0; i < x->nw; i++)
		if (base[i] != v[i])
			hbase += word_hash(x->hkey[i], v[i]) - word_hash(x->hkey[i], base[i]);
	return hbase;
}

/* a local is zeroed before it is filled, so its padding hashes alike */
static uint32_t hash_local(const struct local *l)
{
	_Static_assert(sizeof(struct local) % 8 == 0, "a local is whole 64-bit words");
	const unsigned char *b = (const unsigned char *)l;
	uint64_t h[4] = { 0xcbf29ce484222325ULL, 0x9e3779b97f4a7c15ULL, 1, 2 };
	size_t i = 0;

	/* four independent lanes: the multiplies overlap instead of queueing */
	for (; i + 32 <= sizeof(*l); i += 32)
		for (int k = 0; k < 4; k++) {
			uint64_t w;

			memcpy(&w, b + i + 8 * k, 8);
			h[k] = (h[k] ^ w) * 0xff51afd7ed558ccdULL;
			h[k] = (h[k] << 29) | (h[k] >> 35);
		}
	for (; i < sizeof(*l); i += 8) {
		uint64_t w;

		memcpy(&w, b + i, 8);
		h[0] = (h[0] ^ w) * 0xff51afd7ed558ccdULL;
		h[0] = (h[0] << 29) | (h[0] >> 35);
	}
	return (uint32_t)(mix(h[0] ^ mix(h[1]) ^ (h[2] * 31) ^ (h[3] << 17)) >> 32);
}

uint64_t npg_xp_state_bytes(const struct xp *x)
{
	return x->scap * ((uint64_t)x->rw * 4 + 4 + 2) + (x->smask + 1) * 8 +
	       (uint64_t)x->lcap * (sizeof(struct local) + 4) + ((uint64_t)x->lmask + 1) * 4;
}

bool npg_xp_oom(struct xp *x)
{
	snprintf(x->err, x->errlen, "out of memory");
	x->failed = true;
	return false;
}

/* The local's id, interning it if new; UINT32_MAX when out of memory */
static uint32_t intern(struct xp *x, const struct local *l)
{
	uint32_t h = hash_local(l), i = h & x->lmask;

	while (x->ltab[i]) {
		uint32_t id = x->ltab[i] - 1;

		if (x->lhash[id] == h && memcmp(&x->locals[id], l, sizeof(*l)) == 0)
			return id;
		i = (i + 1) & x->lmask;
	}
	if (x->nlocals == x->lcap) {
		struct local *grown = realloc(x->locals, sizeof(*grown) * x->lcap * 2);
		uint32_t *gh;

		if (!grown)
			return npg_xp_oom(x), UINT32_MAX;
		x->locals = grown;
		gh = realloc(x->lhash, sizeof(*gh) * x->lcap * 2);
		if (!gh)
			return npg_xp_oom(x), UINT32_MAX;
		x->lhash = gh;
		x->lcap *= 2;
	}
	x->locals[x->nlocals] = *l;
	x->lhash[x->nlocals] = h;
	x->ltab[i] = ++x->nlocals;
	if ((uint64_t)x->nlocals * 2 > x->lmask) {
		uint32_t nmask = x->lmask * 2 + 1, *nt = calloc((size_t)nmask + 1, sizeof(*nt));

		if (!nt)
			return npg_xp_oom(x), UINT32_MAX;
		for (uint32_t k = 0; k < x->nlocals; k++) {
			uint32_t j = x->lhash[k] & nmask;

			while (nt[j])
				j = (j + 1) & nmask;
			nt[j] = k + 1;
		}
		free(x->ltab);
		x->ltab = nt;
		x->lmask = nmask;
	}
	return x->nlocals - 1;
}

static bool guard_false(const struct npg_instr *in, bool failed)
{
	return (in->guard == NPG_GUARD_FAILED && !failed) ||
	       (in->guard == NPG_GUARD_SUCCEEDED && failed);
}

uint32_t npg_xp_skip_guards(const struct xp *x, int slot, uint32_t pc, bool failed)
{
	const struct npg_prog *pg = &x->cp->progs[slot];

	while (pc < (uint32_t)pg->ninstr && guard_false(&pg->instr[pc], failed))
		pc++;
	return pc;
}

/* Task @i of @w, with its counters and bits, as an interned local */
uint32_t npg_xp_encode_task(struct xp *x, const struct npg_world *w, int i, uint32_t pc,
			    bool failed, unsigned mon, uint32_t pend, uint32_t calls)
{
	struct local l;

	memset(&l, 0, sizeof(l));
	if (w->tasks[i].state == NPG_TASK_ABSENT) {
		/* a task never created: nothing of it is read (npg_sys_fork() copies
		 * the parent over it), so all absent tasks look the same */
		l.task.state = NPG_TASK_ABSENT;
		l.task.parent = NPG_HARNESS;
		l.task.leader = SELF_LEADER;
		return intern(x, &l);
	}
	l.task = w->tasks[i];
	if (l.task.leader == i)
		l.task.leader = SELF_LEADER;
	if (x->cp->concurrent)
		l.calls = calls;
	if (l.task.state == NPG_TASK_RUNNING && x->cp->concurrent) {
		l.pc = npg_xp_skip_guards(x, i, pc, failed);
		l.failed = failed;
		l.mon = mon;
		l.pend = pend;
	} else if (l.task.state == NPG_TASK_RUNNING) {
		l.mon = mon;	/* a sequential file's tasks have no counter of their own */
	}
	return intern(x, &l);
}

bool npg_xp_enabled(const struct xp *x, const uint32_t *v, int slot)
{
	const struct local *l;

	if (slot < 0)
		return v[0] < (uint32_t)x->cp->seq.ninstr;
	l = &x->locals[v[1 + slot]];
	return l->task.state == NPG_TASK_RUNNING && l->pc < (uint32_t)x->cp->progs[slot].ninstr;
}

const struct npg_instr *npg_xp_next(const struct xp *x, const uint32_t *v, int slot)
{
	if (slot < 0)
		return &x->cp->seq.instr[v[0]];
	return &x->cp->progs[slot].instr[x->locals[v[1 + slot]].pc];
}

void npg_xp_decode_task(const struct xp *x, uint32_t id, int i, struct npg_task *t)
{
	*t = x->locals[id].task;
	if (t->leader == SELF_LEADER)
		t->leader = i;
}

void npg_xp_decode(struct xp *x, const uint32_t *v)
{
	for (int i = 0; i < x->ntasks; i++) {
		if (x->dec_valid && x->vdec[1 + i] == v[1 + i])
			continue;
		npg_xp_decode_task(x, v[1 + i], i, &x->base.tasks[i]);
		x->work.tasks[i] = x->base.tasks[i];
		x->mid.tasks[i] = x->base.tasks[i];
	}
	for (int k = 0; k < x->nuids; k++)
		x->base.counts[k].count = x->work.counts[k].count = x->mid.counts[k].count =
			(int32_t)v[1 + x->ntasks + k];
	memcpy(x->vdec, v, (size_t)x->nw * 4);
	x->dec_valid = true;
}

int npg_xp_depth(const struct xp *x, const uint32_t *v)
{
	long d = v[0];

	for (int i = 0; i < x->ntasks; i++)
		d += x->locals[v[1 + i]].calls;
	return d > INT32_MAX ? INT32_MAX : (int)d;
}
/* Sort each class's slots by local id (not-yet-created last); perm[canonical] = concrete */
void npg_xp_canonicalize(const struct xp *x, uint32_t *v, int *perm)
{
	for (int i = 0; i < x->ntasks; i++)
		perm[i] = i;
	if (!x->o->symmetry)
		return;
	for (int c = 0; c < x->nclasses; c++) {
		int n = x->nmembers[c], *m = x->members[c];
		uint32_t key[NPG_MAX_REPEAT * 4], id[NPG_MAX_REPEAT * 4];
		int from[NPG_MAX_REPEAT * 4];

		for (int j = 0; j < n; j++) {
			id[j] = v[1 + m[j]];
			key[j] = x->locals[id[j]].task.state == NPG_TASK_ABSENT ? UINT32_MAX : id[j];
			from[j] = m[j];
		}
		for (int j = 1; j < n; j++) {
			uint32_t k = key[j], d = id[j];
			int f = from[j], q = j - 1;

			for (; q >= 0 && key[q] > k; q--) {
				key[q + 1] = key[q];
				id[q + 1] = id[q];
				from[q + 1] = from[q];
			}
			key[q + 1] = k;
			id[q + 1] = d;
			from[q + 1] = f;
		}
		for (int j = 0; j < n; j++) {
			v[1 + m[j]] = id[j];
			perm[m[j]] = from[j];
		}
	}
}

uint64_t npg_xp_permute_set(const struct xp *x, uint64_t set, const int *perm)
{
	uint64_t out = 0;

	if (!set || !x->o->symmetry)
		return set;
	for (int j = 0; j < x->ntasks && j < 64; j++)
		if (perm[j] < 64 && (set >> perm[j] & 1))
			out |= (uint64_t)1 << j;
	return out;
}

static bool same_words(const uint32_t *a, const uint32_t *b, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

void npg_xp_prefetch(const struct xp *x, uint64_t hash)
{
	__builtin_prefetch(&x->stab[(uint32_t)hash & x->smask]);
}

void npg_xp_prefetch_row(const struct xp *x, uint64_t hash)
{
	uint64_t e = x->stab[(uint32_t)hash & x->smask];

	if (e && (e >> 32) == (hash & UINT32_MAX))
		__builtin_prefetch(&x->arena[((e & UINT32_MAX) - 1) * x->rw]);
}

static uint64_t get_sleep(const struct xp *x, const uint32_t *row)
{
	if (x->sw == 0)
		return 0;
	return row[x->nw] | (x->sw == 2 ? (uint64_t)row[x->nw + 1] << 32 : 0);
}

static void set_sleep(const struct xp *x, uint32_t *row, uint64_t sleep)
{
	if (x->sw >= 1)
		row[x->nw] = (uint32_t)sleep;
	if (x->sw == 2)
		row[x->nw + 1] = (uint32_t)(sleep >> 32);
}


/*
 * The state tables grow to tens of MiB: anonymous mappings that grow in
 * place (mremap(), no copy -- a realloc() from the heap copied them), their
 * pages made at once when they grow (MAP_POPULATE, MADV_POPULATE_WRITE:
 * one system call instead of a fault per page, which a paravirtualised
 * guest pays dearly for -- the faults were a tenth of the search).
 * Zeroed.
 */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14; refused (and ignored) before */
#endif

void *npg_xp_big_alloc(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
		       -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void *npg_xp_big_grow(void *p, size_t old, size_t len)
{
	size_t page = 4096, from = (old + page - 1) / page * page;
	char *q = mremap(p, old, len, MREMAP_MAYMOVE);

	if (q == MAP_FAILED)
		return NULL;
	if (len > from)
		madvise(q + from, len - from, MADV_POPULATE_WRITE);
	return q;
}

void npg_xp_big_free(void *p, size_t len)
{
	if (p)
		munmap(p, len);
}

/* by an eighth: growing in place costs no copy, and capacity is memory */
static bool grow_states(struct xp *x)
{
	uint64_t ncap = x->scap + x->scap / 8;
	uint32_t *a = npg_xp_big_grow(x->arena, x->scap * (size_t)x->rw * 4, ncap * (size_t)x->rw * 4);
	uint32_t *p;
	int16_t *vi;

	if (!a)
		return npg_xp_oom(x);
	x->arena = a;
	p = npg_xp_big_grow(x->parent, x->scap * sizeof(*p), ncap * sizeof(*p));
	if (!p)
		return npg_xp_oom(x);
	x->parent = p;
	vi = npg_xp_big_grow(x->via, x->scap * sizeof(*vi), ncap * sizeof(*vi));
	if (!vi)
		return npg_xp_oom(x);
	x->via = vi;
	x->scap = ncap;
	return true;
}

static bool grow_table(struct xp *x)
{
	uint64_t nmask = x->smask * 2 + 1;
	uint64_t *nt = npg_xp_big_alloc((nmask + 1) * sizeof(*nt));

	if (!nt)
		return npg_xp_oom(x);
	for (uint64_t k = 0; k <= x->smask; k++) {
		uint64_t j;

		if (!x->stab[k])
			continue;
		/* the slot keeps the hash's low half: where it goes, without the row */
		for (j = (x->stab[k] >> 32) & nmask; nt[j]; j = (j + 1) & nmask)
			;
		nt[j] = x->stab[k];
	}
	npg_xp_big_free(x->stab, (x->smask + 1) * sizeof(*nt));
	x->stab = nt;
	x->smask = nmask;
	return true;
}

uint64_t npg_xp_lookup_insert(struct xp *x, const uint32_t *v, uint64_t hash, uint64_t sleep,
			      uint32_t parent, int via, bool *fresh)
{
	uint64_t i = (uint32_t)hash & x->smask, tag = hash << 32;
	uint32_t *row;

	*fresh = false;
	while (x->stab[i]) {
		if ((x->stab[i] & ~(uint64_t)UINT32_MAX) == tag) {
			uint64_t k = (x->stab[i] & UINT32_MAX) - 1;

			row = &x->arena[k * x->rw];
			if (same_words(row, v, x->nw)) {
				/* every path to a state is as long: it is not expanded yet */
				if (x->sw)
					set_sleep(x, row, get_sleep(x, row) & sleep);
				return k;
			}
		}
		i = (i + 1) & x->smask;
	}
	if (x->nstates >= UINT32_MAX - 1) {
		snprintf(x->err, x->errlen, "more than %u states: beyond what one search stores",
			 UINT32_MAX - 2);
		x->failed = true;
		return UINT64_MAX;
	}
	if (x->nstates == x->scap && !grow_states(x))
		return UINT64_MAX;
	row = &x->arena[x->nstates * (uint64_t)x->rw];
	memcpy(row, v, (size_t)x->nw * 4);
	set_sleep(x, row, sleep);
	x->parent[x->nstates] = parent;
	x->via[x->nstates] = (int16_t)via;
	x->stab[i] = tag | (uint32_t)++x->nstates;
	*fresh = true;
	/* up to 80% full: the slot's hash half makes a probe past another state cheap */
	if (x->nstates * 5 > x->smask * 4 && x->smask < UINT32_MAX && !grow_table(x))
		return UINT64_MAX;
	return x->nstates - 1;
}
