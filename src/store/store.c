/* store.c - the store front: rv assignment, label filtering, the watch
 * history window, the fan-out to watchers (in-process at once, durable
 * ones after the commit) and the undoing of a group that failed to
 * commit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
	bool dead;    /* unwatched while events were being delivered */
	bool durable; /* gets events once committed (store_watch_durable) */
	int64_t pos;  /* the last rv considered for it */
};

/* Versions of a rolled-back group: (lo, hi]. */
struct gone {
	int64_t lo, hi;
};

struct hist {
	enum store_event_type type;
	struct store_item item;
	size_t size; /* hist_size(&item) */
};

struct store {
	const struct store_backend_ops *ops;
	void *be;
	int64_t rv;        /* the last rv handed out */
	int64_t written;   /* every rv up to this one is in the backend's
			      committed state: it survives the process and
			      is never rolled back */
	int64_t committed; /* every rv up to this one is durable */
	int64_t shown;     /* in-process watchers have had every event up to
			      this rv (store_deliver) */
	bool deferred;
	bool background; /* written by a flush, made durable by a thread
			    (store_sync_in_background) */
	bool readonly;
	bool resync; /* rolled back: writes wait for store_resync_done */
	unsigned rollbacks;
	struct gone *gone; /* rolled-back versions still inside the history */
	size_t ngone, gone_alloc;
	struct hist *ring;
	struct hist **old_rings; /* grown out of while delivering */
	size_t nold, old_alloc;
	size_t cap, head, len;   /* a ring of the last events */
	size_t limit;            /* how many once committed (cap may be more) */
	size_t bytes, max_bytes; /* their size, and its bound (0: none) */
	struct store_watch *watchers;
	int delivering;
	/* store_stats */
	uint64_t creates, updates, deletes, commits, commit_failures;
	struct histogram commit_seconds;
};

static double
mono_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

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
		return "the store cannot make the change durable";
	case STORE_EROFS:
		return "the store is read-only";
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

static void deliver(struct store *s, bool durable);

/* Everything up to s->rv is in the backend's committed state: durable
 * at once, or once the backend's thread has synced it. */
static void
written(struct store *s)
{
	if (s->written == s->rv)
		return;
	s->written = s->rv;
	if (s->background) {
		s->ops->sync(s->be, s->written);
		return;
	}
	s->committed = s->written;
	deliver(s, true);
}

