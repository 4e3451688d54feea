/* deploy.c - the Deployment controller: a shell over plan_deploy().
 *
 * Keys are "namespace/name". Deployment events enqueue their own key;
 * ReplicaSet events enqueue the controlling Deployment (orphans: every
 * Deployment of the namespace, which may adopt them); a pod's deletion
 * enqueues the Deployment that controls its ReplicaSet if that one is
 * Recreate (it waits for old pods to be gone), as Kubernetes' deletePod;
 * any change of a pod of an InPlaceUpdate Deployment enqueues it (its
 * planner follows each pod's update: ready again, on the new spec).
 *
 * ACT_UPDATE_IN_PLACE becomes POST pods/NAME/inplaceupdate: the pod's new
 * containers, its new owner and both ReplicaSets' sizes in one store
 * transaction (h_inplace.c, inplace_apply.h); the agent of the pod's
 * node then restarts its containers in place (runtime_update.c).
 *
 * A sync reads what the Deployment may own, through the informers' owner
 * indexes: the ReplicaSets that name it as owner, the namespace's orphan
 * ReplicaSets (it may adopt them) and, for Recreate, their pods. Nothing
 * it reads grows with the number of other Deployments, so a change to 200
 * Deployments costs 200 small syncs, not 200 scans of 400 ReplicaSets.
 *
 * A RollingUpdate sync that scaled a ReplicaSet plans the next step at
 * once, from the objects as the API wrote them, instead of waiting for
 * the informer's event of its own write to queue the Deployment again
 * (steps_after_scale). Kubernetes' controller does one scaling step per
 * sync and is woken by that event; the writes are the same, one hop
 * sooner. Example, 50 replicas, 25%/25%, a new template: the first step
 * creates the new ReplicaSet at 13 and scales the old one to 38; the
 * second, in the same sync now, scales the new one to 25; then the
 * ReplicaSet controller creates all 25 pods in one batch, not 13 and,
 * a hop later, 12 more. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "deploy_util.h"
#include "inplace_apply.h"
#include "informer.h"
#include "kube.h"
#include "log.h"
#include "plan_deploy.h"
#include "queue.h"
#include "xalloc.h"

struct ctl_deploy {
	struct ctl_config cfg;
	struct queue *q;
};

static void
on_deploy(void *arg, json_t *ev)
{
	ctl_enqueue_object(((struct ctl_deploy *)arg)->q, ev);
}

static void
on_rs(void *arg, json_t *ev)
{
	struct ctl_deploy *c = arg;

	ctl_enqueue_owner(c->cfg.deploys, c->q, ev, "Deployment");
}

/* The object's controller reference (ownerReferences with controller
 * true) if it is of kind `kind`; NULL otherwise. */
static const struct owner_ref *
controller_of_kind(const struct object_meta *m, const char *kind)
{
	const struct owner_ref *r = meta_controller_ref(m);

	return r && r->kind && r->uid && !strcmp(r->kind, kind) ? r : NULL;
}

static void
on_pod(void *arg, json_t *ev)
{
	struct ctl_deploy *c = arg;
	const char *type = json_string_value(json_object_get(ev, "type"));
	json_t *refs = json_object_get(
	    json_object_get(json_object_get(ev, "object"), "metadata"),
	    "ownerReferences");
	const struct owner_ref *dref;
	const struct object *rs, *d;
	json_t *r;
	size_t i;

	if (ev == NULL || type == NULL)
		return;
	json_array_foreach(refs, i, r)
	{
		const char *kind =
		    json_string_value(json_object_get(r, "kind"));
		const char *uid = json_string_value(json_object_get(r, "uid"));

		if (!json_is_true(json_object_get(r, "controller")))
			continue;
		if (kind == NULL || strcmp(kind, "ReplicaSet"))
			return;
		rs = informer_by_uid(c->cfg.rss, uid);
		dref = rs ? controller_of_kind(object_meta(rs), "Deployment")
			  : NULL;
		d = dref ? informer_by_uid(c->cfg.deploys, dref->uid) : NULL;
		/* Recreate waits for deletions; InPlaceUpdate follows each
		 * pod's update (its readiness, its run of the new spec). */
		if (d &&
		    (deploy_is_inplace(d->obj) || (!deploy_is_rolling(d->obj) &&
						   !strcmp(type, "DELETED")))) {
			char key[600];

			queue_key(key, sizeof(key), object_meta(d)->namespace,
				  object_meta(d)->name);
			queue_add(c->q, key);
		}
		return;
	}
}

/* Finds the object of a result action, as a typed object to write. */
static struct object
result_object(const struct plan_deploy_out *out, const struct action *a)
{
	struct object o = {0};

	if (!strcmp(a->kind, "Deployment")) {
		o.k = kind_by_id(KIND_DEPLOYMENT);
		o.obj = (void *)&out->d;
	} else {
		o.k = kind_by_id(KIND_REPLICASET);
		o.obj = (void *)plan_deploy_object(out, "ReplicaSet", a->name);
	}
	return o;
}

