/* endpoints.c - the endpoints controller: a shell over plan_endpoints(),
 * doing the work of Kubernetes' EndpointSlice controller and Endpoints
 * controller for drover's Services.
 *
 * Keys are "namespace/name" of Services. What enqueues what:
 *  - a Service event: its own key (a deletion too: its Endpoints object
 *    goes; its slices are the garbage collector's, through their
 *    ownerReference);
 *  - a pod event: every Service of the pod's namespace whose selector
 *    matches the pod's labels, and every Service whose slices name the
 *    pod (its labels may have stopped matching), as Kubernetes'
 *    getPodServiceMemberships;
 *  - a slice event: the Service its kubernetes.io/service-name label
 *    names (someone else changed or deleted it);
 *  - an Endpoints event: the Service of the same name;
 *  - a node event: every Service (a node's address is in every
 *    endpoint on it).
 *
 * The informers' caches lag the controller's own writes by a loop turn
 * or so. A sync that planned against a cache without the slices it has
 * just written would create them twice; so, like Kubernetes'
 * endpointSliceTracker, the controller remembers the slices it wrote
 * (name and resourceVersion, or deleted) and while the cache has not
 * caught up with them, a sync waits (requeue after 10 ms) instead of
 * planning. A remembered write older than 5 s is forgotten (someone
 * deleted the slice since). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "informer.h"
#include "kube.h"
#include "labels.h"
#include "log.h"
#include "plan_endpoints.h"
#include "queue.h"
#include "xalloc.h"

#define STALE_WAIT_MS   10
#define STALE_FORGET_MS 5000

/* A slice write not yet seen in the cache. */
struct written {
	char *key;  /* the Service's "ns/name" */
	char *name; /* the slice */
	int64_t rv; /* its resourceVersion after the write */
	bool deleted;
	dtime at;
};

struct ctl_endpoints {
	struct ctl_config cfg;
	struct queue *q;
	struct written *w;
	size_t nw, walloc;
	struct recorder *rec; /* "endpoint-controller"; NULL: none */
};

static void
enqueue(struct ctl_endpoints *c, const char *ns, const char *name)
{
	char key[600];

	queue_key(key, sizeof(key), ns, name);
	queue_add(c->q, key);
}

static void
on_service(void *arg, json_t *ev)
{
	ctl_enqueue_object(((struct ctl_endpoints *)arg)->q, ev);
}

static void
on_endpoints(void *arg, json_t *ev)
{
	ctl_enqueue_object(((struct ctl_endpoints *)arg)->q, ev);
}

static void
on_slice(void *arg, json_t *ev)
{
	json_t *md = json_object_get(json_object_get(ev, "object"), "metadata");
	const char *ns = json_string_value(json_object_get(md, "namespace"));
	const char *svc = json_string_value(
	    json_object_get(json_object_get(md, "labels"), LABEL_SERVICE_NAME));

	if (ns && svc)
		enqueue(arg, ns, svc);
}

static void
on_node(void *arg, json_t *ev)
{
	struct ctl_endpoints *c = arg;
	const char *type = json_string_value(json_object_get(ev, "type"));

	/* heartbeats change nothing an endpoint says; a node's addresses
	 * come with its registration (ADDED) or go with it */
	if (type && strcmp(type, "MODIFIED"))
		ctl_enqueue_all(c->cfg.services, c->q);
}

/* Whether slice s has an endpoint for pod `name`. */
static bool
slice_names_pod(const struct endpoint_slice *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->endpoints.n; i++)
		if (s->endpoints.v[i].target_ref &&
		    s->endpoints.v[i].target_ref->name &&
		    !strcmp(s->endpoints.v[i].target_ref->name, name))
			return true;
	return false;
}

static void
on_pod(void *arg, json_t *ev)
{
	struct ctl_endpoints *c = arg;
	json_t *md = json_object_get(json_object_get(ev, "object"), "metadata");
	const char *ns = json_string_value(json_object_get(md, "namespace"));
	const char *name = json_string_value(json_object_get(md, "name"));
	json_t *labels = json_object_get(md, "labels"), *v;
	struct strmap lm = {0};
	struct object **l;
	const char *k;
	size_t i, n;

	if (ns == NULL || name == NULL)
		return;
	json_object_foreach(labels, k, v)
	{
		if (json_is_string(v))
			strmap_set(&lm, k, json_string_value(v));
	}
	n = informer_list(c->cfg.services, ns, &l);
	for (i = 0; i < n; i++) {
		const struct service *s = l[i]->obj;

		if (s->spec.selector.n && labels_subset(&s->spec.selector, &lm))
			enqueue(c, ns, s->metadata.name);
	}
	free(l);
	strmap_release(&lm);
	n = informer_list(c->cfg.slices, ns, &l);
	for (i = 0; i < n; i++) {
		const struct endpoint_slice *s = l[i]->obj;
		const char *svc =
		    strmap_get(&s->metadata.labels, LABEL_SERVICE_NAME);

		if (svc && slice_names_pod(s, name))
			enqueue(c, ns, svc);
	}
	free(l);
}

