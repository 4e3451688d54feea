/* placement.c - node filters and scores for one pod (see placement.h):
 * the part of kube-scheduler's default profile that means something for
 * processes on hosts (NodeUnschedulable, NodeAffinity's nodeSelector,
 * TaintToleration filter and score, and a least-pods spread), with the
 * scheduler's failure message.
 *
 * Worked example. A pod with nodeSelector {disk: ssd} and no
 * tolerations, three Ready nodes:
 *
 *   a  labels {disk: ssd}  taint {dedicated=db: NoSchedule}  -> filtered
 *   b  labels {disk: ssd}  taint {spot: PreferNoSchedule}, 1 pod
 *   c  labels {disk: ssd}  no taints, 4 pods
 *
 * b and c pass; c wins, because fewer untolerated PreferNoSchedule
 * taints (0 < 1) beats fewer pods. Without the taint on b, b would win
 * (1 pod < 4), and with equal counts the smaller name would. If c were
 * cordoned (unschedulable) and b had a's NoSchedule taint too, the pod
 * would stay Pending with
 *
 *   0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s)
 *   had untolerated taint {dedicated: db}.
 *
 * With in->ports, a node that passes those filters must also have the
 * host ports the pod declares free (NodePorts): a pod declaring
 * hostPort 8000 on one node where another pod holds TCP 8000 stays
 * Pending with "0/1 nodes are available: 1 node(s) didn't have free
 * ports for the requested pod ports.".
 *
 * With in->used, a node that passes those filters must also have room
 * for the pod's requests (fit.c): two Ready nodes with allocatable cpu 2,
 * each with 2 cpu already requested, leave a pod requesting 500m Pending
 * with "0/2 nodes are available: 2 Insufficient cpu.". A node short of
 * both cpu and memory counts under both reasons, as in kube-scheduler.
 *
 * Differences from kube-scheduler: the reasons come in a fixed order
 * (not ready, unschedulable, selector, taint, ports,
 * cpu, memory, pods) rather than sorted by
 * text; all untolerated-taint nodes are counted under the first such
 * taint seen; a node that is not Ready is its own reason (Kubernetes
 * expresses it as the node.kubernetes.io/not-ready taint); node
 * affinity rules (spec.affinity) are kept but not evaluated. */
#include <stdlib.h>
#include <string.h>

#include "labels.h"
#include "placement.h"

/* NULL as "": absent and empty are the same value in Go. */
static const char *
s0(const char *s)
{
	return s ? s : "";
}

/* Toleration.ToleratesTaint (k8s.io/api/core/v1/toleration.go): an empty
 * effect matches every effect, an empty key every key; operator Exists
 * ignores the value, Equal (or empty) needs equal values, any other
 * operator matches nothing. Examples against the taint {dedicated=db:
 * NoSchedule}:
 *   {key: dedicated, operator: Exists}                 tolerates
 *   {key: dedicated, value: db}                        tolerates
 *   {key: dedicated, value: web}                       does not
 *   {operator: Exists}                                 tolerates all
 *   {key: dedicated, operator: Exists, effect: NoExecute}  does not
 * Kubernetes' validation requires Exists when the key is empty; drover's
 * validation does not, and an empty key with Equal here matches every
 * taint whose value equals the toleration's. */
bool
toleration_matches(const struct toleration *t, const struct taint *taint)
{
	const char *op = s0(t->operator);

	if (*s0(t->effect) && strcmp(t->effect, s0(taint->effect)))
		return false;
	if (*s0(t->key) && strcmp(t->key, s0(taint->key)))
		return false;
	if (!strcmp(op, "Exists"))
		return true;
	if (*op && strcmp(op, "Equal"))
		return false;
	return !strcmp(s0(t->value), s0(taint->value));
}

/* Any of the pod's tolerations tolerates the taint. */
static bool
tolerated(const struct pod *p, const struct taint *taint)
{
	size_t i;

	for (i = 0; i < p->spec.tolerations.n; i++)
		if (toleration_matches(&p->spec.tolerations.v[i], taint))
			return true;
	return false;
}

/* The node's Ready condition is True (the agent's heartbeat keeps it so;
 * a missing condition is not ready). */
bool
node_is_ready(const struct node *n)
{
	const struct condition *c =
	    condition_get(&n->status.conditions, "Ready");

	return c && c->status && !strcmp(c->status, "True");
}

/* Why a node was filtered out; counted per reason for the message. */
enum why {
	WHY_NOT_READY,
	WHY_UNSCHEDULABLE,
	WHY_SELECTOR,
	WHY_TAINT,
	WHY_PORTS, /* NodePorts */
	WHY_CPU,   /* NodeResourcesFit: a node may have all three */
	WHY_MEMORY,
	WHY_PODS,
	WHY_N,
};

/* One pass over the nodes: the filters in a fixed order (Ready,
 * unschedulable, nodeSelector, taints; the first that fails is the
 * node's one reason: kube-scheduler runs TaintToleration before
 * NodeAffinity, so a node failing both is counted under the taint
 * there and under the selector here), then a lexicographic score
 * (PreferNoSchedule count, pods already on the node, name), keeping the
 * best node seen so far. The ordering is total (names are unique), so
 * the choice does not depend on the order of in->nodes. why is appended
 * to only when no node fits, and only if the caller passed one. */
