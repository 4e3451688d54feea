/* guard.c - the hot-write guard (guard.h): a client in front of another
 * that counts each object's writes and tells of a write loop in the log
 * and in /metrics. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "log.h"
#include "metrics.h"
#include "tmplhash.h"
#include "xalloc.h"

/* The hot writes of one component name: every name ever used, in the
 * order of first use; never freed (as the work queues' counters). */
struct guard_stats {
	char *name;
	uint64_t hot;
	struct guard_stats *next;
};

static struct guard_stats *all_stats;

/* One path's run of identical writes in the current window; hash 0:
 * free. */
struct slot {
	uint64_t hash;
	uint64_t body; /* body_hash() of the run's writes */
	dtime since;   /* start of the window */
	uint32_t n;    /* writes of the run in it */
};

struct guard {
	struct client c; /* first: a struct client * is a struct guard * */
	struct client *inner;
	dtime (*now)(void);
	struct guard_stats *st;
	dtime warned;  /* last warning, 0: none yet */
	uint64_t held; /* warnings held back since */
	struct slot slots[GUARD_SLOTS];
};

static struct guard_stats *
stats_for(const char *name)
{
	struct guard_stats **pp, *st;

	for (pp = &all_stats; *pp; pp = &(*pp)->next)
		if (!strcmp((*pp)->name, name))
			return *pp;
	st = xcalloc(1, sizeof(*st));
	st->name = xstrdup(name);
	*pp = st;
	return st;
}

uint64_t
client_guard_hot_writes(const char *component)
{
	struct guard_stats *st;

	for (st = all_stats; st; st = st->next)
		if (!strcmp(st->name, component))
			return st->hot;
	return 0;
}

/* FNV-1a, never 0 (the mark of a free slot). */
static uint64_t
path_hash(const char *s)
{
	uint64_t h = fnv1a64(FNV1A64_BASIS, s, strlen(s));

	return h ? h : 1;
}

/* Members that change at every write of the same thing: the version a
 * write is made on, and the times conditions and probes stamp. */
static bool
volatile_key(const char *k)
{
	return !strcmp(k, "resourceVersion") || !strcmp(k, "lastUpdateTime") ||
	       !strcmp(k, "lastTransitionTime") ||
	       !strcmp(k, "lastHeartbeatTime") || !strcmp(k, "lastProbeTime");
}

/* A hash of a JSON value, walked in place (no text is made), members in
 * their order, volatile_key members left out: two writes of the same
 * content hash alike. depth bounds the walk. */
static uint64_t
json_hash(uint64_t h, json_t *v, int depth)
{
	const char *k;
	json_t *e;
	size_t i;

	if (v == NULL || depth > 32)
		return h;
	h = fnv1a64(h, &(char){(char)json_typeof(v)}, 1);
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		json_object_foreach(v, k, e)
		{
			if (volatile_key(k))
				continue;
			h = fnv1a64(h, k, strlen(k) + 1);
			h = json_hash(h, e, depth + 1);
		}
		break;
	case JSON_ARRAY:
		json_array_foreach(v, i, e) h = json_hash(h, e, depth + 1);
		break;
	case JSON_STRING:
		h = fnv1a64(h, json_string_value(v), json_string_length(v));
		break;
	case JSON_INTEGER: {
		json_int_t n = json_integer_value(v);

		h = fnv1a64(h, &n, sizeof(n));
		break;
	}
	case JSON_REAL: {
		double d = json_real_value(v);

		h = fnv1a64(h, &d, sizeof(d));
		break;
	}
	default:
		break;
	}
	return h;
}

/* Whether path (no query) names a subresource of a namespaced object:
 * three segments or more after namespaces/NS (PLURAL/NAME/SUB). */
static bool
is_subresource(const char *path)
{
	const char *p = strstr(path, "/namespaces/");
	int segs = 0;

	if (p == NULL)
		return false;
	p += strlen("/namespaces/");
	p = strchr(p, '/'); /* past NS */
	while (p && *p) {
		segs++;
		p = strchr(p + 1, '/');
	}
	return segs >= 3;
}

static bool
is_write(const char *method, const char *path)
{
	if (!strcmp(method, "PUT") || !strcmp(method, "PATCH") ||
	    !strcmp(method, "DELETE"))
		return true;
	return !strcmp(method, "POST") && is_subresource(path);
}

/* The slot that counts path's writes, or NULL if this one is not
 * counted. A slot holds one path for the window; another path that
 * lands on it wears it down by one (the space-saving count of frequent
 * items) and takes it once it is worn to 0 or its window is over: paths
 * written a few times each come and go, and a path in a loop keeps its
 * slot (it loses a write for each other path that lands there). */