/* ACT_UPDATE_IN_PLACE: POST pods/NAME/inplaceupdate (h_inplace.c), the
 * pod's update and its move from its RS to a->target in one
 * transaction. The pod's RS and uid come from the cache: if either is
 * stale the server answers 409 and the next sync plans again. A pod
 * gone meanwhile (404) is not an error. */
static int
update_in_place(struct ctl_deploy *c, const struct plan_deploy_out *out,
		const struct action *a)
{
	const char *ns = out->d.metadata.namespace;
	const struct object *po = informer_find(c->cfg.pods, ns, a->name);
	const struct replicaset *to =
	    plan_deploy_object(out, "ReplicaSet", a->target);
	const struct owner_ref *from;
	struct client_resp resp;
	char path[600];
	json_t *b;
	int st;

	if (po == NULL)
		return 200; /* gone: the next sync plans without it */
	from = controller_of_kind(object_meta(po), "ReplicaSet");
	if (from == NULL || to == NULL)
		return 409;
	b = json_pack("{sssssss{ssss}s{ss}}", "apiVersion", INPLACE_API_VERSION,
		      "kind", INPLACE_KIND, "podUID",
		      object_meta(po)->uid ? object_meta(po)->uid : "", "from",
		      "name", from->name ? from->name : "", "uid", from->uid,
		      "to", "name", a->target);
	if (to->metadata.uid && *to->metadata.uid)
		json_object_set_new(json_object_get(b, "to"), "uid",
				    json_string(to->metadata.uid));
	kube_path(path, sizeof(path), KIND_POD, ns, a->name,
		  INPLACE_SUBRESOURCE);
	client_request(c->cfg.client, "POST", path, NULL, NULL, b, &resp);
	json_decref(b);
	st = resp.status == 404 ? 200 : resp.status;
	if (st != 200) {
		char msg[300];

		log_warn("deployment %s/%s: in-place update of pod %s: %s", ns,
			 out->d.metadata.name, a->name,
			 client_resp_message(&resp, msg, sizeof(msg)));
	}
	client_resp_release(&resp);
	return st;
}

static int
apply(struct ctl_deploy *c, struct plan_deploy_out *out)
{
	size_t i;
	int st;

	for (i = 0; i < out->actions.n; i++) {
		const struct action *a = &out->actions.v[i];
		struct object o = result_object(out, a);

		if (a->op == ACT_UPDATE_IN_PLACE) {
			if (update_in_place(c, out, a) != 200)
				return -1;
			continue;
		}
		switch (a->op) {
		case ACT_CREATE:
			st = kube_create(c->cfg.client, &o);
			break;
		case ACT_SCALE:
		case ACT_UPDATE:
			st = kube_update(c->cfg.client, &o, NULL);
			break;
		case ACT_STATUS:
			st = kube_update(c->cfg.client, &o, "status");
			break;
		case ACT_DELETE:
			st = kube_delete(c->cfg.client, KIND_REPLICASET,
					 out->d.metadata.namespace, a->name);
			if (st == 404)
				st = 200;
			break;
		default:
			st = 500;
		}
		if (o.obj == NULL || (st != 200 && st != 201)) {
			log_warn("deployment %s/%s: %s %s %s: HTTP %d",
				 out->d.metadata.namespace,
				 out->d.metadata.name, action_op_name(a->op),
				 a->kind, a->name, st);
			return -1;
		}
	}
	for (i = 0; i < out->events.n; i++)
		log_info("deployment %s/%s: %s: %s", out->d.metadata.namespace,
			 out->d.metadata.name, out->events.v[i].reason,
			 out->events.v[i].message);
	ctl_record_events(
	    c->cfg.events, "deployment-controller",
	    &(struct object){kind_by_id(KIND_DEPLOYMENT), &out->d},
	    &out->events);
	return 0;
}

/* Typed pointers to the ReplicaSets of namespace ns that Deployment d
 * may own: those with an ownerReference to it and the orphans, which it
 * may adopt (claim_replicasets decides). The array is allocated. */
static size_t
candidate_rss(struct informer *inf, const struct deployment *d, const char *ns,
	      const void ***out)
{
	struct object **mine, **orphans;
	size_t i, n = 0;
	size_t nmine = informer_dependents(inf, d->metadata.uid, ns, &mine);
	size_t norph = informer_dependents(inf, NULL, ns, &orphans);

	*out = xcalloc(nmine + norph + 1, sizeof(**out));
	for (i = 0; i < nmine; i++)
		(*out)[n++] = mine[i]->obj;
	for (i = 0; i < norph; i++)
		if (!meta_has_owner(object_meta(orphans[i]), d->metadata.uid))
			(*out)[n++] = orphans[i]->obj; /* not twice */
	free(mine);
	free(orphans);
	return n;
}

