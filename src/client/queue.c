/* queue.c - keyed work queue on a libuv loop (see queue.h).
 *
 * Items are hashed by key (uthash) and the dirty ones wait in a list in
 * the order they became dirty (utlist), so adding a key and running one
 * cost the same with ten keys or a hundred thousand. An item that is idle
 * (not dirty, not running, no timer) is freed at once: the queue holds
 * only the keys that have something to do.
 *
 * Metrics (client-go's workqueue metrics, under drover_): the queues of
 * one name share one set of counters, kept for the life of the process
 * as client-go's metrics provider keeps them, so that a controller
 * restarted after a rollback of the store carries on counting. Every
 * queue runs on the daemon's loop, and so does the collector. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>
#include <utlist.h>

#include "histogram.h"
#include "log.h"
#include "metrics.h"
#include "queue.h"
#include "turn.h"
#include "xalloc.h"

/* Kubernetes' workqueue metrics of one queue name (depth, adds_total,
 * retries_total, queue_duration_seconds, work_duration_seconds). */
struct queue_stats {
	char *name;
	int64_t depth;
	uint64_t adds, retries;
	struct histogram queued; /* dirty until its sync began */
	struct histogram work;   /* the sync */
	struct queue_stats *next;
};

/* Every name ever used, in the order of first use; never freed (as
 * client-go's registered metrics). */
static struct queue_stats *all_stats;

static struct queue_stats *
stats_for(const char *name)
{
	struct queue_stats **pp, *st;

	for (pp = &all_stats; *pp; pp = &(*pp)->next)
		if (!strcmp((*pp)->name, name))
			return *pp;
	st = xcalloc(1, sizeof(*st));
	st->name = xstrdup(name);
	histogram_init(&st->queued, histogram_workqueue_bounds,
		       HISTOGRAM_NBOUNDS(histogram_workqueue_bounds));
	histogram_init(&st->work, histogram_workqueue_bounds,
		       HISTOGRAM_NBOUNDS(histogram_workqueue_bounds));
	*pp = st;
	return st;
}

struct item {
	char *key;
	bool dirty; /* in q->dirty */
	bool running;
	uint64_t dirty_since; /* uv_hrtime() when it became dirty */
	int failures;
	uv_timer_t *timer; /* a delayed add or a retry */
	struct queue *q;
	bool yielded;             /* in q->yielded */
	struct item *prev, *next; /* in q->dirty, q->yielded or a batch */
	UT_hash_handle hh;        /* in q->items */
};

struct queue {
	uv_loop_t *loop;
	char *name;
	queue_sync_cb cb;
	void *arg;
	struct queue_stats *st;
	struct item *items; /* by key */
	struct item *dirty; /* first in, first out */
	size_t ndirty;
	uv_timer_t kick; /* runs dirty keys on the next loop turn */
	/* Keys that asked to run again at once (a burst with more to do),
	 * and all dirty keys once this loop turn has used the CPU of
	 * QUEUE_TURN_BUDGET_MS, wait until the loop has polled for I/O:
	 * they run in the check phase, and an idle handle keeps the poll
	 * from waiting. (libuv runs a 0 ms timer started by a timer in the
	 * same pass, so a cascade of kicks between queues would otherwise
	 * never let the loop poll.) */
	struct item *yielded;
	uv_check_t yield;
	uv_idle_t yield_idle;

	bool kicked;
	bool in_batch; /* run_dirty, with its settle, is on the stack */
	bool closing;
	int closing_handles;
	void (*settle)(void *arg); /* queue_set_settle */
	void *settle_arg;
};

static struct item *
find(struct queue *q, const char *key, bool create)
{
	struct item *it;

	HASH_FIND_STR(q->items, key, it);
	if (it || !create)
		return it;
	it = xcalloc(1, sizeof(*it));
	it->key = xstrdup(key);
	it->q = q;
	HASH_ADD_KEYPTR(hh, q->items, it->key, strlen(it->key), it);
	return it;
}

static void
item_free(struct item *it)
{
	free(it->key);
	free(it);
}

/* Frees it if nothing is left for it to do. */
static void
forget_if_idle(struct queue *q, struct item *it)
{
	if (it->dirty || it->running || it->timer || it->failures ||
	    it->yielded)
		return;
	HASH_DEL(q->items, it);
	item_free(it);
}

static void run_dirty(uv_timer_t *t);

