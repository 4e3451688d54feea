/* plan_nodelife.c - one pass of the node lifecycle and taint eviction
 * controllers, pure (plan_nodelife.h). The Go functions mirrored
 * (Kubernetes 1.30): monitorNodeHealth, tryUpdateNodeHealth,
 * processTaintBaseEviction, markNodeForTainting, markNodeAsReachable,
 * ComputeZoneState, handleDisruption, setLimiterInZone, ReducedQPSFunc,
 * doNoExecuteTaintingPass and doNodeTaintingPass of
 * node_lifecycle_controller.go; RateLimitedTimedQueue.Try and
 * SwapLimiter; MarkPodsNotReady; processPodOnNode, GetMatching-
 * Tolerations and getMinTolerationTime of the taint eviction controller;
 * and the DefaultTolerationSeconds admission plugin.
 *
 * Where drover differs, and why:
 *  - The taint manager keeps a timer per pod, started when it first saw
 *    the pod on the tainted node; here a pod's deadline is computed
 *    from the taint's timeAdded (or the pod's creation, if later), so
 *    that a pass needs no memory of earlier ones and a restarted control
 *    plane keeps the deadlines. A NoExecute taint without timeAdded
 *    counts from the pod's creation.
 *  - The pods' Ready condition is set False on every pass that finds
 *    their node not Ready and the condition not False (Kubernetes does
 *    it on the node's transition and when a pod is bound there): the
 *    same end state, level-triggered.
 *  - The RegisteredNode and RemovingNode events on nodes are not
 *    recorded, and pressure conditions a node never posted are not
 *    added (drover's agent posts only Ready). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placement.h"
#include "plan_nodelife.h"
#include "xalloc.h"

#define REASON_UNKNOWN  "NodeStatusUnknown"
#define MESSAGE_UNKNOWN "Kubelet stopped posting node status."
#define REASON_NEVER    "NodeStatusNeverUpdated"
#define MESSAGE_NEVER   "Kubelet never posted node status."
/* The node label that leaves a node out of the zone's disruption count
 * (labelNodeDisruptionExclusion). */
#define LABEL_EXCLUDE_DISRUPTION "node.kubernetes.io/exclude-disruption"

void
nodelife_config_default(struct nodelife_config *c)
{
	c->grace_ms = NODELIFE_GRACE_DEFAULT_MS;
	c->startup_grace_ms = NODELIFE_STARTUP_GRACE_DEFAULT_MS;
	c->eviction_qps = NODELIFE_EVICTION_QPS_DEFAULT;
	c->secondary_qps = NODELIFE_SECONDARY_QPS_DEFAULT;
	c->large_cluster = NODELIFE_LARGE_CLUSTER_DEFAULT;
	c->unhealthy_zone = NODELIFE_UNHEALTHY_ZONE_DEFAULT;
}

void
nodelife_state_release(struct nodelife_state *s)
{
	size_t i;

	for (i = 0; i < s->nnodes; i++)
		free(s->nodes[i].name);
	for (i = 0; i < s->nzones; i++)
		free(s->zones[i].key);
	free(s->nodes);
	free(s->zones);
	memset(s, 0, sizeof(*s));
}

void
plan_nodelife_release(struct nodelife_plan *out)
{
	size_t i;

	for (i = 0; i < out->nnodes; i++)
		schema_release(&schema_node, &out->nodes[i].node);
	free(out->nodes);
	free(out->pods);
	nodelife_state_release(&out->state);
	memset(out, 0, sizeof(*out));
}

static const char *
s0(const char *s)
{
	return s ? s : "";
}

static bool
status_is(const struct condition *c, const char *status)
{
	return c && c->status && !strcmp(c->status, status);
}

/* ---- taints ---- */

static struct taint *
taint_find(struct node *n, const char *key, const char *effect)
{
	size_t i;

	for (i = 0; i < n->spec.taints.n; i++) {
		struct taint *t = &n->spec.taints.v[i];

		if (!strcmp(s0(t->key), key) && !strcmp(s0(t->effect), effect))
			return t;
	}
	return NULL;
}

/* RemoveTaintOffNode: true if it was there. */
static bool
taint_remove(struct node *n, const char *key, const char *effect)
{
	struct taint *t = taint_find(n, key, effect);
	size_t i;

	if (t == NULL)
		return false;
	i = (size_t)(t - n->spec.taints.v);
	free(t->key);
	free(t->value);
	free(t->effect);
	memmove(t, t + 1, (n->spec.taints.n - i - 1) * sizeof(*t));
	n->spec.taints.n--;
	return true;
}

/* AddOrUpdateTaintOnNode of a new taint {key, effect, timeAdded now};
 * one already there (same key and effect) is kept as it is. */
