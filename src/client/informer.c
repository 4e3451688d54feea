/* informer.c - decode-once object caches fed by watches, indexed by
 * namespace/name and by uid (shardhash.h: these grow with the cluster)
 * and by owner (uthash).
 *
 * The life of a cache, as client-go's reflector: list, then watch from
 * the list's resourceVersion; when the watch ends (the stream broke, the
 * server closed it, or its version was compacted: an ERROR event with
 * 410), list again after RELIST_MS and tell the subscribers what the new
 * list changed (ADDED, MODIFIED, or DELETED for what is gone), then
 * watch from the new list. Example: a watch ends at rv 40 while pod b is
 * deleted (rv 41) and pod c created (rv 42); the relist at rv 42 drops b
 * with a DELETED to the subscribers, adds c with an ADDED, and watches
 * from 42. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>
#include <utlist.h>
#include <uv.h>

#include "informer.h"
#include "kube.h"
#include "object.h"
#include "queue.h"
#include "shardhash.h"
#include "xalloc.h"

struct sub {
	client_watch_cb cb;
	void *arg;
};

struct entry;

/* One owner uid and the entries that name it ("" gathers the entries
 * with no controller: the orphans), in an array: handing out 100,000
 * dependents reads 800 KB in a row instead of following 100,000 list
 * nodes scattered over the heap (13-19 ms of each ReplicaSet plan at
 * that size). An entry knows its place in each of its owners' arrays
 * (entry.owner_at), so it leaves one by a swap with the last.
 *
 * Dependents share their owner's namespace (Kubernetes takes a reference
 * across namespaces as absent), so the first dependent's namespace is
 * kept, and a request for that namespace gets every dependent without
 * reading one. mixed (never cleared) says that some dependent was filed
 * from another namespace: then each is checked, as the orphans of
 * several namespaces are. Example: pods a and b of "default" name RS
 * uid U: deps [a, b], ns "default"; dependents(U, "default") is [a, b]
 * with no pod read, dependents(U, "other") is [] at once. */
struct owner {
	char *uid;
	char *ns;   /* the first dependent's namespace ("": cluster-scoped) */
	bool mixed; /* a dependent in another namespace was filed here */
	struct entry **deps;
	size_t ndeps, deps_alloc;
	UT_hash_handle hh; /* in informer.owners, by uid */
};

struct entry {
	char *key; /* "ns/name" */
	char *uid;
	struct object o;
	/* The owner uids this entry is filed under, as they were when it
	 * was filed (the object may have changed since). */
	char **owners;
	size_t *owner_at; /* its index in each owner's deps */
	size_t nowners;
	void *derived;         /* informer.derive(o), made on first use; NULL */
	uint64_t listed;       /* the informer.lists that last saw it */
	UT_hash_handle hh;     /* in informer.by_key */
	UT_hash_handle hh_uid; /* in informer.by_uid */
	struct entry *prev, *next; /* in informer.first, in order of arrival */
};

/* After a watch ends, the next list waits this long (and as long again
 * after a list that fails). */
#define RELIST_MS 1000

struct informer {
	struct client *client;
	uv_loop_t *loop;
	enum kind_id kind;
	char *field_selector;   /* NULL: everything */
	struct client_watch *w; /* NULL if a list failed */
	bool ended;             /* w ended: waiting to list again */
	uv_timer_t *relist;     /* made when a watch first ends */
	uint64_t lists;         /* lists made so far */
	struct entry *by_key[SHARD_COUNT], *by_uid[SHARD_COUNT];
	/* Every entry in order of arrival, as uthash would iterate one
	 * table: what informer_list hands out. */
	struct entry *first; /* utlist's DL: first->prev is the last */
	size_t count;
	struct owner *owners;
	struct sub *subs;
	size_t nsubs, subs_alloc;
	informer_derive_fn derive;
};

#define ORPHANS ""