/* Typed pointers to the pods of namespace ns owned by the given
 * ReplicaSets (allocated). */
static size_t
pods_of(struct informer *inf, const struct replicaset *const *rs, size_t nrs,
	const char *ns, const void ***out)
{
	struct object **l;
	size_t i, j, k, n = 0, cap = 0;

	*out = NULL;
	for (i = 0; i < nrs; i++) {
		k = informer_dependents(inf, rs[i]->metadata.uid, ns, &l);
		if (n + k + 1 > cap) {
			cap = 2 * (n + k + 1);
			*out = xrealloc(*out, cap * sizeof(**out));
		}
		for (j = 0; j < k; j++)
			(*out)[n++] = l[j]->obj;
		free(l);
	}
	if (*out == NULL)
		*out = xcalloc(1, sizeof(**out));
	return n;
}

/* How many more steps a sync plans after one that scaled a ReplicaSet.
 * A rolling step scales either the new ReplicaSet up or the old ones
 * down; after a scale down the next step may scale the new one up, and
 * after that nothing is left until pods turn available. */
#define DEPLOY_STEPS_AFTER_SCALE 2

static bool
scaled(const struct plan_deploy_out *out)
{
	size_t i;

	for (i = 0; i < out->actions.n; i++)
		if (out->actions.v[i].op == ACT_SCALE)
			return true;
	return false;
}

/* After a rolling step that scaled (out applied without an error), the
 * next steps, planned from out's objects (their resourceVersions and
 * generations as the API answered them, kube.h), while they scale too.
 * out becomes the last step's result. */
static int
steps_after_scale(struct ctl_deploy *c, struct plan_deploy_out *out, dtime now)
{
	int n, r = 0;

	for (n = 0; n < DEPLOY_STEPS_AFTER_SCALE && scaled(out); n++) {
		struct plan_deploy_in in = {
		    .d = &out->d,
		    .rs = (const struct replicaset *const *)out->rs,
		    .nrs = out->nrs,
		    .now = now};
		struct plan_deploy_out next;

		plan_deploy(&in, &next);
		plan_deploy_out_release(out);
		*out = next;
		r = apply(c, out);
		if (r || out->error)
			break;
	}
	return r;
}

static int
sync_one(void *arg, const char *key, int64_t *requeue)
{
	struct ctl_deploy *c = arg;
	struct object d;
	struct plan_deploy_in in = {0};
	struct plan_deploy_out out;
	const void **rsp = NULL, **pp = NULL;
	char ns[256], name[256];
	int r;

	if (queue_split_key(key, ns, sizeof(ns), name, sizeof(name)))
		return 0;
	if (informer_get(c->cfg.deploys, ns, name, &d))
		return 0; /* deleted */
	in.d = d.obj;
	in.nrs = candidate_rss(c->cfg.rss, in.d, ns, &rsp);
	in.rs = (const struct replicaset *const *)rsp;
	/* Pods matter only to Recreate (it waits for old pods to be gone)
	 * and InPlaceUpdate (it picks them); a RollingUpdate sync takes
	 * ReplicaSet status as given. */
	if (!deploy_is_rolling(d.obj)) {
		in.npods = pods_of(c->cfg.pods, in.rs, in.nrs, ns, &pp);
		in.pods = (const struct pod *const *)pp;
	}
	in.now = c->cfg.now();
	plan_deploy(&in, &out);
	r = apply(c, &out);
	if (r == 0 && out.error == NULL && deploy_is_rolling(d.obj))
		r = steps_after_scale(c, &out, in.now);
	if (out.error) {
		log_warn("deployment %s: %s", key, out.error);
		r = -1;
	}
	if (r == 0 && out.requeue_after_ms >= 0)
		*requeue = out.requeue_after_ms;
	plan_deploy_out_release(&out);
	free(rsp);
	free(pp);
	object_release(&d);
	return r;
}

struct ctl_deploy *
ctl_deploy_start(const struct ctl_config *cfg)
{
	struct ctl_deploy *c = xcalloc(1, sizeof(*c));

	c->cfg = *cfg;
	c->q = queue_new(cfg->loop, "deployment", sync_one, c);
	queue_set_settle(c->q, cfg->settle, cfg->settle_arg);
	informer_subscribe(cfg->deploys, on_deploy, c);
	informer_subscribe(cfg->rss, on_rs, c);
	informer_subscribe(cfg->pods, on_pod, c);
	return c;
}

void
ctl_deploy_stop(struct ctl_deploy *c)
{
	if (c == NULL)
		return;
	informer_unsubscribe(c->cfg.deploys, c);
	informer_unsubscribe(c->cfg.rss, c);
	informer_unsubscribe(c->cfg.pods, c);
	queue_free(c->q);
	free(c);
}

void
ctl_deploy_resync(struct ctl_deploy *c)
{
	ctl_enqueue_all(c->cfg.deploys, c->q);
}