static bool
taint_add(struct node *n, const char *key, const char *effect, dtime now)
{
	struct taint *t;

	if (taint_find(n, key, effect))
		return false;
	t = anylist_push((struct anylist *)&n->spec.taints, sizeof(*t));
	t->key = xstrdup(key);
	t->effect = xstrdup(effect);
	t->time_added = now;
	return true;
}

int64_t
nodelife_toleration_ms(const struct pod *p, const struct node *n)
{
	int64_t min = NODELIFE_FOREVER;
	size_t i, j;

	for (i = 0; i < n->spec.taints.n; i++) {
		const struct taint *t = &n->spec.taints.v[i];
		const struct toleration *used = NULL;

		if (strcmp(s0(t->effect), "NoExecute"))
			continue;
		/* the first toleration that tolerates it is the one used */
		for (j = 0; j < p->spec.tolerations.n && !used; j++)
			if (toleration_matches(&p->spec.tolerations.v[j], t))
				used = &p->spec.tolerations.v[j];
		if (used == NULL)
			return -1;
		if (used->toleration_seconds.set) {
			int64_t s = used->toleration_seconds.v;

			if (s <= 0)
				s = 0;
			if (s * 1000 < min)
				min = s * 1000;
		}
	}
	return min;
}

/* When the pod's tolerations started to run on n: the earliest
 * timeAdded of n's NoExecute taints, or the pod's creation if later (a
 * pod bound after the taint) or if no taint has one. */
static dtime
toleration_start(const struct pod *p, const struct node *n)
{
	dtime start = 0;
	size_t i;

	for (i = 0; i < n->spec.taints.n; i++) {
		const struct taint *t = &n->spec.taints.v[i];

		if (!strcmp(s0(t->effect), "NoExecute") && t->time_added &&
		    (start == 0 || t->time_added < start))
			start = t->time_added;
	}
	if (start < p->metadata.creation_timestamp)
		start = p->metadata.creation_timestamp;
	return start;
}

static bool
has_no_execute(const struct node *n)
{
	size_t i;

	for (i = 0; i < n->spec.taints.n; i++)
		if (!strcmp(s0(n->spec.taints.v[i].effect), "NoExecute"))
			return true;
	return false;
}

/* ---- the working set ---- */

/* One node during the pass. */
struct work {
	struct node node;          /* the copy the pass changes */
	const struct node *in;     /* as read */
	struct nodelife_health h;  /* its health after the pass (name
				     * borrowed until moved to out) */
	struct condition observed; /* Ready as read (fields borrowed) */
	bool have_ready;           /* the node has (now) a Ready condition */
	bool status, taints;       /* what to write */
	bool not_ready_event, cancelled;
	bool want_taint;         /* waits in the zone's taint queue */
	size_t zone;             /* index in out->state.zones */
	size_t first_pod, npods; /* its pods, in the sorted pod array */
};

struct pass {
	const struct nodelife_world *w;
	struct nodelife_plan *out;
	struct work *nodes; /* sorted by name */
	size_t n;
	const struct pod **pods; /* bound to a known node, by node */
	size_t npods;
	/* the node Leases (of NODE_LEASE_NAMESPACE), by name: found by a
	 * binary search, not a scan per node (1,000 nodes: a million
	 * comparisons a pass) */
	const struct lease **leases;
	size_t nleases;
	int64_t recheck;
};

static void
recheck_in(struct pass *ps, int64_t ms)
{
	if (ms < 1)
		ms = 1;
	if (ps->recheck < 0 || ms < ps->recheck)
		ps->recheck = ms;
}

static int
cmp_work(const void *a, const void *b)
{
	return strcmp(s0(((const struct work *)a)->node.metadata.name),
		      s0(((const struct work *)b)->node.metadata.name));
}

static struct work *
work_find(struct pass *ps, const char *name)
{
	struct work key;

	if (name == NULL || *name == '\0' || ps->n == 0)
		return NULL;
	key.node.metadata.name = (char *)name;
	return bsearch(&key, ps->nodes, ps->n, sizeof(*ps->nodes), cmp_work);
}

static int
cmp_health(const void *key, const void *h)
{
	return strcmp(key, ((const struct nodelife_health *)h)->name);
}

const struct nodelife_health *
nodelife_state_find(const struct nodelife_state *s, const char *name)
{
	if (s == NULL || s->nnodes == 0 || name == NULL)
		return NULL;
	return bsearch(name, s->nodes, s->nnodes, sizeof(*s->nodes),
		       cmp_health);
}

static const struct nodelife_health *
saved_health(const struct nodelife_world *w, const char *name)
{
	return nodelife_state_find(w->state, name);
}

