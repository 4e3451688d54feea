/* sched.c - the scheduler: binds each pending pod to a node chosen by the
 * core's sched_pick(), through the pods/binding subresource, so that a
 * multi-host setup runs the same code. Pods that fit nowhere get a
 * PodScheduled=False/Unschedulable condition with kube-scheduler's
 * message, and are retried when nodes change.
 *
 * Like kube-scheduler's queue it follows pod events instead of scanning
 * every pod: each pod is tracked (its node, for the spread score's
 * counts, or its place in the queue of pending pods, first in first
 * out), and pods that fit nowhere wait aside until a node changes or a
 * pod lets go of a node's resources. A pass costs the pods it binds, not
 * the pods that exist.
 *
 * NodeResourcesFit (fit.h) needs what each node's pods request. Each
 * tracked pod adds its request to its node while it counts there (bound,
 * not Succeeded or Failed; being deleted still counts). A pod the
 * scheduler has just bound is "assumed" on its node, as kube-scheduler's
 * cache does, until the watch shows the binding: otherwise the next pass
 * could give its room to another pod.
 *
 * NodePorts (fit.h) the same way: each node keeps the host ports its
 * pods declare (a multiset: a pod bound elsewhere by hand may declare
 * one twice), taken and given back with the pod's request.
 *
 * The spread scores (placement.h) count, per node, the pods bound there
 * and not being deleted, or assumed there; and the same per owner (the
 * controller ownerReference's uid: the ReplicaSet of a Deployment's
 * pods), in a hash of owners, each with a hash of nodes. A pod counts
 * once, on one node under one owner (struct tracked's node and owner),
 * moved when the watch shows it elsewhere, orphaned or adopted, and
 * taken off when it is being deleted or gone. Reading the counts for a
 * pod costs one lookup per node. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>
#include <utlist.h>

#include "ctl.h"
#include "informer.h"
#include "kube.h"
#include "log.h"
#include "queue.h"
#include "shardhash.h"
#include "fit.h"
#include "placement.h"
#include "xalloc.h"

/* What the scheduler knows of one pod. */
struct tracked {
	char *key; /* "ns/name" */
	/* the node it counts on (bound or assumed, not being deleted), and
	 * the owner uid it counts under there (NULL: none) */
	char *node;
	char *owner;
	/* the node whose resources it holds (fit_pod_counts, or assumed),
	 * and what it requests there */
	char *fit_node;
	struct res_amount req;
	struct host_port *ports; /* the pod's declared host ports */
	size_t nports;
	bool assumed; /* bound by us, the watch has not shown it yet */
	/* waiting to be placed: in ctl_sched.pending or .aside */
	enum { NOWHERE, PENDING, ASIDE } where;
	struct tracked *prev, *next;
	UT_hash_handle hh; /* in ctl_sched.pods */
};

/* Per node: pods bound or assumed there and not being deleted (the
 * spread score), and the requests of the pods holding its resources
 * (the fit). */
struct node_count {
	char *name;
	int64_t n;
	struct res_amount used;
	struct host_port *ports; /* held by its pods */
	size_t nports, aports;
	UT_hash_handle hh;
};

/* The pods of one owner on each node (the owner spread). */
struct owner_node {
	char *node;
	int64_t n;
	UT_hash_handle hh;
};

struct owner_count {
	char *uid;
	struct owner_node *nodes; /* by node name; none at 0 */
	UT_hash_handle hh;
};

struct ctl_sched {
	struct ctl_config cfg;
	struct queue *q;
	struct tracked *pods[SHARD_COUNT]; /* by key (shardhash.h) */
	struct tracked *pending;           /* to place, first in first out */
	struct tracked *aside;      /* fit nowhere: until a node changes */
	struct node_count *on_node; /* by node name */
	struct owner_count *owners; /* by owner uid */
	struct recorder *rec;       /* "default-scheduler"; NULL: none */
};

/* One key for the whole scheduler: a pass binds the pending pods. */
#define PASS_KEY "pending/pods"

static struct node_count *
node_get(struct ctl_sched *c, const char *node)
{
	struct node_count *nc;

	HASH_FIND_STR(c->on_node, node, nc);
	if (nc == NULL) {
		nc = xcalloc(1, sizeof(*nc));
		nc->name = xstrdup(node);
		HASH_ADD_KEYPTR(hh, c->on_node, nc->name, strlen(nc->name), nc);
	}
	return nc;
}

