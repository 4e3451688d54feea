/* gc.c - the garbage collector: follows ownerReferences.
 *
 * Keys are objects ("Kind/ns/name"), found through the caches' uid and
 * owner indexes, so that a change costs what it touches:
 *  - an object whose owners are all gone (Background deletion of the
 *    owner) is deleted;
 *  - an owner being deleted with the "foregroundDeletion" finalizer has its
 *    dependents deleted, and the finalizer dropped once none is left;
 *  - an owner being deleted with the "orphan" finalizer has its
 *    ownerReference removed from every dependent, then the finalizer
 *    dropped.
 * Dropping the last finalizer of an object being deleted removes it (the
 * API does that on the update).
 *
 * What enqueues what: a new object naming owners that are all gone
 * already; an object being deleted (its finalizers); a deletion (the
 * dependents of the deleted object, which may now be orphans, and its
 * owners, which may be waiting for their last dependent). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "informer.h"
#include "kube.h"
#include "log.h"
#include "queue.h"
#include "xalloc.h"

#define GC_KINDS 7

struct ctl_gc {
	struct ctl_config cfg;
	struct queue *q;
	/* the caches of the kinds it knows: Deployments, ReplicaSets,
	 * Pods, Services, EndpointSlices, Endpoints, ReplicationControllers
	 * (NULL: not given) */
	struct informer *all[GC_KINDS];
};

static struct informer *
cache_of(const struct ctl_gc *c, const char *kind)
{
	if (kind == NULL)
		return NULL;
	if (!strcmp(kind, "Deployment"))
		return c->cfg.deploys;
	if (!strcmp(kind, "ReplicaSet"))
		return c->cfg.rss;
	if (!strcmp(kind, "ReplicationController"))
		return c->cfg.rcs;
	if (!strcmp(kind, "Pod"))
		return c->cfg.pods;
	if (!strcmp(kind, "Service"))
		return c->cfg.services;
	if (!strcmp(kind, "EndpointSlice"))
		return c->cfg.slices;
	if (!strcmp(kind, "Endpoints"))
		return c->cfg.endpoints;
	return NULL;
}

static void
add_key(struct ctl_gc *c, const char *kind, const char *ns, const char *name)
{
	char key[700];

	snprintf(key, sizeof(key), "%s/%s/%s", kind, ns ? ns : "",
		 name ? name : "");
	queue_add(c->q, key);
}

/* The key of "the dependents of uid": a kind no object has. */
#define DEPENDENTS "~dependents"

/* The deleted object uid had dependents in the caches: they may be
 * orphans now. One key stands for all of them (sync_dependents), so a
 * deletion costs the same whether it leaves 1 dependent or 100,000; a key
 * each took one loop turn 130 ms at 100,000 pods. */
static void
add_dependents(struct ctl_gc *c, const char *uid, const char *ns)
{
	size_t k;

	for (k = 0; k < GC_KINDS && uid; k++)
		if (c->all[k] && informer_has_dependents(c->all[k], uid, ns)) {
			add_key(c, DEPENDENTS, ns, uid);
			return;
		}
}

/* A new object's ownerReferences (JSON) name owners that are all gone
 * from the caches, as collect() will judge it: only then can its sync do
 * anything. An owner that is there now and goes later queues its
 * dependents when it goes (add_dependents). A scale to 100,000 pods
 * otherwise queued 100,000 keys that did nothing, and the queue's hash
 * table, doubling at 131,072 of them, held one loop turn for 50 ms. */
static bool
owners_gone(const struct ctl_gc *c, json_t *refs)
{
	size_t i, gone = 0;
	json_t *r;

	json_array_foreach(refs, i, r)
	{
		struct informer *inf =
		    cache_of(c, json_string_value(json_object_get(r, "kind")));

		if (inf &&
		    !informer_by_uid(
			inf, json_string_value(json_object_get(r, "uid"))))
			gone++;
	}
	return gone > 0 && gone == json_array_size(refs);
}