static int
cmp_lease(const void *a, const void *b)
{
	return strcmp(s0((*(const struct lease *const *)a)->metadata.name),
		      s0((*(const struct lease *const *)b)->metadata.name));
}

static void
sort_leases(struct pass *ps)
{
	const struct nodelife_world *w = ps->w;
	size_t i;

	ps->leases = xcalloc(w->nleases + 1, sizeof(*ps->leases));
	for (i = 0; i < w->nleases; i++) {
		const struct lease *l = w->leases[i];

		if (l->metadata.name &&
		    !strcmp(s0(l->metadata.namespace), NODE_LEASE_NAMESPACE))
			ps->leases[ps->nleases++] = l;
	}
	xqsort(ps->leases, ps->nleases, sizeof(*ps->leases), cmp_lease);
}

static const struct lease *
lease_of(const struct pass *ps, const char *name)
{
	struct lease key;
	const struct lease *kp = &key, *const * found;

	if (ps->nleases == 0)
		return NULL;
	key.metadata.name = (char *)name;
	found = bsearch(&kp, ps->leases, ps->nleases, sizeof(*ps->leases),
			cmp_lease);
	return found ? *found : NULL;
}

/* The pods grouped by node (by namespace and name within). */
static int
cmp_pod(const void *a, const void *b)
{
	const struct pod *x = *(const struct pod *const *)a;
	const struct pod *y = *(const struct pod *const *)b;
	int c = strcmp(s0(x->spec.node_name), s0(y->spec.node_name));

	if (c == 0)
		c = strcmp(s0(x->metadata.namespace),
			   s0(y->metadata.namespace));
	if (c == 0)
		c = strcmp(s0(x->metadata.name), s0(y->metadata.name));
	return c;
}

static void
group_pods(struct pass *ps)
{
	const struct nodelife_world *w = ps->w;
	size_t i, j;

	ps->pods = xcalloc(w->npods + 1, sizeof(*ps->pods));
	for (i = 0; i < w->npods; i++)
		if (work_find(ps, w->pods[i]->spec.node_name))
			ps->pods[ps->npods++] = w->pods[i];
	xqsort(ps->pods, ps->npods, sizeof(*ps->pods), cmp_pod);
	for (i = 0, j = 0; i < ps->n; i++) {
		const char *name = ps->nodes[i].node.metadata.name;

		while (j < ps->npods &&
		       strcmp(s0(ps->pods[j]->spec.node_name), name) < 0)
			j++;
		ps->nodes[i].first_pod = j;
		while (j < ps->npods &&
		       !strcmp(s0(ps->pods[j]->spec.node_name), name))
			j++;
		ps->nodes[i].npods = j - ps->nodes[i].first_pod;
	}
}

static void
pod_action(struct pass *ps, enum nodelife_pod_op op, const struct pod *p)
{
	struct nodelife_plan *out = ps->out;

	if (out->npods == out->apods) {
		out->apods = out->apods ? 2 * out->apods : 16;
		out->pods =
		    xrealloc(out->pods, out->apods * sizeof(*out->pods));
	}
	out->pods[out->npods++] = (struct nodelife_pod_action){op, p};
}

/* ---- zones ---- */

/* GetZoneKey: region and zone labels (the GA ones, else the beta). */
static void
zone_key(const struct node *n, char *buf, size_t len)
{
	const struct strmap *l = &n->metadata.labels;
	const char *region = strmap_get(l, "topology.kubernetes.io/region");
	const char *zone = strmap_get(l, "topology.kubernetes.io/zone");

	if (region == NULL)
		region = strmap_get(l, "failure-domain.beta.kubernetes.io/"
				       "region");
	if (zone == NULL)
		zone = strmap_get(l, "failure-domain.beta.kubernetes.io/zone");
	if (region == NULL && zone == NULL)
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len, "%s:%s", s0(region), s0(zone));
}

static int
cmp_zone(const void *a, const void *b)
{
	return strcmp(((const struct nodelife_zone *)a)->key,
		      ((const struct nodelife_zone *)b)->key);
}

/* The zones of the nodes, each with its saved state and limiter, or
 * (new: addPodEvictorForNewZone) Initial with a full bucket at the
 * eviction rate. Zones with no node left are dropped. */
