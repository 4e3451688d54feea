/* plan_nodelife.h - one pass of Kubernetes' node lifecycle controller
 * (pkg/controller/nodelifecycle: monitorNodeHealth, tryUpdateNodeHealth,
 * processTaintBaseEviction, handleDisruption, doNoExecuteTaintingPass,
 * doNodeTaintingPass) and of its taint eviction controller
 * (pkg/controller/tainteviction, the former taint manager), pure: the
 * nodes, their Leases, the pods bound to them, what the previous pass
 * saw, now and the settings in; the writes out.
 *
 * A node is healthy while its agent keeps it so: the controller samples
 * each node's Ready heartbeat (lastHeartbeatTime) and its Lease's
 * renewTime, and stamps, with its own clock, when either last moved (the
 * probe time: nodeHealthData.probeTimestamp; a control plane's clock
 * never compares with an agent's). A node whose probe time is older than
 * the grace period (--node-monitor-grace-period, 40 s; a node that never
 * posted a Ready condition gets --node-startup-grace-period, 60 s, from
 * its creation) has its conditions set Unknown:
 *
 *   Ready (and MemoryPressure, DiskPressure, PIDPressure if it has them)
 *     status Unknown, reason NodeStatusUnknown, message "Kubelet stopped
 *     posting node status.", lastTransitionTime now (a missing Ready is
 *     added with NodeStatusNeverUpdated, "Kubelet never posted node
 *     status.")
 *
 * and then, at the rate of its zone's limiter, the NoExecute taint of
 * its Ready status:
 *
 *   Ready Unknown  node.kubernetes.io/unreachable:NoExecute (timeAdded)
 *   Ready False    node.kubernetes.io/not-ready:NoExecute
 *   Ready True     both removed at once (not rate limited)
 *
 * The two are exclusive: a node tainted with one whose status turns to
 * the other's has it swapped at once. The pods on a node whose Ready is
 * not True get their Ready condition set False (MarkPodsNotReady: they
 * leave the Services' endpoints). Every pod on a node with a NoExecute
 * taint it does not tolerate is deleted now; one that tolerates all of
 * them, some for tolerationSeconds, is deleted when the smallest of
 * those has run from the taint's timeAdded (from the pod's creation, if
 * later); one that tolerates them forever stays.
 *
 * Rate and disruption (per zone: the node labels topology.kubernetes.io/
 * region and zone; one zone without them). The nodes of a zone are
 * tainted at most eviction_qps a second (a token bucket of one: 0.1 is
 * one node now and one more every 10 s). A zone in which no node is
 * Ready is fully disrupted; one in which more than 2 and at least 55 %
 * are not Ready is partially disrupted, and taints at secondary_qps if
 * it has more than large_cluster nodes, else not at all. When every zone
 * is fully disrupted (the control plane is the one cut off, most likely)
 * nothing is tainted and every NoExecute taint of the controller's is
 * removed: no pod is deleted. When a node is Ready again, every node's
 * probe time restarts from now.
 *
 * Worked example (grace 40 s, 0.1 node/s, pods with the default
 * tolerations of 300 s): three nodes a, b, c in one zone; b's agent dies
 * at t=0, after renewing its Lease. At t=40.001 the pass finds b's probe
 * older than 40 s: b's Ready goes Unknown (a NodeNotReady event), its
 * pods' Ready False. The zone has 1 of 3 not Ready: normal. The next
 * pass (with b's Ready Unknown as read) takes the zone's token and
 * taints b unreachable:NoExecute, timeAdded t1; its pods are deleted at
 * t1+300. Had a and c died too, the zone would be fully disrupted: no
 * taint, no deletion.
 *
 * Ownership: in is read only; out owns its node copies, its state and
 * its arrays, and points at in's pods (plan_nodelife_release). */
#ifndef DROVER_PLAN_NODELIFE_H
#define DROVER_PLAN_NODELIFE_H

#include <stdbool.h>

#include "model.h"

#define TAINT_NODE_NOT_READY     "node.kubernetes.io/not-ready"
#define TAINT_NODE_UNREACHABLE   "node.kubernetes.io/unreachable"
#define TAINT_NODE_UNSCHEDULABLE "node.kubernetes.io/unschedulable"

/* kube-controller-manager's defaults. */
#define NODELIFE_GRACE_DEFAULT_MS         (40 * 1000)
#define NODELIFE_STARTUP_GRACE_DEFAULT_MS (60 * 1000)
#define NODELIFE_MONITOR_PERIOD_MS        (5 * 1000)
#define NODELIFE_EVICTION_QPS_DEFAULT     0.1
#define NODELIFE_SECONDARY_QPS_DEFAULT    0.01
#define NODELIFE_LARGE_CLUSTER_DEFAULT    50
#define NODELIFE_UNHEALTHY_ZONE_DEFAULT   0.55

struct nodelife_config {
	int64_t grace_ms;         /* --node-monitor-grace-period */
	int64_t startup_grace_ms; /* --node-startup-grace-period */
	double eviction_qps;      /* --node-eviction-rate */
	double secondary_qps;     /* --secondary-node-eviction-rate */
	int64_t large_cluster;    /* --large-cluster-size-threshold */
	double unhealthy_zone;    /* --unhealthy-zone-threshold */
};

/* Fills c with the defaults above. */
void nodelife_config_default(struct nodelife_config *c);