static int64_t
rv_of(const struct object_meta *m)
{
	return m->resource_version ? strtoll(m->resource_version, NULL, 10) : 0;
}

static void
forget(struct ctl_endpoints *c, size_t i)
{
	free(c->w[i].key);
	free(c->w[i].name);
	c->w[i] = c->w[--c->nw];
}

/* Whether the cache still lacks a slice write of key; writes it has
 * caught up with, and old ones, are forgotten. */
static bool
stale(struct ctl_endpoints *c, const char *key, const char *ns)
{
	dtime now = c->cfg.now();
	bool behind = false;
	size_t i = 0;

	while (i < c->nw) {
		struct written *w = &c->w[i];
		const struct object *o;
		bool seen;

		if (strcmp(w->key, key)) {
			i++;
			continue;
		}
		o = informer_find(c->cfg.slices, ns, w->name);
		seen = w->deleted ? o == NULL
				  : o && rv_of(object_meta(o)) >= w->rv;
		if (seen || now - w->at > STALE_FORGET_MS) {
			forget(c, i);
			continue;
		}
		behind = true;
		i++;
	}
	return behind;
}

static void
remember(struct ctl_endpoints *c, const char *key,
	 const struct endpoint_slice *s, bool deleted)
{
	struct written *w;

	ALLOC_GROW(c->w, c->nw + 1, c->walloc);
	w = &c->w[c->nw++];
	w->key = xstrdup(key);
	w->name = xstrdup(s->metadata.name ? s->metadata.name : "");
	w->rv = rv_of(&s->metadata);
	w->deleted = deleted;
	w->at = c->cfg.now();
}

/* A failed write, recorded on the Service as Kubernetes' endpoint and
 * endpointslice controllers do (they record nothing on success). */
static void
record_failure(struct ctl_endpoints *c, const char *key, bool slices, int st)
{
	char ns[256], name[256];
	const struct object *svc;

	if (c->rec == NULL ||
	    queue_split_key(key, ns, sizeof(ns), name, sizeof(name)) ||
	    (svc = informer_find(c->cfg.services, ns, name)) == NULL)
		return;
	if (slices)
		event_record_object(c->rec, svc, NULL, "Warning",
				    "FailedToUpdateEndpointSlices",
				    "Error updating Endpoint Slices for "
				    "Service %s/%s: HTTP %d",
				    ns, name, st);
	else
		event_record_object(
		    c->rec, svc, NULL, "Warning", "FailedToUpdateEndpoint",
		    "Failed to update endpoint %s/%s: HTTP %d", ns, name, st);
}

/* Writes the plan: the slices in order, then the Endpoints object. A
 * failed write stops there; the sync is retried with back-off. */
static int
apply(struct ctl_endpoints *c, const char *key, struct plan_endpoints_out *out)
{
	size_t i;
	int st = 200;

	for (i = 0; i < out->slices.n; i++) {
		struct ep_slice_action *a = &out->slices.v[i];
		struct object o = {kind_by_id(KIND_ENDPOINT_SLICE), &a->slice};
		struct object_meta *m = &a->slice.metadata;

		switch (a->op) {
		case EP_CREATE:
			st = kube_create(c->cfg.client, &o);
			break;
		case EP_UPDATE:
			st = kube_update(c->cfg.client, &o, NULL);
			break;
		case EP_DELETE:
			st = kube_delete(c->cfg.client, KIND_ENDPOINT_SLICE,
					 m->namespace, m->name);
			if (st == 404)
				st = 200;
			break;
		default:
			break;
		}
		if (st != 200 && st != 201) {
			log_warn("endpoints %s: %s EndpointSlice %s: HTTP %d",
				 key,
				 a->op == EP_CREATE   ? "create"
				 : a->op == EP_UPDATE ? "update"
						      : "delete",
				 m->name ? m->name : m->generate_name, st);
			record_failure(c, key, true, st);
			return -1;
		}
		remember(c, key, &a->slice, a->op == EP_DELETE);
	}
	if (out->endpoints_op != EP_NONE) {
		struct object o = {kind_by_id(KIND_ENDPOINTS), &out->endpoints};

		st = out->endpoints_op == EP_CREATE
			 ? kube_create(c->cfg.client, &o)
			 : kube_update(c->cfg.client, &o, NULL);
		if (st != 200 && st != 201) {
			log_warn("endpoints %s: write Endpoints: HTTP %d", key,
				 st);
			record_failure(c, key, false, st);
			return -1;
		}
	}
	return 0;
}

