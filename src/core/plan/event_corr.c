/* event_corr.c - the event correlator's decisions (event_corr.h):
 * client-go's keys, EventAggregate, eventObserve, the spam filter's
 * token bucket and makeEvent's name, with time as an argument. */
#include <string.h>

#include "event_corr.h"

/* The separator of key fields: a byte no Kubernetes name, reason or
 * kind contains, so "ab"+"c" and "a"+"bc" are different keys (client-go
 * joins with "" and accepts the ambiguity). */
#define SEP '\x1f'

/* One field of a key and its separator; NULL is "" (an event_ident
 * borrows its strings and leaves the absent ones NULL). */
static void
add(struct strbuf *out, const char *s)
{
	strbuf_addstr(out, s ? s : "");
	strbuf_addch(out, SEP);
}

/* source, then the involved object as client-go lists it: kind,
 * namespace, name, uid, apiVersion. Example, with SEP written as |:
 * component "deployment-controller", no host, Deployment default/web,
 * uid "u1", apps/v1 give
 *   deployment-controller||Deployment|default|web|u1|apps/v1|
 * Every key below starts with these seven fields. */
static void
add_source_object(const struct event_ident *e, struct strbuf *out)
{
	add(out, e->component);
	add(out, e->host);
	add(out, e->kind);
	add(out, e->namespace);
	add(out, e->name);
	add(out, e->uid);
	add(out, e->api_version);
}

/* Two events with the same key are one Event whose count goes up. The
 * message is part of it: "Scaled up replica set web-1 to 3" and "... to
 * 5" are two Events, the same failing probe every 10 s is one. Field
 * order: client-go puts fieldPath after the name, drover after the
 * apiVersion; only equality of keys matters, never their text. */
void
event_corr_key(const struct event_ident *e, struct strbuf *out)
{
	add_source_object(e, out);
	add(out, e->field_path);
	add(out, e->type);
	add(out, e->reason);
	add(out, e->message);
}

/* Without message and fieldPath: the "Created pod: web-x" events of one
 * ReplicaSet all share it, which is what lets event_corr_similar count
 * their distinct messages. client-go adds reportingController and
 * reportingInstance, which event_ident does not carry. */
void
event_corr_similar_key(const struct event_ident *e, struct strbuf *out)
{
	add_source_object(e, out);
	add(out, e->type);
	add(out, e->reason);
}

/* The same bytes as the similar key today, but a separate function:
 * the two key different caches (the spam filter's buckets, the similar
 * events' records), and either may gain a field without the other. */
void
event_corr_spam_key(const struct event_ident *e, struct strbuf *out)
{
	add_source_object(e, out);
	add(out, e->type);
	add(out, e->reason);
}

/* FNV-1a 64: offset basis 14695981039346656037 (0xcbf29ce484222325),
 * prime 1099511628211. Test vectors: "" gives the offset basis itself,
 * "a" gives 0xaf63dc4c8601ec8c. NULL hashes as "". */
uint64_t
event_corr_hash(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; s && *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

/* Two 64-bit lanes over the same bytes: `a` is plain FNV-1a 64, `b`
 * starts from the offset basis with its 32-bit halves swapped and folds
 * its high bits down after every byte, so the lanes are not two copies
 * of one function. Keys may contain any byte (SEP included): len, not a
 * NUL, ends them. */
void
event_corr_digest(const char *key, size_t len, struct event_digest *d)
{
	uint64_t a = 14695981039346656037ull, b = 0x84222325cbf29ce4ull;
	size_t i;

	for (i = 0; i < len; i++) {
		a ^= (unsigned char)key[i];
		a *= 1099511628211ull;
		b ^= (unsigned char)key[i];
		b *= 1099511628211ull;
		b ^= b >> 29; /* a second, different mix */
	}
	d->a = a;
	d->b = b;
}

/* The set is an array: at most ten hashes, searched linearly. When it
 * is full, the oldest entry goes (Go's PopAny drops an arbitrary one;
 * dropping the oldest makes the outcome the same on every run).
 *
 * Trace, messages m1, m2, ... within the window: m1..m9 fill local[0..8]
 * (n 9, false). m10 is added (n 10): full, so m1 is dropped (n 9) and
 * the event is combined (true). m11: added, m2 dropped, true. m5 again:
 * known, n stays 9, false: a repeat of a message still in the set is
 * not combined, as in client-go (inserting it does not grow the set).
 * Exactly 10 minutes is still within the window: last at 12:00:00, an
 * event at 12:10:00 keeps the record, one at 12:10:00.001 starts it
 * again empty. */
bool
event_corr_similar(struct event_similar *r, uint64_t h, dtime now)
{
	size_t i;
	bool known = false;

	if (r->n && now - r->last > EVENT_AGGREGATE_WINDOW_MS)
		r->n = 0;
	r->last = now;
	for (i = 0; i < r->n; i++)
		if (r->local[i] == h)
			known = true;
	/* invariant: n < max here, the set is popped back below it */
	if (!known && r->n < EVENT_AGGREGATE_MAX_EVENTS)
		r->local[r->n++] = h;
	if (r->n < EVENT_AGGREGATE_MAX_EVENTS)
		return false;
	memmove(r->local, r->local + 1, (r->n - 1) * sizeof(r->local[0]));
	r->n--;
	return true;
}

/* `known` false means the cache has no record of the key (never seen,
 * or evicted); *s is then overwritten whatever it held. The window is
 * inclusive: last seen at 12:00:00, a repeat at 12:10:00 aggregates, at
 * 12:10:00.001 it is a new Event with count 1. */
enum event_corr_verdict
event_corr_observe(struct event_seen *s, bool known, dtime now)
{
	if (known && s->count > 0 &&
	    now - s->last <= EVENT_AGGREGATE_WINDOW_MS) {
		s->count++;
		s->last = now;
		return EVENT_CORR_AGGREGATE;
	}
	s->count = 1;
	s->first = s->last = now;
	return EVENT_CORR_NEW;
}

/* Tokens are refilled continuously: one per EVENT_SPAM_REFILL_MS, up to
 * the burst. A clock that goes back refills nothing (and last stays at
 * the later time, so the refill resumes from there).
 *
 * Fractions count, and a refused event costs nothing: 25 events at t=0
 * empty the bucket; at t=150 s it holds 0.5 and the 26th is filtered;
 * at t=300 s it holds 1.0 and the next passes, leaving 0. This is
 * golang.org/x/time/rate's token bucket, which client-go's TryAccept
 * uses. */
bool
event_corr_bucket_take(struct event_bucket *b, dtime now)
{
	if (!b->started) {
		b->started = true;
		b->tokens = EVENT_SPAM_BURST;
		b->last = now;
	}
	if (now > b->last) {
		b->tokens += (double)(now - b->last) / EVENT_SPAM_REFILL_MS;
		if (b->tokens > EVENT_SPAM_BURST)
			b->tokens = EVENT_SPAM_BURST;
		b->last = now;
	}
	if (b->tokens < 1.0)
		return false;
	b->tokens -= 1.0;
	return true;
}

/* Example: "web" at 2023-11-14T22:13:20Z (unix_ns 1700000000000000000)
 * is "web.17979cfe362a0000". Appended to out, not replacing it. */
void
event_corr_name(struct strbuf *out, const char *involved_name, int64_t unix_ns)
{
	strbuf_addf(out, "%s.%llx", involved_name ? involved_name : "",
		    (unsigned long long)unix_ns);
}
