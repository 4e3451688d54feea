/* nodelifecycle.c - the node lifecycle controller and the taint eviction
 * controller of kube-controller-manager, as one shell over
 * plan_nodelife() (src/core/plan/plan_nodelife.h).
 *
 * One key, "nodes": a pass looks at every node. It runs every
 * --node-monitor-period (5 s), sooner when the planner asks (a grace
 * period, a toleration or a limiter token to come), and when a node
 * changes or a pod changes on a node that is not Ready or is tainted
 * NoExecute. A Lease renewal does not start a pass: the passes sample
 * the Leases, as Kubernetes' monitorNodeHealth does. A pass costs what
 * the nodes are (50 ms of copies at 1,000 nodes), so a change starts
 * one no sooner than PASS_SPACING times the last pass's cost after its
 * end: at most a tenth of the loop's time goes to passes started by
 * changes, and the planner's rechecks are spaced the same way. With 3
 * nodes that is microseconds, at once; at 1,000 nodes joining or going
 * Unknown together, back-to-back passes took 90% of the control plane's
 * CPU, the Lease renewals waited behind them, and more nodes went
 * Unknown.
 *
 * What the controller saw of each node (the probe times) lives here,
 * between passes, and starts empty with the controller: after a restart
 * every node has the grace period again.
 *
 * A pass writes, in order: each changed node's status (Ready Unknown)
 * through /status, then its taints (a PUT of the Node, the
 * resourceVersion of the status write: a conflict is retried at the
 * next pass); then each pod's Ready False (a status patch), and the
 * evictions: the DisruptionTarget condition (DeletionByTaintManager),
 * then a DELETE with the pod's own grace period, which the agent of the
 * node finishes when it returns. Events: NodeNotReady on the node
 * ("Node b status is now: NodeNotReady") and on each pod marked not
 * ready ("Node is not ready"), from node-controller; TaintManagerEviction
 * ("Marking for deletion Pod ns/name", "Cancelling deletion of Pod
 * ns/name") from taint-eviction-controller. */
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "informer.h"
#include "kube.h"
#include "log.h"
#include "placement.h"
#include "plan_nodelife.h"
#include "pod_status.h"
#include "queue.h"
#include "xalloc.h"

#define KEY          "nodes"
#define PASS_SPACING 10

struct ctl_nodelife {
	struct ctl_config cfg;
	struct queue *q;
	uint64_t pass_end, pass_cost; /* the last pass's, uv_hrtime() ns */
	uv_timer_t *later;            /* a pass a change asked for */
	struct nodelife_state state;  /* the previous pass's */
	struct recorder *rec;         /* "node-controller"; NULL: none */
	struct recorder *taint_rec;   /* "taint-eviction-controller" */
};

static void
free_timer(uv_handle_t *h)
{
	free(h);
}

static void
on_later(uv_timer_t *t)
{
	queue_add(((struct ctl_nodelife *)t->data)->q, KEY);
}

/* A change asks for a pass: at once, or PASS_SPACING times the last
 * pass's cost after it ended. */
static void
want_pass(struct ctl_nodelife *c)
{
	uint64_t now = uv_hrtime(),
		 at = c->pass_end + c->pass_cost * PASS_SPACING;

	if (now >= at) {
		queue_add(c->q, KEY);
		return;
	}
	if (!uv_is_active((uv_handle_t *)c->later))
		uv_timer_start(c->later, on_later, (at - now) / 1000000 + 1, 0);
}

static void
on_node(void *arg, json_t *ev)
{
	(void)ev;
	want_pass(arg);
}

static bool
node_needs_pods(const struct node *n)
{
	size_t i;

	if (!node_is_ready(n))
		return true;
	for (i = 0; i < n->spec.taints.n; i++)
		if (n->spec.taints.v[i].effect &&
		    !strcmp(n->spec.taints.v[i].effect, "NoExecute"))
			return true;
	return false;
}