/* The Service is gone: so goes its Endpoints object (Kubernetes'
 * Endpoints controller deletes it; the slices are the garbage
 * collector's). */
static int
service_gone(struct ctl_endpoints *c, const char *ns, const char *name)
{
	int st;

	if (informer_find(c->cfg.endpoints, ns, name) == NULL)
		return 0;
	st = kube_delete(c->cfg.client, KIND_ENDPOINTS, ns, name);
	return st == 200 || st == 404 ? 0 : -1;
}

/* Typed pointers to the objects of l (an allocated array). */
static const void **
typed(struct object **l, size_t n)
{
	const void **v = xcalloc(n + 1, sizeof(*v));
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = l[i]->obj;
	return v;
}

static int
sync_one(void *arg, const char *key, int64_t *requeue)
{
	struct ctl_endpoints *c = arg;
	const struct object *so, *eo;
	struct plan_endpoints_in in = {0};
	struct plan_endpoints_out out;
	struct object **pods, **nodes, **slices;
	const void **pp, **np, **sp;
	size_t npods, nnodes, nslices, i, n = 0;
	char ns[256], name[256];
	int r;

	if (queue_split_key(key, ns, sizeof(ns), name, sizeof(name)))
		return 0;
	if ((so = informer_find(c->cfg.services, ns, name)) == NULL)
		return service_gone(c, ns, name);
	if (stale(c, key, ns)) {
		*requeue = STALE_WAIT_MS;
		return 0;
	}
	npods = informer_list(c->cfg.pods, ns, &pods);
	nnodes = informer_list(c->cfg.nodes, NULL, &nodes);
	nslices = informer_list(c->cfg.slices, ns, &slices);
	pp = typed(pods, npods);
	np = typed(nodes, nnodes);
	sp = xcalloc(nslices + 1, sizeof(*sp));
	for (i = 0; i < nslices; i++) {
		const char *svc = strmap_get(&object_meta(slices[i])->labels,
					     LABEL_SERVICE_NAME);

		if (svc && !strcmp(svc, name))
			sp[n++] = slices[i]->obj;
	}
	eo = informer_find(c->cfg.endpoints, ns, name);
	in.svc = so->obj;
	in.pods = (const struct pod *const *)pp;
	in.npods = npods;
	in.nodes = (const struct node *const *)np;
	in.nnodes = nnodes;
	in.slices = (const struct endpoint_slice *const *)sp;
	in.nslices = n;
	in.endpoints = eo ? eo->obj : NULL;
	plan_endpoints(&in, &out);
	r = apply(c, key, &out);
	if (r == 0 && (out.slices.n || out.endpoints_op != EP_NONE))
		log_info("endpoints %s: %zu ready, %zu not ready; %zu slice "
			 "writes%s",
			 key, out.nready, out.nnotready, out.slices.n,
			 out.endpoints_op != EP_NONE ? ", Endpoints written"
						     : "");
	plan_endpoints_out_release(&out);
	free(pp);
	free(np);
	free(sp);
	free(pods);
	free(nodes);
	free(slices);
	return r;
}

struct ctl_endpoints *
ctl_endpoints_start(const struct ctl_config *cfg)
{
	struct ctl_endpoints *c = xcalloc(1, sizeof(*c));

	c->cfg = *cfg;
	c->q = queue_new(cfg->loop, "endpoints", sync_one, c);
	queue_set_settle(c->q, cfg->settle, cfg->settle_arg);
	c->rec = event_broadcaster_recorder(cfg->events, "endpoint-controller",
					    NULL);
	informer_subscribe(cfg->services, on_service, c);
	informer_subscribe(cfg->pods, on_pod, c);
	informer_subscribe(cfg->slices, on_slice, c);
	informer_subscribe(cfg->endpoints, on_endpoints, c);
	informer_subscribe(cfg->nodes, on_node, c);
	return c;
}

void
ctl_endpoints_stop(struct ctl_endpoints *c)
{
	if (c == NULL)
		return;
	informer_unsubscribe(c->cfg.services, c);
	informer_unsubscribe(c->cfg.pods, c);
	informer_unsubscribe(c->cfg.slices, c);
	informer_unsubscribe(c->cfg.endpoints, c);
	informer_unsubscribe(c->cfg.nodes, c);
	queue_free(c->q);
	while (c->nw)
		forget(c, 0);
	free(c->w);
	free(c);
}

/* Every Service, and every Endpoints object (one whose Service is gone
 * is deleted). */
void
ctl_endpoints_resync(struct ctl_endpoints *c)
{
	ctl_enqueue_all(c->cfg.services, c->q);
	ctl_enqueue_all(c->cfg.endpoints, c->q);
}
