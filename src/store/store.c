/* store.c - the store front: rv assignment, sticky errors, label
 * filtering, the watch history window and the fan-out to watchers. */
#include <stdlib.h>
#include <string.h>

#include "labels.h"
#include "store.h"
#include "strbuf.h"
#include "xalloc.h"

struct store_watch {
	struct store_watch *next;
	char *resource; /* NULL: all */
	char *ns;       /* NULL: all */
	store_watch_cb cb;
	void *arg;
	bool dead; /* unwatched while events were being delivered */
};

struct hist {
	enum store_event_type type;
	struct store_item item;
	size_t size; /* hist_size(&item) */
};

struct store {
	const struct store_backend_ops *ops;
	void *be;
	int64_t rv;
	int sticky;
	struct hist *ring;
	size_t cap, head, len;   /* ring of the last `cap` events */
	size_t bytes, max_bytes; /* their size, and its bound (0: none) */
	struct store_watch *watchers;
	int delivering;
};

const char *
store_strerror(int err)
{
	switch (err) {
	case STORE_OK:
		return "ok";
	case STORE_ENOENT:
		return "not found";
	case STORE_EEXIST:
		return "already exists";
	case STORE_ECONFLICT:
		return "the object has been modified";
	case STORE_EGONE:
		return "too old resource version";
	case STORE_EIO:
		return "storage error";
	}
	return "unknown error";
}

void
store_item_release(struct store_item *it)
{
	free(it->resource);
	free(it->ns);
	free(it->name);
	free(it->value);
	strmap_release(&it->labels);
	memset(it, 0, sizeof(*it));
}

