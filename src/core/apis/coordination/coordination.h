/* coordination.h - coordination.k8s.io/v1 Lease as drover models it: a
 * named, renewable claim. Each node's agent holds the Lease of its node
 * in kube-node-lease (holderIdentity the node, leaseDurationSeconds 40)
 * and renews it every 10 s, as the kubelet does: the node lifecycle
 * reads its renewTime as the node's heartbeat.
 *
 *   apiVersion: coordination.k8s.io/v1
 *   kind: Lease
 *   metadata: {name: node-1, namespace: kube-node-lease}
 *   spec: {holderIdentity: node-1, leaseDurationSeconds: 40,
 *          renewTime: "2026-11-28T18:43:05.123000Z"}
 *
 * Ownership: as core.h. */
#ifndef DROVER_COORDINATION_H
#define DROVER_COORDINATION_H

#include "meta.h"

/* The namespace of the nodes' Leases, and their duration. */
#define NODE_LEASE_NAMESPACE  "kube-node-lease"
#define NODE_LEASE_DURATION_S 40

/* LeaseSpec: every field optional; the times are metav1.MicroTime. */
struct lease_spec {
	char *holder_identity;
	struct opt_int lease_duration_seconds;
	dtime acquire_time;
	dtime renew_time;
	struct opt_int lease_transitions;
};

struct lease {
	char *api_version;
	char *kind;
	struct object_meta metadata;
	struct lease_spec spec;
};
LIST_OF(lease);

extern const struct schema schema_lease;

void lease_release(struct lease *l);

#endif
