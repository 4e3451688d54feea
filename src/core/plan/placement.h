/* placement.h - pick a node for a pod (the filters and scores of Kubernetes'
 * default scheduler that apply to drover): pure.
 *
 * Filters: the node is Ready, not unschedulable (unless the pod tolerates
 * node.kubernetes.io/unschedulable), its labels match the pod's
 * nodeSelector and its required node affinity (NodeAffinity), every
 * NoSchedule / NoExecute taint is tolerated, the host ports the pod
 * declares are free there (NodePorts, fit.h), and the pod's
 * resources.requests fit what is left of its allocatable
 * (NodeResourcesFit, fit.h).
 * Scores, in order (the first that differs decides): fewer untolerated
 * PreferNoSchedule taints; a larger sum of the weights of the preferred
 * node affinity terms that match; fewer pods of the pod's owner already
 * there (a spread); the least allocated (NodeResourcesLeastAllocated);
 * fewer pods bound; the node name (deterministic). */
#ifndef DROVER_CORE_PLACEMENT_H
#define DROVER_CORE_PLACEMENT_H

#include "fit.h"
#include "model.h"
#include "strbuf.h"

/* The host ports held on one node (fit.h); the caller owns the array. */
struct host_port_set {
	const struct host_port *v;
	size_t n;
};

struct sched_in {
	const struct pod *pod;
	const struct node *const *nodes;
	size_t nnodes;
	/* Pods already bound to (or assumed on) each node (parallel to
	 * nodes; NULL: none), for the spread score: counted once by the
	 * caller, not for every pod it places. */
	const int64_t *pods_on;
	/* Pods of the same owner as pod (the controller ownerReference's
	 * uid) bound to or assumed on each node, parallel to nodes, for the
	 * owner spread; NULL (a pod without an owner): pods_on instead. */
	const int64_t *owner_on;
	/* What the pods bound to each node request (parallel to nodes),
	 * for NodeResourcesFit; NULL: resources are not looked at. */
	const struct res_amount *used;
	/* The host ports the pods bound to each node hold (parallel to
	 * nodes), for NodePorts; NULL: ports are not looked at. */
	const struct host_port_set *ports;
};

/* Returns the chosen node, or NULL with kube-scheduler's reason in why
 * ("0/3 nodes are available: 1 node(s) were unschedulable, ..."). */
const struct node *sched_pick(const struct sched_in *in, struct strbuf *why);

/* NodeAffinity's filter: the node's labels have every pair of
 * spec.nodeSelector, and one of the required node affinity terms (if
 * any) matches the node. */
bool node_affinity_matches(const struct pod_spec *spec, const struct node *n);
/* One of the terms matches (a NodeSelector's terms are ORed). */
bool node_selector_matches(const struct node_selector *ns,
			   const struct node *n);
/* NodeAffinity's score: the sum of the weights of the preferred terms
 * that match the node. */
int64_t node_affinity_preferred(const struct pod_spec *spec,
				const struct node *n);
/* NodeResourcesLeastAllocated's score, 0..100: the free share of the
 * node's allocatable cpu and memory once req is added to used, the
 * mean of the two. */
int64_t least_allocated_score(const struct res_amount *req,
			      const struct res_amount *used,
			      const struct res_amount *alloc);

/* ToleratesTaint of Kubernetes. */
bool toleration_matches(const struct toleration *t, const struct taint *taint);
bool node_is_ready(const struct node *n);

#endif