static void
zones_collect(struct pass *ps)
{
	struct nodelife_state *st = &ps->out->state;
	const struct nodelife_state *old = ps->w->state;
	char key[512];
	size_t i, j;

	st->zones = xcalloc(ps->n + 1, sizeof(*st->zones));
	for (i = 0; i < ps->n; i++) {
		zone_key(&ps->nodes[i].node, key, sizeof(key));
		for (j = 0; j < st->nzones; j++)
			if (!strcmp(st->zones[j].key, key))
				break;
		if (j == st->nzones) {
			struct nodelife_zone *z = &st->zones[st->nzones++];

			z->key = xstrdup(key);
			z->state = NODELIFE_ZONE_INITIAL;
			z->qps = ps->w->cfg->eviction_qps;
			z->next_token = 0;
		}
	}
	xqsort(st->zones, st->nzones, sizeof(*st->zones), cmp_zone);
	for (j = 0; old && old->nzones && j < st->nzones; j++) {
		const struct nodelife_zone *o =
		    bsearch(&st->zones[j], old->zones, old->nzones,
			    sizeof(*old->zones), cmp_zone);

		if (o) {
			st->zones[j].state = o->state;
			st->zones[j].qps = o->qps;
			st->zones[j].next_token = o->next_token;
		}
	}
	for (i = 0; i < ps->n; i++) {
		struct nodelife_zone k;

		zone_key(&ps->nodes[i].node, key, sizeof(key));
		k.key = key;
		ps->nodes[i].zone = (size_t)((struct nodelife_zone *)bsearch(
						 &k, st->zones, st->nzones,
						 sizeof(*st->zones), cmp_zone) -
					     st->zones);
	}
}

/* The limiter's interval between two tokens, in ms (0.1/s: 10000). */
static int64_t
token_interval(double qps)
{
	double ms = 1000.0 / qps;

	return ms > (double)INT64_MAX / 2 ? INT64_MAX / 2 : (int64_t)ms;
}

/* TryAccept of a token bucket of one token. */
static bool
limiter_accept(struct nodelife_zone *z, dtime now)
{
	if (z->qps <= 0 || now < z->next_token)
		return false;
	z->next_token = now + token_interval(z->qps);
	return true;
}

/* SwapLimiter: a new rate starts with a full bucket, or with an empty
 * one if the old bucket had no token (Burst 1: "we drain the new one");
 * a rate of 0 never accepts. */
static void
limiter_swap(struct nodelife_zone *z, double qps, dtime now)
{
	bool had = z->qps > 0 && now >= z->next_token;

	if (z->qps == qps)
		return;
	z->qps = qps;
	z->next_token = qps <= 0 || had ? now : now + token_interval(qps);
}

/* setLimiterInZone with HealthyQPSFunc and ReducedQPSFunc. */
static void
limiter_for_state(struct pass *ps, struct nodelife_zone *z, size_t size,
		  enum nodelife_zone_state state)
{
	const struct nodelife_config *c = ps->w->cfg;
	double qps = c->eviction_qps;

	if (state == NODELIFE_ZONE_PARTIAL_DISRUPTION)
		qps = (int64_t)size > c->large_cluster ? c->secondary_qps : 0;
	limiter_swap(z, qps, ps->w->now);
}

/* ---- one node's health (tryUpdateNodeHealth) ---- */

/* Sets condition type Unknown as the controller does; a missing Ready
 * is added (NodeStatusNeverUpdated). */
static void
mark_unknown(struct node *n, const char *type, bool add, dtime now)
{
	struct condition *c = condition_find(&n->status.conditions, type);

	if (c == NULL) {
		struct condition nc = {
		    .type = (char *)type,
		    .status = "Unknown",
		    .reason = REASON_NEVER,
		    .message = MESSAGE_NEVER,
		    .last_heartbeat_time = n->metadata.creation_timestamp,
		    .last_transition_time = now,
		};

		if (add)
			condition_append(&n->status.conditions, &nc);
		return;
	}
	if (status_is(c, "Unknown"))
		return;
	free(c->status);
	c->status = xstrdup("Unknown");
	free(c->reason);
	c->reason = xstrdup(REASON_UNKNOWN);
	free(c->message);
	c->message = xstrdup(MESSAGE_UNKNOWN);
	c->last_transition_time = now;
}

static bool
cond_equal(const struct condition *a, const struct condition *b)
{
	return !strcmp(s0(a->status), s0(b->status)) &&
	       !strcmp(s0(a->reason), s0(b->reason)) &&
	       !strcmp(s0(a->message), s0(b->message)) &&
	       a->last_heartbeat_time == b->last_heartbeat_time &&
	       a->last_transition_time == b->last_transition_time;
}

static void
health_from(struct nodelife_health *h, const struct condition *ready)
{
	h->ready_seen = ready != NULL;
	h->heartbeat = ready ? ready->last_heartbeat_time : 0;
	h->transition = ready ? ready->last_transition_time : 0;
}

/* tryUpdateNodeHealth: the new health record of wk and, if the probe is
 * older than the grace period, its conditions set Unknown. */
