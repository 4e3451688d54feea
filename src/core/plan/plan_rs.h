/* plan_rs.h - the ReplicaSet planner: one syncReplicaSet step.
 *
 * Input: one ReplicaSet, the pods of its namespace (those it controls are
 * picked by controller ownerReference and released when their labels no
 * longer match its selector; orphans matching its selector are adopted)
 * and the current time. Output: how many pods to create from the
 * template, which pods to delete (Kubernetes' victim ranking, §8.4 of
 * spec/deployment.md), the new status, and when availability will change
 * without any event (minReadySeconds).
 *
 * Ownership: the caller owns `in`; plan_rs_out_release() frees `out`. The
 * victims, adopted and released pods are pointers into in->pods, valid
 * while `in` is. */
#ifndef DROVER_PLAN_RS_H
#define DROVER_PLAN_RS_H

#include "model.h"
#include "pod_facts.h"

#define RS_BURST_REPLICAS 500 /* Kubernetes' burstReplicas */

struct plan_rs_in {
	const struct replicaset *rs;
	const struct pod *const *pods; /* pods of the namespace */
	size_t npods;
	/* The facts of pods[i] at facts[i], derived when each pod changed
	 * (the controller's cache keeps them); NULL: plan_rs derives them,
	 * which costs a read of every pod. */
	const struct pod_facts *const *facts;
	/* Pods of every ReplicaSet with the same owner, for the "doubled up
	 * on a node" rank (NULL: use `pods`). */
	const struct pod *const *related;
	size_t nrelated;
	dtime now;
};

struct plan_rs_out {
	int64_t create;             /* pods to create */
	const struct pod **victims; /* pods to delete, worst first */
	size_t nvictims;
	const struct pod **adopt; /* orphans to adopt */
	size_t nadopt;
	/* Pods it controls whose labels no longer match its selector: their
	 * controller reference is to be removed (not counted as its own). */
	const struct pod **release;
	size_t nrelease;
	struct replicaset_status status; /* the status to write */
	bool status_changed;
	int64_t requeue_after_ms; /* -1: none */
};

void plan_rs(const struct plan_rs_in *in, struct plan_rs_out *out);
void plan_rs_out_release(struct plan_rs_out *out);

/* Pod predicates of Kubernetes' pod utilities. */
bool pod_is_active(const struct pod *p); /* not terminal, not deleting */
bool pod_is_ready(const struct pod *p);  /* Ready condition True */
bool pod_is_available(const struct pod *p, int64_t min_ready_seconds,
		      dtime now);
dtime pod_ready_time(const struct pod *p); /* Ready lastTransitionTime */

/* Fills a new pod (zeroed by the caller) from rs's template, as the
 * ReplicaSet controller creates it: generateName "<rs>-", template labels
 * and annotations, a controller ownerReference to rs. The caller (or the
 * API server) gives it its name. */
void rs_new_pod(const struct replicaset *rs, struct pod *p);
/* The kind whose pods rs stands for: "ReplicationController" when rs is
 * an RC's view (rc_as_replicaset, kind "ReplicationController"), else
 * "ReplicaSet". Pods and ownerReferences are matched against it. */
const char *rs_owner_kind(const struct replicaset *rs);
/* The controller ownerReference of a pod of rs (ref zeroed by caller):
 * apps/v1 ReplicaSet, or v1 ReplicationController for an RC's view. */
void rs_controller_ref(const struct replicaset *rs, struct owner_ref *ref);

/* The qsort comparator of the victim ranking, exposed for tests: pods
 * that should go first sort first. */
struct ranked_pod {
	const struct pod *pod;
	int64_t rank; /* related active pods on the same node */
	dtime now;
	/* Sort keys, copied from the pod's facts (10,000-pod sorts would
	 * otherwise re-derive them in every comparison), the strings too:
	 * ranking 100,000 candidates reads them in one array, not in as
	 * many scattered facts (ranked_pod_uid, ranked_pod_name). */
	bool unassigned;
	int phase;
	bool ready;
	int64_t cost;
	dtime ready_time;
	int64_t restarts;
	dtime created;
	bool long_uid, long_name; /* "" below: read from the pod */
	char uid[POD_FACTS_INLINE];
	char name[POD_FACTS_NAME_INLINE];
};
void ranked_pod_init(struct ranked_pod *rp, const struct pod *p, int64_t rank,
		     dtime now);
void ranked_pod_from_facts(struct ranked_pod *rp, const struct pod_facts *f,
			   int64_t rank, dtime now);
int ranked_pod_cmp(const void *a, const void *b);
/* The pod's uid and name, wherever they are kept. */
const char *ranked_pod_uid(const struct ranked_pod *rp);
const char *ranked_pod_name(const struct ranked_pod *rp);

#endif