static struct entry *
find(struct informer *inf, const char *ns, const char *name)
{
	struct entry *e;
	char key[600];

	queue_key(key, sizeof(key), ns, name);
	SHARD_FIND(hh, inf->by_key, key, strlen(key), e);
	return e;
}

static void
file_under(struct informer *inf, struct entry *e, const char *uid)
{
	struct owner *o;
	const char *ns = object_meta(&e->o)->namespace;

	HASH_FIND_STR(inf->owners, uid, o);
	if (o == NULL) {
		o = xcalloc(1, sizeof(*o));
		o->uid = xstrdup(uid);
		o->ns = xstrdup(ns ? ns : "");
		HASH_ADD_KEYPTR(hh, inf->owners, o->uid, strlen(o->uid), o);
	} else if (strcmp(o->ns, ns ? ns : "")) {
		o->mixed = true;
	}
	ALLOC_GROW(o->deps, o->ndeps + 1, o->deps_alloc);
	o->deps[o->ndeps] = e;
	e->owners = xrealloc(e->owners, (e->nowners + 1) * sizeof(char *));
	e->owner_at =
	    xrealloc(e->owner_at, (e->nowners + 1) * sizeof(*e->owner_at));
	e->owners[e->nowners] = xstrdup(uid);
	e->owner_at[e->nowners++] = o->ndeps++;
}

/* Takes e out of o's array: the last dependent moves into its place. */
static void
unfile(struct owner *o, struct entry *e, size_t at)
{
	struct entry *last;
	size_t j;

	if (at >= o->ndeps || o->deps[at] != e)
		return;
	last = o->deps[--o->ndeps];
	if (last == e)
		return;
	o->deps[at] = last;
	for (j = 0; j < last->nowners; j++)
		if (!strcmp(last->owners[j], o->uid))
			last->owner_at[j] = at;
}

static void
index_owners(struct informer *inf, struct entry *e)
{
	const struct object_meta *m = object_meta(&e->o);
	size_t i, j;

	for (i = 0; i < m->owner_references.n; i++) {
		const char *uid = m->owner_references.v[i].uid;
		bool dup = false;

		for (j = 0; uid && j < e->nowners; j++)
			dup = dup || !strcmp(e->owners[j], uid);
		if (uid && *uid && !dup)
			file_under(inf, e, uid);
	}
	if (meta_controller_ref(m) == NULL)
		file_under(inf, e, ORPHANS);
}

static void
unindex_owners(struct informer *inf, struct entry *e)
{
	struct owner *o;
	size_t i;

	for (i = 0; i < e->nowners; i++) {
		HASH_FIND_STR(inf->owners, e->owners[i], o);
		if (o)
			unfile(o, e, e->owner_at[i]);
		if (o && o->ndeps == 0) {
			HASH_DEL(inf->owners, o);
			free(o->uid);
			free(o->ns);
			free(o->deps);
			free(o);
		}
		free(e->owners[i]);
	}
	free(e->owners);
	free(e->owner_at);
	e->owners = NULL;
	e->owner_at = NULL;
	e->nowners = 0;
}

static void
entry_drop(struct informer *inf, struct entry *e)
{
	unindex_owners(inf, e);
	SHARD_DELETE(hh, inf->by_key, e);
	if (e->uid)
		SHARD_DELETE(hh_uid, inf->by_uid, e);
	DL_DELETE(inf->first, e);
	inf->count--;
	object_release(&e->o);
	free(e->derived);
	free(e->key);
	free(e->uid);
	free(e);
}

