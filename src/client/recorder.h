/* recorder.h - Kubernetes Events from the controllers and the agent:
 * client-go's EventBroadcaster, EventRecorder and EventCorrelator on one
 * libuv loop.
 *
 * A component asks the broadcaster for its recorder once
 * (event_broadcaster_recorder(b, "replicaset-controller", NULL)) and
 * records with one call where Kubernetes does:
 *
 *   event_record_object(rec, &rs, NULL, "Normal", "SuccessfulCreate",
 *                       "Created pod: %s", pod_name);
 *
 * Recording never blocks and never fails the caller: the event is
 * correlated at once (src/core/plan/event_corr.h: a repeat within 10 minutes
 * bumps the count of the Event already written, similar events are
 * combined after 10 messages, a source/object/reason gets 25 events and
 * then one per 5 minutes), and the write waits in a bounded queue that a
 * timer drains after the loop turn: a POST of a new Event, or a PATCH of
 * count, lastTimestamp and message of one already written (a POST again
 * if it has gone, a PATCH if the POST finds it exists). A write that
 * fails is dropped, as client-go gives up after its retries; an Event
 * whose count grows while its write is on its way is written once more
 * after the answer. When the queue is full the event is dropped and
 * counted (drover_events_dropped_total{reason="queue_full"}).
 *
 * Passing a NULL recorder (or broadcaster) to any function here does
 * nothing: code under test needs no broadcaster.
 *
 * Ownership: the broadcaster borrows the loop and the client (free the
 * broadcaster before the client if the client answers asynchronously;
 * a client without request_async is written to synchronously from the
 * timer, and the order does not matter); it owns its recorders, caches
 * and queue. Strings passed in are copied. */
#ifndef DROVER_CLIENT_RECORDER_H
#define DROVER_CLIENT_RECORDER_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "client.h"
#include "dtime.h"
#include "kinds.h"
#include "strbuf.h"

struct event_broadcaster;
struct recorder;

struct event_broadcaster_config {
	uv_loop_t *loop;
	struct client *client;
	/* The wall clock (ms); Event names use it in ns. */
	dtime (*now)(void);
	/* Events waiting to be written; 0: EVENT_QUEUE_DEFAULT. */
	size_t queue_max;
	/* Events remembered for aggregation (client-go's LRU of 4096);
	 * 0: the default. */
	size_t cache_max;
	/* The wait between the tries of a write that got no answer (the
	 * first a random part of it); 0: 10 s, as Kubernetes'. */
	unsigned retry_ms;
};

#define EVENT_QUEUE_DEFAULT 1024
#define EVENT_CACHE_DEFAULT 4096

/* What an Event is about (v1.ObjectReference); borrowed strings, NULL
 * for none. */
struct event_ref {
	const char *kind, *namespace, *name, *uid;
	const char *api_version, *resource_version, *field_path;
};

/* Counters since the start (also in /metrics). */
struct event_stats {
	uint64_t recorded;   /* event_record calls with a recorder */
	uint64_t written;    /* POSTs and PATCHes answered 2xx */
	uint64_t aggregated; /* events that bumped an Event's count */
	uint64_t dropped_queue_full;
	uint64_t dropped_spam; /* filtered by the spam filter */
	uint64_t failed;       /* writes the API refused */
};

/* NULL never: the timer is made at once. */
struct event_broadcaster *
event_broadcaster_new(const struct event_broadcaster_config *cfg);
/* Drops what is still queued and frees everything (the timer through
 * uv_close: the loop must run once more). NULL: nothing. */
void event_broadcaster_free(struct event_broadcaster *b);
/* The recorder of component ("deployment-controller", "kubelet") on
 * host (the kubelet's node name; NULL: none), made once and kept by b:
 * the same pointer for the same pair. NULL if b is NULL. */
struct recorder *event_broadcaster_recorder(struct event_broadcaster *b,
					    const char *component,
					    const char *host);
void event_broadcaster_stats(const struct event_broadcaster *b,
			     struct event_stats *out);
/* Events queued, being written, or waiting to be tried again after a
 * write that got no answer (tests poll it to reach quiet). */
size_t event_broadcaster_pending(const struct event_broadcaster *b);
/* The metrics collector (metrics.h): arg is a broadcaster. */
void event_broadcaster_metrics_collect(void *arg, struct strbuf *out);

/* Records an event about ref; type is "Normal" or "Warning". */
void event_record(struct recorder *r, const struct event_ref *ref,
		  const char *type, const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The same, the reference made from a stored object (its kind,
 * apiVersion, namespace, name, uid and resourceVersion); field_path
 * names a part of it ("spec.containers{web}") or is NULL. */
void event_record_object(struct recorder *r, const struct object *o,
			 const char *field_path, const char *type,
			 const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

#endif