static void
update_health(struct pass *ps, struct work *wk)
{
	const struct nodelife_world *w = ps->w;
	struct node *n = &wk->node;
	const struct condition *cur =
	    condition_get(&n->status.conditions, "Ready");
	const struct nodelife_health *saved = saved_health(w, n->metadata.name);
	const struct lease *lease = lease_of(ps, n->metadata.name);
	struct nodelife_health *h = &wk->h;
	int64_t grace;
	dtime now = w->now;

	if (saved)
		*h = *saved;
	h->name = n->metadata.name;
	if (cur == NULL) {
		/* never posted: a fake Unknown from the node's creation,
		 * and the startup grace period */
		wk->observed = (struct condition){
		    .type = "Ready",
		    .status = "Unknown",
		    .last_heartbeat_time = n->metadata.creation_timestamp,
		    .last_transition_time = n->metadata.creation_timestamp,
		};
		grace = w->cfg->startup_grace_ms;
		if (saved == NULL) {
			h->probe = n->metadata.creation_timestamp;
			h->ready_transition = n->metadata.creation_timestamp;
			h->ready_seen = false;
			h->lease_renew = 0;
		}
	} else {
		/* from the node as read: the copy's changes below */
		wk->observed =
		    *condition_get(&wk->in->status.conditions, "Ready");
		grace = w->cfg->grace_ms;
	}
	if (saved == NULL && cur != NULL) {
		/* "Missing timestamp for Node. Assuming now" */
		h->probe = now;
		h->ready_transition = now;
		h->lease_renew = 0;
		health_from(h, cur);
	} else if (saved && (!saved->ready_seen) != (cur == NULL)) {
		/* a Ready condition appeared (or went): start again */
		h->probe = now;
		h->ready_transition = now;
		health_from(h, cur);
	} else if (saved && cur &&
		   saved->heartbeat != cur->last_heartbeat_time) {
		/* a heartbeat: a transition too if its time moved */
		if (saved->transition != cur->last_transition_time)
			h->ready_transition = now;
		h->probe = now;
		health_from(h, cur);
	}
	/* the Lease renewed: a sign of life too */
	if (lease && lease->spec.renew_time &&
	    (h->lease_renew == 0 || h->lease_renew < lease->spec.renew_time)) {
		h->lease_renew = lease->spec.renew_time;
		h->probe = now;
	}
	if (now > h->probe + grace) {
		const struct condition *after;

		mark_unknown(n, "Ready", true, now);
		mark_unknown(n, "MemoryPressure", false, now);
		mark_unknown(n, "DiskPressure", false, now);
		mark_unknown(n, "PIDPressure", false, now);
		after = condition_get(&n->status.conditions, "Ready");
		if (!cond_equal(after, &wk->observed)) {
			wk->status = true;
			h->ready_transition = now;
			health_from(h, after);
		}
	} else {
		recheck_in(ps, h->probe + grace - now + 1);
	}
	wk->have_ready = condition_get(&n->status.conditions, "Ready") != NULL;
}

/* Whether the pod had a deletion waiting on its tolerations of n's
 * NoExecute taints (all tolerated, not forever). */
static bool
waiting(const struct pod *p, const struct node *n)
{
	int64_t ms = nodelife_toleration_ms(p, n);

	return p->metadata.deletion_timestamp == 0 && ms >= 0 &&
	       ms != NODELIFE_FOREVER && has_no_execute(n);
}

/* markNodeAsReachable: both NoExecute taints off (and out of the taint
 * queue); the pods whose deletion waited on a toleration have it
 * cancelled. */
static void
mark_reachable(struct pass *ps, struct work *wk)
{
	bool *was = xcalloc(wk->npods + 1, sizeof(*was));
	bool a, b;
	size_t i;

	for (i = 0; i < wk->npods; i++)
		was[i] = waiting(ps->pods[wk->first_pod + i], &wk->node);
	a = taint_remove(&wk->node, TAINT_NODE_UNREACHABLE, "NoExecute");
	b = taint_remove(&wk->node, TAINT_NODE_NOT_READY, "NoExecute");
	wk->want_taint = false;
	if (a || b) {
		wk->taints = true;
		wk->cancelled = true;
		for (i = 0; i < wk->npods; i++)
			if (was[i] &&
			    !waiting(ps->pods[wk->first_pod + i], &wk->node))
				pod_action(ps, NODELIFE_POD_CANCEL,
					   ps->pods[wk->first_pod + i]);
	}
	free(was);
}

/* SwapNodeControllerTaint: add one NoExecute taint, remove the other. */
static void
swap_taint(struct work *wk, const char *add, const char *remove, dtime now)
{
	if (taint_add(&wk->node, add, "NoExecute", now))
		wk->taints = true;
	if (taint_remove(&wk->node, remove, "NoExecute"))
		wk->taints = true;
}

