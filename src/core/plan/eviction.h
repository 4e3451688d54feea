/* eviction.h - the decision of the eviction subresource (POST
 * pods/NAME/eviction, policy/v1 Eviction) for one pod, pure: Kubernetes
 * 1.28's EvictionREST.Create and checkAndDecrement
 * (pkg/registry/core/pod/storage/eviction.go), with the pod, the
 * budgets of its namespace and now in, and what to do out:
 *
 *   1. a pod Succeeded, Failed or Pending, or already being deleted:
 *      delete it without looking at budgets (a Pending one with its
 *      resourceVersion as precondition);
 *   2. the budgets whose selector matches the pod (a nil or empty
 *      selector matches nothing here): more than one -> 500; none ->
 *      delete;
 *   3. a pod not Ready: the budget's unhealthyPodEvictionPolicy
 *      AlwaysAllow, or currentHealthy >= desiredHealthy > 0 -> delete
 *      with the resourceVersion precondition, the budget untouched;
 *   4. checkAndDecrement: observedGeneration behind -> 429 "still being
 *      processed" (Retry-After 10); disruptionsAllowed < 0 or more than
 *      2000 disruptedPods -> 403; disruptionsAllowed 0 -> 429 naming
 *      desired and current healthy; else the budget's status with one
 *      disruption fewer (and the pod in disruptedPods, now, unless a dry
 *      run) is written, then the pod deleted.
 *
 * A delete that carries the added precondition and conflicts answers 429
 * (the client tries again). Example: minAvailable 5, 6 Ready pods
 * (status allowed 1): the first eviction writes allowed 0 with the pod
 * in disruptedPods and deletes it; the second gets 429 "The disruption
 * budget web needs 5 healthy pods and has 5 currently".
 *
 * Ownership: out owns its status and strings (eviction_release); pdb
 * points into the input. */
#ifndef DROVER_EVICTION_H
#define DROVER_EVICTION_H

#include <stdbool.h>

#include "model.h"

/* MaxDisruptedPodSize */
#define EVICTION_MAX_DISRUPTED 2000

enum eviction_verdict {
	EVICT_DELETE,    /* delete the pod; the budget (if any) untouched */
	EVICT_DECREMENT, /* write the budget's status, then delete the pod */
	EVICT_REFUSE,    /* answer code, nothing done */
};

struct eviction_in {
	const struct pod *pod;
	struct pod_disruption_budget *const *pdbs; /* the namespace's */
	size_t npdbs;
	bool dry_run;
	dtime now;
};

struct eviction_out {
	enum eviction_verdict verdict;
	/* EVICT_DELETE: delete with the pod's resourceVersion as a
	 * precondition (unless the caller gave one), and a conflict of that
	 * delete answers 429 for the budget. */
	bool precondition;
	const struct pod_disruption_budget *pdb; /* the one that decided */
	/* EVICT_DECREMENT: the budget's new status, to write unless a dry
	 * run (status_write false then: the answer is as if written). */
	struct pdb_status status;
	bool status_write;
	/* EVICT_REFUSE: the HTTP code (429, 403, 500), the Status reason
	 * ("TooManyRequests", "Forbidden", "" for the 500), its message,
	 * the DisruptionBudget cause's message (NULL: none) and Retry-After
	 * in seconds (0: none). */
	int code;
	const char *reason;
	char *message;
	char *cause;
	int retry_after;
};

void eviction_decide(const struct eviction_in *in, struct eviction_out *out);
void eviction_release(struct eviction_out *out);

/* The 429 of a delete that conflicted on the added precondition (and of
 * a budget still being processed): Kubernetes' createTooManyRequests-
 * Error for budget name, into out (code, reason, message, cause, 10 s). */
void eviction_too_many_requests(const char *pdb_name, struct eviction_out *out);

/* The DisruptionTarget condition the eviction adds to the pod before it
 * deletes it (PodDisruptionConditions): True, EvictionByEvictionAPI,
 * "Eviction API: evicting", at now; replaces one of that type if the
 * status differs (podutil.UpdatePodCondition). */
void eviction_mark_pod(struct pod *p, dtime now);

#endif