/* Forgets a node nothing counts on any more. */
static void
node_put(struct ctl_sched *c, struct node_count *nc)
{
	if (nc->n || nc->used.pods || nc->used.milli_cpu || nc->used.memory ||
	    nc->nports)
		return;
	HASH_DEL(c->on_node, nc);
	free(nc->name);
	free(nc->ports);
	free(nc);
}

static void
count(struct ctl_sched *c, const char *node, int64_t d)
{
	struct node_count *nc = node_get(c, node);

	nc->n += d;
	node_put(c, nc);
}

/* The pods of owner uid on node change by d; entries at 0 go. */
static void
owner_add(struct ctl_sched *c, const char *uid, const char *node, int64_t d)
{
	struct owner_count *oc;
	struct owner_node *on;

	HASH_FIND_STR(c->owners, uid, oc);
	if (oc == NULL) {
		oc = xcalloc(1, sizeof(*oc));
		oc->uid = xstrdup(uid);
		HASH_ADD_KEYPTR(hh, c->owners, oc->uid, strlen(oc->uid), oc);
	}
	HASH_FIND_STR(oc->nodes, node, on);
	if (on == NULL) {
		on = xcalloc(1, sizeof(*on));
		on->node = xstrdup(node);
		HASH_ADD_KEYPTR(hh, oc->nodes, on->node, strlen(on->node), on);
	}
	on->n += d;
	if (on->n == 0) {
		HASH_DEL(oc->nodes, on);
		free(on->node);
		free(on);
	}
	if (oc->nodes == NULL) {
		HASH_DEL(c->owners, oc);
		free(oc->uid);
		free(oc);
	}
}

static bool
same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Moves t's spread counts to node under owner (node NULL: it counts
 * nowhere). */
static void
count_on(struct ctl_sched *c, struct tracked *t, const char *node,
	 const char *owner)
{
	char *nnode, *nowner;

	if (!node)
		owner = NULL;
	if (same(t->node, node) && same(t->owner, owner))
		return;
	if (t->node) {
		count(c, t->node, -1);
		if (t->owner)
			owner_add(c, t->owner, t->node, -1);
	}
	if (node) {
		count(c, node, 1);
		if (owner)
			owner_add(c, owner, node, 1);
	}
	/* copies first: node or owner might be t's own strings */
	nnode = node ? xstrdup(node) : NULL;
	nowner = owner ? xstrdup(owner) : NULL;
	free(t->node);
	free(t->owner);
	t->node = nnode;
	t->owner = nowner;
}

/* The uid of p's controller (ownerReference with controller: true), or
 * NULL. */
static const char *
owner_of(const struct pod *p)
{
	const struct owner_ref *r =
	    p ? meta_controller_ref(&p->metadata) : NULL;

	return r && r->uid && *r->uid ? r->uid : NULL;
}

/* The node's held ports gain (sign 1) or lose (-1) t's ports. */
static void
hold_ports(struct node_count *nc, const struct tracked *t, int sign)
{
	size_t i, j;

	for (i = 0; i < t->nports; i++) {
		if (sign > 0) {
			ALLOC_GROW(nc->ports, nc->nports + 1, nc->aports);
			nc->ports[nc->nports++] = t->ports[i];
			continue;
		}
		for (j = 0; j < nc->nports; j++)
			if (!memcmp(&nc->ports[j], &t->ports[i],
				    sizeof(t->ports[i]))) {
				nc->ports[j] = nc->ports[--nc->nports];
				break;
			}
	}
}

/* Moves t's request and host ports to node (NULL: nowhere). Returns
 * true if a node got room back. */
static bool
hold(struct ctl_sched *c, struct tracked *t, const char *node,
     const struct pod *p)
{
	struct node_count *nc;
	bool freed = false;

	if (t->fit_node && node && !strcmp(t->fit_node, node))
		return false;
	if (t->fit_node) {
		nc = node_get(c, t->fit_node);
		fit_add(&nc->used, &t->req, -1);
		hold_ports(nc, t, -1);
		node_put(c, nc);
		free(t->fit_node);
		t->fit_node = NULL;
		freed = true;
	}
	if (node) {
		fit_pod_request(&p->spec, &t->req);
		free(t->ports);
		t->nports = fit_pod_host_ports(&p->spec, &t->ports);
		t->fit_node = xstrdup(node);
		nc = node_get(c, node);
		fit_add(&nc->used, &t->req, 1);
		hold_ports(nc, t, 1);
	}
	return freed;
}