/* processTaintBaseEviction, on the Ready condition as read: a node that
 * has the other status's taint has it swapped now; one without its
 * status's taint waits for its zone's limiter (markNodeForTainting); a
 * Ready one loses both. */
static void
process_taints(struct pass *ps, struct work *wk)
{
	const char *st = s0(wk->observed.status);
	dtime now = ps->w->now;

	if (!strcmp(st, "False")) {
		if (taint_find(&wk->node, TAINT_NODE_UNREACHABLE, "NoExecute"))
			swap_taint(wk, TAINT_NODE_NOT_READY,
				   TAINT_NODE_UNREACHABLE, now);
		else if (!taint_find(&wk->node, TAINT_NODE_NOT_READY,
				     "NoExecute"))
			wk->want_taint = true;
	} else if (!strcmp(st, "Unknown")) {
		if (taint_find(&wk->node, TAINT_NODE_NOT_READY, "NoExecute"))
			swap_taint(wk, TAINT_NODE_UNREACHABLE,
				   TAINT_NODE_NOT_READY, now);
		else if (!taint_find(&wk->node, TAINT_NODE_UNREACHABLE,
				     "NoExecute"))
			wk->want_taint = true;
	} else if (!strcmp(st, "True")) {
		mark_reachable(ps, wk);
	}
}

/* MarkPodsNotReady: the Ready condition of each pod on the node set
 * False where it is not already (a pod without one is left alone). */
static void
mark_pods_not_ready(struct pass *ps, struct work *wk)
{
	size_t i;

	for (i = 0; i < wk->npods; i++) {
		const struct pod *p = ps->pods[wk->first_pod + i];
		const struct condition *c =
		    condition_get(&p->status.conditions, "Ready");

		if (c && !status_is(c, "False"))
			pod_action(ps, NODELIFE_POD_NOT_READY, p);
	}
}

/* ---- disruption (handleDisruption) ---- */

/* ComputeZoneState over the zone's counted nodes. */
static enum nodelife_zone_state
zone_state(const struct nodelife_config *c, size_t ready, size_t not_ready)
{
	if (ready == 0 && not_ready > 0)
		return NODELIFE_ZONE_FULL_DISRUPTION;
	if (not_ready > 2 && (double)not_ready / (double)(not_ready + ready) >=
				 c->unhealthy_zone)
		return NODELIFE_ZONE_PARTIAL_DISRUPTION;
	return NODELIFE_ZONE_NORMAL;
}

static void
handle_disruption(struct pass *ps)
{
	struct nodelife_state *st = &ps->out->state;
	size_t nz = st->nzones, i, z;
	size_t *ready = xcalloc(nz + 1, sizeof(*ready));
	size_t *not_ready = xcalloc(nz + 1, sizeof(*not_ready));
	enum nodelife_zone_state *next = xcalloc(nz + 1, sizeof(*next));
	bool all_are = true, all_was = true;
	dtime now = ps->w->now;

	for (i = 0; i < ps->n; i++) {
		struct work *wk = &ps->nodes[i];

		if (strmap_get(&wk->node.metadata.labels,
			       LABEL_EXCLUDE_DISRUPTION))
			continue;
		if (status_is(
			condition_get(&wk->node.status.conditions, "Ready"),
			"True"))
			ready[wk->zone]++;
		else
			not_ready[wk->zone]++;
	}
	for (z = 0; z < nz; z++) {
		if (ready[z] + not_ready[z] == 0)
			continue; /* no node counted: not a zone this pass */
		next[z] = zone_state(ps->w->cfg, ready[z], not_ready[z]);
		if (next[z] != NODELIFE_ZONE_FULL_DISRUPTION)
			all_are = false;
		if (st->zones[z].state != NODELIFE_ZONE_FULL_DISRUPTION)
			all_was = false;
	}
	if (all_are && all_was)
		goto done; /* no change: every zone stays as it is */
	if (all_are) {
		/* "Controller detected that all Nodes are not-Ready.
		 * Entering master disruption mode." */
		for (i = 0; i < ps->n; i++)
			mark_reachable(ps, &ps->nodes[i]);
		for (z = 0; z < nz; z++) {
			if (ready[z] + not_ready[z] == 0)
				continue;
			limiter_swap(&st->zones[z], 0, now);
			st->zones[z].state = NODELIFE_ZONE_FULL_DISRUPTION;
		}
		ps->out->disruption = NODELIFE_DISRUPTION_ENTERED;
		goto done;
	}
	if (all_was) {
		/* "Exiting master disruption mode": every probe from now */
		for (i = 0; i < ps->n; i++) {
			ps->nodes[i].h.probe = now;
			ps->nodes[i].h.ready_transition = now;
		}
		ps->out->disruption = NODELIFE_DISRUPTION_EXITED;
	}
	for (z = 0; z < nz; z++) {
		if (ready[z] + not_ready[z] == 0 ||
		    (!all_was && st->zones[z].state == next[z]))
			continue;
		limiter_for_state(ps, &st->zones[z], ready[z] + not_ready[z],
				  next[z]);
		st->zones[z].state = next[z];
	}
done:
	free(ready);
	free(not_ready);
	free(next);
}

