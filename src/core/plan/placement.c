/* placement.c - node filters and scores for one pod (see placement.h):
 * the part of kube-scheduler's default profile that means something for
 * processes on hosts (NodeUnschedulable, NodeAffinity with nodeSelector
 * and the required and preferred node affinity terms, TaintToleration
 * filter and score, a spread of each owner's pods, NodeResourcesFit with
 * the least-allocated score), with the scheduler's failure message.
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
 * Required node affinity filters like nodeSelector and is counted under
 * the same reason: a pod requiring zone In [z1, z2] on three nodes
 * labelled zone=z3 stays Pending with "0/3 nodes are available: 3
 * node(s) didn't match Pod's node affinity/selector.".
 *
 * The owner spread. A Deployment's pods (owned by one ReplicaSet) are
 * placed one after another on nodes a, b, c that already hold 3, 0 and 1
 * pods of other owners, nothing requested. Each pick takes the node with
 * the fewest pods of that ReplicaSet, then the fewest pods at all:
 *
 *   pick  owner's pods a/b/c  all pods a/b/c  chosen
 *    1        0/0/0             3/0/1           b
 *    2        0/1/0             3/1/1           c
 *    3        0/1/1             3/1/2           a
 *    4        1/1/1             4/1/2           b
 *    5        1/2/1             4/2/2           c
 *    6        1/2/2             4/2/3           a
 *
 * 2/2/2, where the count of all pods alone would have given the
 * ReplicaSet 1/3/2 (b, b on the name, c, b on the name, c, a).
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
 * Differences from kube-scheduler: the scores are compared in a fixed
 * order (the first that differs decides) rather than weighted and
 * summed; the reasons come in a fixed order (not ready, unschedulable,
 * selector, taint, ports, cpu, memory, pods) rather than sorted by
 * text; all untolerated-taint nodes are counted under the first such
 * taint seen; a node that is not Ready is its own reason (Kubernetes
 * expresses it as the node.kubernetes.io/not-ready taint); the spread
 * counts the pods of the same controller (kube-scheduler's default
 * topology spread counts the pods its Services and workloads select);
 * the least-allocated score uses the requests as written (kube-scheduler
 * counts 100m cpu and 200Mi for a container requesting nothing);
 * podAffinity and podAntiAffinity are kept but not evaluated. */
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

/* Go's strconv.ParseInt(s, 10, 64): an optional sign, then decimal
 * digits, nothing else, no overflow. Returns false if s is not one. */