/* A key already waiting keeps its place (client-go's workqueue). */
static void
mark_dirty(struct queue *q, struct item *it)
{
	if (it->yielded) { /* sooner than the yield */
		DL_DELETE(q->yielded, it);
		it->yielded = false;
	}
	if (!it->dirty) {
		it->dirty = true;
		it->dirty_since = uv_hrtime();
		q->ndirty++;
		q->st->adds++; /* client-go counts an add once it is new */
		q->st->depth++;
		if (!it->running)
			DL_APPEND(q->dirty, it);
	}
}

static void on_yield(uv_check_t *h);

static void
nothing(uv_idle_t *h)
{
	(void)h;
}

static void
after_poll(struct queue *q)
{
	if (!q->closing) {
		uv_check_start(&q->yield, on_yield);
		uv_idle_start(&q->yield_idle, nothing);
	}
}

/* The loop's turn has used its budget of CPU (turn.h), whoever used it:
 * the handlers of requests, this queue's batch, another's. */
static bool
over_budget(struct queue *q)
{
	(void)q;
	return turn_over_ms(QUEUE_TURN_BUDGET_MS);
}

static void
kick(struct queue *q)
{
	if (q->kicked || q->closing)
		return;
	q->kicked = true;
	if (over_budget(q))
		after_poll(q);
	else
		uv_timer_start(&q->kick, run_dirty, 0, 0);
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
on_yield(uv_check_t *h)
{
	struct queue *q = h->data;
	struct item *it;

	uv_check_stop(&q->yield);
	uv_idle_stop(&q->yield_idle);
	while ((it = q->yielded) != NULL) {
		DL_DELETE(q->yielded, it);
		it->yielded = false;
		mark_dirty(q, it);
	}
	if (q->dirty)
		run_dirty(&q->kick);
}

static void
yield(struct queue *q, struct item *it)
{
	if (it->dirty || it->yielded)
		return; /* it runs again anyway */
	it->yielded = true;
	DL_APPEND(q->yielded, it);
	after_poll(q);
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

/* Runs the keys dirty when the turn began, in their order; keys made
 * dirty by these syncs (their own included) wait for the next turn. */
static void
run_dirty(uv_timer_t *t)
{
	struct queue *q = t->data;
	struct item *batch = q->dirty, *it;

	q->kicked = false;
	q->dirty = NULL;
	q->in_batch = true;
	while ((it = batch) != NULL) {
		int64_t requeue = -1;
		uint64_t began;
		int r;

		if (over_budget(q)) {
			/* the rest, first, once the loop has polled */
			DL_CONCAT(batch, q->dirty);
			q->dirty = batch;
			after_poll(q);
			q->in_batch = false;
			return;
		}
		DL_DELETE(batch, it);
		it->dirty = false;
		q->ndirty--;
		q->st->depth--;
		it->running = true;
		began = uv_hrtime();
		histogram_observe(&q->st->queued,
				  (double)(began - it->dirty_since) / 1e9);
		r = q->cb(q->arg, it->key, &requeue);
		histogram_observe(&q->st->work,
				  (double)(uv_hrtime() - began) / 1e9);
		it->running = false;
		if (it->dirty) /* added again while it ran */
			DL_APPEND(q->dirty, it);
		if (r == 0) {
			it->failures = 0;
			if (requeue == 0)
				yield(q, it);
			else if (requeue > 0) {
				q->st->retries++; /* AddAfter */
				arm(it, requeue);
			}
		} else if (++it->failures <= QUEUE_MAX_RETRIES) {
			int64_t backoff = 5LL << (it->failures - 1);

			if (backoff > 1000000)
				backoff = 1000000;
			q->st->retries++; /* AddRateLimited */
			arm(it, backoff);
		} else {
			log_warn("%s: dropping %s after %d failures", q->name,
				 it->key, QUEUE_MAX_RETRIES);
			it->failures = 0;
		}
		forget_if_idle(q, it);
	}
	if (q->dirty)
		kick(q);
	if (q->settle)
		q->settle(q->settle_arg);
	q->in_batch = false;
}

void
queue_run_now(struct queue *q)
{
	if (q->in_batch || q->closing || q->dirty == NULL || !q->kicked ||
	    over_budget(q))
		return;
	uv_timer_stop(&q->kick);
	run_dirty(&q->kick);
}

void
queue_set_settle(struct queue *q, void (*fn)(void *arg), void *arg)
{
	q->settle = fn;
	q->settle_arg = arg;
}

struct queue *
queue_new(uv_loop_t *loop, const char *name, queue_sync_cb cb, void *arg)
{
	struct queue *q = xcalloc(1, sizeof(*q));

	q->loop = loop;
	q->name = xstrdup(name);
	q->cb = cb;
	q->arg = arg;
	q->st = stats_for(name);
	uv_timer_init(loop, &q->kick);
	q->kick.data = q;
	uv_check_init(loop, &q->yield);
	q->yield.data = q;
	uv_idle_init(loop, &q->yield_idle);
	q->yield_idle.data = q;
	turn_attach(loop);
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
	q->st->retries++; /* client-go's AddAfter counts a retry */
	if (ms <= 0) {
		queue_add(q, key);
		return;
	}
	arm(find(q, key, true), ms);
}

size_t
queue_pending(const struct queue *q)
{
	return q->ndirty;
}

static void
on_kick_closed(uv_handle_t *h)
{
	struct queue *q = h->data;
	struct item *it, *tmp;

	if (--q->closing_handles)
		return;
	HASH_ITER(hh, q->items, it, tmp)
	{
		HASH_DEL(q->items, it);
		item_free(it);
	}
	free(q->name);
	free(q);
}

void
queue_free(struct queue *q)
{
	struct item *it, *tmp;

	if (q == NULL)
		return;
	q->closing = true;
	q->st->depth -= (int64_t)q->ndirty; /* they will never run */
	HASH_ITER(hh, q->items, it, tmp)
	stop_timer(it);
	uv_timer_stop(&q->kick);
	uv_check_stop(&q->yield);
	uv_idle_stop(&q->yield_idle);
	q->closing_handles = 3;
	uv_close((uv_handle_t *)&q->kick, on_kick_closed);
	uv_close((uv_handle_t *)&q->yield, on_kick_closed);
	uv_close((uv_handle_t *)&q->yield_idle, on_kick_closed);
	turn_detach();
}

void
queue_key(char *buf, size_t len, const char *ns, const char *name)
{
	snprintf(buf, len, "%s/%s", ns ? ns : "", name ? name : "");
}

int
queue_split_key(const char *key, char *ns, size_t nslen, char *name,
		size_t namelen)
{
	const char *slash = strchr(key, '/');

	if (slash == NULL)
		return -1;
	snprintf(ns, nslen, "%.*s", (int)(slash - key), key);
	snprintf(name, namelen, "%s", slash + 1);
	return 0;
}

bool
queue_overtime_ms(uint64_t started, int64_t ms)
{
	return uv_hrtime() - started > (uint64_t)ms * 1000000;
}

void
queue_metrics_collect(void *arg, struct strbuf *out)
{
	struct queue_stats *st;
	struct strbuf lb = STRBUF_INIT;

	(void)arg;
	if (all_stats == NULL)
		return;
#define EACH(expr)                                                             \
	for (st = all_stats; st; st = st->next) {                              \
		strbuf_reset(&lb);                                             \
		metrics_label(&lb, "name", st->name);                          \
		expr;                                                          \
	}
	metrics_family(out, "drover_workqueue_depth", "gauge",
		       "Current depth of workqueue");
	EACH(metrics_sample(out, "drover_workqueue_depth", lb.buf,
			    (double)st->depth));
	metrics_family(out, "drover_workqueue_adds_total", "counter",
		       "Total number of adds handled by workqueue");
	EACH(metrics_sample_u64(out, "drover_workqueue_adds_total", lb.buf,
				st->adds));
	metrics_family(out, "drover_workqueue_retries_total", "counter",
		       "Total number of retries handled by workqueue");
	EACH(metrics_sample_u64(out, "drover_workqueue_retries_total", lb.buf,
				st->retries));
	metrics_family(out, "drover_workqueue_queue_duration_seconds",
		       "histogram",
		       "How long in seconds an item stays in workqueue before "
		       "being requested.");
	EACH(metrics_histogram(out, "drover_workqueue_queue_duration_seconds",
			       lb.buf, &st->queued));
	metrics_family(out, "drover_workqueue_work_duration_seconds",
		       "histogram",
		       "How long in seconds processing an item from workqueue "
		       "takes.");
	EACH(metrics_histogram(out, "drover_workqueue_work_duration_seconds",
			       lb.buf, &st->work));
#undef EACH
	strbuf_release(&lb);
}
