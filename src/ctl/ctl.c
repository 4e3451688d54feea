/* ctl.c - starts and stops the controllers together, each writing
 * through a hot-write guard of its own (src/client/guard.h) named as its
 * Events' component. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "guard.h"
#include "informer.h"
#include "kube.h"
#include "queue.h"
#include "turn.h"
#include "action.h"
#include "xalloc.h"

struct controllers {
	struct ctl_config cfg;
	struct ctl_deploy *deploy;
	struct ctl_rs *rs;
	struct ctl_rs *rc; /* the same shell for ReplicationControllers */
	struct ctl_gc *gc;
	struct ctl_sched *sched;
	struct ctl_endpoints *endpoints;
	struct ctl_disruption *disruption;
	struct ctl_nodelife *nodelife;
	struct ctl_event_ttl *event_ttl; /* NULL: events never expire */
	uv_timer_t *resync;              /* NULL: no periodic resync */
	/* Each controller's client: a guard over cfg.client (owned). */
	struct client *guards[CTL_NGUARDS];
	size_t nguards;
};

/* kube-controller-manager's names; "endpoint" and "endpointslice" are
 * both the endpoints controller (it keeps Endpoints and EndpointSlices),
 * which runs if either is enabled. */
const char *const ctl_controller_names[] = {
    "deployment",
    "replicaset",
    "replicationcontroller",
    "garbagecollector",
    "endpoint",
    "endpointslice",
    "disruption",
    "ttl-events",
    "nodelifecycle",
    NULL,
};

static bool
known(const char *name, size_t n)
{
	size_t i;

	for (i = 0; ctl_controller_names[i]; i++)
		if (strlen(ctl_controller_names[i]) == n &&
		    !strncmp(ctl_controller_names[i], name, n))
			return true;
	return false;
}

int
ctl_controllers_check(const char *list, char *err, size_t errlen)
{
	const char *p = list ? list : "*";

	for (;;) {
		size_t n = strcspn(p, ",");
		const char *name = p;
		size_t len = n;

		if (len && *name == '-') {
			name++;
			len--;
		}
		if (!(len == 1 && *name == '*' && name == p) &&
		    !known(name, len)) {
			snprintf(err, errlen,
				 "\"%.*s\" is not in the list of known "
				 "controllers",
				 (int)len, name);
			return -1;
		}
		if (p[n] == '\0')
			return 0;
		p += n + 1;
	}
}

bool
ctl_controller_enabled(const char *list, const char *name)
{
	const char *p = list ? list : "*";
	size_t nl = strlen(name);
	bool star = false;

	for (;;) {
		size_t n = strcspn(p, ",");

		if (n == nl && !strncmp(p, name, n))
			return true;
		if (n == nl + 1 && *p == '-' && !strncmp(p + 1, name, nl))
			return false;
		if (n == 1 && *p == '*')
			star = true;
		if (p[n] == '\0')
			return star;
		p += n + 1;
	}
}

bool
ctl_overtime(uint64_t started)
{
	return queue_overtime_ms(started, CTL_SYNC_BUDGET_MS) ||
	       turn_over_ms(QUEUE_TURN_BUDGET_MS);
}

void
ctl_enqueue_object(struct queue *q, json_t *ev)
{
	json_t *md = json_object_get(json_object_get(ev, "object"), "metadata");
	const char *ns = json_string_value(json_object_get(md, "namespace"));
	const char *name = json_string_value(json_object_get(md, "name"));
	char key[600];

	if (ev == NULL || ns == NULL || name == NULL)
		return;
	queue_key(key, sizeof(key), ns, name);
	queue_add(q, key);
}

void
ctl_enqueue_owner(struct informer *owners, struct queue *q, json_t *ev,
		  const char *owner_kind)
{
	json_t *md = json_object_get(json_object_get(ev, "object"), "metadata");
	const char *ns = json_string_value(json_object_get(md, "namespace"));
	json_t *refs = json_object_get(md, "ownerReferences"), *r;
	char key[600];
	struct object **l;
	size_t i, n;

	if (ev == NULL || ns == NULL)
		return;
	json_array_foreach(refs, i, r)
	{
		const char *kind =
		    json_string_value(json_object_get(r, "kind"));
		const char *name =
		    json_string_value(json_object_get(r, "name"));

		if (!json_is_true(json_object_get(r, "controller")))
			continue;
		if (kind && name && !strcmp(kind, owner_kind)) {
			queue_key(key, sizeof(key), ns, name);
			queue_add(q, key);
		}
		return;
	}
	n = informer_list(owners, ns, &l);
	for (i = 0; i < n; i++) {
		queue_key(key, sizeof(key), ns, object_meta(l[i])->name);
		queue_add(q, key);
	}
	free(l);
}

