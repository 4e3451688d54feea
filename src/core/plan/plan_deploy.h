/* plan_deploy.h - the Deployment planner: one syncDeployment step.
 *
 * Input: one Deployment, the ReplicaSets and Pods of its namespace, and
 * the current time. Output: the ordered actions Kubernetes' deployment
 * controller would perform in one sync (spec/deployment.md §6-§14), the
 * objects after them, the events it would record and when to look again.
 *
 * The planner is pure and level-triggered: apply its actions, let the
 * ReplicaSet controller react, call it again. It does at most one rollout
 * scaling step per call, exactly like Kubernetes.
 *
 * Ownership: the caller owns `in` and everything it points to (read only).
 * plan_deploy() fills `out`, which the caller releases with
 * plan_deploy_out_release(). */
#ifndef DROVER_PLAN_DEPLOY_H
#define DROVER_PLAN_DEPLOY_H

#include "action.h"
#include "model.h"

struct plan_deploy_in {
	const struct deployment *d;
	const struct replicaset *const *rs; /* every RS of the namespace */
	size_t nrs;
	const struct pod *const *pods; /* pods of the namespace (Recreate,
					  InPlaceUpdate) */
	size_t npods;
	dtime now;
};

struct plan_budget {
	bool set;            /* RollingUpdate and InPlaceUpdate */
	int64_t replicas;    /* spec.replicas */
	int64_t surge;       /* MaxSurge */
	int64_t unavailable; /* MaxUnavailable */
};

struct plan_deploy_out {
	struct deployment d;    /* the Deployment after the step */
	struct replicaset **rs; /* its ReplicaSets after the step, oldest
				    first; deleted ones are gone */
	size_t nrs;
	struct replicaset **released; /* RSes whose ownerRef was dropped */
	size_t nreleased;
	struct action_list actions;
	struct event_list events;
	struct plan_budget budget;
	/* When to sync again without an event: -1 never, 0 now (with
	 * back-off), else milliseconds. */
	int64_t requeue_after_ms;
	char *error; /* the sync failed (e.g. a hash collision): retry */
};

void plan_deploy(const struct plan_deploy_in *in, struct plan_deploy_out *out);
void plan_deploy_out_release(struct plan_deploy_out *out);

/* Finds an object of the step's result by kind and name (NULL if none):
 * the Deployment, an owned or released ReplicaSet. */
const void *plan_deploy_object(const struct plan_deploy_out *out,
			       const char *kind, const char *name);

/* The controller ownerReference a ReplicaSet created or adopted by d gets. */
void deploy_controller_ref(const struct deployment *d, struct owner_ref *ref);
/* True if ref points at the object with metadata m (by uid when both have
 * one, else by name). */
bool owner_ref_is(const struct owner_ref *ref, const char *kind,
		  const struct object_meta *m);

#endif