/* ---- the rate-limited taints (doNoExecuteTaintingPass) ---- */

static int
cmp_queued(const void *a, const void *b)
{
	const struct work *x = *(const struct work *const *)a;
	const struct work *y = *(const struct work *const *)b;

	if (x->h.ready_transition != y->h.ready_transition)
		return x->h.ready_transition < y->h.ready_transition ? -1 : 1;
	return strcmp(x->node.metadata.name, y->node.metadata.name);
}

/* Each zone's waiting nodes, longest not Ready first, while its limiter
 * gives tokens: the taint of the node's Ready status as it is now. */
static void
tainting_pass(struct pass *ps)
{
	struct nodelife_state *st = &ps->out->state;
	struct work **q = xcalloc(ps->n + 1, sizeof(*q));
	dtime now = ps->w->now;
	size_t z, i, nq;

	for (z = 0; z < st->nzones; z++) {
		struct nodelife_zone *zone = &st->zones[z];

		for (i = 0, nq = 0; i < ps->n; i++)
			if (ps->nodes[i].want_taint && ps->nodes[i].zone == z)
				q[nq++] = &ps->nodes[i];
		qsort(q, nq, sizeof(*q), cmp_queued);
		for (i = 0; i < nq; i++) {
			const struct condition *c = condition_get(
			    &q[i]->node.status.conditions, "Ready");

			if (!limiter_accept(zone, now)) {
				if (zone->qps > 0)
					recheck_in(ps, zone->next_token - now);
				break;
			}
			if (status_is(c, "False"))
				swap_taint(q[i], TAINT_NODE_NOT_READY,
					   TAINT_NODE_UNREACHABLE, now);
			else if (status_is(c, "Unknown"))
				swap_taint(q[i], TAINT_NODE_UNREACHABLE,
					   TAINT_NODE_NOT_READY, now);
		}
	}
	free(q);
}

/* ---- the NoSchedule taints of conditions (doNodeTaintingPass) ---- */

static const struct {
	const char *type, *status, *key;
} cond_taints[] = {
    {"Ready", "False", TAINT_NODE_NOT_READY},
    {"Ready", "Unknown", TAINT_NODE_UNREACHABLE},
    {"MemoryPressure", "True", "node.kubernetes.io/memory-pressure"},
    {"DiskPressure", "True", "node.kubernetes.io/disk-pressure"},
    {"NetworkUnavailable", "True", "node.kubernetes.io/network-unavailable"},
    {"PIDPressure", "True", "node.kubernetes.io/pid-pressure"},
};
#define NCOND_TAINTS (sizeof(cond_taints) / sizeof(cond_taints[0]))

/* The NoSchedule taints a node's conditions and spec.unschedulable call
 * for, added (timeAdded now) or removed so that the node has exactly
 * those among the keys the controller owns. */
static void
condition_taints(struct pass *ps, struct work *wk)
{
	struct node *n = &wk->node;
	bool want[NCOND_TAINTS + 1] = {false};
	size_t i;

	for (i = 0; i < NCOND_TAINTS; i++)
		want[i] = status_is(
		    condition_get(&n->status.conditions, cond_taints[i].type),
		    cond_taints[i].status);
	want[NCOND_TAINTS] = n->spec.unschedulable;
	for (i = 0; i <= NCOND_TAINTS; i++) {
		const char *key = i < NCOND_TAINTS ? cond_taints[i].key
						   : TAINT_NODE_UNSCHEDULABLE;

		if (want[i] ? taint_add(n, key, "NoSchedule", ps->w->now)
			    : taint_remove(n, key, "NoSchedule"))
			wk->taints = true;
	}
}

/* ---- the taint eviction controller ---- */

/* Every pod on a node with a NoExecute taint: deleted now if it does not
 * tolerate one, or once its shortest tolerationSeconds has run. */