void
ctl_record_events(struct event_broadcaster *events, const char *component,
		  const struct object *o, const struct event_list *l)
{
	struct recorder *r =
	    event_broadcaster_recorder(events, component, NULL);
	size_t i;

	for (i = 0; r && i < l->n; i++)
		event_record_object(r, o, NULL, l->v[i].type, l->v[i].reason,
				    "%s", l->v[i].message);
}

void
ctl_enqueue_all(struct informer *inf, struct queue *q)
{
	struct object **l;
	size_t i, n = informer_list(inf, NULL, &l);
	char key[600];

	for (i = 0; i < n; i++) {
		const struct object_meta *m = object_meta(l[i]);

		queue_key(key, sizeof(key), m->namespace, m->name);
		queue_add(q, key);
	}
	free(l);
}

static void
on_resync(uv_timer_t *t)
{
	ctl_resync(t->data);
}

static void
free_handle(uv_handle_t *h)
{
	free(h);
}

/* The shared config with a client of its own for the controller named
 * component: its writes counted by a hot-write guard. */
static const struct ctl_config *
guarded(struct controllers *c, struct ctl_config *buf, const char *component)
{
	struct client *g =
	    client_guard_new(c->cfg.client, component, c->cfg.now);

	c->guards[c->nguards++] = g;
	*buf = c->cfg;
	buf->client = g;
	return buf;
}

struct controllers *
ctl_start(const struct ctl_config *cfg)
{
	struct controllers *c = xcalloc(1, sizeof(*c));
	struct ctl_config g;

	c->cfg = *cfg;
	c->cfg.deploys = informer_new(cfg->client, cfg->loop, KIND_DEPLOYMENT);
	c->cfg.rss = informer_new(cfg->client, cfg->loop, KIND_REPLICASET);
	c->cfg.pods = informer_new(cfg->client, cfg->loop, KIND_POD);
	c->cfg.nodes = informer_new(cfg->client, cfg->loop, KIND_NODE);
	c->cfg.services = informer_new(cfg->client, cfg->loop, KIND_SERVICE);
	c->cfg.slices =
	    informer_new(cfg->client, cfg->loop, KIND_ENDPOINT_SLICE);
	c->cfg.endpoints = informer_new(cfg->client, cfg->loop, KIND_ENDPOINTS);
	c->cfg.rcs =
	    informer_new(cfg->client, cfg->loop, KIND_REPLICATION_CONTROLLER);
	c->cfg.pdbs =
	    informer_new(cfg->client, cfg->loop, KIND_POD_DISRUPTION_BUDGET);
	c->cfg.leases = informer_new(cfg->client, cfg->loop, KIND_LEASE);
	if (!c->cfg.deploys || !c->cfg.rss || !c->cfg.pods || !c->cfg.nodes ||
	    !c->cfg.services || !c->cfg.slices || !c->cfg.endpoints ||
	    !c->cfg.rcs || !c->cfg.pdbs || !c->cfg.leases) {
		ctl_stop(c);
		return NULL;
	}
	/* The ReplicaSet controller subscribes before the Deployment
	 * controller (informers call their subscribers in order, and queues
	 * kicked in the same turn run in the order kicked): on a ReplicaSet's
	 * change, its sync, which creates and deletes the pods of its new
	 * size, runs before the Deployment's next one. Otherwise a
	 * Deployment that had just scaled the old ReplicaSet down and the new
	 * one up (5 replicas, maxSurge 1: old 4, new 1) could scale the new
	 * one up again (old 4, new 2) before the old ReplicaSet's pod was
	 * deleted, and when the ReplicaSet controller's batch was split over
	 * two loop turns, a client listing pods in between saw 5 old and 2
	 * new: 7, past the 6 that maxSurge allows. */
#define ON(name) ctl_controller_enabled(cfg->controllers, name)
	if (ON("replicaset"))
		c->rs = ctl_rs_start(guarded(c, &g, "replicaset-controller"));
	if (ON("replicationcontroller"))
		c->rc = ctl_rc_start(guarded(c, &g, "replication-controller"));
	if (ON("deployment"))
		c->deploy =
		    ctl_deploy_start(guarded(c, &g, "deployment-controller"));
	if (ON("garbagecollector"))
		c->gc = ctl_gc_start(guarded(c, &g, "garbage-collector"));
	c->sched = ctl_sched_start(guarded(c, &g, "default-scheduler"));
	if (ON("endpoint") || ON("endpointslice"))
		c->endpoints =
		    ctl_endpoints_start(guarded(c, &g, "endpoint-controller"));
	if (ON("ttl-events"))
		c->event_ttl = ctl_event_ttl_start(guarded(c, &g, "event-ttl"));
	if (ON("disruption"))
		c->disruption = ctl_disruption_start(
		    guarded(c, &g, "disruption-controller"));
	if (ON("nodelifecycle"))
		c->nodelife =
		    ctl_nodelife_start(guarded(c, &g, "node-controller"));
	if ((ON("deployment") && !c->deploy) || (ON("replicaset") && !c->rs) ||
	    (ON("replicationcontroller") && !c->rc) ||
	    (ON("garbagecollector") && !c->gc) || !c->sched ||
	    ((ON("endpoint") || ON("endpointslice")) && !c->endpoints) ||
	    (ON("disruption") && !c->disruption) ||
	    (ON("nodelifecycle") && !c->nodelife) ||
	    (ON("ttl-events") && c->cfg.event_ttl_ms > 0 && !c->event_ttl)) {
#undef ON
		ctl_stop(c);
		return NULL;
	}
	/* The caches hold everything stored (an informer lists before it
	 * returns) but no one had subscribed yet: sync every object once,
	 * as client-go's informers deliver their initial list. A change
	 * stored just before a crash is acted on by the next daemon even if
	 * nothing else happens. */
	ctl_resync(c);
	if (cfg->resync_ms > 0) {
		c->resync = xcalloc(1, sizeof(*c->resync));
		uv_timer_init(cfg->loop, c->resync);
		c->resync->data = c;
		uv_timer_start(c->resync, on_resync, (uint64_t)cfg->resync_ms,
			       (uint64_t)cfg->resync_ms);
	}
	return c;
}

