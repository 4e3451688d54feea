/* events_ttl.c - Events expire: kube-apiserver stores each Event with an
 * etcd lease of --event-ttl (1 h), so an Event disappears an hour after
 * its last write. drover's store has no leases; this sweep does the same
 * from the controller manager: every minute (every TTL when that is
 * shorter, so that `drover serve --event-ttl 2s` is seen within
 * seconds) it lists the Events and deletes those whose lastTimestamp is
 * more than the TTL ago.
 *
 * Example, the default TTL of 1 h: an Unhealthy Event last bumped at
 * 10:00:30 is deleted by the first sweep after 11:00:30; a recorder that
 * bumps it again later finds it gone (PATCH 404) and creates it anew. */
#include <stdlib.h>

#include "ctl.h"
#include "kube.h"
#include "log.h"
#include "xalloc.h"

#define SWEEP_MAX_MS ((int64_t)60 * 1000)

struct ctl_event_ttl {
	struct ctl_config cfg;
	uv_timer_t timer;
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

int
ctl_event_ttl_sweep(struct ctl_event_ttl *t)
{
	struct object_list l = {0};
	dtime now = t->cfg.now();
	size_t i;
	int n = 0;

	if (kube_list(t->cfg.client, KIND_EVENT, NULL, &l))
		return 0;
	for (i = 0; i < l.n; i++) {
		const struct event_v1 *e = l.v[i].obj;
		int st;

		if (now - last_seen(e) <= t->cfg.event_ttl_ms)
			continue;
		st = kube_delete(t->cfg.client, KIND_EVENT,
				 e->metadata.namespace, e->metadata.name);
		if (st == 200)
			n++;
		else if (st != 404)
			log_warn("event %s/%s: delete after the TTL: HTTP %d",
				 e->metadata.namespace, e->metadata.name, st);
	}
	object_list_release(&l);
	return n;
}

static void
on_timer(uv_timer_t *h)
{
	ctl_event_ttl_sweep(h->data);
}

struct ctl_event_ttl *
ctl_event_ttl_start(const struct ctl_config *cfg)
{
	struct ctl_event_ttl *t;
	int64_t every;

	if (cfg->event_ttl_ms <= 0)
		return NULL;
	t = xcalloc(1, sizeof(*t));
	t->cfg = *cfg;
	every =
	    cfg->event_ttl_ms < SWEEP_MAX_MS ? cfg->event_ttl_ms : SWEEP_MAX_MS;
	uv_timer_init(cfg->loop, &t->timer);
	t->timer.data = t;
	uv_timer_start(&t->timer, on_timer, (uint64_t)every, (uint64_t)every);
	uv_unref((uv_handle_t *)&t->timer); /* keeps no loop alive */
	return t;
}

static void
free_ttl(uv_handle_t *h)
{
	free(h->data);
}

void
ctl_event_ttl_stop(struct ctl_event_ttl *t)
{
	if (t == NULL)
		return;
	uv_timer_stop(&t->timer);
	uv_close((uv_handle_t *)&t->timer, free_ttl);
}