static void
evict(struct pass *ps, struct work *wk)
{
	dtime now = ps->w->now;
	size_t i;

	if (!has_no_execute(&wk->node))
		return;
	for (i = 0; i < wk->npods; i++) {
		const struct pod *p = ps->pods[wk->first_pod + i];
		int64_t ms;
		dtime due;

		if (p->metadata.deletion_timestamp)
			continue; /* already going */
		ms = nodelife_toleration_ms(p, &wk->node);
		if (ms == NODELIFE_FOREVER)
			continue;
		due = ms < 0 ? now : toleration_start(p, &wk->node) + ms;
		if (due <= now)
			pod_action(ps, NODELIFE_POD_EVICT, p);
		else
			recheck_in(ps, due - now);
	}
}

/* ---- the pass ---- */

void
plan_nodelife(const struct nodelife_world *w, struct nodelife_plan *out)
{
	struct pass ps = {.w = w, .out = out, .recheck = -1};
	size_t i, nw;

	memset(out, 0, sizeof(*out));
	ps.n = w->nnodes;
	ps.nodes = xcalloc(ps.n + 1, sizeof(*ps.nodes));
	for (i = 0; i < ps.n; i++) {
		schema_copy(&schema_node, &ps.nodes[i].node, w->nodes[i]);
		ps.nodes[i].in = w->nodes[i];
	}
	qsort(ps.nodes, ps.n, sizeof(*ps.nodes), cmp_work);
	group_pods(&ps);
	sort_leases(&ps);
	zones_collect(&ps);
	for (i = 0; i < ps.n; i++) {
		struct work *wk = &ps.nodes[i];
		const struct condition *cur;
		bool added = saved_health(w, wk->node.metadata.name) == NULL;

		/* a node not known before: its NoExecute taints off */
		if (added)
			mark_reachable(&ps, wk);
		update_health(&ps, wk);
		process_taints(&ps, wk);
		cur = condition_get(&wk->node.status.conditions, "Ready");
		if (cur && !status_is(cur, "True")) {
			if (status_is(&wk->observed, "True"))
				wk->not_ready_event = true;
			mark_pods_not_ready(&ps, wk);
		}
	}
	handle_disruption(&ps);
	tainting_pass(&ps);
	for (i = 0; i < ps.n; i++) {
		condition_taints(&ps, &ps.nodes[i]);
		evict(&ps, &ps.nodes[i]);
	}
	/* out: the health records, the nodes to write */
	out->state.nodes = xcalloc(ps.n + 1, sizeof(*out->state.nodes));
	out->state.nnodes = ps.n;
	out->nodes = xcalloc(ps.n + 1, sizeof(*out->nodes));
	for (i = 0, nw = 0; i < ps.n; i++) {
		struct work *wk = &ps.nodes[i];

		out->state.nodes[i] = wk->h;
		out->state.nodes[i].name = xstrdup(wk->node.metadata.name);
		if (wk->status || wk->taints) {
			struct nodelife_node_write *nwr = &out->nodes[nw++];

			nwr->node = wk->node; /* moved */
			nwr->status = wk->status;
			nwr->taints = wk->taints;
			nwr->not_ready = wk->not_ready_event;
			nwr->cancelled = wk->cancelled;
		} else {
			schema_release(&schema_node, &wk->node);
		}
	}
	out->nnodes = nw;
	out->recheck_ms = ps.recheck;
	free(ps.nodes);
	free(ps.pods);
	free(ps.leases);
}

/* ---- DefaultTolerationSeconds ---- */

static void
add_toleration(struct pod_spec *spec, const char *key, int64_t seconds)
{
	struct toleration *t =
	    anylist_push((struct anylist *)&spec->tolerations, sizeof(*t));

	t->key = xstrdup(key);
	t->operator= xstrdup("Exists");
	t->effect = xstrdup("NoExecute");
	t->toleration_seconds = (struct opt_int){.set = true, .v = seconds};
}

void
pod_default_tolerations(struct pod_spec *spec, int64_t not_ready_s,
			int64_t unreachable_s)
{
	bool not_ready = false, unreachable = false;
	size_t i;

	for (i = 0; i < spec->tolerations.n; i++) {
		const struct toleration *t = &spec->tolerations.v[i];
		bool effect =
		    !*s0(t->effect) || !strcmp(t->effect, "NoExecute");

		if (effect &&
		    (!*s0(t->key) || !strcmp(t->key, TAINT_NODE_NOT_READY)))
			not_ready = true;
		if (effect &&
		    (!*s0(t->key) || !strcmp(t->key, TAINT_NODE_UNREACHABLE)))
			unreachable = true;
	}
	if (!not_ready && not_ready_s >= 0)
		add_toleration(spec, TAINT_NODE_NOT_READY, not_ready_s);
	if (!unreachable && unreachable_s >= 0)
		add_toleration(spec, TAINT_NODE_UNREACHABLE, unreachable_s);
}
