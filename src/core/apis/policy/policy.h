/* policy.h - policy/v1 PodDisruptionBudget as drover models it, with
 * Kubernetes' field names (policy.c has its field table): how many pods
 * a set of pods (a selector) must keep healthy, or may lose, through
 * voluntary disruptions (an eviction, a node drain). The disruption
 * controller keeps its status (plan/plan_pdb.h computes it); the
 * eviction subresource decrements it (plan/eviction.h decides).
 *
 * Example:
 *
 *   apiVersion: policy/v1
 *   kind: PodDisruptionBudget
 *   metadata: {name: web}
 *   spec: {minAvailable: 5, selector: {matchLabels: {app: web}}}
 *
 * with 6 ready pods: status {expectedPods: 6, currentHealthy: 6,
 * desiredHealthy: 5, disruptionsAllowed: 1}.
 *
 * Ownership: as core.h. */
#ifndef DROVER_POLICY_H
#define DROVER_POLICY_H

#include "meta.h"

/* spec.unhealthyPodEvictionPolicy's values. */
#define PDB_IF_HEALTHY_BUDGET "IfHealthyBudget"
#define PDB_ALWAYS_ALLOW      "AlwaysAllow"

/* PodDisruptionBudgetSpec: minAvailable and maxUnavailable are
 * *IntOrString (INTSTR_UNSET: nil); at most one is set. A nil selector
 * selects no pod, an empty one every pod of the namespace. */
struct pdb_spec {
	struct intstr min_available;
	struct label_selector *selector;
	struct intstr max_unavailable;
	char *unhealthy_pod_eviction_policy; /* NULL: IfHealthyBudget */
};

/* PodDisruptionBudgetStatus. disruptedPods maps a pod's name to the time
 * an eviction let it go (RFC 3339 text): the controller does not count it
 * healthy for 2 minutes, unless it is deleted first. */
struct pdb_status {
	int64_t observed_generation;
	struct strmap disrupted_pods;
	int64_t disruptions_allowed;
	int64_t current_healthy;
	int64_t desired_healthy;
	int64_t expected_pods;
	struct condition_list conditions; /* metav1.Condition */
};

struct pod_disruption_budget {
	char *api_version;
	char *kind;
	struct object_meta metadata;
	struct pdb_spec spec;
	struct pdb_status status;
};
LIST_OF(pod_disruption_budget);

extern const struct schema schema_pod_disruption_budget;
extern const struct schema schema_pdb_status;

/* The DisruptionAllowed condition and its reasons. */
#define PDB_CONDITION_DISRUPTION_ALLOWED "DisruptionAllowed"
#define PDB_REASON_SUFFICIENT_PODS       "SufficientPods"
#define PDB_REASON_INSUFFICIENT_PODS     "InsufficientPods"
#define PDB_REASON_SYNC_FAILED           "SyncFailed"

/* Lifecycle helpers: thin wrappers over schema_release/schema_copy. */
void pdb_release(struct pod_disruption_budget *p);
void pdb_copy(struct pod_disruption_budget *dst,
	      const struct pod_disruption_budget *src);
void pdb_status_release(struct pdb_status *s);
/* dst uninitialized or released. */
void pdb_status_copy(struct pdb_status *dst, const struct pdb_status *src);

#endif