static void
dequeue(struct ctl_sched *c, struct tracked *t)
{
	if (t->where == ASIDE)
		DL_DELETE(c->aside, t);
	else if (t->where == PENDING)
		DL_DELETE(c->pending, t);
	t->where = NOWHERE;
}

/* Pods that fit nowhere may fit now. */
static void retry_aside(struct ctl_sched *c);

/* Brings the pod ns/name up to date from the cache: counted on its node,
 * queued if pending, forgotten if gone. Returns true if it is pending. */
static bool
track(struct ctl_sched *c, const char *ns, const char *name)
{
	const struct object *o = informer_find(c->cfg.pods, ns, name);
	const struct pod *p = o ? o->obj : NULL;
	const char *node = p && !p->metadata.deletion_timestamp &&
				   p->spec.node_name && *p->spec.node_name
			       ? p->spec.node_name
			       : NULL;
	bool pend = p && !node && !p->metadata.deletion_timestamp;
	const char *fit_node =
	    p && fit_pod_counts(p) ? p->spec.node_name : NULL;
	struct tracked *t;
	char key[600];

	queue_key(key, sizeof(key), ns, name);
	SHARD_FIND(hh, c->pods, key, strlen(key), t);
	if (t == NULL && p == NULL)
		return false;
	if (t == NULL) {
		t = xcalloc(1, sizeof(*t));
		t->key = xstrdup(key);
		SHARD_ADD_KEYPTR(hh, c->pods, t->key, strlen(t->key), t);
	}
	/* assumed until the cache has a nodeName (or the pod is gone): it
	 * holds the node's resources, and counts there unless it is being
	 * deleted */
	if (p && t->assumed &&
	    (p->spec.node_name == NULL || !*p->spec.node_name)) {
		fit_node = t->fit_node;
		pend = false;
		if (!p->metadata.deletion_timestamp)
			node = t->fit_node;
	} else {
		t->assumed = false;
	}
	count_on(c, t, node, owner_of(p));
	if (hold(c, t, fit_node, p))
		retry_aside(c);
	if (!pend) {
		dequeue(c, t);
	} else if (t->where == NOWHERE) {
		t->where = PENDING;
		DL_APPEND(c->pending, t);
	}
	if (p == NULL) {
		SHARD_DELETE(hh, c->pods, t);
		free(t->key);
		free(t->ports);
		free(t);
	}
	return pend;
}

static void
on_pod(void *arg, json_t *ev)
{
	struct ctl_sched *c = arg;
	json_t *md = json_object_get(json_object_get(ev, "object"), "metadata");
	const char *ns = json_string_value(json_object_get(md, "namespace"));
	const char *name = json_string_value(json_object_get(md, "name"));

	if (ev && ns && name && track(c, ns, name))
		queue_add(c->q, PASS_KEY);
}

static void
retry_aside(struct ctl_sched *c)
{
	struct tracked *t;

	if (c->aside == NULL)
		return;
	DL_FOREACH(c->aside, t)
	t->where = PENDING;
	DL_CONCAT(c->pending, c->aside);
	c->aside = NULL;
	queue_add(c->q, PASS_KEY);
}

static void
on_node(void *arg, json_t *ev)
{
	if (ev)
		retry_aside(arg);
}

static int
unschedulable(struct ctl_sched *c, const struct pod *cached, const char *why)
{
	const struct condition *cur =
	    condition_get(&cached->status.conditions, "PodScheduled");
	struct condition cond = {.type = "PodScheduled",
				 .status = "False",
				 .reason = "Unschedulable",
				 .message = (char *)why,
				 .last_transition_time = c->cfg.now()};
	struct object po = {kind_by_id(KIND_POD), NULL};
	struct pod *p;
	int r;

	if (cur && cur->message && !strcmp(cur->message, why))
		return 0;
	p = xcalloc(1, sizeof(*p)); /* a copy: the cache is not ours */
	pod_copy(p, cached);
	po.obj = p;
	condition_remove(&p->status.conditions, "PodScheduled");
	condition_append(&p->status.conditions, &cond);
	log_info("scheduler: %s/%s: %s", p->metadata.namespace,
		 p->metadata.name, why);
	r = kube_update(c->cfg.client, &po, "status") == 200 ? 0 : -1;
	event_record_object(c->rec, &po, NULL, "Warning", "FailedScheduling",
			    "%s", why);
	object_release(&po);
	return r;
}