static bool
parse_int64(const char *s, int64_t *out)
{
	bool neg = false;
	uint64_t v = 0, lim;

	if (s == NULL)
		return false;
	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	if (*s == '\0')
		return false;
	lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		if (v > (lim - (uint64_t)(*s - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

static bool
in_values(const struct strlist *l, const char *v)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(s0(l->v[i]), v))
			return true;
	return false;
}

/* labels.Requirement.Matches for a node label. With the label
 * zone=z1 and gen=3:
 *   zone In [z1 z2]      true      zone NotIn [z1]     false
 *   rack NotIn [r1]      true      rack DoesNotExist   true
 *   zone Exists          true      gen Gt [2]          true
 *   gen Lt [3]           false     zone Gt [2]         false (not a number)
 * An unknown operator matches nothing (the API refuses it). */
static bool
label_req_matches(const struct node_selector_req *r, const struct strmap *l)
{
	const char *op = s0(r->operator);
	const char *v = strmap_get(l, s0(r->key));
	int64_t have, want;

	if (!strcmp(op, "In"))
		return v && in_values(&r->values, v);
	if (!strcmp(op, "NotIn"))
		return !v || !in_values(&r->values, v);
	if (!strcmp(op, "Exists"))
		return v != NULL;
	if (!strcmp(op, "DoesNotExist"))
		return v == NULL;
	if (strcmp(op, "Gt") && strcmp(op, "Lt"))
		return false;
	if (v == NULL || r->values.n != 1 || !parse_int64(v, &have) ||
	    !parse_int64(r->values.v[0], &want))
		return false;
	return *op == 'G' ? have > want : have < want;
}

/* A matchFields requirement: metadata.name In or NotIn one value. Any
 * other key or operator is an error in Kubernetes' selector, which
 * matches nothing. */
static bool
field_req_matches(const struct node_selector_req *r, const struct node *n)
{
	const char *op = s0(r->operator);

	if (strcmp(s0(r->key), "metadata.name") || r->values.n != 1)
		return false;
	if (!strcmp(op, "In"))
		return !strcmp(s0(r->values.v[0]), s0(n->metadata.name));
	if (!strcmp(op, "NotIn"))
		return strcmp(s0(r->values.v[0]), s0(n->metadata.name)) != 0;
	return false;
}

/* Every requirement of the term holds; an empty term matches nothing
 * (component-helpers' nodeaffinity: "nil or empty term selects no
 * objects"). */
static bool
term_matches(const struct node_selector_term *t, const struct node *n)
{
	size_t i;

	if (t->match_expressions.n == 0 && t->match_fields.n == 0)
		return false;
	for (i = 0; i < t->match_expressions.n; i++)
		if (!label_req_matches(&t->match_expressions.v[i],
				       &n->metadata.labels))
			return false;
	for (i = 0; i < t->match_fields.n; i++)
		if (!field_req_matches(&t->match_fields.v[i], n))
			return false;
	return true;
}

bool
node_selector_matches(const struct node_selector *ns, const struct node *n)
{
	size_t i;

	for (i = 0; i < ns->node_selector_terms.n; i++)
		if (term_matches(&ns->node_selector_terms.v[i], n))
			return true;
	return false;
}

bool
node_affinity_matches(const struct pod_spec *spec, const struct node *n)
{
	const struct node_affinity *na =
	    spec->affinity ? spec->affinity->node_affinity : NULL;

	if (!labels_subset(&spec->node_selector, &n->metadata.labels))
		return false;
	return na == NULL || na->required == NULL ||
	       node_selector_matches(na->required, n);
}

/* Two preferred terms, weight 80 for disk=ssd and 20 for zone=z1: a node
 * labelled both scores 100, one with only disk=ssd 80, one with neither
 * 0. */
int64_t
node_affinity_preferred(const struct pod_spec *spec, const struct node *n)
{
	const struct node_affinity *na =
	    spec->affinity ? spec->affinity->node_affinity : NULL;
	int64_t sum = 0;
	size_t i;

	for (i = 0; na && i < na->preferred.n; i++)
		if (term_matches(&na->preferred.v[i].preference, n))
			sum += na->preferred.v[i].weight;
	return sum;
}

/* leastRequestedScore of one resource: (capacity - requested) * 100 /
 * capacity, 0 when nothing is allocatable or the request is more than
 * it. Examples: 4 cpu allocatable, 1 requested: 75; 1Gi, 768Mi: 25. */
static int64_t
least_requested(int64_t requested, int64_t capacity)
{
	if (capacity <= 0 || requested > capacity)
		return 0;
	if (capacity > INT64_MAX / 100) /* 92 PB: no overflow, near enough */
		return (capacity - requested) / (capacity / 100);
	return (capacity - requested) * 100 / capacity;
}

/* NodeResourcesLeastAllocated with cpu and memory weighted 1 each: a
 * node of 4 cpu and 1Gi with 1 cpu and 256Mi requested, for a pod
 * requesting 1 cpu and 256Mi: cpu (4-2)*100/4 = 50, memory
 * (1024-512)*100/1024 = 50, score (50+50)/2 = 50. An empty node of the
 * same size scores (75+75)/2 = 75 and is preferred. */
int64_t
least_allocated_score(const struct res_amount *req,
		      const struct res_amount *used,
		      const struct res_amount *alloc)
{
	return (least_requested(used->milli_cpu + req->milli_cpu,
				alloc->milli_cpu) +
		least_requested(used->memory + req->memory, alloc->memory)) /
	       2;
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

/* The score of one node that passed the filters: compared key by key,
 * the first that differs decides (score_better). */
struct score {
	int64_t taints;   /* untolerated PreferNoSchedule taints: fewer */
	int64_t affinity; /* preferred node affinity weights: more */
	int64_t owner;    /* pods of the same owner there: fewer */
	int64_t least;    /* least allocated, 0..100: more */
	int64_t pods;     /* pods there: fewer */
	const char *name; /* smaller */
};

static bool
score_better(const struct score *a, const struct score *b)
{
	if (a->taints != b->taints)
		return a->taints < b->taints;
	if (a->affinity != b->affinity)
		return a->affinity > b->affinity;
	if (a->owner != b->owner)
		return a->owner < b->owner;
	if (a->least != b->least)
		return a->least > b->least;
	if (a->pods != b->pods)
		return a->pods < b->pods;
	return strcmp(a->name, b->name) < 0;
}

/* One pass over the nodes: the filters in a fixed order (Ready,
 * unschedulable, nodeSelector and required node affinity, taints; the
 * first that fails is the node's one reason: kube-scheduler runs
 * TaintToleration before NodeAffinity, so a node failing both is
 * counted under the taint there and under the selector here), then the
 * score (struct score), keeping the best node seen so far. The ordering
 * is total (names are unique), so the choice does not depend on the
 * order of in->nodes. why is appended to only when no node fits, and
 * only if the caller passed one. */
const struct node *
sched_pick(const struct sched_in *in, struct strbuf *why)
{
	/* A cordoned node behaves as if it carried this taint: the pods of
	 * DaemonSet-like workloads tolerate it (NodeUnschedulable plugin). */
	static const struct taint unsched = {
	    .key = "node.kubernetes.io/unschedulable", .effect = "NoSchedule"};
	const struct node *best = NULL;
	struct score best_score = {0};
	size_t counts[WHY_N] = {0}, i, j;
	const struct taint *first_taint = NULL;
	struct res_amount req;
	struct host_port *want = NULL;
	size_t nwant =
	    in->ports ? fit_pod_host_ports(&in->pod->spec, &want) : 0;

	fit_pod_request(&in->pod->spec, &req);
	for (i = 0; i < in->nnodes; i++) {
		const struct node *n = in->nodes[i];
		struct score sc = {.name = s0(n->metadata.name)};
		const struct taint *bad = NULL;

		if (!node_is_ready(n)) {
			counts[WHY_NOT_READY]++;
			continue;
		}
		if (n->spec.unschedulable && !tolerated(in->pod, &unsched)) {
			counts[WHY_UNSCHEDULABLE]++;
			continue;
		}
		if (!node_affinity_matches(&in->pod->spec, n)) {
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
				sc.taints++;
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
			sc.least =
			    least_allocated_score(&req, &in->used[i], &alloc);
		}
		sc.affinity = node_affinity_preferred(&in->pod->spec, n);
		sc.pods = in->pods_on ? in->pods_on[i] : 0;
		sc.owner = in->owner_on ? in->owner_on[i] : sc.pods;
		if (best == NULL || score_better(&sc, &best_score)) {
			best = n;
			best_score = sc;
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