const struct node *
sched_pick(const struct sched_in *in, struct strbuf *why)
{
	/* A cordoned node behaves as if it carried this taint: the pods of
	 * DaemonSet-like workloads tolerate it (NodeUnschedulable plugin). */
	static const struct taint unsched = {
	    .key = "node.kubernetes.io/unschedulable", .effect = "NoSchedule"};
	const struct node *best = NULL;
	int64_t best_pref = 0, best_pods = 0;
	size_t counts[WHY_N] = {0}, i, j;
	const struct taint *first_taint = NULL;
	struct res_amount req;
	struct host_port *want = NULL;
	size_t nwant =
	    in->ports ? fit_pod_host_ports(&in->pod->spec, &want) : 0;

	fit_pod_request(&in->pod->spec, &req);
	for (i = 0; i < in->nnodes; i++) {
		const struct node *n = in->nodes[i];
		int64_t pref = 0, pods = 0;
		const struct taint *bad = NULL;

		if (!node_is_ready(n)) {
			counts[WHY_NOT_READY]++;
			continue;
		}
		if (n->spec.unschedulable && !tolerated(in->pod, &unsched)) {
			counts[WHY_UNSCHEDULABLE]++;
			continue;
		}
		if (!labels_subset(&in->pod->spec.node_selector,
				   &n->metadata.labels)) {
			counts[WHY_SELECTOR]++;
			continue;
		}
		for (j = 0; j < n->spec.taints.n; j++) {
			const struct taint *t = &n->spec.taints.v[j];

			if (tolerated(in->pod, t))
				continue;
			/* a preference, not a filter: counts against the
			 * node in the score */
			if (!strcmp(s0(t->effect), "PreferNoSchedule"))
				pref++;
			/* NoSchedule or NoExecute: the node is out;
				 * keep the first such taint for the message */
			else if (bad == NULL)
				bad = t;
		}
		if (bad) {
			counts[WHY_TAINT]++;
			if (first_taint == NULL)
				first_taint = bad;
			continue;
		}
		if (nwant && fit_ports_conflict(want, nwant, in->ports[i].v,
						in->ports[i].n)) {
			counts[WHY_PORTS]++;
			continue;
		}
		if (in->used) {
			struct res_amount alloc;
			unsigned r;

			fit_node_allocatable(n, &alloc);
			r = fit_check(&req, &in->used[i], &alloc);
			counts[WHY_CPU] += (r & FIT_CPU) != 0;
			counts[WHY_MEMORY] += (r & FIT_MEMORY) != 0;
			counts[WHY_PODS] += (r & FIT_PODS) != 0;
			if (r)
				continue;
		}
		pods = in->pods_on ? in->pods_on[i] : 0;
		if (best == NULL || pref < best_pref ||
		    (pref == best_pref &&
		     (pods < best_pods ||
		      (pods == best_pods &&
		       strcmp(s0(n->metadata.name), s0(best->metadata.name)) <
			   0)))) {
			best = n;
			best_pref = pref;
			best_pods = pods;
		}
	}
	free(want);
	if (best || why == NULL)
		return best;
	strbuf_addf(why, "0/%zu nodes are available", in->nnodes);
	if (in->nnodes == 0) {
		strbuf_addstr(why, ": no nodes registered");
		return NULL;
	}
	/* j counts the reasons written so far: every one after the first
	 * is preceded by a comma. */
	strbuf_addch(why, ':');
	j = 0;
	if (counts[WHY_NOT_READY])
		strbuf_addf(why, "%s %zu node(s) were not ready",
			    j++ ? "," : "", counts[WHY_NOT_READY]);
	if (counts[WHY_UNSCHEDULABLE])
		strbuf_addf(why, "%s %zu node(s) were unschedulable",
			    j++ ? "," : "", counts[WHY_UNSCHEDULABLE]);
	if (counts[WHY_SELECTOR])
		strbuf_addf(why,
			    "%s %zu node(s) didn't match Pod's node "
			    "affinity/selector",
			    j++ ? "," : "", counts[WHY_SELECTOR]);
	if (counts[WHY_TAINT])
		strbuf_addf(why,
			    "%s %zu node(s) had untolerated taint {%s: %s}",
			    j++ ? "," : "", counts[WHY_TAINT],
			    s0(first_taint->key), s0(first_taint->value));
	if (counts[WHY_PORTS])
		strbuf_addf(why,
			    "%s %zu node(s) didn't have free ports for the "
			    "requested pod ports",
			    j++ ? "," : "", counts[WHY_PORTS]);
	if (counts[WHY_CPU])
		strbuf_addf(why, "%s %zu Insufficient cpu", j++ ? "," : "",
			    counts[WHY_CPU]);
	if (counts[WHY_MEMORY])
		strbuf_addf(why, "%s %zu Insufficient memory", j++ ? "," : "",
			    counts[WHY_MEMORY]);
	if (counts[WHY_PODS])
		strbuf_addf(why, "%s %zu Too many pods", j++ ? "," : "",
			    counts[WHY_PODS]);
	strbuf_addch(why, '.');
	return NULL;
}