/* Takes o. */
static void
entry_put(struct informer *inf, struct entry *e, const char *ns,
	  const char *name, struct object *o)
{
	const char *uid = object_meta(o)->uid;

	if (e == NULL) {
		char key[600];

		queue_key(key, sizeof(key), ns, name);
		e = xcalloc(1, sizeof(*e));
		e->key = xstrdup(key);
		SHARD_ADD_KEYPTR(hh, inf->by_key, e->key, strlen(e->key), e);
		DL_APPEND(inf->first, e);
		inf->count++;
	} else {
		unindex_owners(inf, e);
		if (e->uid)
			SHARD_DELETE(hh_uid, inf->by_uid, e);
		free(e->uid);
		e->uid = NULL;
		free(e->derived);
		e->derived = NULL;
		object_release(&e->o);
	}
	e->o = *o;
	if (uid && *uid) {
		e->uid = xstrdup(uid);
		SHARD_ADD_KEYPTR(hh_uid, inf->by_uid, e->uid, strlen(e->uid),
				 e);
	}
	index_owners(inf, e);
}

static void
tell(struct informer *inf, json_t *ev)
{
	size_t i;

	for (i = 0; i < inf->nsubs; i++)
		inf->subs[i].cb(inf->subs[i].arg, ev);
}

static void
apply(struct informer *inf, json_t *ev)
{
	const char *type = json_string_value(json_object_get(ev, "type"));
	json_t *obj = json_object_get(ev, "object");
	json_t *md = json_object_get(obj, "metadata");
	const char *ns = json_string_value(json_object_get(md, "namespace"));
	const char *name = json_string_value(json_object_get(md, "name"));
	struct fielderr_list errs = {0};
	struct object o;
	struct entry *e;

	if (ev == NULL || type == NULL || name == NULL)
		return;
	e = find(inf, ns, name);
	if (!strcmp(type, "DELETED")) {
		if (e)
			entry_drop(inf, e);
	} else if (strcmp(type, "BOOKMARK") &&
		   object_decode(obj, false, &o, &errs) == 0) {
		entry_put(inf, e, ns ? ns : "", name, &o);
	}
	fielderr_list_release(&errs);
	tell(inf, ev);
}

static void start_relist(struct informer *inf);

static void
on_event(void *arg, json_t *ev)
{
	struct informer *inf = arg;
	const char *type = json_string_value(json_object_get(ev, "type"));

	if (inf->ended)
		return;
	if (ev == NULL || (type && !strcmp(type, "ERROR"))) {
		start_relist(inf); /* ended, or 410 Gone: list again */
		return;
	}
	apply(inf, ev);
}

int
informer_get(struct informer *inf, const char *ns, const char *name,
	     struct object *out)
{
	struct entry *e = find(inf, ns, name);
	const struct object *o;

	if (e == NULL)
		return -1;
	o = &e->o;
	out->k = o->k;
	out->obj = xcalloc(1, o->k->schema->size);
	schema_copy(o->k->schema, out->obj, o->obj);
	return 0;
}

/* The list's items replace the cache; what changed is told to the
 * subscribers (none yet at the first list). 0, or -1 if the list failed
 * (the cache is kept as it was). *rv gets the list's resourceVersion. */