static bool
is_pending(const struct pod *p)
{
	return (p->spec.node_name == NULL || !*p->spec.node_name) &&
	       !p->metadata.deletion_timestamp;
}

static int
bind_pod(struct ctl_sched *c, const struct pod *p, const struct node *n)
{
	json_t *b =
	    json_pack("{sssss{ss}s{ssss}}", "apiVersion", "v1", "kind",
		      "Binding", "metadata", "name", p->metadata.name, "target",
		      "kind", "Node", "name", n->metadata.name);
	struct client_resp resp;
	char path[600];
	int r;

	kube_path(path, sizeof(path), KIND_POD, p->metadata.namespace,
		  p->metadata.name, "binding");
	client_request(c->cfg.client, "POST", path, NULL, NULL, b, &resp);
	json_decref(b);
	r = resp.status == 201 || resp.status == 409 ? 0 : -1;
	if (resp.status == 201) {
		struct object po = {kind_by_id(KIND_POD), (void *)p};

		event_record_object(c->rec, &po, NULL, "Normal", "Scheduled",
				    "Successfully assigned %s/%s to %s",
				    p->metadata.namespace, p->metadata.name,
				    n->metadata.name);
	}
	client_resp_release(&resp);
	return r;
}

/* The host ports held on each of the nn nodes np, for NodePorts; NULL
 * when pod p declares none (the filter is skipped). Read again for each
 * pod: a bind of the same pass adds to them (and may move the arrays).
 * The caller frees the result. */
static struct host_port_set *
ports_on(struct ctl_sched *c, const struct pod *p, const struct node **np,
	 size_t nn)
{
	struct host_port_set *ps;
	struct node_count *nc;
	struct host_port *want;
	size_t i;

	if (fit_pod_host_ports(&p->spec, &want) == 0)
		return NULL;
	free(want);
	ps = xcalloc(nn + 1, sizeof(*ps));
	for (i = 0; i < nn; i++) {
		HASH_FIND_STR(c->on_node,
			      np[i]->metadata.name ? np[i]->metadata.name : "",
			      nc);
		if (nc)
			ps[i] = (struct host_port_set){nc->ports, nc->nports};
	}
	return ps;
}

/* The pods of p's owner on each of the nn nodes np, written into out
 * (nn long); NULL when p has no owner (the spread counts all pods). Read
 * again for each pod: a bind of the same pass adds to them. */
static const int64_t *
owner_on(struct ctl_sched *c, const struct pod *p, const struct node **np,
	 size_t nn, int64_t *out)
{
	const char *uid = owner_of(p);
	struct owner_count *oc;
	struct owner_node *on;
	size_t i;

	if (uid == NULL)
		return NULL;
	HASH_FIND_STR(c->owners, uid, oc);
	for (i = 0; i < nn; i++) {
		on = NULL;
		if (oc)
			HASH_FIND_STR(
			    oc->nodes,
			    np[i]->metadata.name ? np[i]->metadata.name : "",
			    on);
		out[i] = on ? on->n : 0;
	}
	return out;
}

