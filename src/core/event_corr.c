/* event_corr.c - the event correlator's decisions (event_corr.h):
 * client-go's keys, EventAggregate, eventObserve, the spam filter's
 * token bucket and makeEvent's name, with time as an argument. */
#include <string.h>

#include "event_corr.h"

/* The separator of key fields: a byte no Kubernetes name, reason or
 * kind contains, so "ab"+"c" and "a"+"bc" are different keys (client-go
 * joins with "" and accepts the ambiguity). */
#define SEP '\x1f'

static void
add(struct strbuf *out, const char *s)
{
	strbuf_addstr(out, s ? s : "");
	strbuf_addch(out, SEP);
}

/* source, then the involved object as client-go lists it: kind,
 * namespace, name, uid, apiVersion. */
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

void
event_corr_key(const struct event_ident *e, struct strbuf *out)
{
	add_source_object(e, out);
	add(out, e->field_path);
	add(out, e->type);
	add(out, e->reason);
	add(out, e->message);
}

void
event_corr_similar_key(const struct event_ident *e, struct strbuf *out)
{
	add_source_object(e, out);
	add(out, e->type);
	add(out, e->reason);
}

void
event_corr_spam_key(const struct event_ident *e, struct strbuf *out)
{
	add_source_object(e, out);
	add(out, e->type);
	add(out, e->reason);
}

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
 * dropping the oldest makes the outcome the same on every run). */
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
 * the burst. A clock that goes back refills nothing. */
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

void
event_corr_name(struct strbuf *out, const char *involved_name, int64_t unix_ns)
{
	strbuf_addf(out, "%s.%llx", involved_name ? involved_name : "",
		    (unsigned long long)unix_ns);
}
