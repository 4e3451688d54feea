/* placement.h - pick a node for a pod (the filters and scores of Kubernetes'
 * default scheduler that apply to drover): pure.
 *
 * Filters: the node is Ready, not unschedulable (unless the pod tolerates
 * node.kubernetes.io/unschedulable), its labels match the pod's
 * nodeSelector, every NoSchedule / NoExecute taint is tolerated, and the
 * host ports the pod declares are free there (NodePorts, fit.h), and the
 * pod's resources.requests fit what is left of its allocatable
 * (NodeResourcesFit, fit.h).
 * Scores: fewer untolerated PreferNoSchedule taints, then fewer pods
 * already bound, then the node name (deterministic). */
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
	/* Pods already bound to each node (parallel to nodes; NULL: none),
	 * for the spread score: counted once by the caller, not for every
	 * pod it places. */
	const int64_t *pods_on;
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

/* ToleratesTaint of Kubernetes. */
bool toleration_matches(const struct toleration *t, const struct taint *taint);
bool node_is_ready(const struct node *n);

#endif
