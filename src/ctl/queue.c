/* queue.c - keyed work queue on a libuv loop (see queue.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "queue.h"
#include "xalloc.h"

struct item {
	char *key;
	bool dirty;
	uint64_t seq; /* when it became dirty: keys run first in, first out */
	bool running;
	int failures;
	uv_timer_t *timer; /* a delayed add or a retry */
	struct queue *q;
};

struct queue {
	uv_loop_t *loop;
	char *name;
	queue_sync_cb cb;
	void *arg;
	struct item **items;
	size_t n, alloc;
	uv_timer_t kick; /* runs dirty keys on the next loop turn */
	uint64_t seq;
	bool kicked;
	bool closing;
};

static struct item *
find(struct queue *q, const char *key, bool create)
{
	size_t i;
	struct item *it;

	for (i = 0; i < q->n; i++)
		if (!strcmp(q->items[i]->key, key))
			return q->items[i];
	if (!create)
		return NULL;
	it = xcalloc(1, sizeof(*it));
	it->key = xstrdup(key);
	it->q = q;
	ALLOC_GROW(q->items, q->n + 1, q->alloc);
	q->items[q->n++] = it;
	return it;
}

static void run_dirty(uv_timer_t *t);

/* A key already waiting keeps its place (client-go's workqueue). */
static void
mark_dirty(struct queue *q, struct item *it)
{
	if (!it->dirty) {
		it->dirty = true;
		it->seq = ++q->seq;
	}
}

static int
by_seq(const void *a, const void *b)
{
	const struct item *x = *(struct item *const *)a;
	const struct item *y = *(struct item *const *)b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void
kick(struct queue *q)
{
	if (!q->kicked && !q->closing) {
		q->kicked = true;
		uv_timer_start(&q->kick, run_dirty, 0, 0);
	}
}

static void
free_timer(uv_handle_t *h)
{
	free(h);
}

static void
stop_timer(struct item *it)
{
	if (it->timer) {
		uv_timer_stop(it->timer);
		uv_close((uv_handle_t *)it->timer, free_timer);
		it->timer = NULL;
	}
}

static void
on_timer(uv_timer_t *t)
{
	struct item *it = t->data;

	stop_timer(it);
	mark_dirty(it->q, it);
	kick(it->q);
}

static void
arm(struct item *it, int64_t ms)
{
	/* A sooner wake-up replaces a later one. */
	if (it->timer) {
		uint64_t due = uv_timer_get_due_in(it->timer);

		if (due <= (uint64_t)ms)
			return;
		stop_timer(it);
	}
	it->timer = xmalloc(sizeof(*it->timer));
	uv_timer_init(it->q->loop, it->timer);
	it->timer->data = it;
	uv_timer_start(it->timer, on_timer, (uint64_t)ms, 0);
}

static void
run_dirty(uv_timer_t *t)
{
	struct queue *q = t->data;
	struct item **todo = xcalloc(q->n + 1, sizeof(*todo));
	size_t i, n = 0;

	q->kicked = false;
	for (i = 0; i < q->n; i++)
		if (q->items[i]->dirty && !q->items[i]->running)
			todo[n++] = q->items[i];
	xqsort(todo, n, sizeof(*todo), by_seq);
	for (i = 0; i < n; i++) {
		struct item *it = todo[i];
		int64_t requeue = -1;
		int r;

		if (!it->dirty || it->running)
			continue;
		it->dirty = false;
		it->running = true;
		r = q->cb(q->arg, it->key, &requeue);
		it->running = false;
		if (r == 0) {
			it->failures = 0;
			if (requeue >= 0)
				arm(it, requeue);
		} else if (++it->failures <= QUEUE_MAX_RETRIES) {
			int64_t backoff = 5LL << (it->failures - 1);

			if (backoff > 1000000)
				backoff = 1000000;
			arm(it, backoff);
		} else {
			log_warn("%s: dropping %s after %d failures", q->name,
				 it->key, QUEUE_MAX_RETRIES);
			it->failures = 0;
		}
	}
	free(todo);
	for (i = 0; i < q->n; i++)
		if (q->items[i]->dirty) {
			kick(q);
			break;
		}
}

struct queue *
queue_new(uv_loop_t *loop, const char *name, queue_sync_cb cb, void *arg)
{
	struct queue *q = xcalloc(1, sizeof(*q));

	q->loop = loop;
	q->name = xstrdup(name);
	q->cb = cb;
	q->arg = arg;
	uv_timer_init(loop, &q->kick);
	q->kick.data = q;
	return q;
}

void
queue_add(struct queue *q, const char *key)
{
	mark_dirty(q, find(q, key, true));
	kick(q);
}

void
queue_add_after(struct queue *q, const char *key, int64_t ms)
{
	if (ms <= 0) {
		queue_add(q, key);
		return;
	}
	arm(find(q, key, true), ms);
}

size_t
queue_pending(const struct queue *q)
{
	size_t i, n = 0;

	for (i = 0; i < q->n; i++)
		if (q->items[i]->dirty)
			n++;
	return n;
}

static void
on_kick_closed(uv_handle_t *h)
{
	struct queue *q = h->data;
	size_t i;

	for (i = 0; i < q->n; i++) {
		free(q->items[i]->key);
		free(q->items[i]);
	}
	free(q->items);
	free(q->name);
	free(q);
}

void
queue_free(struct queue *q)
{
	size_t i;

	if (q == NULL)
		return;
	q->closing = true;
	for (i = 0; i < q->n; i++)
		stop_timer(q->items[i]);
	uv_timer_stop(&q->kick);
	uv_close((uv_handle_t *)&q->kick, on_kick_closed);
}