/* Binds the pending pods in their order, until the budget is spent. */
static int
sync_locked(struct ctl_sched *c, bool *more)
{
	uint64_t started = uv_hrtime();
	struct object **nl;
	const struct node **np;
	struct node_count *nc;
	struct tracked *t, *failed = NULL;
	struct res_amount *used;
	int64_t *on, *oon;
	size_t nn, i, tried = 0;
	int r = 0;

	nn = informer_list(c->cfg.nodes, NULL, &nl);
	np = xcalloc(nn + 1, sizeof(*np));
	on = xcalloc(nn + 1, sizeof(*on));
	used = xcalloc(nn + 1, sizeof(*used));
	oon = xcalloc(nn + 1, sizeof(*oon));
	for (i = 0; i < nn; i++) {
		np[i] = nl[i]->obj;
		HASH_FIND_STR(c->on_node,
			      np[i]->metadata.name ? np[i]->metadata.name : "",
			      nc);
		on[i] = nc ? nc->n : 0;
		if (nc)
			used[i] = nc->used;
	}
	while ((t = c->pending) != NULL) {
		char ns[256], name[256];
		const struct object *o;
		const struct pod *p;
		struct strbuf why = STRBUF_INIT;
		const struct node *chosen;
		struct host_port_set *ps;

		/* one pod at least: a pass that starts past the turn's
		 * budget still moves on */
		if (tried++ && ctl_overtime(started)) {
			*more = true;
			break;
		}
		dequeue(c, t);
		if (queue_split_key(t->key, ns, sizeof(ns), name,
				    sizeof(name)) ||
		    (o = informer_find(c->cfg.pods, ns, name)) == NULL ||
		    !is_pending(p = o->obj))
			continue;
		ps = ports_on(c, p, np, nn);
		chosen = sched_pick(
		    &(struct sched_in){.pod = p,
				       .nodes = np,
				       .nnodes = nn,
				       .pods_on = on,
				       .owner_on = owner_on(c, p, np, nn, oon),
				       .used = used,
				       .ports = ps},
		    &why);
		free(ps);
		if (chosen && bind_pod(c, p, chosen) == 0) {
			hold(c, t, chosen->metadata.name, p);
			t->assumed = true;
			count_on(c, t, chosen->metadata.name, owner_of(p));
			for (i = 0; i < nn; i++)
				if (np[i] == chosen) {
					on[i]++; /* the next ones' spread */
					fit_add(&used[i], &t->req, 1);
				}
		} else if (!chosen && unschedulable(c, p, why.buf) == 0) {
			t->where = ASIDE; /* until a node changes */
			DL_APPEND(c->aside, t);
		} else {
			r = -1; /* a write failed: again, after a back-off */
			DL_APPEND(failed, t);
		}
		strbuf_release(&why);
	}
	if (failed) { /* first again, in their order */
		DL_FOREACH(failed, t)
		t->where = PENDING;
		DL_CONCAT(failed, c->pending);
		c->pending = failed;
	}
	free(oon);
	free(used);
	free(on);
	free(np);
	free(nl);
	return r;
}

static int
sync_one(void *arg, const char *key, int64_t *requeue)
{
	struct ctl_sched *c = arg;
	int r;

	bool more = false;

	(void)key;
	r = sync_locked(c, &more);
	if (r == 0 && more)
		*requeue = 0; /* the rest after the loop has polled */
	return r;
}

/* Every cached pod: at start (the caches were filled before anyone
 * subscribed) and on a resync. */
static void
track_all(struct ctl_sched *c)
{
	struct object **l;
	size_t i, n = informer_list(c->cfg.pods, NULL, &l);

	for (i = 0; i < n; i++)
		track(c, object_meta(l[i])->namespace, object_meta(l[i])->name);
	free(l);
}

struct ctl_sched *
ctl_sched_start(const struct ctl_config *cfg)
{
	struct ctl_sched *c = xcalloc(1, sizeof(*c));

	c->cfg = *cfg;
	c->q = queue_new(cfg->loop, "scheduler", sync_one, c);
	queue_set_settle(c->q, cfg->settle, cfg->settle_arg);
	c->rec =
	    event_broadcaster_recorder(cfg->events, "default-scheduler", NULL);
	informer_subscribe(cfg->pods, on_pod, c);
	informer_subscribe(cfg->nodes, on_node, c);
	track_all(c);
	return c;
}

void
ctl_sched_stop(struct ctl_sched *c)
{
	struct tracked *t, *tt;
	struct node_count *nc, *nt;
	struct owner_count *oc, *ot;
	struct owner_node *on, *onx;
	size_t i;

	if (c == NULL)
		return;
	informer_unsubscribe(c->cfg.pods, c);
	informer_unsubscribe(c->cfg.nodes, c);
	queue_free(c->q);
	for (i = 0; i < SHARD_COUNT; i++)
		HASH_ITER(hh, c->pods[i], t, tt)
		{
			HASH_DEL(c->pods[i], t);
			free(t->key);
			free(t->node);
			free(t->owner);
			free(t->fit_node);
			free(t->ports);
			free(t);
		}
	HASH_ITER(hh, c->on_node, nc, nt)
	{
		HASH_DEL(c->on_node, nc);
		free(nc->name);
		free(nc->ports);
		free(nc);
	}
	HASH_ITER(hh, c->owners, oc, ot)
	{
		HASH_ITER(hh, oc->nodes, on, onx)
		{
			HASH_DEL(oc->nodes, on);
			free(on->node);
			free(on);
		}
		HASH_DEL(c->owners, oc);
		free(oc->uid);
		free(oc);
	}
	free(c);
}

void
ctl_sched_run_now(struct ctl_sched *c)
{
	queue_run_now(c->q);
}

void
ctl_sched_resync(struct ctl_sched *c)
{
	track_all(c);
	retry_aside(c);
	queue_add(c->q, PASS_KEY);
}