static void
on_event(void *arg, json_t *ev)
{
	struct ctl_gc *c = arg;
	json_t *obj = json_object_get(ev, "object");
	json_t *md = json_object_get(obj, "metadata");
	const char *kind = json_string_value(json_object_get(obj, "kind"));
	const char *ns = json_string_value(json_object_get(md, "namespace"));
	const char *name = json_string_value(json_object_get(md, "name"));
	const char *type = json_string_value(json_object_get(ev, "type"));
	json_t *refs = json_object_get(md, "ownerReferences"), *r;
	size_t i;

	if (ev == NULL || ns == NULL || name == NULL || type == NULL ||
	    kind == NULL)
		return;
	/* Updates of live objects change nothing here (and pods are
	 * updated all the time). */
	if (!strcmp(type, "DELETED")) {
		add_dependents(c, json_string_value(json_object_get(md, "uid")),
			       ns);
		json_array_foreach(refs, i, r)
		{
			const char *okind =
			    json_string_value(json_object_get(r, "kind"));
			const char *oname =
			    json_string_value(json_object_get(r, "name"));

			if (cache_of(c, okind) && oname)
				add_key(c, okind, ns, oname);
		}
	} else if (json_object_get(md, "deletionTimestamp") ||
		   (!strcmp(type, "ADDED") && owners_gone(c, refs))) {
		add_key(c, kind, ns, name);
	}
}

static bool
has_finalizer(const struct object_meta *m, const char *f)
{
	size_t i;

	for (i = 0; i < m->finalizers.n; i++)
		if (!strcmp(m->finalizers.v[i], f))
			return true;
	return false;
}

static void
drop_finalizer(struct object_meta *m, const char *f)
{
	size_t i;

	for (i = 0; i < m->finalizers.n; i++)
		if (!strcmp(m->finalizers.v[i], f)) {
			free(m->finalizers.v[i]);
			memmove(&m->finalizers.v[i], &m->finalizers.v[i + 1],
				(m->finalizers.n - i - 1) * sizeof(char *));
			m->finalizers.n--;
			return;
		}
}

static struct object
copy_of(const struct object *o)
{
	struct object out = {o->k, xmalloc(o->k->schema->size)};

	schema_copy(o->k->schema, out.obj, o->obj);
	return out;
}

/* An owner being deleted with the orphan or foregroundDeletion
 * finalizer: its dependents first, then the finalizer. Past the sync
 * budget (ctl_overtime) it stops after a write and asks to run again
 * (*requeue 0): the rest waits for the loop to poll. */
static int
finalize(struct ctl_gc *c, const struct object *owner, bool orphan,
	 int64_t *requeue)
{
	const struct object_meta *om = object_meta(owner);
	uint64_t started = uv_hrtime();
	struct object o;
	struct object **l;
	size_t i, k, n, left = 0, writes = 0;
	int fail = 0;

	for (k = 0; k < GC_KINDS && !fail; k++) {
		struct informer *inf = c->all[k];

		if (inf == NULL)
			continue;
		n = informer_dependents(inf, om->uid, om->namespace, &l);
		for (i = 0; i < n && !fail; i++) {
			const struct object_meta *dm = object_meta(l[i]);

			if (writes && ctl_overtime(started)) {
				*requeue = 0;
				free(l);
				return 0;
			}
			if (orphan) {
				struct object d = copy_of(l[i]);

				meta_remove_owner_refs(object_meta(&d),
						       owner->k->kind, om->uid,
						       NULL);
				if (kube_update(c->cfg.client, &d, NULL) != 200)
					fail = 1;
				object_release(&d);
				writes++;
			} else {
				left++;
				if (!dm->deletion_timestamp) {
					int st = kube_delete(
					    c->cfg.client, l[i]->k->id,
					    om->namespace, dm->name);

					if (st != 200 && st != 404)
						fail = 1;
					writes++;
				}
			}
		}
		free(l);
	}
	if (fail || (!orphan && left))
		return fail ? -1 : 0; /* the last dependent's deletion
					 brings the owner back here */
	o = copy_of(owner);
	drop_finalizer(object_meta(&o),
		       orphan ? "orphan" : "foregroundDeletion");
	if (kube_update(c->cfg.client, &o, NULL) != 200)
		fail = 1;
	object_release(&o);
	return fail ? -1 : 0;
}

/* A live object whose owners of the kinds drover knows are all gone is
 * deleted: 1 if it was, 0 if it stays, -1 if the deletion failed. */
static int
collect(struct ctl_gc *c, const struct object *o)
{
	const struct object_meta *m = object_meta(o);
	size_t j, gone = 0, n = m->owner_references.n;
	int st;

	for (j = 0; j < n; j++) {
		const struct owner_ref *r = &m->owner_references.v[j];
		struct informer *inf = cache_of(c, r->kind);

		if (inf && !informer_by_uid(inf, r->uid))
			gone++;
	}
	if (n == 0 || gone < n)
		return 0;
	st = kube_delete(c->cfg.client, o->k->id, m->namespace, m->name);
	log_info("garbage collector: deleted %s %s/%s (owner gone): HTTP %d",
		 o->k->kind, m->namespace, m->name, st);
	return st == 200 || st == 404 ? 1 : -1;
}

