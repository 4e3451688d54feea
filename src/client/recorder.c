/* recorder.c - the event broadcaster, its recorders and the write queue
 * (recorder.h): the correlator's caches around the pure decisions of
 * src/core/plan/event_corr.h, and the POSTs and PATCHes of Events from a
 * timer after the loop turn.
 *
 * The queue holds cache entries, not requests: an entry is queued at
 * most once, and what is written is the entry's state when its turn
 * comes, so 50 probe failures recorded in one turn are one write with
 * count 50. Per entry, at most one write is on its way; a change while
 * it is (dirty) queues the entry again after the answer, so writes of
 * one Event never overtake each other.
 *
 * States of an entry (the flags below):
 *
 *   idle --record--> queued --drain--> inflight --answer--> idle
 *                                         |  record: dirty
 *                                         +--answer, dirty--> queued
 *
 * A write that does not reach the API (no answer at all) is tried
 * again, as Kubernetes' broadcaster does (recordToSink): up to
 * TRANSPORT_TRIES times, the first wait a random part of RETRY_MS (so
 * that a thousand agents that lost the control plane together do not
 * come back together), then RETRY_MS; meanwhile the entry waits in
 * b->retry (waiting). An answer that refuses the write is not tried
 * again.
 *
 * created says whether the Event exists in the API (a PATCH then, a
 * POST otherwise); gen counts the Events one entry has stood for (a new
 * one after 10 quiet minutes), so that the answer of an old Event's
 * write does not mark the new one created. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "event_corr.h"
#include "log.h"
#include "metrics.h"
#include "object.h"
#include "rand.h"
#include "recorder.h"
#include "xalloc.h"

/* Writes started per timer callback, and on their way at once (an
 * asynchronous client): a burst of a thousand events is spread over
 * loop turns, never one long turn (32 writes and their deliveries: about
 * 5 ms on two cores). */
#define DRAIN_PER_TURN 32
#define INFLIGHT_MAX   32
/* A POST that finds the Event (409) becomes a PATCH, a PATCH that does
 * not (404) a POST; at most this often in a row. */
#define CONFLICT_RETRIES 2
/* Writes that got no answer: tries in all, and the wait between them
 * (Kubernetes' maxTriesPerEvent and sleepDuration). */
#define TRANSPORT_TRIES 12
#define RETRY_MS        10000

/* The three caches share one shape: every cached struct (entry,
 * similar, spam) starts with a struct keyed, and the hash keeps them
 * least recently used first. A key is its 128-bit digest
 * (event_corr_digest): with 4096 Events remembered, the texts of their
 * keys would cost a few hundred bytes each, in three caches. */
struct keyed {
	struct event_digest key;
	UT_hash_handle hh;
};

struct recorder {
	struct event_broadcaster *b;
	char *component;
	char *host; /* NULL: none */
	struct recorder *next;
};

/* What the recorder remembers of one Event: its name and count, and,
 * only while it is to be written (queued or on its way), the whole
 * Event; an idle entry is about 150 bytes. */
struct entry {
	struct keyed k; /* in b->entries */
	char *name, *ns;
	struct entry *qnext;
	bool queued, inflight, dirty, created;
	bool waiting;        /* in b->retry, until retry_at */
	uint64_t retry_at;   /* uv_now() */
	struct entry *rnext; /* in b->retry */
	unsigned gen;
	int retries;
	int tries;           /* writes in a row that got no answer */
	struct event_v1 *ev; /* the Event to write; NULL when idle */
	struct event_seen seen;
};

/* A similar-events record or a spam bucket, by key. */
struct similar {
	struct keyed k;
	struct event_similar r;
};

struct spam {
	struct keyed k;
	struct event_bucket bucket;
};

/* One write on its way (asynchronous clients): b and e are cleared when
 * the broadcaster goes first. */
struct pend {
	struct event_broadcaster *b;
	struct entry *e;
	unsigned gen;
	bool post;
	struct pend *prev, *next;
};