/* A pod's change matters when its node is not Ready or tainted
 * NoExecute (a pod bound there, tolerations changed). */
static void
on_pod(void *arg, json_t *ev)
{
	struct ctl_nodelife *c = arg;
	json_t *spec = json_object_get(json_object_get(ev, "object"), "spec");
	const char *node = json_string_value(json_object_get(spec, "nodeName"));
	const struct object *no;

	if (node == NULL || *node == '\0' ||
	    (no = informer_find(c->cfg.nodes, NULL, node)) == NULL)
		return;
	if (node_needs_pods(no->obj))
		want_pass(c);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The pods the pass may act on: those of nodes that are not Ready, are
 * tainted NoExecute, or whose grace may have run out (all of them, when
 * any node might be marked now: the planner decides). With every node
 * healthy, none: a cluster of many pods costs nothing per pass. */
static size_t
gather_pods(struct ctl_nodelife *c, struct node **nodes, size_t nn,
	    struct pod ***out)
{
	const char **want = xcalloc(nn + 1, sizeof(*want));
	struct object **l;
	size_t i, n, nw = 0, np = 0;
	dtime now = c->cfg.now();

	for (i = 0; i < nn; i++) {
		const struct nodelife_health *h =
		    nodelife_state_find(&c->state, nodes[i]->metadata.name);

		if (node_needs_pods(nodes[i]) || h == NULL ||
		    now >= h->probe + c->cfg.nodelife.grace_ms)
			want[nw++] = nodes[i]->metadata.name;
	}
	*out = NULL;
	if (nw == 0) {
		free(want);
		return 0;
	}
	qsort(want, nw, sizeof(*want), cmp_str);
	n = informer_list(c->cfg.pods, NULL, &l);
	*out = xcalloc(n + 1, sizeof(**out));
	for (i = 0; i < n; i++) {
		struct pod *p = l[i]->obj;

		if (p->spec.node_name && *p->spec.node_name &&
		    bsearch(&p->spec.node_name, want, nw, sizeof(*want),
			    cmp_str))
			(*out)[np++] = p;
	}
	free(l);
	free(want);
	return np;
}

/* The typed objects of an informer (ns NULL: all), NULL-ended; the
 * caller frees the array. */
static void *
typed(struct informer *inf, const char *ns, size_t *n)
{
	struct object **l;
	void **v;
	size_t i;

	*n = informer_list(inf, ns, &l);
	v = xcalloc(*n + 1, sizeof(*v));
	for (i = 0; i < *n; i++)
		v[i] = l[i]->obj;
	free(l);
	return v;
}

/* A node's writes: the status, then the taints. 0, or -1 to retry. */
static int
write_node(struct ctl_nodelife *c, struct nodelife_node_write *w)
{
	struct object o = {kind_by_id(KIND_NODE), &w->node};
	const char *name = w->node.metadata.name;
	int st;

	if (w->status) {
		st = kube_update(c->cfg.client, &o, "status");
		if (st != 200) {
			log_warn("nodelifecycle: node %s: write status: "
				 "HTTP %d",
				 name, st);
			return -1;
		}
		log_info(
		    "nodelifecycle: node %s: Ready %s (no heartbeat "
		    "within %lld ms)",
		    name,
		    condition_get(&w->node.status.conditions, "Ready")->status,
		    (long long)c->cfg.nodelife.grace_ms);
	}
	if (w->not_ready && c->rec)
		event_record_object(c->rec, &o, NULL, "Normal", "NodeNotReady",
				    "Node %s status is now: NodeNotReady",
				    name);
	if (w->taints) {
		struct strbuf sb = STRBUF_INIT;
		size_t i;

		st = kube_update(c->cfg.client, &o, NULL);
		if (st != 200) {
			log_warn("nodelifecycle: node %s: write taints: HTTP "
				 "%d",
				 name, st);
			return -1;
		}
		for (i = 0; i < w->node.spec.taints.n; i++)
			strbuf_addf(&sb, "%s%s:%s", i ? ", " : "",
				    w->node.spec.taints.v[i].key,
				    w->node.spec.taints.v[i].effect);
		log_info("nodelifecycle: node %s: taints now [%s]", name,
			 sb.buf);
		strbuf_release(&sb);
	}
	return 0;
}

/* The taint manager's addConditionAndDeletePod. */
static int
evict_pod(struct ctl_nodelife *c, const struct pod *p)
{
	struct object o = {kind_by_id(KIND_POD), (void *)p};
	const struct condition *cur =
	    condition_get(&p->status.conditions, "DisruptionTarget");
	int st;

	if (c->taint_rec)
		event_record_object(c->taint_rec, &o, NULL, "Normal",
				    "TaintManagerEviction",
				    "Marking for deletion Pod %s/%s",
				    p->metadata.namespace, p->metadata.name);
	if (cur == NULL || !cur->status || strcmp(cur->status, "True")) {
		struct pod_status ns;
		struct condition dt = {
		    .type = "DisruptionTarget",
		    .status = "True",
		    .reason = "DeletionByTaintManager",
		    .message = "Taint manager: deleting due to NoExecute taint",
		    .last_transition_time = c->cfg.now(),
		};

		schema_copy(kind_status_schema(o.k), &ns, &p->status);
		condition_remove(&ns.conditions, "DisruptionTarget");
		condition_append(&ns.conditions, &dt);
		st = kube_patch_status(c->cfg.client, &o, &ns);
		schema_release(kind_status_schema(o.k), &ns);
		if (st == 404)
			return 0;
		if (st != 200 && st != -1)
			return -1;
	}
	st = kube_delete(c->cfg.client, KIND_POD, p->metadata.namespace,
			 p->metadata.name);
	if (st != 200 && st != 202 && st != 404) {
		log_warn("nodelifecycle: delete pod %s/%s: HTTP %d",
			 p->metadata.namespace, p->metadata.name, st);
		return -1;
	}
	log_info("nodelifecycle: pod %s/%s on node %s: deleted (NoExecute "
		 "taint not tolerated)",
		 p->metadata.namespace, p->metadata.name, p->spec.node_name);
	return 0;
}

/* MarkPodsNotReady for one pod. */
static int
pod_not_ready(struct ctl_nodelife *c, const struct pod *p)
{
	struct object o = {kind_by_id(KIND_POD), (void *)p};
	struct pod_status ns;
	int st;

	schema_copy(kind_status_schema(o.k), &ns, &p->status);
	pod_condition_set(&ns.conditions, "Ready", false, c->cfg.now());
	st = kube_patch_status(c->cfg.client, &o, &ns);
	schema_release(kind_status_schema(o.k), &ns);
	if (st == 404 || st == -1)
		return 0;
	if (st != 200)
		return -1;
	if (c->rec)
		event_record_object(c->rec, &o, NULL, "Warning", "NodeNotReady",
				    "Node is not ready");
	return 0;
}

static int
sync_nodes(void *arg, const char *key, int64_t *requeue)
{
	struct ctl_nodelife *c = arg;
	struct nodelife_world w = {0};
	struct nodelife_plan out;
	void *nodes, *leases;
	struct pod **pods;
	size_t i;
	int r = 0;
	uint64_t began = uv_hrtime();
	int64_t spacing_ms;

	w.nodes = nodes = typed(c->cfg.nodes, NULL, &w.nnodes);
	w.leases = leases =
	    typed(c->cfg.leases, NODE_LEASE_NAMESPACE, &w.nleases);
	w.npods = gather_pods(c, nodes, w.nnodes, &pods);
	w.pods = pods;
	w.cfg = &c->cfg.nodelife;
	w.state = &c->state;
	w.now = c->cfg.now();
	plan_nodelife(&w, &out);
	/* the observations stand whatever the writes do */
	nodelife_state_release(&c->state);
	c->state = out.state;
	memset(&out.state, 0, sizeof(out.state));
	if (out.disruption == NODELIFE_DISRUPTION_ENTERED)
		log_warn("nodelifecycle: every node is not Ready: entering "
			 "full disruption mode (no taint, no eviction)");
	else if (out.disruption == NODELIFE_DISRUPTION_EXITED)
		log_info("nodelifecycle: some nodes are Ready: leaving full "
			 "disruption mode");
	for (i = 0; i < out.nnodes; i++)
		if (write_node(c, &out.nodes[i]))
			r = -1;
	for (i = 0; i < out.npods; i++) {
		const struct pod *p = out.pods[i].pod;
		struct object o = {kind_by_id(KIND_POD), (void *)p};

		switch (out.pods[i].op) {
		case NODELIFE_POD_NOT_READY:
			if (pod_not_ready(c, p))
				r = -1;
			break;
		case NODELIFE_POD_EVICT:
			if (evict_pod(c, p))
				r = -1;
			break;
		case NODELIFE_POD_CANCEL:
			if (c->taint_rec)
				event_record_object(
				    c->taint_rec, &o, NULL, "Normal",
				    "TaintManagerEviction",
				    "Cancelling deletion of Pod %s/%s",
				    p->metadata.namespace, p->metadata.name);
			break;
		}
	}
	/* again at the monitor period, or sooner if the plan says */
	*requeue = c->cfg.node_monitor_period_ms;
	if (out.recheck_ms >= 0 && out.recheck_ms < *requeue)
		*requeue = out.recheck_ms;
	plan_nodelife_release(&out);
	free(nodes);
	free(leases);
	free(pods);
	c->pass_end = uv_hrtime();
	c->pass_cost = c->pass_end - began;
	/* a recheck is spaced as a change is: with 1,000 nodes each grace
	 * and toleration ends at its own time, and a pass for each took
	 * half of the control plane's CPU */
	spacing_ms = (int64_t)(c->pass_cost * PASS_SPACING / 1000000);
	if (*requeue < spacing_ms)
		*requeue = spacing_ms;
	return r;
}

struct ctl_nodelife *
ctl_nodelife_start(const struct ctl_config *cfg)
{
	struct ctl_nodelife *c = xcalloc(1, sizeof(*c));

	c->cfg = *cfg;
	if (c->cfg.nodelife.grace_ms <= 0)
		nodelife_config_default(&c->cfg.nodelife);
	if (c->cfg.node_monitor_period_ms <= 0)
		c->cfg.node_monitor_period_ms = NODELIFE_MONITOR_PERIOD_MS;
	c->q = queue_new(cfg->loop, "nodelifecycle", sync_nodes, c);
	c->later = xcalloc(1, sizeof(*c->later));
	uv_timer_init(cfg->loop, c->later);
	c->later->data = c;
	queue_set_settle(c->q, cfg->settle, cfg->settle_arg);
	c->rec =
	    event_broadcaster_recorder(cfg->events, "node-controller", NULL);
	c->taint_rec = event_broadcaster_recorder(
	    cfg->events, "taint-eviction-controller", NULL);
	informer_subscribe(cfg->nodes, on_node, c);
	informer_subscribe(cfg->pods, on_pod, c);
	return c;
}

void
ctl_nodelife_stop(struct ctl_nodelife *c)
{
	if (c == NULL)
		return;
	informer_unsubscribe(c->cfg.nodes, c);
	informer_unsubscribe(c->cfg.pods, c);
	queue_free(c->q);
	uv_close((uv_handle_t *)c->later, free_timer);
	nodelife_state_release(&c->state);
	free(c);
}

void
ctl_nodelife_resync(struct ctl_nodelife *c)
{
	queue_add(c->q, KEY);
}
