/* events_ttl.c - Events expire: kube-apiserver stores each Event with an
 * etcd lease of --event-ttl (1 h), so an Event disappears an hour after
 * its last write. drover's store has no leases; this sweep does the same
 * from the controller manager: every minute (every TTL when that is
 * shorter, so that `drover serve --event-ttl 2s` is seen within
 * seconds) it deletes the Events whose lastTimestamp is more than the TTL
 * ago.
 *
 * The leases, kept here as expiries: each write of an Event seen by the informer of
 * Events pushes (when it was last written, its key) on a min-heap, so a
 * sweep pops what has expired and reads nothing else. A popped entry
 * whose Event was written again since (its newer entry is further down
 * the heap) or is gone already deletes nothing. A scale to 100,000 pods
 * leaves about as many Scheduled Events: a sweep that walked the cache
 * for the expired ones held one loop turn for 30 ms a minute, and a list
 * of them decoded in one turn stalled the API for 5 s.
 *
 * The sweep is the one key of a work queue (queue.h): it deletes at most
 * DELETES_PER_TURN Events a turn, or less once the turn is over its
 * budget (ctl_overtime), and yields for the rest, so that the loop
 * answers requests in between.
 *
 * Example, the default TTL of 1 h: an Unhealthy Event written at
 * 10:00:00 and bumped at 10:00:30 has two entries; the sweep after
 * 11:00:00 pops the first, finds the Event last seen at 10:00:30 and
 * leaves it; the first sweep after 11:00:30 pops the second and deletes
 * it; a recorder that bumps it later finds it gone (PATCH 404) and
 * creates it anew.
 *
 * Ownership: the sweep owns its informer, its queue and the heap's keys
 * (strings it copied). */
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "informer.h"
#include "kube.h"
#include "log.h"
#include "queue.h"
#include "xalloc.h"

#define SWEEP_MAX_MS     ((int64_t)60 * 1000)
#define DELETES_PER_TURN 100
#define SWEEP_KEY        "sweep"

/* One write of an Event: it expires at `seen` + the TTL, unless written
 * again. */
struct expiry {
	dtime seen;
	char *key; /* "ns/name" */
};

struct ctl_event_ttl {
	struct ctl_config cfg;
	struct informer *events;
	struct queue *q;
	uv_timer_t timer;    /* the next sweep */
	struct expiry *heap; /* min-heap by seen */
	size_t n, alloc;
	int deleted; /* by the current sweep */
};

/* The time an Event was last written: lastTimestamp, else
 * firstTimestamp, else when it was created. */
static dtime
last_seen(const struct event_v1 *e)
{
	if (e->last_timestamp)
		return e->last_timestamp;
	if (e->first_timestamp)
		return e->first_timestamp;
	return e->metadata.creation_timestamp;
}

static void
swap(struct expiry *a, struct expiry *b)
{
	struct expiry x = *a;

	*a = *b;
	*b = x;
}

static void
push(struct ctl_event_ttl *t, dtime seen, const char *key)
{
	size_t i;

	ALLOC_GROW(t->heap, t->n + 1, t->alloc);
	i = t->n++;
	t->heap[i] = (struct expiry){seen, xstrdup(key)};
	while (i > 0 && t->heap[(i - 1) / 2].seen > t->heap[i].seen) {
		swap(&t->heap[(i - 1) / 2], &t->heap[i]);
		i = (i - 1) / 2;
	}
}

/* Takes the earliest lease out; the caller frees its key. */
static struct expiry
pop(struct ctl_event_ttl *t)
{
	struct expiry top = t->heap[0];
	size_t i = 0;

	t->heap[0] = t->heap[--t->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < t->n && t->heap[l].seen < t->heap[m].seen)
			m = l;
		if (r < t->n && t->heap[r].seen < t->heap[m].seen)
			m = r;
		if (m == i)
			break;
		swap(&t->heap[i], &t->heap[m]);
		i = m;
	}
	return top;
}

static void
note_write(struct ctl_event_ttl *t, const struct object *o)
{
	const struct event_v1 *e = o->obj;
	char key[600];

	queue_key(key, sizeof(key), e->metadata.namespace, e->metadata.name);
	push(t, last_seen(e), key);
}