struct event_broadcaster {
	struct event_broadcaster_config cfg;
	struct recorder *recorders;
	struct keyed *entries;  /* struct entry */
	struct keyed *similars; /* struct similar */
	struct keyed *spams;    /* struct spam */
	struct entry *qhead, *qtail;
	size_t qlen;
	unsigned inflight;
	struct pend *pends;
	int64_t last_ns; /* the last name's time: names stay unique */
	uv_timer_t timer;
	bool armed;
	/* entries whose write got no answer, until their next try (a
	 * list: they are as many as the writes on their way at most) */
	struct entry *retry;
	size_t nwaiting;
	uv_timer_t retry_timer;
	int closing; /* timers not closed yet, once freed */
	struct event_stats stats;
};

static void on_timer(uv_timer_t *t);
static void on_retry(uv_timer_t *t);

struct event_broadcaster *
event_broadcaster_new(const struct event_broadcaster_config *cfg)
{
	struct event_broadcaster *b = xcalloc(1, sizeof(*b));

	b->cfg = *cfg;
	if (b->cfg.queue_max == 0)
		b->cfg.queue_max = EVENT_QUEUE_DEFAULT;
	if (b->cfg.cache_max == 0)
		b->cfg.cache_max = EVENT_CACHE_DEFAULT;
	if (b->cfg.retry_ms == 0)
		b->cfg.retry_ms = RETRY_MS;
	uv_timer_init(cfg->loop, &b->timer);
	b->timer.data = b;
	uv_timer_init(cfg->loop, &b->retry_timer);
	b->retry_timer.data = b;
	/* armed (one shot, 0 ms) only while writes wait: it keeps the loop
	 * alive just long enough to write them */
	return b;
}

/* The whole Event is dropped once written: the next record fills it
 * again. */
static void
entry_idle(struct entry *e)
{
	if (e->ev && !e->queued && !e->inflight && !e->waiting) {
		schema_release(&schema_event_v1, e->ev);
		free(e->ev);
		e->ev = NULL;
	}
}

static void
entry_free(struct entry *e)
{
	free(e->name);
	free(e->ns);
	if (e->ev)
		schema_release(&schema_event_v1, e->ev);
	free(e->ev);
	free(e);
}

static void
keyed_free(void *x)
{
	free(x);
}

/* The broadcaster goes with the last of its two timers. */
static void
free_broadcaster(uv_handle_t *h)
{
	struct event_broadcaster *b = h->data;

	if (--b->closing == 0)
		free(b);
}

void
event_broadcaster_free(struct event_broadcaster *b)
{
	struct keyed *k, *kt;
	struct pend *pd;
	struct recorder *r;

	if (b == NULL)
		return;
	for (pd = b->pends; pd; pd = pd->next)
		pd->b = NULL, pd->e = NULL;
	HASH_ITER(hh, b->entries, k, kt)
	{
		HASH_DEL(b->entries, k);
		entry_free((struct entry *)k);
	}
	HASH_ITER(hh, b->similars, k, kt)
	{
		HASH_DEL(b->similars, k);
		keyed_free(k);
	}
	HASH_ITER(hh, b->spams, k, kt)
	{
		HASH_DEL(b->spams, k);
		keyed_free(k);
	}
	while ((r = b->recorders)) {
		b->recorders = r->next;
		free(r->component);
		free(r->host);
		free(r);
	}
	if (uv_is_closing((uv_handle_t *)&b->timer)) {
		/* closed by a walk over the loop's handles: already done */
		free(b);
		return;
	}
	b->closing = 2;
	uv_close((uv_handle_t *)&b->timer, free_broadcaster);
	uv_close((uv_handle_t *)&b->retry_timer, free_broadcaster);
}

struct recorder *
event_broadcaster_recorder(struct event_broadcaster *b, const char *component,
			   const char *host)
{
	struct recorder *r;

	if (b == NULL)
		return NULL;
	for (r = b->recorders; r; r = r->next)
		if (!strcmp(r->component, component) &&
		    !strcmp(r->host ? r->host : "", host ? host : ""))
			return r;
	r = xcalloc(1, sizeof(*r));
	r->b = b;
	r->component = xstrdup(component);
	r->host = host ? xstrdup(host) : NULL;
	r->next = b->recorders;
	b->recorders = r;
	return r;
}

void
event_broadcaster_stats(const struct event_broadcaster *b,
			struct event_stats *out)
{
	if (b)
		*out = b->stats;
	else
		memset(out, 0, sizeof(*out));
}

