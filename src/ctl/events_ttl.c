/* events_ttl.c - Events expire: kube-apiserver stores each Event with an
 * etcd lease of --event-ttl (1 h), so an Event disappears an hour after
 * its last write. drover's store has no leases; this sweep does the same
 * from the controller manager: every minute (every TTL when that is
 * shorter, so that `drover serve --event-ttl 2s` is seen within
 * seconds) it finds the Events whose lastTimestamp is more than the TTL
 * ago and deletes them.
 *
 * It reads them from an informer of Events, not from a list: a scale to
 * 100,000 pods leaves about as many Scheduled Events, and a list of them
 * decoded in one loop turn stalled the API for 5 s. The deletions go at
 * most DELETES_PER_TURN a loop turn, the rest in the next turns (a
 * 0 ms timer), so that the loop answers requests in between.
 *
 * Example, the default TTL of 1 h: an Unhealthy Event last bumped at
 * 10:00:30 is deleted by the first sweep after 11:00:30; a recorder that
 * bumps it again later finds it gone (PATCH 404) and creates it anew.
 *
 * Ownership: the sweep owns its informer and the names it has still to
 * delete (strings it copied). */
#include <stdlib.h>

#include "ctl.h"
#include "informer.h"
#include "kube.h"
#include "log.h"
#include "xalloc.h"

#define SWEEP_MAX_MS     ((int64_t)60 * 1000)
#define DELETES_PER_TURN 100

struct ctl_event_ttl {
	struct ctl_config cfg;
	struct informer *events;
	uv_timer_t timer; /* the next sweep */
	uv_timer_t drain; /* the next turn's deletions */
	char **todo;      /* "namespace", "name" pairs to delete */
	size_t ntodo, next, alloc;
	int64_t every;
	int deleted; /* by the current sweep */
	int open;    /* timers not yet closed */
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
todo_release(struct ctl_event_ttl *t)
{
	size_t i;

	for (i = 0; i < t->ntodo; i++)
		free(t->todo[i]);
	free(t->todo);
	t->todo = NULL;
	t->ntodo = t->next = t->alloc = 0;
}

/* Up to DELETES_PER_TURN deletions; true if some are left. */
static bool
delete_some(struct ctl_event_ttl *t)
{
	int n = 0;

	while (t->next < t->ntodo && n++ < DELETES_PER_TURN) {
		const char *ns = t->todo[t->next], *name = t->todo[t->next + 1];
		int st = kube_delete(t->cfg.client, KIND_EVENT, ns, name);

		t->next += 2;
		if (st == 200)
			t->deleted++;
		else if (st != 404)
			log_warn("event %s/%s: delete after the TTL: HTTP %d",
				 ns, name, st);
	}
	if (t->next < t->ntodo)
		return true;
	todo_release(t);
	return false;
}

static void
on_drain(uv_timer_t *h)
{
	struct ctl_event_ttl *t = h->data;

	if (delete_some(t))
		uv_timer_start(&t->drain, on_drain, 0, 0);
}

/* Collects the expired Events from the cache (a sweep still deleting
 * carries on instead); deletes the first of them now. */
static void
collect(struct ctl_event_ttl *t)
{
	struct object **v;
	dtime now = t->cfg.now();
	size_t i, n;

	if (t->ntodo)
		return; /* the previous sweep is not done */
	t->deleted = 0;
	n = informer_list(t->events, NULL, &v);
	for (i = 0; i < n; i++) {
		const struct event_v1 *e = v[i]->obj;

		if (now - last_seen(e) <= t->cfg.event_ttl_ms)
			continue;
		ALLOC_GROW(t->todo, t->ntodo + 2, t->alloc);
		t->todo[t->ntodo++] = xstrdup(e->metadata.namespace);
		t->todo[t->ntodo++] = xstrdup(e->metadata.name);
	}
	free(v);
}

int
ctl_event_ttl_sweep(struct ctl_event_ttl *t)
{
	collect(t);
	while (delete_some(t))
		;
	return t->deleted;
}

static void
on_timer(uv_timer_t *h)
{
	struct ctl_event_ttl *t = h->data;

	collect(t);
	if (delete_some(t))
		uv_timer_start(&t->drain, on_drain, 0, 0);
}

struct ctl_event_ttl *
ctl_event_ttl_start(const struct ctl_config *cfg)
{
	struct ctl_event_ttl *t;

	if (cfg->event_ttl_ms <= 0)
		return NULL;
	t = xcalloc(1, sizeof(*t));
	t->cfg = *cfg;
	t->events = informer_new(cfg->client, cfg->loop, KIND_EVENT);
	if (t->events == NULL) {
		free(t);
		return NULL;
	}
	t->every =
	    cfg->event_ttl_ms < SWEEP_MAX_MS ? cfg->event_ttl_ms : SWEEP_MAX_MS;
	uv_timer_init(cfg->loop, &t->timer);
	uv_timer_init(cfg->loop, &t->drain);
	t->timer.data = t->drain.data = t;
	uv_timer_start(&t->timer, on_timer, (uint64_t)t->every,
		       (uint64_t)t->every);
	uv_unref((uv_handle_t *)&t->timer); /* keeps no loop alive */
	uv_unref((uv_handle_t *)&t->drain);
	return t;
}

/* The second of the two timers closed (in either order) frees the
 * sweep. */
static void
closed(uv_handle_t *h)
{
	struct ctl_event_ttl *t = h->data;

	if (--t->open == 0)
		free(t);
}

void
ctl_event_ttl_stop(struct ctl_event_ttl *t)
{
	if (t == NULL)
		return;
	uv_timer_stop(&t->timer);
	uv_timer_stop(&t->drain);
	todo_release(t);
	informer_free(t->events);
	t->open = 2;
	uv_close((uv_handle_t *)&t->timer, closed);
	uv_close((uv_handle_t *)&t->drain, closed);
}
