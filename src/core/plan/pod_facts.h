/* pod_facts.h - what the ReplicaSet planner reads of a pod, derived once
 * per version of the pod and kept in one contiguous struct.
 *
 * Why: a ReplicaSet sync reads every pod it owns. Read from the pod
 * itself, each pod costs a dozen pointer hops (owner references, labels,
 * conditions, phase, node name, annotations), each a cache miss once the
 * pods no longer fit in the cache: at 100,000 pods, 40 ms of a scale-up
 * sync and 77 ms of a scale-down one went to those hops. The facts are
 * derived when the pod changes (the controllers' informer keeps them
 * beside the pod) and read in one or two cache lines per pod.
 *
 * Worked example: a pod created from the template of ReplicaSet web-6d9f
 * (uid "0b2c…"), Running, Ready since 10:00:03, on node "local", no
 * deletion-cost annotation, one restart:
 *   active = true, ready = true, ready_time = 10:00:03, phase = 2,
 *   controller = "0b2c…", controller_kind_rs = true, node = "local",
 *   cost = 0, restarts = 1, labels_fp = fingerprint of its labels, which
 *   equals the fingerprint of the template's labels, name = its name.
 *
 * Ownership: a pod_facts points into its pod (`pod`, read for the
 * strings too long to keep inline); it is valid while the pod is. It owns nothing:
 * free() or drop it with the pod. */
#ifndef DROVER_POD_FACTS_H
#define DROVER_POD_FACTS_H

#include <stdint.h>

#include "model.h"

/* Strings the facts hold inline when they fit (uids are 36 characters,
 * node names are usually host names); longer ones are read from the pod. */
#define POD_FACTS_INLINE 40
/* The pod's name, the last tie-break of the victim order: a ReplicaSet's
 * pods are named "<ReplicaSet>-<5 characters>", the ReplicaSet
 * "<Deployment>-<hash of 8-10>", so 64 bytes hold the names of
 * Deployments of up to 47 characters. */
#define POD_FACTS_NAME_INLINE 64

struct pod_facts {
	const struct pod *pod;
	bool active;     /* not Succeeded/Failed and not being deleted */
	bool ready;      /* Ready condition True */
	bool unassigned; /* no spec.nodeName */
	bool has_controller;
	bool
	    controller_kind_rs; /* its controller's kind is ReplicaSet or unset */
	bool controller_kind_rc; /* ... ReplicationController or unset */
	int phase;          /* Pending (and others) 0, Unknown 1, Running 2 */
	dtime ready_time;   /* Ready lastTransitionTime, or unset */
	dtime created;      /* metadata.creationTimestamp */
	int64_t cost;       /* controller.kubernetes.io/pod-deletion-cost */
	int64_t restarts;   /* the most restarts of one container */
	uint64_t labels_fp; /* labels_fingerprint(metadata.labels) */
	/* The pod's uid, its controller's uid and its node name: inline
	 * when shorter than POD_FACTS_INLINE, else "" and read from the pod
	 * (long_*). */
	char uid[POD_FACTS_INLINE];
	char controller[POD_FACTS_INLINE];
	char node[POD_FACTS_INLINE];
	char name[POD_FACTS_NAME_INLINE];
	bool long_uid, long_controller, long_node, long_name;
};

void pod_facts_init(struct pod_facts *f, const struct pod *p);

/* The pod's uid, its controller's uid and its node name, wherever they
 * are kept ("" if none). */
const char *pod_facts_uid(const struct pod_facts *f);
const char *pod_facts_controller(const struct pod_facts *f);
const char *pod_facts_node(const struct pod_facts *f);
const char *pod_facts_name(const struct pod_facts *f);

/* A 64-bit FNV-1a fingerprint of a label map (sorted, so equal maps give
 * equal fingerprints). Unequal maps with equal fingerprints are possible
 * in principle (one pair in 2^64); the planner uses equality only to skip
 * a subset check whose result would be "yes". */
uint64_t labels_fingerprint(const struct strmap *labels);

#endif