size_t
event_broadcaster_pending(const struct event_broadcaster *b)
{
	return b ? b->qlen + b->inflight + b->nwaiting : 0;
}

/* ---- the queue ---- */

static void
arm(struct event_broadcaster *b)
{
	if (!b->armed) {
		b->armed = true;
		uv_timer_start(&b->timer, on_timer, 0, 0);
	}
}

/* Queues e unless it is queued or on its way (then dirty); false if the
 * queue is full (the event is dropped; its count stays in the entry). */
static bool
enqueue(struct event_broadcaster *b, struct entry *e)
{
	if (e->queued || e->waiting)
		return true; /* the write, or the next try, takes the change */
	if (e->inflight) {
		e->dirty = true;
		return true;
	}
	if (b->qlen >= b->cfg.queue_max) {
		b->stats.dropped_queue_full++;
		return false;
	}
	e->queued = true;
	e->qnext = NULL;
	if (b->qtail)
		b->qtail->qnext = e;
	else
		b->qhead = e;
	b->qtail = e;
	b->qlen++;
	arm(b);
	return true;
}

static struct entry *
dequeue(struct event_broadcaster *b)
{
	struct entry *e = b->qhead;

	if (e == NULL)
		return NULL;
	b->qhead = e->qnext;
	if (b->qhead == NULL)
		b->qtail = NULL;
	b->qlen--;
	e->queued = false;
	e->qnext = NULL;
	return e;
}

/* ---- writes ---- */

static void
path_of(char *buf, size_t len, const struct entry *e, bool post)
{
	client_path(buf, len, "", "v1", "events", e->ns, post ? NULL : e->name,
		    NULL);
}

/* e's write got no answer: it waits in b->retry for its next try. */
static void
wait_retry(struct event_broadcaster *b, struct entry *e)
{
	uint64_t now = uv_now(b->cfg.loop), wait = b->cfg.retry_ms;
	struct entry *x;

	if (e->tries == 1) {
		unsigned char r[2];

		rand_bytes(r, sizeof(r));
		wait = (uint64_t)b->cfg.retry_ms *
		       ((unsigned)r[0] << 8 | r[1]) / 65536;
	}
	e->waiting = true;
	b->nwaiting++;
	e->retry_at = now + wait;
	e->rnext = b->retry;
	b->retry = e;
	for (x = b->retry; x; x = x->rnext)
		if (x->retry_at < e->retry_at)
			return; /* the timer is set for an earlier one */
	uv_timer_start(&b->retry_timer, on_retry, wait, 0);
}

/* The entries whose time has come are queued; the timer is set for the
 * next. */
static void
on_retry(uv_timer_t *t)
{
	struct event_broadcaster *b = t->data;
	uint64_t now = uv_now(b->cfg.loop), next = 0;
	struct entry **pp = &b->retry, *e;

	while ((e = *pp)) {
		if (e->retry_at > now) {
			if (next == 0 || e->retry_at < next)
				next = e->retry_at;
			pp = &e->rnext;
			continue;
		}
		*pp = e->rnext;
		e->waiting = false;
		b->nwaiting--;
		e->rnext = NULL;
		if (!enqueue(b, e)) {
			b->stats.failed++;
			entry_idle(e);
		}
	}
	if (next)
		uv_timer_start(&b->retry_timer, on_retry, next - now, 0);
}

/* The answer to a write of e (status 0: not reached, for the reason
 * error). */
