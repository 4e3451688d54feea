/* rs.c - the ReplicaSet controller: a shell over plan_rs().
 *
 * ReplicaSet events enqueue their own key; pod events enqueue the
 * controlling ReplicaSet (orphans: every ReplicaSet of the namespace, which
 * may adopt them). New pods are created with generateName, as Kubernetes
 * does; the victims plan_rs ranks first are deleted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "informer.h"
#include "kube.h"
#include "log.h"
#include "plan_rs.h"
#include "queue.h"
#include "xalloc.h"

struct ctl_rs {
	struct ctl_config cfg;
	struct queue *q;
};

static void
on_rs(void *arg, json_t *ev)
{
	ctl_enqueue_object(((struct ctl_rs *)arg)->q, ev);
}

static void
on_pod(void *arg, json_t *ev)
{
	struct ctl_rs *c = arg;

	ctl_enqueue_owner(c->cfg.rss, c->q, ev, "ReplicaSet");
}

static bool
names_owner(const struct object_meta *m, const char *uid)
{
	size_t i;

	for (i = 0; i < m->owner_references.n; i++)
		if (uid && m->owner_references.v[i].uid &&
		    !strcmp(m->owner_references.v[i].uid, uid))
			return true;
	return false;
}

static int
sync_locked(struct ctl_rs *c, const char *key, int64_t *requeue)
{
	struct object rso, **cache, **orphans;
	struct plan_rs_in in = {0};
	struct plan_rs_out out;
	const struct pod **pp;
	struct replicaset *rs;
	char ns[256], name[256];
	size_t i, nmine, norph;
	int64_t k;
	int st, fail = 0;
	bool more = false; /* stopped by the budget */
	uint64_t started;

	if (ctl_split_key(key, ns, sizeof(ns), name, sizeof(name)))
		return 0;
	/* From the cache, which is never behind the store in-process; a
	 * stale copy would only make the status write fail with 409. */
	if (informer_get(c->cfg.rss, ns, name, &rso))
		return 0; /* deleted */
	rs = rso.obj;
	/* Its own pods and the orphans it may adopt: nothing else of the
	 * namespace can matter to plan_rs. */
	nmine = informer_dependents(c->cfg.pods, rs->metadata.uid, ns, &cache);
	norph = informer_dependents(c->cfg.pods, NULL, ns, &orphans);
	pp = xcalloc(nmine + norph + 1, sizeof(*pp));
	for (i = 0; i < nmine; i++)
		pp[in.npods++] = cache[i]->obj;
	for (i = 0; i < norph; i++)
		if (!names_owner(object_meta(orphans[i]), rs->metadata.uid))
			pp[in.npods++] = orphans[i]->obj; /* not twice */
	free(cache);
	free(orphans);
	in.rs = rs;
	in.pods = pp;
	in.now = c->cfg.now();
	plan_rs(&in, &out);
	/* The budget counts the writes, not the planning: a sync always
	 * makes progress however many pods the ReplicaSet has. */
	started = uv_hrtime();
	for (i = 0; i < out.nadopt; i++) {
		/* a copy: the cache is not ours to change */
		struct object po = {kind_by_id(KIND_POD), NULL};
		struct pod *p = xcalloc(1, sizeof(*p));
		struct owner_ref *ref;

		pod_copy(p, out.adopt[i]);
		po.obj = p;
		ref = anylist_push(
		    (struct anylist *)&p->metadata.owner_references,
		    sizeof(*ref));
		rs_controller_ref(rs, ref);
		if ((st = kube_update(c->cfg.client, &po, NULL)) != 200)
			fail = st;
		object_release(&po);
	}
	/* Creations and deletions stop at the first failure (Kubernetes'
	 * slow start stops at the first failed batch), at burstReplicas
	 * (plan_rs), and when the sync has run for CTL_SYNC_BUDGET_MS: the
	 * rest follows on the next loop iteration. */
	for (k = 0; k < out.create && !fail && !more; k++) {
		struct object po = {kind_by_id(KIND_POD), NULL};

		if (k && ctl_overtime(started)) {
			more = true;
			break;
		}

		po.obj = xcalloc(1, sizeof(struct pod));
		rs_new_pod(rs, po.obj);
		if ((st = kube_create(c->cfg.client, &po)) != 201)
			fail = st;
		object_release(&po);
	}
	for (i = 0; i < out.nvictims && !fail && !more; i++) {
		if (i && ctl_overtime(started)) {
			more = true;
			break;
		}
		st = kube_delete(c->cfg.client, KIND_POD, ns,
				 out.victims[i]->metadata.name);
		if (st != 200 && st != 404)
			fail = st;
	}
	if (!fail && out.status_changed) {
		schema_release(schema_replicaset.fields[4].sub, &rs->status);
		rs->status = out.status;
		memset(&out.status, 0, sizeof(out.status));
		if ((st = kube_update(c->cfg.client, &rso, "status")) != 200)
			fail = st;
	}
	if (fail)
		log_warn("replicaset %s: HTTP %d", key, fail);
	else if (out.create || out.nvictims)
		log_debug("replicaset %s: created %lld, deleted %zu pods", key,
			  (long long)out.create, out.nvictims);
	if (!fail && out.requeue_after_ms >= 0)
		*requeue = out.requeue_after_ms;
	/* More to create or delete than one burst or the budget allows:
	 * come back at once (after the loop has polled). */
	if (!fail && (more || out.create == RS_BURST_REPLICAS ||
		      out.nvictims == RS_BURST_REPLICAS))
		*requeue = 0;
	plan_rs_out_release(&out);
	free(pp);
	object_release(&rso);
	return fail ? -1 : 0;
}

static int
sync_one(void *arg, const char *key, int64_t *requeue)
{
	struct ctl_rs *c = arg;
	int r;

	ctl_hold(&c->cfg);
	r = sync_locked(c, key, requeue);
	ctl_release(&c->cfg);
	return r;
}

struct ctl_rs *
ctl_rs_start(const struct ctl_config *cfg)
{
	struct ctl_rs *c = xcalloc(1, sizeof(*c));

	c->cfg = *cfg;
	c->q = queue_new(cfg->loop, "replicaset", sync_one, c);
	informer_subscribe(cfg->rss, on_rs, c);
	informer_subscribe(cfg->pods, on_pod, c);
	return c;
}

void
ctl_rs_stop(struct ctl_rs *c)
{
	if (c == NULL)
		return;
	informer_unsubscribe(c->cfg.rss, c);
	informer_unsubscribe(c->cfg.pods, c);
	queue_free(c->q);
	free(c);
}

void
ctl_rs_resync(struct ctl_rs *c)
{
	ctl_enqueue_all(c->cfg.rss, c->q);
}