/* What the controller saw of one node (nodeHealthData). */
struct nodelife_health {
	char *name;
	dtime probe;            /* probeTimestamp: last sign of life */
	dtime ready_transition; /* readyTransitionTimestamp */
	bool ready_seen;        /* the status saved had a Ready condition */
	dtime heartbeat;        /* its lastHeartbeatTime */
	dtime transition;       /* its lastTransitionTime */
	dtime lease_renew;      /* the Lease's renewTime saved; 0: none */
};

enum nodelife_zone_state {
	NODELIFE_ZONE_INITIAL,
	NODELIFE_ZONE_NORMAL,
	NODELIFE_ZONE_FULL_DISRUPTION,
	NODELIFE_ZONE_PARTIAL_DISRUPTION,
};

/* One zone: its state and its taint limiter (a token bucket of one). */
struct nodelife_zone {
	char *key; /* "region:zone"; "" for nodes without the labels */
	enum nodelife_zone_state state;
	double qps;       /* the limiter's rate; <= 0: never */
	dtime next_token; /* the limiter accepts at or after this time */
};

/* Carried from one pass to the next by the caller (an empty one at
 * start: every node is then new, and its NoExecute taints of the
 * controller's are removed, as Kubernetes' markNodeAsReachable does for
 * a node it has not known). Sorted by name / key. */
struct nodelife_state {
	struct nodelife_health *nodes;
	size_t nnodes;
	struct nodelife_zone *zones;
	size_t nzones;
};

void nodelife_state_release(struct nodelife_state *s);
/* The record of node name in s (NULL s, or none: NULL), by a binary
 * search: the records are sorted by name. */
const struct nodelife_health *
nodelife_state_find(const struct nodelife_state *s, const char *name);

struct nodelife_world {
	struct node *const *nodes;
	size_t nnodes;
	struct lease *const *leases; /* kube-node-lease's, any order */
	size_t nleases;
	struct pod *const *pods; /* the pods bound to nodes */
	size_t npods;
	const struct nodelife_config *cfg;
	const struct nodelife_state *state; /* the previous pass's */
	dtime now;
};

/* A node the pass changes: its copy after the pass. */
struct nodelife_node_write {
	struct node node;
	bool status;    /* write the status (conditions set Unknown) */
	bool taints;    /* write spec.taints */
	bool not_ready; /* a NodeNotReady event: Ready left True here */
	bool cancelled; /* NoExecute taints removed (for the log) */
};

enum nodelife_pod_op {
	/* MarkPodsNotReady: the Ready condition set False (lastTransition-
	 * Time now); a NodeNotReady Warning on the pod. */
	NODELIFE_POD_NOT_READY,
	/* The taint manager's deletion: the DisruptionTarget condition
	 * (DeletionByTaintManager) then DELETE; a TaintManagerEviction
	 * event "Marking for deletion Pod ns/name". */
	NODELIFE_POD_EVICT,
	/* A deletion waiting on a toleration that will not come: its node's
	 * NoExecute taints were removed ("Cancelling deletion of Pod"). */
	NODELIFE_POD_CANCEL,
};

struct nodelife_pod_action {
	enum nodelife_pod_op op;
	const struct pod *pod; /* in's */
};

enum nodelife_disruption {
	NODELIFE_DISRUPTION_SAME,
	NODELIFE_DISRUPTION_ENTERED, /* every zone fully disrupted */
	NODELIFE_DISRUPTION_EXITED,
};

struct nodelife_plan {
	struct nodelife_node_write *nodes; /* in the order to write */
	size_t nnodes;
	struct nodelife_pod_action *pods; /* in the order to apply */
	size_t npods, apods;
	struct nodelife_state state; /* for the next pass */
	enum nodelife_disruption disruption;
	/* Look again in this many ms: the first probe to expire, toleration
	 * to run out or token to come for a node waiting for its taint;
	 * -1: nothing waits. */
	int64_t recheck_ms;
};

void plan_nodelife(const struct nodelife_world *w, struct nodelife_plan *out);
void plan_nodelife_release(struct nodelife_plan *out);

/* Tolerated forever (nodelife_toleration_ms). */
#define NODELIFE_FOREVER INT64_MAX

/* GetMatchingTolerations and getMinTolerationTime over the NoExecute
 * taints of n: -1 if p does not tolerate one of them (it goes now);
 * NODELIFE_FOREVER if none of the tolerations used has a
 * tolerationSeconds (or n has no NoExecute taint); else the smallest
 * tolerationSeconds used, in ms (a value <= 0 counts as 0). Example:
 * taints unreachable:NoExecute and dedicated=db:NoExecute, tolerations
 * {unreachable, 300 s} and {Exists}: both tolerated, 300000. */
int64_t nodelife_toleration_ms(const struct pod *p, const struct node *n);

/* DefaultTolerationSeconds (kube-apiserver's admission plugin): adds
 * {key: node.kubernetes.io/not-ready, operator: Exists, effect:
 * NoExecute, tolerationSeconds: not_ready_s} unless the pod already has
 * a toleration with that key or none, and effect NoExecute or none; the
 * same for node.kubernetes.io/unreachable with unreachable_s. A
 * negative value adds no toleration of that taint. */
void pod_default_tolerations(struct pod_spec *spec, int64_t not_ready_s,
			     int64_t unreachable_s);

#endif