static void
answered(struct event_broadcaster *b, struct entry *e, unsigned gen, bool post,
	 int status, const char *error)
{
	e->inflight = false;
	b->inflight--;
	if (gen != e->gen) {
		/* e stands for a newer Event now: write that */
		e->dirty = false;
		enqueue(b, e);
		entry_idle(e);
		return;
	}
	if (status == 0 && ++e->tries < TRANSPORT_TRIES) {
		e->dirty = false; /* the next try writes the latest state */
		wait_retry(b, e);
		return;
	}
	e->tries = 0; /* answered, or given up on */
	if (status == 200 || status == 201) {
		b->stats.written++;
		e->created = true;
		e->retries = 0;
	} else if ((status == 404 && !post) || (status == 409 && post)) {
		/* gone (the TTL sweep), or there already: the other verb */
		e->created = post;
		if (e->retries++ < CONFLICT_RETRIES)
			e->dirty = true;
		else
			b->stats.failed++;
	} else {
		b->stats.failed++;
		if (error)
			log_warn("event %s/%s (%s): %s", e->ns, e->name,
				 e->ev ? e->ev->reason : "", error);
		else
			log_warn("event %s/%s (%s): HTTP %d", e->ns, e->name,
				 e->ev ? e->ev->reason : "", status);
	}
	if (e->dirty) {
		e->dirty = false;
		enqueue(b, e);
	}
	entry_idle(e);
}

static void
on_done(void *arg, struct client_resp *resp)
{
	struct pend *pd = arg;
	struct event_broadcaster *b = pd->b;

	if (pd->prev)
		pd->prev->next = pd->next;
	else if (b)
		b->pends = pd->next;
	if (pd->next)
		pd->next->prev = pd->prev;
	if (b && pd->e)
		answered(b, pd->e, pd->gen, pd->post, resp->status,
			 resp->error);
	free(pd);
}

static json_t *
patch_body(const struct entry *e)
{
	char ts[40];

	dtime_format(e->ev->last_timestamp, ts);
	return json_pack("{s:I,s:s,s:s}", "count", (json_int_t)e->ev->count,
			 "lastTimestamp", ts, "message",
			 e->ev->message ? e->ev->message : "");
}

static void
write_entry(struct event_broadcaster *b, struct entry *e)
{
	struct object o = {kind_by_id(KIND_EVENT), e->ev};
	bool post = !e->created;
	json_t *body = post ? object_encode(&o) : patch_body(e);
	const char *ct = post ? NULL : "application/merge-patch+json";
	struct pend *pd = xcalloc(1, sizeof(*pd));
	char path[512];

	path_of(path, sizeof(path), e, post);
	e->inflight = true;
	b->inflight++;
	pd->b = b;
	pd->e = e;
	pd->gen = e->gen;
	pd->post = post;
	pd->next = b->pends;
	if (b->pends)
		b->pends->prev = pd;
	b->pends = pd;
	if (client_request_async(b->cfg.client, post ? "POST" : "PATCH", path,
				 NULL, ct, body, on_done, pd)) {
		/* a client without request_async (in-process, made off a
		 * loop): a function call into the API, from this timer */
		struct client_resp r;

		client_request(b->cfg.client, post ? "POST" : "PATCH", path,
			       NULL, ct, body, &r);
		on_done(pd, &r);
		client_resp_release(&r);
	}
	json_decref(body);
}

static void
on_timer(uv_timer_t *t)
{
	struct event_broadcaster *b = t->data;
	struct entry *e;
	int n = 0;

	b->armed = false;
	while (n < DRAIN_PER_TURN && b->inflight < INFLIGHT_MAX &&
	       (e = dequeue(b))) {
		write_entry(b, e);
		n++;
	}
	/* more to write: in the next turn, after the loop has polled */
	if (b->qhead && b->inflight < INFLIGHT_MAX)
		arm(b);
}

/* ---- the correlator's caches ---- */

/* Finds key in the cache at *head, moving it to the most recent end; or
 * adds a zeroed struct of size bytes, first evicting the least recent
 * one that evictable() allows when the cache holds max (if none may go,
 * the cache grows past max: entries being written are bounded by the
 * queue). *found says which. */
static struct keyed *
cache_get(struct keyed **head, const struct strbuf *key, size_t size,
	  size_t max, bool (*evictable)(const struct keyed *),
	  void (*release)(void *), bool *found)
{
	struct keyed *x, *y, *t;
	struct event_digest d;

	event_corr_digest(key->buf ? key->buf : "", key->len, &d);
	HASH_FIND(hh, *head, &d, sizeof(d), x);
	if (found)
		*found = x != NULL;
	if (x) {
		HASH_DEL(*head, x);
	} else {
		if (HASH_COUNT(*head) >= max)
			HASH_ITER(hh, *head, y, t)
			{
				if (evictable(y)) {
					HASH_DEL(*head, y);
					release(y);
					break;
				}
			}
		x = xcalloc(1, size);
		x->key = d;
	}
	HASH_ADD(hh, *head, key, sizeof(x->key), x);
	return x;
}