/* The dependents of the deleted object uid: each one whose owners are
 * all gone now is deleted (collect), the ones being deleted already are
 * passed over. Past the sync budget it stops after a deletion and asks
 * to run again (*requeue 0), so that 100,000 dependents go over many
 * loop turns; each run starts over from the cache, where the ones
 * deleted so far are gone or being deleted. */
static int
sync_dependents(struct ctl_gc *c, const char *ns, const char *uid,
		int64_t *requeue)
{
	uint64_t started = uv_hrtime();
	struct object **l;
	size_t i, k, n, writes = 0;
	int r = 0;

	for (k = 0; k < GC_KINDS; k++) {
		if (c->all[k] == NULL)
			continue;
		n = informer_dependents(c->all[k], uid, ns, &l);
		for (i = 0; i < n; i++) {
			int st;

			if (object_meta(l[i])->deletion_timestamp)
				continue;
			if (writes && ctl_overtime(started)) {
				*requeue = 0;
				free(l);
				return r;
			}
			st = collect(c, l[i]);
			if (st < 0)
				r = -1;
			if (st != 0) /* a write, failed or not */
				writes++;
		}
		free(l);
	}
	return r;
}

static int
sync_one(void *arg, const char *key, int64_t *requeue)
{
	struct ctl_gc *c = arg;
	char kind[64], ns[256], name[256];
	const char *slash = strchr(key, '/');
	const struct object *cached;
	struct object o = {0};
	const struct object_meta *m;
	int r = 0;

	if (slash == NULL || (size_t)(slash - key) >= sizeof(kind) ||
	    queue_split_key(slash + 1, ns, sizeof(ns), name, sizeof(name)))
		return 0;
	snprintf(kind, sizeof(kind), "%.*s", (int)(slash - key), key);
	if (!strcmp(kind, DEPENDENTS))
		return sync_dependents(c, ns, name, requeue);
	/* A copy: the object is written below. */
	cached = informer_find(cache_of(c, kind), ns, name);
	if (cached == NULL)
		return 0; /* gone */
	o = copy_of(cached);
	m = object_meta(&o);
	if (m->deletion_timestamp && m->uid &&
	    (has_finalizer(m, "orphan") ||
	     has_finalizer(m, "foregroundDeletion")))
		r = finalize(c, &o, has_finalizer(m, "orphan"), requeue);
	else if (!m->deletion_timestamp)
		r = collect(c, &o) < 0 ? -1 : 0;
	object_release(&o);
	return r;
}

struct ctl_gc *
ctl_gc_start(const struct ctl_config *cfg)
{
	struct ctl_gc *c = xcalloc(1, sizeof(*c));
	size_t k;

	c->cfg = *cfg;
	c->q = queue_new(cfg->loop, "garbage-collector", sync_one, c);
	queue_set_settle(c->q, cfg->settle, cfg->settle_arg);
	c->all[0] = cfg->deploys;
	c->all[1] = cfg->rss;
	c->all[2] = cfg->pods;
	c->all[3] = cfg->services;
	c->all[4] = cfg->slices;
	c->all[5] = cfg->endpoints;
	c->all[6] = cfg->rcs;
	for (k = 0; k < GC_KINDS; k++)
		if (c->all[k])
			informer_subscribe(c->all[k], on_event, c);
	return c;
}

void
ctl_gc_stop(struct ctl_gc *c)
{
	size_t k;

	if (c == NULL)
		return;
	for (k = 0; k < GC_KINDS; k++)
		if (c->all[k])
			informer_unsubscribe(c->all[k], c);
	queue_free(c->q);
	free(c);
}

/* Every object that names an owner or is being deleted: a deletion may
 * have been missed (a crash between it and the collector's writes). */
void
ctl_gc_resync(struct ctl_gc *c)
{
	struct object **l;
	size_t i, k, n;

	for (k = 0; k < GC_KINDS; k++) {
		struct informer *inf = c->all[k];

		if (inf == NULL)
			continue;
		n = informer_list(inf, NULL, &l);
		for (i = 0; i < n; i++) {
			const struct object_meta *m = object_meta(l[i]);

			if (m->owner_references.n || m->deletion_timestamp)
				add_key(c, l[i]->k->kind, m->namespace,
					m->name);
		}
		free(l);
	}
}