static int
list(struct informer *inf, char *rv, size_t rvlen)
{
	const struct kind_info *ki = kind_by_id(inf->kind);
	struct client_resp r;
	struct entry *e, *tmp;
	char path[256], query[600];
	json_t *items, *item;
	size_t i;

	kube_path(path, sizeof(path), inf->kind, NULL, NULL, NULL);
	snprintf(query, sizeof(query), "%s%s",
		 inf->field_selector ? "fieldSelector=" : "",
		 inf->field_selector ? inf->field_selector : "");
	client_request(inf->client, "GET", path, *query ? query : NULL, NULL,
		       NULL, &r);
	items = json_object_get(r.body, "items");
	if (r.status != 200 || !json_is_array(items)) {
		client_resp_release(&r);
		return -1;
	}
	snprintf(rv, rvlen, "%s",
		 json_string_value(json_object_get(
		     json_object_get(r.body, "metadata"), "resourceVersion"))
		     ?: "");
	inf->lists++;
	json_array_foreach(items, i, item)
	{
		json_t *md = json_object_get(item, "metadata");
		const char *ns = json_string_value(
			       json_object_get(md, "namespace")),
			   *name =
			       json_string_value(json_object_get(md, "name")),
			   *irv = json_string_value(
			       json_object_get(md, "resourceVersion"));
		const char *had = NULL;
		json_t *ev;

		if (name == NULL)
			continue;
		e = find(inf, ns, name);
		if (e)
			had = object_meta(&e->o)->resource_version;
		if (e && had && irv && !strcmp(had, irv)) {
			e->listed = inf->lists; /* unchanged */
			continue;
		}
		/* Kubernetes' list items carry no kind (drover's do); the
		 * answer may be shared in-process: only what is missing. */
		if (!json_object_get(item, "kind")) {
			json_object_set_new(item, "apiVersion",
					    json_string(ki->api_version));
			json_object_set_new(item, "kind",
					    json_string(ki->kind));
		}
		ev = json_pack("{sssO}", "type", e ? "MODIFIED" : "ADDED",
			       "object", item);
		apply(inf, ev);
		json_decref(ev);
		if ((e = find(inf, ns, name)) != NULL)
			e->listed = inf->lists;
	}
	client_resp_release(&r);
	for (e = inf->first; e; e = tmp) {
		json_t *ev;

		tmp = e->next;
		if (e->listed == inf->lists)
			continue;
		ev = json_pack("{ssso}", "type", "DELETED", "object",
			       object_encode(&e->o));
		apply(inf, ev); /* drops e */
		json_decref(ev);
	}
	return 0;
}

/* Watches from rv: 0, or -1. */
static int
watch(struct informer *inf, const char *rv)
{
	struct client_resp r;
	char path[256], query[700];

	kube_path(path, sizeof(path), inf->kind, NULL, NULL, NULL);
	snprintf(query, sizeof(query),
		 "watch=true&allowWatchBookmarks=true%s%s%s%s",
		 *rv ? "&resourceVersion=" : "", rv,
		 inf->field_selector ? "&fieldSelector=" : "",
		 inf->field_selector ? inf->field_selector : "");
	inf->w = inf->client->ops->watch(inf->client, path, query, on_event,
					 inf, &r);
	client_resp_release(&r);
	return inf->w ? 0 : -1;
}

static int
list_and_watch(struct informer *inf)
{
	char rv[32];

	return list(inf, rv, sizeof(rv)) || watch(inf, rv) ? -1 : 0;
}

static void
on_relist(uv_timer_t *t)
{
	struct informer *inf = t->data;

	if (inf->w)
		inf->client->ops->unwatch(inf->client, inf->w);
	inf->w = NULL;
	inf->ended = false;
	if (list_and_watch(inf))
		start_relist(inf);
}

/* Called from the watch's own callback, or after a failed list: the
 * watch is closed and the list made from the loop, never inside the
 * callback. */
static void
start_relist(struct informer *inf)
{
	inf->ended = true;
	if (inf->relist == NULL) {
		inf->relist = xcalloc(1, sizeof(*inf->relist));
		uv_timer_init(inf->loop, inf->relist);
		inf->relist->data = inf;
	}
	if (!uv_is_active((uv_handle_t *)inf->relist))
		uv_timer_start(inf->relist, on_relist, RELIST_MS, 0);
}

struct informer *
informer_new(struct client *c, uv_loop_t *loop, enum kind_id k)
{
	return informer_new_selected(c, loop, k, NULL);
}

struct informer *
informer_new_selected(struct client *c, uv_loop_t *loop, enum kind_id k,
		      const char *field_selector)
{
	struct informer *inf = xcalloc(1, sizeof(*inf));

	inf->client = c;
	inf->loop = loop;
	inf->kind = k;
	inf->field_selector = field_selector ? xstrdup(field_selector) : NULL;
	if (list_and_watch(inf)) {
		informer_free(inf);
		return NULL;
	}
	return inf;
}