static bool
entry_evictable(const struct keyed *k)
{
	const struct entry *e = (const struct entry *)k;

	return !e->queued && !e->inflight && !e->waiting;
}

static bool
always(const struct keyed *k)
{
	(void)k;
	return true;
}

static void
entry_release(void *x)
{
	entry_free(x);
}

static char *
dup0(const char *s)
{
	return s && *s ? xstrdup(s) : NULL;
}

/* Entry e stands for a new Event: a new name (count and times are
 * the caller's). */
static void
entry_new_event(struct event_broadcaster *b, struct entry *e,
		const struct event_ref *ref)
{
	struct strbuf name = STRBUF_INIT;
	int64_t ns = (int64_t)b->cfg.now() * 1000000;

	if (ns <= b->last_ns)
		ns = b->last_ns + 1;
	b->last_ns = ns;
	event_corr_name(&name, ref->name, ns);
	free(e->name);
	free(e->ns);
	e->name = strbuf_detach(&name);
	/* client-go: an object without a namespace (a Node) has its
	 * events in "default" */
	e->ns = xstrdup(ref->namespace && *ref->namespace ? ref->namespace
							  : "default");
	if (e->ev) {
		schema_release(&schema_event_v1, e->ev);
		free(e->ev);
		e->ev = NULL;
	}
	e->created = false;
	e->retries = 0;
	e->gen++;
}

/* The whole Event of entry e, from what the record call was given. */
static void
entry_fill(struct entry *e, const struct recorder *r,
	   const struct event_ref *ref, const char *type, const char *reason)
{
	struct event_v1 *ev;

	if (e->ev)
		return;
	e->ev = ev = xcalloc(1, sizeof(*ev));
	ev->api_version = xstrdup("v1");
	ev->kind = xstrdup("Event");
	ev->metadata.name = xstrdup(e->name);
	ev->metadata.namespace = xstrdup(e->ns);
	ev->involved_object.kind = dup0(ref->kind);
	ev->involved_object.namespace = dup0(ref->namespace);
	ev->involved_object.name = dup0(ref->name);
	ev->involved_object.uid = dup0(ref->uid);
	ev->involved_object.api_version = dup0(ref->api_version);
	ev->involved_object.resource_version = dup0(ref->resource_version);
	ev->involved_object.field_path = dup0(ref->field_path);
	ev->reason = xstrdup(reason);
	ev->source.component = xstrdup(r->component);
	ev->source.host = dup0(r->host);
	ev->type = xstrdup(type);
	ev->reporting_component = xstrdup(r->component);
	ev->reporting_instance = xstrdup(r->host ? r->host : "");
}

static void
record(struct recorder *r, const struct event_ref *ref, const char *type,
       const char *reason, const char *message)
{
	struct event_broadcaster *b = r->b;
	struct event_ident id = {
	    .component = r->component,
	    .host = r->host,
	    .kind = ref->kind,
	    .namespace = ref->namespace,
	    .name = ref->name,
	    .uid = ref->uid,
	    .api_version = ref->api_version,
	    .field_path = ref->field_path,
	    .type = type,
	    .reason = reason,
	    .message = message,
	};
	struct strbuf key = STRBUF_INIT, msg = STRBUF_INIT;
	dtime now = b->cfg.now();
	struct similar *sim;
	struct spam *sp;
	struct entry *e;
	bool known;

	b->stats.recorded++;
	/* 1. similar events: combined after 10 messages */
	event_corr_similar_key(&id, &key);
	sim = (struct similar *)cache_get(&b->similars, &key, sizeof(*sim),
					  b->cfg.cache_max, always, keyed_free,
					  NULL);
	if (event_corr_similar(&sim->r, event_corr_hash(message), now)) {
		strbuf_addstr(&msg, EVENT_COMBINED_PREFIX);
		strbuf_addstr(&msg, message);
		/* the combined Event's key: the similar key */
	} else {
		strbuf_addstr(&msg, message);
		strbuf_reset(&key);
		event_corr_key(&id, &key);
	}
	/* 2. the same Event within 10 minutes: count + 1 */
	e = (struct entry *)cache_get(&b->entries, &key, sizeof(*e),
				      b->cfg.cache_max, entry_evictable,
				      entry_release, &known);
	if (event_corr_observe(&e->seen, known, now) == EVENT_CORR_NEW)
		entry_new_event(b, e, ref);
	else
		b->stats.aggregated++;
	entry_fill(e, r, ref, type, reason);
	free(e->ev->message);
	e->ev->message = strbuf_detach(&msg);
	e->ev->count = e->seen.count;
	/* metav1.Time has whole seconds */
	e->ev->first_timestamp = e->seen.first / 1000 * 1000;
	e->ev->last_timestamp = e->seen.last / 1000 * 1000;
	/* 3. the spam filter: 25, then one per 5 minutes */
	strbuf_reset(&key);
	event_corr_spam_key(&id, &key);
	sp = (struct spam *)cache_get(&b->spams, &key, sizeof(*sp),
				      b->cfg.cache_max, always, keyed_free,
				      NULL);
	strbuf_release(&key);
	if (!event_corr_bucket_take(&sp->bucket, now))
		b->stats.dropped_spam++;
	else
		enqueue(b, e);
	entry_idle(e); /* not to be written (now): only its count stays */
}