static struct slot *
slot_for(struct guard *g, uint64_t h, dtime now)
{
	struct slot *s = &g->slots[h % GUARD_SLOTS];

	if (s->hash == h)
		return s;
	if (s->hash && now - s->since < GUARD_WINDOW_MS && --s->n > 0)
		return NULL;
	s->hash = h;
	s->body = 0;
	s->since = now;
	s->n = 0;
	return s;
}

static void
warn_hot(struct guard *g, const char *method, const char *path, dtime now)
{
	if (g->warned && now - g->warned < GUARD_WARN_EVERY_MS) {
		g->held++;
		return;
	}
	if (g->held)
		log_warn("%s: %s written the same more than %d times within "
			 "%d ms (%s): a write loop (and %llu more warnings "
			 "held back)",
			 g->st->name, path, GUARD_HOT_WRITES, GUARD_WINDOW_MS,
			 method, (unsigned long long)g->held);
	else
		log_warn("%s: %s written the same more than %d times within "
			 "%d ms (%s): a write loop",
			 g->st->name, path, GUARD_HOT_WRITES, GUARD_WINDOW_MS,
			 method);
	g->warned = now;
	g->held = 0;
}

/* Counts a request if it is a write: a run of identical writes of one
 * path (the same method and body but for volatile_key members) within
 * a window; a write of other content starts a run again. */
static void
count(struct guard *g, const char *method, const char *path, json_t *body)
{
	dtime now;
	struct slot *s;
	uint64_t b;

	if (g->now == NULL || !is_write(method, path))
		return;
	now = g->now();
	s = slot_for(g, path_hash(path), now);
	if (s == NULL)
		return;
	b = json_hash(fnv1a64(FNV1A64_BASIS, method, strlen(method)), body, 0);
	if (b != s->body || now - s->since >= GUARD_WINDOW_MS) {
		s->body = b;
		s->since = now;
		s->n = 0;
	}
	if (++s->n <= GUARD_HOT_WRITES)
		return;
	g->st->hot++;
	if (s->n == GUARD_HOT_WRITES + 1)
		warn_hot(g, method, path, now);
}

static int
g_request(struct client *c, const char *method, const char *path,
	  const char *query, const char *content_type, json_t *body,
	  struct client_resp *out)
{
	struct guard *g = (struct guard *)c;

	count(g, method, path, body);
	return g->inner->ops->request(g->inner, method, path, query,
				      content_type, body, out);
}

static int
g_request_async(struct client *c, const char *method, const char *path,
		const char *query, const char *content_type, json_t *body,
		client_done_cb cb, void *arg)
{
	struct guard *g = (struct guard *)c;

	if (g->inner->ops->request_async == NULL)
		return -1;
	count(g, method, path, body);
	return g->inner->ops->request_async(g->inner, method, path, query,
					    content_type, body, cb, arg);
}

static struct client_watch *
g_watch(struct client *c, const char *path, const char *query,
	client_watch_cb cb, void *arg, struct client_resp *out)
{
	struct guard *g = (struct guard *)c;

	return g->inner->ops->watch(g->inner, path, query, cb, arg, out);
}

static void
g_unwatch(struct client *c, struct client_watch *w)
{
	struct guard *g = (struct guard *)c;

	g->inner->ops->unwatch(g->inner, w);
}

static int
g_flush(struct client *c)
{
	return client_flush(((struct guard *)c)->inner);
}

static void
g_free(struct client *c)
{
	free(c);
}

static const struct client_ops guard_ops = {
    .request = g_request,
    .watch = g_watch,
    .unwatch = g_unwatch,
    .free = g_free,
    .flush = g_flush,
    .request_async = g_request_async,
};

struct client *
client_guard_new(struct client *inner, const char *component,
		 dtime (*now)(void))
{
	struct guard *g = xcalloc(1, sizeof(*g));

	g->c.ops = &guard_ops;
	g->inner = inner;
	g->now = now;
	g->st = stats_for(component);
	return &g->c;
}

void
client_guard_metrics_collect(void *arg, struct strbuf *out)
{
	struct guard_stats *st;
	struct strbuf lb = STRBUF_INIT;

	(void)arg;
	if (all_stats == NULL)
		return;
	metrics_family(out, "drover_controller_hot_writes_total", "counter",
		       "Identical writes of one object by a controller past "
		       "100 within a second: a write loop "
		       "(src/client/guard.h)");
	for (st = all_stats; st; st = st->next) {
		strbuf_reset(&lb);
		metrics_label(&lb, "controller", st->name);
		metrics_sample_u64(out, "drover_controller_hot_writes_total",
				   lb.buf, st->hot);
	}
	strbuf_release(&lb);
}