/* Every write of an Event (the cache holds it already). */
static void
on_event(void *arg, json_t *ev)
{
	struct ctl_event_ttl *t = arg;
	const char *type = json_string_value(json_object_get(ev, "type"));
	json_t *md = json_object_get(json_object_get(ev, "object"), "metadata");
	const struct object *o;

	if (type == NULL || (strcmp(type, "ADDED") && strcmp(type, "MODIFIED")))
		return;
	o = informer_find(t->events,
			  json_string_value(json_object_get(md, "namespace")),
			  json_string_value(json_object_get(md, "name")));
	if (o)
		note_write(t, o);
}

static bool
expired(const struct ctl_event_ttl *t, dtime seen, dtime now)
{
	return now - seen > t->cfg.event_ttl_ms;
}

/* Deletes the expired Events, DELETES_PER_TURN at most (fewer once the
 * turn is over its budget); asks to run again while some are left. */
static int
sync_one(void *arg, const char *key, int64_t *requeue)
{
	struct ctl_event_ttl *t = arg;
	uint64_t started = uv_hrtime();
	dtime now = t->cfg.now();
	int n = 0;

	(void)key;
	while (t->n && expired(t, t->heap[0].seen, now)) {
		struct expiry l;
		char ns[256], name[256];
		const struct object *o;

		if (n == DELETES_PER_TURN || (n && ctl_overtime(started))) {
			*requeue = 0;
			break;
		}
		l = pop(t);
		if (queue_split_key(l.key, ns, sizeof(ns), name,
				    sizeof(name)) == 0 &&
		    (o = informer_find(t->events, ns, name)) != NULL &&
		    expired(t, last_seen(o->obj), now)) {
			int st =
			    kube_delete(t->cfg.client, KIND_EVENT, ns, name);

			n++;
			if (st == 200)
				t->deleted++;
			else if (st != 404)
				log_warn("event %s/%s: delete after the TTL: "
					 "HTTP %d",
					 ns, name, st);
		}
		free(l.key);
	}
	return 0;
}

int
ctl_event_ttl_sweep(struct ctl_event_ttl *t)
{
	int64_t again;

	t->deleted = 0;
	do {
		again = -1;
		sync_one(t, SWEEP_KEY, &again);
	} while (again == 0);
	return t->deleted;
}

static void
on_timer(uv_timer_t *h)
{
	struct ctl_event_ttl *t = h->data;

	queue_add(t->q, SWEEP_KEY);
}

struct ctl_event_ttl *
ctl_event_ttl_start(const struct ctl_config *cfg)
{
	struct ctl_event_ttl *t;
	struct object **v;
	size_t i, n;
	int64_t every;

	if (cfg->event_ttl_ms <= 0)
		return NULL;
	t = xcalloc(1, sizeof(*t));
	t->cfg = *cfg;
	t->events = informer_new(cfg->client, cfg->loop, KIND_EVENT);
	if (t->events == NULL) {
		free(t);
		return NULL;
	}
	/* the Events there already: once, at the start */
	n = informer_list(t->events, NULL, &v);
	for (i = 0; i < n; i++)
		note_write(t, v[i]);
	free(v);
	informer_subscribe(t->events, on_event, t);
	t->q = queue_new(cfg->loop, "event-ttl", sync_one, t);
	every =
	    cfg->event_ttl_ms < SWEEP_MAX_MS ? cfg->event_ttl_ms : SWEEP_MAX_MS;
	uv_timer_init(cfg->loop, &t->timer);
	t->timer.data = t;
	uv_timer_start(&t->timer, on_timer, (uint64_t)every, (uint64_t)every);
	uv_unref((uv_handle_t *)&t->timer); /* keeps no loop alive */
	return t;
}

static void
closed(uv_handle_t *h)
{
	free(h->data);
}

void
ctl_event_ttl_stop(struct ctl_event_ttl *t)
{
	size_t i;

	if (t == NULL)
		return;
	uv_timer_stop(&t->timer);
	informer_unsubscribe(t->events, t);
	queue_free(t->q);
	informer_free(t->events);
	for (i = 0; i < t->n; i++)
		free(t->heap[i].key);
	free(t->heap);
	uv_close((uv_handle_t *)&t->timer, closed);
}