void
store_items_release(struct store_items *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		store_item_release(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void
store_item_copy(struct store_item *dst, const struct store_item *src)
{
	dst->resource = xstrdup(src->resource);
	dst->ns = xstrdup(src->ns);
	dst->name = xstrdup(src->name);
	dst->rv = src->rv;
	dst->value = xstrdup(src->value);
	strmap_copy(&dst->labels, &src->labels);
}

char *
store_labels_encode(const struct strmap *labels)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	/* Label keys and values cannot hold '=' in keys or newlines. */
	for (i = 0; i < labels->n; i++)
		strbuf_addf(&sb, "%s=%s\n", labels->v[i].key,
			    labels->v[i].value);
	return strbuf_detach(&sb);
}

void
store_labels_decode(const char *text, struct strmap *out)
{
	const char *p = text;

	while (p && *p) {
		const char *eq = strchr(p, '='), *nl = strchr(p, '\n');
		char *k, *v;

		if (eq == NULL || nl == NULL || eq > nl)
			break;
		k = xstrndup(p, (size_t)(eq - p));
		v = xstrndup(eq + 1, (size_t)(nl - eq - 1));
		strmap_set(out, k, v);
		free(k);
		free(v);
		p = nl + 1;
	}
}

struct store *
store_new(const struct store_backend_ops *ops, void *be, size_t history)
{
	struct store *s = xcalloc(1, sizeof(*s));

	s->ops = ops;
	s->be = be;
	s->rv = ops->current_rv(be);
	s->cap = history ? history : 1;
	s->ring = xcalloc(s->cap, sizeof(*s->ring));
	return s;
}

void
store_free(struct store *s)
{
	struct store_watch *w, *n;
	size_t i;

	if (s == NULL)
		return;
	for (w = s->watchers; w; w = n) {
		n = w->next;
		free(w->resource);
		free(w->ns);
		free(w);
	}
	for (i = 0; i < s->cap; i++)
		store_item_release(&s->ring[i].item);
	free(s->ring);
	s->ops->close(s->be);
	free(s);
}

const char *
store_backend_name(const struct store *s)
{
	return s->ops->name;
}

int64_t
store_rv(const struct store *s)
{
	return s->rv;
}

int
store_get(struct store *s, const struct store_key *k, struct store_item *out)
{
	memset(out, 0, sizeof(*out));
	return s->ops->get(s->be, k, out);
}

static int
cmp_item(const void *a, const void *b)
{
	const struct store_item *x = a, *y = b;
	int c = strcmp(x->ns, y->ns);

	return c ? c : strcmp(x->name, y->name);
}

int
store_list(struct store *s, const char *resource, const char *ns,
	   const struct label_selector *sel, struct store_items *out,
	   int64_t *rv)
{
	size_t i, k = 0;
	int r;

	memset(out, 0, sizeof(*out));
	*rv = s->rv;
	r = s->ops->list(s->be, resource, ns, out);
	if (r)
		return r;
	for (i = 0; i < out->n; i++) {
		if (sel && !selector_matches(sel, &out->v[i].labels)) {
			store_item_release(&out->v[i]);
			continue;
		}
		out->v[k++] = out->v[i];
	}
	out->n = k;
	xqsort(out->v, out->n, sizeof(*out->v), cmp_item);
	return 0;
}

static bool
watch_matches(const struct store_watch *w, const struct store_item *it)
{
	return (w->resource == NULL || !strcmp(w->resource, it->resource)) &&
	       (w->ns == NULL || !strcmp(w->ns, it->ns));
}

/* What an event costs the history, roughly: its texts. */
static size_t
hist_size(const struct store_item *it)
{
	size_t n = strlen(it->value) + strlen(it->resource) + strlen(it->ns) +
		   strlen(it->name) + sizeof(struct hist);
	size_t i;

	for (i = 0; i < it->labels.n; i++)
		n +=
		    strlen(it->labels.v[i].key) + strlen(it->labels.v[i].value);
	return n;
}

/* The byte bound never drops the newest HIST_KEEP events (at least the
 * ones being delivered while watchers write). */
#define HIST_KEEP 64

static void
record(struct store *s, enum store_event_type type, const struct store_item *it)
{
	size_t sz = hist_size(it);
	struct store_watch **pp, *w;
	struct store_event ev;
	struct hist *h;

	while (s->len == s->cap || (s->max_bytes && s->len >= HIST_KEEP &&
				    s->bytes + sz > s->max_bytes)) {
		h = &s->ring[s->head];
		s->bytes -= h->size;
		store_item_release(&h->item);
		s->head = (s->head + 1) % s->cap;
		s->len--;
	}
	h = &s->ring[(s->head + s->len) % s->cap];
	h->type = type;
	store_item_copy(&h->item, it);
	h->size = sz;
	s->len++;
	s->bytes += sz;
	ev.type = type;
	ev.item = &h->item;
	s->delivering++;
	for (w = s->watchers; w; w = w->next)
		if (!w->dead && watch_matches(w, it))
			w->cb(w->arg, &ev);
	s->delivering--;
	if (s->delivering == 0) {
		for (pp = &s->watchers; *pp;) {
			w = *pp;
			if (w->dead) {
				*pp = w->next;
				free(w->resource);
				free(w->ns);
				free(w);
			} else {
				pp = &w->next;
			}
		}
	}
}

int
store_txn(struct store *s, struct store_op *ops, size_t n, size_t *failed)
{
	size_t i, f = 0;
	int r;

	if (s->sticky)
		return s->sticky;
	for (i = 0; i < n; i++)
		memset(&ops[i].prev, 0, sizeof(ops[i].prev));
	r = s->ops->txn(s->be, ops, n, s->rv + 1, &f);
	if (failed)
		*failed = f;
	if (r == STORE_EIO)
		s->sticky = r;
	if (r)
		return r;
	s->rv += (int64_t)n;
	for (i = 0; i < n; i++) {
		struct store_op *op = &ops[i];
		struct store_item it = {
		    .resource = (char *)op->key.resource,
		    .ns = (char *)op->key.ns,
		    .name = (char *)op->key.name,
		    .rv = op->rv,
		    .value =
			(char *)(op->kind == STORE_OP_DELETE ? op->prev.value
							     : op->value),
		};

		if (op->kind == STORE_OP_DELETE)
			it.labels = op->prev.labels;
		else if (op->labels)
			it.labels = *op->labels;
		record(s,
		       op->kind == STORE_OP_CREATE   ? STORE_ADDED
		       : op->kind == STORE_OP_UPDATE ? STORE_MODIFIED
						     : STORE_DELETED,
		       &it);
	}
	return 0;
}

void
store_limit_history(struct store *s, size_t max_bytes)
{
	s->max_bytes = max_bytes;
}

int
store_set_deferred(struct store *s, bool on)
{
	int r = on ? 0 : store_flush(s);

	if (s->ops->set_deferred)
		s->ops->set_deferred(s->be, on);
	return r;
}

int
store_flush(struct store *s)
{
	int r;

	if (s->sticky || s->ops->flush == NULL)
		return s->sticky;
	r = s->ops->flush(s->be);
	if (r)
		s->sticky = STORE_EIO;
	return r ? STORE_EIO : 0;
}

static int
one(struct store *s, struct store_op *op, int64_t *rv)
{
	int r = store_txn(s, op, 1, NULL);

	if (r == 0 && rv)
		*rv = op->rv;
	store_item_release(&op->prev);
	return r;
}

int
store_create(struct store *s, const struct store_key *k, const char *value,
	     const struct strmap *labels, int64_t *rv)
{
	struct store_op op = {.kind = STORE_OP_CREATE,
			      .key = *k,
			      .value = value,
			      .labels = labels};

	return one(s, &op, rv);
}

int
store_update(struct store *s, const struct store_key *k, const char *value,
	     const struct strmap *labels, int64_t expect_rv, int64_t *rv)
{
	struct store_op op = {.kind = STORE_OP_UPDATE,
			      .key = *k,
			      .value = value,
			      .labels = labels,
			      .expect_rv = expect_rv};

	return one(s, &op, rv);
}

int
store_delete(struct store *s, const struct store_key *k, int64_t expect_rv,
	     int64_t *rv)
{
	struct store_op op = {
	    .kind = STORE_OP_DELETE, .key = *k, .expect_rv = expect_rv};

	return one(s, &op, rv);
}

int
store_watch(struct store *s, const char *resource, const char *ns,
	    int64_t from_rv, store_watch_cb cb, void *arg,
	    struct store_watch **out)
{
	struct store_watch *w;
	size_t i;

	*out = NULL;
	if (from_rv > 0 && from_rv < s->rv) {
		/* The history must hold every event after from_rv. */
		int64_t oldest = s->len ? s->ring[s->head].item.rv : s->rv + 1;

		if (oldest > from_rv + 1)
			return STORE_EGONE;
	}
	w = xcalloc(1, sizeof(*w));
	w->resource = xstrdup(resource);
	w->ns = xstrdup(ns);
	w->cb = cb;
	w->arg = arg;
	if (from_rv > 0) {
		struct store_event ev;

		for (i = 0; i < s->len; i++) {
			struct hist *h = &s->ring[(s->head + i) % s->cap];

			if (h->item.rv <= from_rv ||
			    !watch_matches(w, &h->item))
				continue;
			ev.type = h->type;
			ev.item = &h->item;
			cb(arg, &ev);
		}
	}
	w->next = s->watchers;
	s->watchers = w;
	*out = w;
	return 0;
}

void
store_unwatch(struct store *s, struct store_watch *w)
{
	struct store_watch **pp;

	if (w == NULL)
		return;
	if (s->delivering) {
		w->dead = true;
		return;
	}
	for (pp = &s->watchers; *pp; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			free(w->resource);
			free(w->ns);
			free(w);
			return;
		}
}
