/* gc.c - the garbage collector: follows ownerReferences.
 *
 * Keys are namespaces. For every object of the namespace:
 *  - owners all gone (Background deletion of the owner): delete it;
 *  - owner being deleted with the "foregroundDeletion" finalizer: delete
 *    its dependents, and drop the finalizer once none is left;
 *  - owner being deleted with the "orphan" finalizer: remove the owner's
 *    ownerReference from every dependent, then drop the finalizer.
 * Dropping the last finalizer of an object being deleted removes it (the
 * API does that on the update). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "informer.h"
#include "kube.h"
#include "log.h"
#include "queue.h"
#include "xalloc.h"

struct ctl_gc {
	struct ctl_config cfg;
	struct queue *q;
};

static const enum kind_id kinds[] = {KIND_DEPLOYMENT, KIND_REPLICASET,
				     KIND_POD};

static void
on_event(void *arg, json_t *ev)
{
	struct ctl_gc *c = arg;
	json_t *md = json_object_get(json_object_get(ev, "object"), "metadata");
	const char *ns = json_string_value(json_object_get(md, "namespace"));
	const char *type = json_string_value(json_object_get(ev, "type"));

	if (ev == NULL || ns == NULL || type == NULL)
		return;
	/* Owners disappear only through deletions, and finalizers matter
	 * only on objects being deleted; a new object may name an owner
	 * that is already gone. Updates of live objects change nothing
	 * here (and pods are updated all the time). */
	if (!strcmp(type, "DELETED") ||
	    json_object_get(md, "deletionTimestamp") ||
	    (!strcmp(type, "ADDED") &&
	     json_array_size(json_object_get(md, "ownerReferences"))))
		queue_add(c->q, ns);
}

static bool
uid_in(struct object_list *all, const char *uid)
{
	size_t i;

	for (i = 0; i < all->n; i++) {
		const char *u = object_meta(&all->v[i])->uid;

		if (u && uid && !strcmp(u, uid))
			return true;
	}
	return false;
}

static bool
known_kind(const char *kind)
{
	return kind && (!strcmp(kind, "Deployment") ||
			!strcmp(kind, "ReplicaSet") || !strcmp(kind, "Pod"));
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

static bool
owned_by(const struct object_meta *m, const char *uid)
{
	size_t i;

	for (i = 0; i < m->owner_references.n; i++)
		if (m->owner_references.v[i].uid &&
		    !strcmp(m->owner_references.v[i].uid, uid))
			return true;
	return false;
}

static int
sync_ns(void *arg, const char *ns, int64_t *requeue)
{
	struct ctl_gc *c = arg;
	struct object_list all = {0};
	size_t i, j, k;
	int fail = 0;

	(void)requeue;
	/* Copies of the cached objects: the collector edits some of them
	 * before writing them back. */
	ctl_hold(&c->cfg);
	for (k = 0; k < 3; k++) {
		struct informer *inf =
		    kinds[k] == KIND_DEPLOYMENT   ? c->cfg.deploys
		    : kinds[k] == KIND_REPLICASET ? c->cfg.rss
						  : c->cfg.pods;
		struct object **l;
		size_t n = informer_list(inf, ns, &l);

		for (i = 0; i < n; i++) {
			struct object o = {l[i]->k,
					   xmalloc(l[i]->k->schema->size)};

			schema_copy(o.k->schema, o.obj, l[i]->obj);
			object_list_push(&all, o);
		}
		free(l);
	}
	ctl_release(&c->cfg);
	for (i = 0; i < all.n && !fail; i++) {
		struct object_meta *m = object_meta(&all.v[i]);
		bool orphan, fg;
		size_t left = 0;

		if (!m->deletion_timestamp || !m->uid)
			continue;
		orphan = has_finalizer(m, "orphan");
		fg = has_finalizer(m, "foregroundDeletion");
		if (!orphan && !fg)
			continue;
		for (j = 0; j < all.n; j++) {
			struct object_meta *dm = object_meta(&all.v[j]);

			if (j == i || !owned_by(dm, m->uid))
				continue;
			if (orphan) {
				meta_remove_owner_refs(dm, all.v[i].k->kind,
						       m->uid, NULL);
				if (kube_update(c->cfg.client, &all.v[j],
						NULL) != 200)
					fail = 1;
			} else {
				left++;
				if (!dm->deletion_timestamp) {
					int st = kube_delete(c->cfg.client,
							     all.v[j].k->id, ns,
							     dm->name);

					if (st != 200 && st != 404)
						fail = 1;
				}
			}
		}
		if (fail || (fg && left))
			continue;
		drop_finalizer(m, orphan ? "orphan" : "foregroundDeletion");
		if (kube_update(c->cfg.client, &all.v[i], NULL) != 200)
			fail = 1;
	}
	for (i = 0; i < all.n && !fail; i++) {
		struct object_meta *m = object_meta(&all.v[i]);
		size_t gone = 0, n = m->owner_references.n;

		if (n == 0 || m->deletion_timestamp)
			continue;
		for (j = 0; j < n; j++) {
			const struct owner_ref *r = &m->owner_references.v[j];

			if (known_kind(r->kind) && !uid_in(&all, r->uid))
				gone++;
		}
		if (gone == n) {
			int st = kube_delete(c->cfg.client, all.v[i].k->id, ns,
					     m->name);

			log_info("garbage collector: deleted %s %s/%s (owner "
				 "gone): HTTP %d",
				 all.v[i].k->kind, ns, m->name, st);
			if (st != 200 && st != 404)
				fail = 1;
		}
	}
	object_list_release(&all);
	return fail ? -1 : 0;
}

struct ctl_gc *
ctl_gc_start(const struct ctl_config *cfg)
{
	struct ctl_gc *c = xcalloc(1, sizeof(*c));

	c->cfg = *cfg;
	c->q = queue_new(cfg->loop, "garbage-collector", sync_ns, c);
	informer_subscribe(cfg->deploys, on_event, c);
	informer_subscribe(cfg->rss, on_event, c);
	informer_subscribe(cfg->pods, on_event, c);
	return c;
}

void
ctl_gc_stop(struct ctl_gc *c)
{
	if (c == NULL)
		return;
	informer_unsubscribe(c->cfg.deploys, c);
	informer_unsubscribe(c->cfg.rss, c);
	informer_unsubscribe(c->cfg.pods, c);
	queue_free(c->q);
	free(c);
}

/* Every namespace that holds an object: an owner's deletion may have
 * been missed (a crash between it and the collector's writes). */
void
ctl_gc_resync(struct ctl_gc *c)
{
	struct informer *infs[] = {c->cfg.deploys, c->cfg.rss, c->cfg.pods};
	struct object **l;
	size_t i, k, n;

	for (k = 0; k < 3; k++) {
		n = informer_list(infs[k], NULL, &l);
		for (i = 0; i < n; i++)
			queue_add(c->q, object_meta(l[i])->namespace
					    ? object_meta(l[i])->namespace
					    : "");
		free(l);
	}
}