static void
free_handle(uv_handle_t *h)
{
	free(h);
}

void
informer_free(struct informer *inf)
{
	struct entry *e, *tmp;

	if (inf == NULL)
		return;
	if (inf->w)
		inf->client->ops->unwatch(inf->client, inf->w);
	if (inf->relist) {
		uv_timer_stop(inf->relist);
		uv_close((uv_handle_t *)inf->relist, free_handle);
	}
	for (e = inf->first; e; e = tmp) {
		tmp = e->next;
		entry_drop(inf, e);
	}
	free(inf->subs);
	free(inf->field_selector);
	free(inf);
}

void
informer_subscribe(struct informer *inf, client_watch_cb cb, void *arg)
{
	ALLOC_GROW(inf->subs, inf->nsubs + 1, inf->subs_alloc);
	inf->subs[inf->nsubs].cb = cb;
	inf->subs[inf->nsubs].arg = arg;
	inf->nsubs++;
}

void
informer_unsubscribe(struct informer *inf, void *arg)
{
	size_t i = 0;

	while (inf && i < inf->nsubs) {
		if (inf->subs[i].arg == arg)
			inf->subs[i] = inf->subs[--inf->nsubs];
		else
			i++;
	}
}

static bool
in_ns(const struct object *o, const char *ns)
{
	const char *ons = object_meta(o)->namespace;

	return ns == NULL || !strcmp(ons ? ons : "", ns);
}

size_t
informer_list(struct informer *inf, const char *ns, struct object ***out)
{
	struct entry *e;
	size_t n = 0;

	*out = xcalloc(inf->count + 1, sizeof(**out));
	for (e = inf->first; e; e = e->next)
		if (in_ns(&e->o, ns))
			(*out)[n++] = &e->o;
	return n;
}

size_t
informer_count(struct informer *inf)
{
	return inf->count;
}

const struct object *
informer_find(struct informer *inf, const char *ns, const char *name)
{
	struct entry *e = find(inf, ns, name);

	return e ? &e->o : NULL;
}

const struct object *
informer_by_uid(struct informer *inf, const char *uid)
{
	struct entry *e;

	if (uid == NULL)
		return NULL;
	SHARD_FIND(hh_uid, inf->by_uid, uid, strlen(uid), e);
	return e ? &e->o : NULL;
}

size_t
informer_dependents(struct informer *inf, const char *owner_uid, const char *ns,
		    struct object ***out)
{
	struct owner *o;
	size_t n = 0, i;

	HASH_FIND_STR(inf->owners, owner_uid ? owner_uid : ORPHANS, o);
	*out = xcalloc((o ? o->ndeps : 0) + 1, sizeof(**out));
	if (o == NULL)
		return 0;
	if (ns && !o->mixed && strcmp(o->ns, ns))
		return 0;
	for (i = 0; i < o->ndeps; i++)
		if (!o->mixed || in_ns(&o->deps[i]->o, ns))
			(*out)[n++] = &o->deps[i]->o;
	return n;
}

bool
informer_has_dependents(struct informer *inf, const char *owner_uid,
			const char *ns)
{
	struct owner *o;

	HASH_FIND_STR(inf->owners, owner_uid ? owner_uid : ORPHANS, o);
	return o && o->ndeps && (ns == NULL || o->mixed || !strcmp(o->ns, ns));
}

void
informer_set_derive(struct informer *inf, informer_derive_fn derive)
{
	inf->derive = derive;
}

const void *
informer_derived(struct informer *inf, const struct object *o)
{
	/* o is &entry.o of one of this informer's entries */
	struct entry *e =
	    (struct entry *)((char *)o - offsetof(struct entry, o));

	if (inf->derive == NULL)
		return NULL;
	if (e->derived == NULL)
		e->derived = inf->derive(o);
	return e->derived;
}