void
ctl_schedule_now(struct controllers *c)
{
	if (c)
		ctl_sched_run_now(c->sched);
}

void
ctl_resync(struct controllers *c)
{
	if (c->deploy)
		ctl_deploy_resync(c->deploy);
	if (c->rs)
		ctl_rs_resync(c->rs);
	if (c->rc)
		ctl_rs_resync(c->rc);
	if (c->gc)
		ctl_gc_resync(c->gc);
	ctl_sched_resync(c->sched);
	if (c->endpoints)
		ctl_endpoints_resync(c->endpoints);
	if (c->disruption)
		ctl_disruption_resync(c->disruption);
	if (c->nodelife)
		ctl_nodelife_resync(c->nodelife);
}

void
ctl_stop(struct controllers *c)
{
	if (c == NULL)
		return;
	if (c->resync) {
		uv_timer_stop(c->resync);
		uv_close((uv_handle_t *)c->resync, free_handle);
	}
	ctl_deploy_stop(c->deploy);
	ctl_rs_stop(c->rs);
	ctl_rs_stop(c->rc);
	ctl_gc_stop(c->gc);
	ctl_sched_stop(c->sched);
	ctl_endpoints_stop(c->endpoints);
	ctl_disruption_stop(c->disruption);
	ctl_nodelife_stop(c->nodelife);
	ctl_event_ttl_stop(c->event_ttl);
	informer_free(c->cfg.deploys);
	informer_free(c->cfg.rss);
	informer_free(c->cfg.pods);
	informer_free(c->cfg.nodes);
	informer_free(c->cfg.services);
	informer_free(c->cfg.slices);
	informer_free(c->cfg.endpoints);
	informer_free(c->cfg.rcs);
	informer_free(c->cfg.pdbs);
	informer_free(c->cfg.leases);
	while (c->nguards > 0) {
		struct client *g = c->guards[--c->nguards];

		g->ops->free(g);
	}
	free(c);
}
