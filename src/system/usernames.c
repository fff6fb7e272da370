/*
 * One producer (the thread reading tasks) queues uids; one worker per CPU
 * resolves them with getpwuid_r(), which is thread-safe. The uid table is
 * the producer's alone until finish(); workers touch only the entries
 * they pop, whose addresses never move.
 */
#include <pthread.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "system/usernames.h"

#define NPG_NAME_WORKERS 8

struct entry {
	uint32_t uid;
	char name[64];
};

struct npg_usernames {
	/* the producer's uid -> entry table, open addressing */
	struct entry **slots;
	size_t nslots, nentries;

	pthread_mutex_t lock;
	pthread_cond_t more;
	struct entry **queue;	/* under lock */
	size_t qhead, qlen, qcap;
	bool closing;		/* under lock: no more uids will come */

	pthread_t workers[NPG_NAME_WORKERS];
	size_t nworkers, wanted_workers;
};

void npg_user_name(uint32_t uid, char *name, size_t len)
{
	struct passwd pw, *res = NULL;
	char buf[1024];

	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) == 0 && res)
		snprintf(name, len, "%s", res->pw_name);
	else
		snprintf(name, len, "%u", uid);
}

static void resolve(struct entry *e)
{
	npg_user_name(e->uid, e->name, sizeof(e->name));
}

/* The next queued entry, or NULL once closing and empty. @wait: block for more. */
static struct entry *pop(struct npg_usernames *u, bool wait)
{
	struct entry *e = NULL;

	pthread_mutex_lock(&u->lock);
	while (u->qhead == u->qlen && !u->closing && wait)
		pthread_cond_wait(&u->more, &u->lock);
	if (u->qhead < u->qlen)
		e = u->queue[u->qhead++];
	pthread_mutex_unlock(&u->lock);
	return e;
}

static void *worker(void *arg)
{
	struct npg_usernames *u = arg;
	struct entry *e;

	while ((e = pop(u, true)))
		resolve(e);
	return NULL;
}

struct npg_usernames *npg_usernames_new(void)
{
	struct npg_usernames *u = calloc(1, sizeof(*u));
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (!u)
		return NULL;
	u->nslots = 256;
	u->slots = calloc(u->nslots, sizeof(*u->slots));
	if (!u->slots) {
		free(u);
		return NULL;
	}
	pthread_mutex_init(&u->lock, NULL);
	pthread_cond_init(&u->more, NULL);
	/* the caller keeps one CPU busy reading tasks meanwhile */
	u->wanted_workers = cpus <= 2 ? 1 : cpus > NPG_NAME_WORKERS ? NPG_NAME_WORKERS : (size_t)cpus - 1;
	return u;
}

static size_t slot_of(const struct npg_usernames *u, uint32_t uid)
{
	size_t i = (uid * 2654435761u) & (u->nslots - 1);

	while (u->slots[i] && u->slots[i]->uid != uid)
		i = (i + 1) & (u->nslots - 1);
	return i;
}

static int grow(struct npg_usernames *u)
{
	struct entry **old = u->slots;
	size_t nold = u->nslots;

	u->slots = calloc(nold * 2, sizeof(*u->slots));
	if (!u->slots) {
		u->slots = old;
		return -1;
	}
	u->nslots = nold * 2;
	for (size_t i = 0; i < nold; i++)
		if (old[i])
			u->slots[slot_of(u, old[i]->uid)] = old[i];
	free(old);
	return 0;
}

void npg_usernames_want(struct npg_usernames *u, uint32_t uid)
{
	size_t i = slot_of(u, uid);
	struct entry *e;

	if (u->slots[i])
		return;
	if (2 * (u->nentries + 1) > u->nslots) {
		if (grow(u) < 0)
			return;	/* out of memory: the uid shows as a number */
		i = slot_of(u, uid);
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return;
	e->uid = uid;
	pthread_mutex_lock(&u->lock);
	if (u->qlen == u->qcap) {
		size_t cap = u->qcap ? u->qcap * 2 : 64;
		struct entry **grown = realloc(u->queue, cap * sizeof(*grown));

		if (!grown) {
			pthread_mutex_unlock(&u->lock);
			free(e);
			return;
		}
		u->queue = grown;
		u->qcap = cap;
	}
	u->queue[u->qlen++] = e;
	pthread_cond_signal(&u->more);
	pthread_mutex_unlock(&u->lock);
	u->slots[i] = e;
	u->nentries++;
	/* a worker per CPU, started as uids come */
	if (u->nworkers < u->wanted_workers && u->nworkers < u->nentries &&
	    pthread_create(&u->workers[u->nworkers], NULL, worker, u) == 0)
		u->nworkers++;
}

void npg_usernames_finish(struct npg_usernames *u)
{
	struct entry *e;

	pthread_mutex_lock(&u->lock);
	u->closing = true;
	pthread_cond_broadcast(&u->more);
	pthread_mutex_unlock(&u->lock);
	while ((e = pop(u, false)))
		resolve(e);
	for (size_t i = 0; i < u->nworkers; i++)
		pthread_join(u->workers[i], NULL);
	u->nworkers = 0;
}

const char *npg_usernames_get(const struct npg_usernames *u, uint32_t uid)
{
	const struct entry *e = u->slots[slot_of(u, uid)];

	return e ? e->name : NULL;
}

void npg_usernames_free(struct npg_usernames *u)
{
	if (!u)
		return;
	npg_usernames_finish(u);
	for (size_t i = 0; i < u->nslots; i++)
		free(u->slots[i]);
	free(u->slots);
	free(u->queue);
	pthread_mutex_destroy(&u->lock);
	pthread_cond_destroy(&u->more);
	free(u);
}
