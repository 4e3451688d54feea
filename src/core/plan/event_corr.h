/* event_corr.h - the decisions of client-go's event correlator
 * (tools/record/events_cache.go), pure: which events are the same, when
 * a repeat bumps the count of the Event already written instead of
 * writing a new one, when similar events are combined, when a source
 * has recorded too much (the spam filter), and the Event's name. The
 * recorder (src/client/recorder.c) keeps the caches and does the I/O;
 * time is always an argument.
 *
 * The three steps, in client-go's order (EventCorrelate):
 *
 * 1. aggregate (EventAggregator): events that differ only in message
 *    (same source, object, type and reason) are "similar"; once 10
 *    different messages were seen within 10 minutes, the next is
 *    recorded as "(combined from similar events): <message>" under the
 *    similar events' key, so a ReplicaSet creating 500 pods writes 10
 *    "Created pod: web-x" Events and then bumps the count of one
 *    combined Event.
 * 2. observe (eventLogger): an event identical to one seen (same key,
 *    event_corr_key) within EVENT_AGGREGATE_WINDOW_MS bumps count and
 *    lastTimestamp of that Event (a PATCH); otherwise it starts a new
 *    Event with count 1 (a POST).
 * 3. filter (EventSourceObjectSpamFilter): a token bucket per source,
 *    object, type and reason, burst 25, one token back every 5 minutes;
 *    an event without a token is not written (its count was bumped in
 *    step 2 all the same, so the next write carries it).
 *
 * Ownership: keys are written into caller-owned strbufs; the structs
 * here are plain values the caller keeps in its caches. */
#ifndef DROVER_EVENT_CORR_H
#define DROVER_EVENT_CORR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dtime.h"
#include "strbuf.h"

/* client-go's defaults (events_cache.go). */
#define EVENT_AGGREGATE_WINDOW_MS  ((dtime)10 * 60 * 1000)
#define EVENT_AGGREGATE_MAX_EVENTS 10
#define EVENT_SPAM_BURST           25
#define EVENT_SPAM_REFILL_MS       ((dtime)5 * 60 * 1000)
#define EVENT_COMBINED_PREFIX      "(combined from similar events): "

/* Everything that identifies an event (borrowed strings; NULL is ""). */
struct event_ident {
	const char *component, *host; /* source */
	const char *kind, *namespace, *name, *uid, *api_version;
	const char *field_path;
	const char *type, *reason, *message;
};

/* getEventKey: source, involved object (with fieldPath), type, reason,
 * message; the fields are separated by a byte that no name contains
 * (client-go joins them with nothing). */
void event_corr_key(const struct event_ident *e, struct strbuf *out);
/* EventAggregatorByReasonFunc's aggregate key: the same without the
 * message and fieldPath. */
void event_corr_similar_key(const struct event_ident *e, struct strbuf *out);
/* getSpamKey: source, involved object, type and reason. */
void event_corr_spam_key(const struct event_ident *e, struct strbuf *out);

/* FNV-1a 64 of s: the message's identity in a similar-events record. */
uint64_t event_corr_hash(const char *s);

/* A key's 128-bit digest (FNV-1a 64 from two offset bases): what the
 * recorder's caches are indexed by, so that an entry keeps 16 bytes
 * instead of its key's text (a few hundred). */
struct event_digest {
	uint64_t a, b;
};
void event_corr_digest(const char *key, size_t len, struct event_digest *d);

/* One similar-events record (aggregateRecord): the distinct messages
 * seen (by hash, at most EVENT_AGGREGATE_MAX_EVENTS kept) and when the
 * last one was. Zeroed: none seen. */
struct event_similar {
	uint64_t local[EVENT_AGGREGATE_MAX_EVENTS];
	size_t n;
	dtime last;
};

/* EventAggregate: adds message hash h to the record at now and returns
 * true if the event is to be combined: the set of distinct messages
 * within the window has reached EVENT_AGGREGATE_MAX_EVENTS (one of them
 * is then dropped, so the set never grows past it). A record whose last
 * event is older than the window starts again empty.
 *
 * Example: "Created pod: web-1" .. "web-9" at t=0..8s return false;
 * "web-10" at 9s returns true, and so does every other message until 10
 * minutes pass without one; "web-1" again at 5s returns false (it is
 * already in the set of 9). */
bool event_corr_similar(struct event_similar *r, uint64_t h, dtime now);

/* What the cache remembers of one written Event (eventLog). */
struct event_seen {
	int64_t count;
	dtime first, last;
};

enum event_corr_verdict {
	EVENT_CORR_NEW,       /* a new Event: count 1, first = last = now */
	EVENT_CORR_AGGREGATE, /* the same Event: count + 1, last = now */
};

/* eventObserve: s is the cache's record of the key (known false: none).
 * Within EVENT_AGGREGATE_WINDOW_MS of s->last the event aggregates,
 * else it starts anew. s is updated either way.
 *
 * Example: Unhealthy "Readiness probe failed: HTTP probe failed with
 * statuscode: 500" at 10:00:00, 10:00:05, 10:00:10 gives NEW (count 1),
 * AGGREGATE (2), AGGREGATE (3): one Event, count 3, first 10:00:00,
 * last 10:00:10; the same at 10:30:00 is NEW again. */
enum event_corr_verdict event_corr_observe(struct event_seen *s, bool known,
					   dtime now);

/* The spam filter's token bucket (flowcontrol.NewTokenBucketRateLimiter
 * with qps 1/300 and burst 25). Zeroed: full. */
struct event_bucket {
	bool started;
	double tokens;
	dtime last;
};

/* TryAccept: true (a token taken) or false (filter the event).
 *
 * Example: 26 events at the same instant: the first 25 pass, the 26th
 * is filtered; 5 minutes later one more passes. */
bool event_corr_bucket_take(struct event_bucket *b, dtime now);

/* The Event's name as client-go's makeEvent makes it: the involved
 * object's name, a dot, the time in Unix nanoseconds in lower-case hex
 * ("web-6d4cf56db6.187b1c2d3e4f5a6b"). The caller keeps names unique by
 * never passing the same unix_ns twice. */
void event_corr_name(struct strbuf *out, const char *involved_name,
		     int64_t unix_ns);

#endif
