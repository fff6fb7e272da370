/*
 * The search's queue: what waits at each depth, in order (Dial's buckets,
 * a ring as long as the heaviest transition): states to expand, one word
 * (the index), and arrivals of transitions of several calls on their way
 * down, a word with ARRIVAL set and the record after it. The words are
 * kept in chunks of 64 KiB that a bucket takes from a shared free list
 * and gives back once read, so the queue holds what waits, not what each
 * bucket once held.
 */
#include <stdlib.h>
#include <string.h>

#include "explore/explorer.h"

#define QWORDS 8190

struct qchunk {
	struct qchunk *next;
	uint32_t n, head;
	uint64_t w[QWORDS];
};

bool npg_xp_queue_init(struct xp *x, int max_weight)
{
	for (x->nbuckets = 4; x->nbuckets <= max_weight; x->nbuckets *= 2)
		;
	x->buckets = calloc((size_t)x->nbuckets, sizeof(*x->buckets));
	x->arr_words = (sizeof(struct arrival) + ((size_t)x->sw + (size_t)x->nw) * 4 + 7) / 8;
	return x->buckets != NULL;
}

void npg_xp_queue_free(struct xp *x)
{
	for (int i = 0; x->buckets && i < x->nbuckets; i++)
		for (struct qchunk *c = x->buckets[i].first, *n; c; c = n) {
			n = c->next;
			free(c);
		}
	for (struct qchunk *c = x->qfree, *n; c; c = n) {
		n = c->next;
		free(c);
	}
	free(x->buckets);
	x->buckets = NULL;
	x->qfree = NULL;
}

uint64_t npg_xp_queue_bytes(const struct xp *x)
{
	return x->qchunks * sizeof(struct qchunk);
}

/* Room for @words words at the end of the bucket of @depth */
static uint64_t *reserve(struct xp *x, int depth, size_t words)
{
	struct bucket *b = &x->buckets[depth & (x->nbuckets - 1)];
	struct qchunk *c = b->last;
	uint64_t *p;

	if (!c || c->n + words > QWORDS) {
		if (x->qfree) {
			c = x->qfree;
			x->qfree = c->next;
		} else if ((c = malloc(sizeof(*c)))) {
			x->qchunks++;
		} else {
			npg_xp_oom(x);
			return NULL;
		}
		c->next = NULL;
		c->n = c->head = 0;
		if (b->last)
			b->last->next = c;
		else
			b->first = c;
		b->last = c;
	}
	p = &c->w[c->n];
	c->n += (uint32_t)words;
	x->queued++;
	return p;
}

bool npg_xp_queue_state(struct xp *x, uint64_t idx, int depth)
{
	uint64_t *p = reserve(x, depth, 1);

	if (!p)
		return false;
	*p = idx;
	return true;
}

struct arrival *npg_xp_queue_arrival(struct xp *x, int depth)
{
	uint64_t *p = reserve(x, depth, 1 + x->arr_words);

	if (!p)
		return NULL;
	*p = ARRIVAL;
	return (struct arrival *)(p + 1);
}

/*
 * The next entry at @depth: true with a state's index in *idx, or an
 * arrival in *a (valid until the next call); false when none is left
 */
bool npg_xp_queue_pop(struct xp *x, int depth, uint64_t *idx, const struct arrival **a)
{
	struct bucket *b = &x->buckets[depth & (x->nbuckets - 1)];
	struct qchunk *c = b->first;

	while (c && c->head == c->n) {
		/* read to its end: back to the free list */
		b->first = c->next;
		if (!b->first)
			b->last = NULL;
		c->next = x->qfree;
		x->qfree = c;
		c = b->first;
	}
	if (!c)
		return false;
	x->queued--;
	*a = NULL;
	*idx = c->w[c->head++];
	if (*idx & ARRIVAL) {
		*a = (const struct arrival *)&c->w[c->head];
		c->head += (uint32_t)x->arr_words;
	}
	return true;
}