void
event_record(struct recorder *r, const struct event_ref *ref, const char *type,
	     const char *reason, const char *fmt, ...)
{
	struct strbuf msg = STRBUF_INIT;
	va_list ap;

	if (r == NULL)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	record(r, ref, type, reason, msg.buf ? msg.buf : "");
	strbuf_release(&msg);
}

void
event_record_object(struct recorder *r, const struct object *o,
		    const char *field_path, const char *type,
		    const char *reason, const char *fmt, ...)
{
	struct strbuf msg = STRBUF_INIT;
	const struct object_meta *m;
	struct event_ref ref;
	va_list ap;

	if (r == NULL || o == NULL || o->obj == NULL)
		return;
	m = object_meta(o);
	ref = (struct event_ref){
	    .kind = o->k->kind,
	    .namespace = m->namespace,
	    .name = m->name,
	    .uid = m->uid,
	    .api_version = o->k->api_version,
	    .resource_version = m->resource_version,
	    .field_path = field_path,
	};
	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	record(r, &ref, type, reason, msg.buf ? msg.buf : "");
	strbuf_release(&msg);
}

/* ---- metrics ---- */

void
event_broadcaster_metrics_collect(void *arg, struct strbuf *out)
{
	const struct event_broadcaster *b = arg;

	if (b == NULL)
		return;
	metrics_family(out, "drover_events_recorded_total", "counter",
		       "Events recorded by the controllers and the agent");
	metrics_sample_u64(out, "drover_events_recorded_total", NULL,
			   b->stats.recorded);
	metrics_family(out, "drover_events_aggregated_total", "counter",
		       "Events that bumped the count of an Event already "
		       "recorded");
	metrics_sample_u64(out, "drover_events_aggregated_total", NULL,
			   b->stats.aggregated);
	metrics_family(out, "drover_events_written_total", "counter",
		       "Event creates and patches the API accepted");
	metrics_sample_u64(out, "drover_events_written_total", NULL,
			   b->stats.written);
	metrics_family(out, "drover_events_dropped_total", "counter",
		       "Events not written: the queue was full, or the spam "
		       "filter held them back");
	metrics_sample_u64(out, "drover_events_dropped_total",
			   "reason=\"queue_full\"",
			   b->stats.dropped_queue_full);
	metrics_sample_u64(out, "drover_events_dropped_total",
			   "reason=\"spam_filter\"", b->stats.dropped_spam);
	metrics_family(out, "drover_events_write_failures_total", "counter",
		       "Event writes the API refused");
	metrics_sample_u64(out, "drover_events_write_failures_total", NULL,
			   b->stats.failed);
	metrics_family(out, "drover_events_queue_length", "gauge",
		       "Events waiting to be written or being written");
	metrics_sample_u64(out, "drover_events_queue_length", NULL,
			   b->qlen + b->inflight);
}
