/* plan_pdb.h - one sync of Kubernetes' disruption controller
 * (pkg/controller/disruption, trySync and failSafe) for one
 * PodDisruptionBudget, pure: the budget, the pods, ReplicaSets,
 * Deployments and ReplicationControllers of its namespace, and now in;
 * the status to write, the Events to record and when to look again out.
 *
 *   pods      = the namespace's pods its selector matches (a nil selector
 *               none, an empty one all)
 *   maxUnavailable set:      expected = SCALE_SUM, desired = max(0,
 *                            expected - ceil(maxUnavailable of expected))
 *   minAvailable an integer: expected = |pods|, desired = minAvailable
 *   minAvailable a percent:  expected = SCALE_SUM, desired =
 *                            ceil(minAvailable of expected)
 *   current   = pods Ready, not being deleted, not in disruptedPods
 *               for less than 2 minutes
 *   allowed   = current - desired; 0 if negative or expected <= 0
 *
 * SCALE_SUM: the spec.replicas of each distinct controller of the pods:
 * a ReplicationController, the Deployment of a pod's ReplicaSet, a
 * ReplicaSet no Deployment controls. Pods without a controller are
 * "unmanaged" (an UnmanagedPods Event; they still count in current); a
 * controller not found is a sync error, and the status is then the fail
 * safe: disruptionsAllowed 0 and DisruptionAllowed False (SyncFailed,
 * the error as message), observedGeneration left as it was.
 *
 * Worked example: maxUnavailable "25%", a Deployment of 10 replicas
 * mid-rollout (pods of two ReplicaSets), 9 pods Ready: expected 10 (the
 * Deployment once), desired 10 - ceil(2.5) = 7, current 9, allowed 2,
 * DisruptionAllowed True (SufficientPods).
 *
 * Ownership: out owns its status and strings (plan_pdb_release); in is
 * read only. */
#ifndef DROVER_PLAN_PDB_H
#define DROVER_PLAN_PDB_H

#include <stdbool.h>

#include "model.h"

/* How long an eviction's entry in disruptedPods keeps a pod from
 * counting healthy (DeletionTimeout). */
#define PDB_DELETION_TIMEOUT_MS (2 * 60 * 1000)

struct pdb_world {
	const struct pod_disruption_budget *pdb;
	struct pod *const *pods; /* the namespace's */
	size_t npods;
	struct replicaset *const *rses;
	size_t nrs;
	struct deployment *const *deps;
	size_t ndeps;
	struct replication_controller *const *rcs;
	size_t nrcs;
	dtime now;
};

struct pdb_plan {
	/* The status to write (the whole of it), and whether it differs
	 * from the one the budget has (else nothing is written). */
	struct pdb_status status;
	bool write;
	/* A sync error ("found no controllers for pod \"web-1\""), the
	 * status then the fail safe one; NULL: none. */
	char *error;
	/* Events on the budget: NoPods (Normal) when it selects none,
	 * UnmanagedPods (Warning) naming its selector, CalculateExpected-
	 * PodCountFailed (Warning) with the error; and the pods whose
	 * disruptedPods entry expired without a deletion (NotDeleted, a
	 * Warning on each pod). */
	bool no_pods;
	struct strlist unmanaged; /* pod names */
	struct strlist not_deleted;
	/* Look again in this many ms (the earliest entry of disruptedPods
	 * to expire); -1: no need. */
	int64_t recheck_ms;
};

/* 0, or -1 on a sync error (out->error set; out->status is the fail
 * safe). */
int plan_pdb(const struct pdb_world *w, struct pdb_plan *out);
void plan_pdb_release(struct pdb_plan *out);

/* The pods of w's namespace the budget selects (its selector: nil none,
 * empty all), into an array the caller frees; their count. */
size_t pdb_selected_pods(const struct pdb_world *w, struct pod ***out);

/* A DisruptionTarget condition that stays True on a pod nobody deletes
 * is stale after this long (the controller's stalePodDisruptionTimeout). */
#define PDB_STALE_DISRUPTION_MS (2 * 60 * 1000)

/* nonTerminatingPodHasStaleDisruptionCondition: whether p, not being
 * deleted and not finished, has a DisruptionTarget condition True that
 * was not set by the kubelet (reason TerminationByKubelet); *wait_ms is
 * how long until it is stale (0: now, and the condition is to be set
 * False, podutil.UpdatePodCondition: lastTransitionTime now). Example: an
 * eviction marked the pod and its deletion failed 30 s ago: true, 90 s
 * to wait. */
bool pdb_stale_disruption(const struct pod *p, dtime now, int64_t *wait_ms);

/* The UnmanagedPods Event's message, Kubernetes' words, into sb. */
void pdb_unmanaged_message(const struct pod_disruption_budget *pdb,
			   struct strbuf *sb);

#endif