struct store *
store_new(const struct store_backend_ops *ops, void *be, size_t history)
{
	struct store *s = xcalloc(1, sizeof(*s));

	s->ops = ops;
	s->be = be;
	s->rv = s->written = s->committed = s->shown = ops->current_rv(be);
	s->cap = s->limit = history ? history : 1;
	s->ring = xcalloc(s->cap, sizeof(*s->ring));
	histogram_init(&s->commit_seconds, histogram_fsync_bounds,
		       HISTOGRAM_NBOUNDS(histogram_fsync_bounds));
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
	free(s->gone);
	while (s->nold)
		free(s->old_rings[--s->nold]);
	free(s->old_rings);
	histogram_release(&s->commit_seconds);
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

struct store_cursor {
	struct store *s;
	void *bc; /* the backend's; NULL: items holds the whole list */
	const struct label_selector *sel;
	struct store_items items;
	size_t next;
};

int
store_list_open(struct store *s, const char *resource, const char *ns,
		const struct label_selector *sel, struct store_cursor **out,
		int64_t *rv)
{
	struct store_cursor *c = xcalloc(1, sizeof(*c));
	int r;

	c->s = s;
	c->sel = sel;
	if (s->ops->cursor_open && !s->readonly &&
	    s->ops->cursor_open(s->be, resource, ns, &c->bc, rv) == 0) {
		*out = c;
		return 0;
	}
	c->bc = NULL;
	if ((r = store_list(s, resource, ns, sel, &c->items, rv))) {
		free(c);
		return r;
	}
	*out = c;
	return 0;
}

int
store_list_next(struct store_cursor *c, size_t max, struct store_items *out,
		bool *done)
{
	size_t i, k;
	int r;

	*done = false;
	if (c->bc == NULL) {
		for (; max > 0 && c->next < c->items.n; max--) {
			ALLOC_GROW(out->v, out->n + 1, out->alloc);
			out->v[out->n++] = c->items.v[c->next];
			memset(&c->items.v[c->next++], 0, sizeof(out->v[0]));
		}
		*done = c->next == c->items.n;
		return 0;
	}
	k = i = out->n;
	r = c->s->ops->cursor_next(c->s->be, c->bc, max, out, done);
	for (; i < out->n; i++) {
		if (c->sel && !selector_matches(c->sel, &out->v[i].labels)) {
			store_item_release(&out->v[i]);
			continue;
		}
		out->v[k++] = out->v[i];
	}
	out->n = k;
	return r;
}

void
store_list_close(struct store_cursor *c)
{
	if (c == NULL)
		return;
	if (c->bc)
		c->s->ops->cursor_close(c->s->be, c->bc);
	store_items_release(&c->items);
	free(c);
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

static struct hist *
hist_at(struct store *s, size_t i)
{
	return &s->ring[(s->head + i) % s->cap];
}

/* Events of an uncommitted group stay until it is committed (durable
 * watchers have yet to get them) or rolled back: a full ring grows. */
static void
ring_grow(struct store *s)
{
	struct hist *n = xcalloc(s->cap * 2, sizeof(*n));
	size_t i;

	for (i = 0; i < s->len; i++)
		n[i] = *hist_at(s, i);
	/* An event being delivered points into the old ring: it goes when
	 * the delivery ends. */
	if (s->delivering) {
		ALLOC_GROW(s->old_rings, s->nold + 1, s->old_alloc);
		s->old_rings[s->nold++] = s->ring;
	} else {
		free(s->ring);
	}
	s->ring = n;
	s->head = 0;
	s->cap *= 2;
}

static void
drop_oldest(struct store *s)
{
	struct hist *h = &s->ring[s->head];

	s->bytes -= h->size;
	store_item_release(&h->item);
	s->head = (s->head + 1) % s->cap;
	s->len--;
	/* Rolled-back versions older than the history are gone anyway. */
	while (s->ngone &&
	       (s->len == 0 || s->gone[0].hi < s->ring[s->head].item.rv)) {
		memmove(&s->gone[0], &s->gone[1],
			(s->ngone - 1) * sizeof(*s->gone));
		s->ngone--;
	}
}

static void
sweep_dead(struct store *s)
{
	struct store_watch **pp, *w;

	if (s->delivering)
		return;
	while (s->nold)
		free(s->old_rings[--s->nold]);
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

static void
record(struct store *s, enum store_event_type type, const struct store_item *it)
{
	size_t sz = hist_size(it);
	struct hist *h;

	while (s->len >= s->limit || (s->max_bytes && s->len >= HIST_KEEP &&
				      s->bytes + sz > s->max_bytes)) {
		if (s->ring[s->head].item.rv > s->committed ||
		    s->ring[s->head].item.rv > s->shown)
			break;
		drop_oldest(s);
	}
	if (s->len == s->cap)
		ring_grow(s);
	h = hist_at(s, s->len);
	h->type = type;
	store_item_copy(&h->item, it);
	h->size = sz;
	s->len++;
	s->bytes += sz;
}

/* The watchers of one sort get the history's events they have not had
 * yet: durable ones up to the committed rv, in-process ones up to the rv
 * store_deliver last showed. */
static void
deliver(struct store *s, bool durable)
{
	struct store_watch *w;
	struct store_event ev;
	size_t i, from;
	int64_t upto = durable ? s->committed : s->shown, low = upto;

	for (w = s->watchers; w; w = w->next)
		if (w->durable == durable && !w->dead && w->pos < low)
			low = w->pos;
	if (low == upto)
		return;
	from = s->len;
	while (from > 0 && hist_at(s, from - 1)->item.rv > low)
		from--;
	s->delivering++;
	for (i = from; i < s->len; i++) {
		struct hist *h = hist_at(s, i);

		if (h->item.rv > upto)
			break;
		ev.type = h->type;
		ev.item = &h->item;
		for (w = s->watchers; w; w = w->next)
			if (w->durable == durable && !w->dead &&
			    w->pos < h->item.rv && watch_matches(w, &h->item))
				w->cb(w->arg, &ev);
	}
	for (w = s->watchers; w; w = w->next)
		if (w->durable == durable && w->pos < upto)
			w->pos = upto;
	s->delivering--;
	sweep_dead(s);
}

/* The group since the last commit did not commit: forget it here as the
 * backend did. Its versions are never handed out again, and one more is
 * skipped so that the store's rv (which a list answers) is none of
 * them. */
static void
rollback(struct store *s)
{
	int64_t lo = s->written, hi = s->rv;

	if (s->ops->rollback)
		s->ops->rollback(s->be);
	if (hi == lo)
		return;
	s->commit_failures++;
	while (s->len && hist_at(s, s->len - 1)->item.rv > lo) {
		struct hist *h = hist_at(s, s->len - 1);

		s->bytes -= h->size;
		store_item_release(&h->item);
		s->len--;
	}
	if (s->ngone && s->gone[s->ngone - 1].hi + 1 >= lo) {
		s->gone[s->ngone - 1].hi = hi;
	} else {
		ALLOC_GROW(s->gone, s->ngone + 1, s->gone_alloc);
		s->gone[s->ngone].lo = lo;
		s->gone[s->ngone].hi = hi;
		s->ngone++;
	}
	s->rv = s->written = hi + 1;
	if (s->background)
		s->ops->sync(s->be, s->written); /* reports the skip durable */
	else
		s->committed = s->written;
	s->rollbacks++;
	s->resync = true;
}

int
store_txn(struct store *s, struct store_op *ops, size_t n, size_t *failed)
{
	size_t i, f = 0;
	int r;

	if (failed)
		*failed = 0;
	if (s->readonly)
		return STORE_EROFS;
	if (s->resync)
		return STORE_EIO;
	for (i = 0; i < n; i++)
		memset(&ops[i].prev, 0, sizeof(ops[i].prev));
	r = s->ops->txn(s->be, ops, n, s->rv + 1, &f);
	if (failed)
		*failed = f;
	if (r == STORE_EIO && s->deferred)
		rollback(s); /* the backend may have lost the group with it */
	if (r)
		return r;
	s->rv += (int64_t)n;
	for (i = 0; i < n; i++) {
		struct store_op *op = &ops[i];

		if (op->kind == STORE_OP_CREATE)
			s->creates++;
		else if (op->kind == STORE_OP_UPDATE)
			s->updates++;
		else
			s->deletes++;
	}
	if (!s->deferred)
		s->commits++;
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
	if (!s->deferred) {
		written(s);
		store_deliver(s);
	}
	return 0;
}

void
store_deliver(struct store *s)
{
	if (s->shown == s->written)
		return;
	s->shown = s->written;
	deliver(s, false);
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
	s->deferred = on && s->ops->set_deferred != NULL;
	return r;
}

int
store_flush(struct store *s)
{
	double t0;
	int r;

	if (s->rv == s->written)
		return 0;
	t0 = mono_seconds();
	r = s->ops->flush ? s->ops->flush(s->be) : 0;
	histogram_observe(&s->commit_seconds, mono_seconds() - t0);
	if (r) {
		rollback(s);
		return STORE_EIO;
	}
	s->commits++;
	written(s);
	return 0;
}

void
store_stats(const struct store *s, struct store_stats *out)
{
	out->creates = s->creates;
	out->updates = s->updates;
	out->deletes = s->deletes;
	out->commits = s->commits;
	out->commit_failures = s->commit_failures;
	histogram_copy(&out->commit_seconds, &s->commit_seconds);
	if (out->fsync_seconds.counts == NULL)
		histogram_init(&out->fsync_seconds, histogram_fsync_bounds,
			       HISTOGRAM_NBOUNDS(histogram_fsync_bounds));
	if (s->ops->fsync_seconds)
		s->ops->fsync_seconds(s->be, &out->fsync_seconds);
}

void
store_stats_release(struct store_stats *st)
{
	histogram_release(&st->commit_seconds);
	histogram_release(&st->fsync_seconds);
}

int
store_sync_in_background(struct store *s, void (*notify)(void *arg), void *arg)
{
	int r;

	if (s->ops->background == NULL)
		return 0; /* durable when written, as before */
	if (notify == NULL && !s->background)
		return 0;
	if (notify && s->background)
		return -1;
	r = store_flush(s);
	if (s->ops->background(s->be, notify, arg))
		return -1;
	s->background = notify != NULL;
	if (!s->background) /* the backend synced what was left */
		store_synced(s);
	return r;
}

int
store_synced(struct store *s)
{
	int err = 0;
	int64_t rv = s->ops->synced ? s->ops->synced(s->be, &err) : s->written;

	if (rv > s->committed) {
		s->committed = rv;
		deliver(s, true);
	}
	return err ? STORE_EIO : 0;
}

bool
store_rv_durable(const struct store *s, int64_t rv)
{
	size_t i;

	if (rv > s->committed)
		return false;
	for (i = 0; i < s->ngone; i++)
		if (rv > s->gone[i].lo && rv <= s->gone[i].hi)
			return false;
	return true;
}

bool
store_rv_lost(const struct store *s, int64_t rv)
{
	size_t i;

	for (i = 0; i < s->ngone; i++)
		if (rv > s->gone[i].lo && rv <= s->gone[i].hi)
			return true;
	return false;
}

bool
store_pending(const struct store *s)
{
	return s->rv != s->committed;
}

unsigned
store_rollbacks(const struct store *s)
{
	return s->rollbacks;
}

void
store_resync_done(struct store *s)
{
	s->resync = false;
}

int64_t
store_committed_rv(const struct store *s)
{
	return s->committed;
}

bool
store_readonly(const struct store *s)
{
	return s->readonly;
}

int
store_reopen(struct store *s, char *err, size_t errlen)
{
	if (!s->readonly)
		return 0;
	if (s->ops->reopen == NULL) {
		snprintf(err, errlen, "the %s store cannot be reopened",
			 s->ops->name);
		return -1;
	}
	if (s->ops->reopen(s->be, err, errlen))
		return -1;
	s->readonly = false;
	if (s->ops->set_deferred)
		s->ops->set_deferred(s->be, s->deferred);
	return 0;
}

void
store_mark_readonly(struct store *s)
{
	s->readonly = true;
}

void
store_fail_commits(struct store *s, int n)
{
	if (s->ops->fail_commits)
		s->ops->fail_commits(s->be, n);
}

void
store_fail_syncs(struct store *s, int n)
{
	if (s->ops->fail_syncs)
		s->ops->fail_syncs(s->be, n);
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

static bool
rv_gone(const struct store *s, int64_t from_rv)
{
	size_t i;

	if (from_rv > s->rv)
		return true; /* from the future: the client must list again */
	for (i = 0; i < s->ngone; i++)
		if (from_rv > s->gone[i].lo && from_rv <= s->gone[i].hi)
			return true;
	if (from_rv > 0 && from_rv < s->rv) {
		/* The history must hold every event after from_rv. */
		int64_t oldest = s->len ? s->ring[s->head].item.rv : s->rv + 1;

		if (oldest > from_rv + 1)
			return true;
	}
	return false;
}

static int
watch(struct store *s, const char *resource, const char *ns, int64_t from_rv,
      store_watch_cb cb, void *arg, bool durable, struct store_watch **out)
{
	struct store_watch *w;
	size_t i;

	*out = NULL;
	if (rv_gone(s, from_rv))
		return STORE_EGONE;
	w = xcalloc(1, sizeof(*w));
	w->resource = xstrdup(resource);
	w->ns = xstrdup(ns);
	w->cb = cb;
	w->arg = arg;
	w->durable = durable;
	w->pos = from_rv > 0 ? from_rv : s->rv;
	if (from_rv > 0) {
		struct store_event ev;

		for (i = 0; i < s->len; i++) {
			struct hist *h = hist_at(s, i);

			if (h->item.rv <= from_rv ||
			    !watch_matches(w, &h->item))
				continue;
			if (h->item.rv > (durable ? s->committed : s->shown))
				break;
			ev.type = h->type;
			ev.item = &h->item;
			cb(arg, &ev);
		}
		if (w->pos < (durable ? s->committed : s->shown))
			w->pos = durable ? s->committed : s->shown;
	}
	w->next = s->watchers;
	s->watchers = w;
	*out = w;
	return 0;
}

int
store_watch(struct store *s, const char *resource, const char *ns,
	    int64_t from_rv, store_watch_cb cb, void *arg,
	    struct store_watch **out)
{
	return watch(s, resource, ns, from_rv, cb, arg, false, out);
}

int
store_watch_durable(struct store *s, const char *resource, const char *ns,
		    int64_t from_rv, store_watch_cb cb, void *arg,
		    struct store_watch **out)
{
	return watch(s, resource, ns, from_rv, cb, arg, true, out);
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
