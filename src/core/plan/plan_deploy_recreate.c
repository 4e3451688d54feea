/* plan_deploy_recreate.c - Kubernetes' recreate.go: a Recreate step: old
 * RSes to 0, and the new RS only once no old pod runs (spec §9). Part of
 * plan_deploy (see plan_deploy.c and plan_deploy_int.h). */
#include <stdlib.h>
#include <string.h>

#include "deploy_util.h"
#include "labels.h"
#include "plan_deploy_int.h"

/* ---- Recreate (§9) ----
 *
 * Old and new pods never run at the same time, and the Deployment is
 * unavailable in between, as Kubernetes' Recreate strategy promises.
 * One step:
 *   1. every old RS with replicas goes to 0; if one did, the step ends
 *      (the pods still have to stop);
 *   2. while an old pod runs (its RS still reports live pods, or a pod
 *      of an old RS is not yet Succeeded or Failed: terminating pods
 *      count), the step ends: nothing new starts beside an old process;
 *   3. the new RS is created (only now: a Recreate never creates it
 *      early) and scaled to the desired count; once the rollout is
 *      complete the history is cleaned up.
 * The status is written in every case.
 *
 * Worked example, 3 replicas, old RS at 3, template changed: step 1:
 * old 3 -> 0. The agent stops the three processes (SIGTERM, then the
 * deletions): each later step ends at 2 while one is still
 * terminating. The last one gone: step 3: new RS created at 3. */

static bool
pod_owned_by(const struct pod *p, const struct replicaset *rs)
{
	const struct owner_ref *ref = meta_controller_ref(&p->metadata);

	return ref && owner_ref_is(ref, "ReplicaSet", &rs->metadata);
}

/* oldPodsRunning: old RSes report live pods, or a pod of an owned RS
 * other than the new one is not terminal (terminating pods count). The
 * RS status can lag its pods, so both are read: a pod that is still
 * shutting down keeps the new one from starting even when its RS
 * already reports 0. The pods are those of the Deployment's selector. */
static bool
old_pods_running(const struct deployment *d, const struct pod *const *pods,
		 size_t npods, const struct replicaset *new_rs,
		 const struct replicaset *const *old, size_t nold)
{
	size_t i, j;

	if (rs_live_sum(rs_rw(old), nold) > 0)
		return true;
	for (i = 0; i < npods; i++) {
		const struct pod *p = pods[i];
		const char *phase = p->status.phase ? p->status.phase : "";

		if (new_rs && pod_owned_by(p, new_rs))
			continue;
		if (!strcmp(phase, "Failed") || !strcmp(phase, "Succeeded"))
			continue;
		if (!selector_matches(d->spec.selector, &p->metadata.labels))
			continue;
		for (j = 0; j < nold; j++)
			if (pod_owned_by(p, old[j]))
				return true;
	}
	return false;
}

/* scaleDownOldReplicaSetsForRecreate: every old RS with replicas to 0,
 * in the order of the list (oldest first). */
static struct resize_list
recreate_scale_down_old(const struct replicaset *const *old, size_t nold)
{
	struct resize_list l = {0};
	size_t i;

	for (i = 0; i < nold; i++)
		if (rs_replicas(old[i]) > 0)
			resize_add(&l, old[i], 0, false);
	return l;
}

/* rolloutRecreate: one step (see the head of this file). The decisions
 * above compute; this applies. */
void
pd_rollout_recreate(struct st *st)
{
	struct replicaset *new_rs, **old;
	struct resize_list l;
	size_t nold;
	bool scaled;

	if (pd_get_all_rs(st, false, &new_rs, &old, &nold))
		return;
	l = recreate_scale_down_old(rs_ro(old), nold);
	scaled = pd_apply_resizes(st, &l);
	resize_list_release(&l);
	if (scaled || old_pods_running(st->d, st->in->pods, st->in->npods,
				       new_rs, rs_ro(old), nold)) {
		pd_sync_rollout_status(st, new_rs);
		free(old);
		return;
	}
	if (new_rs == NULL) {
		free(old);
		if (pd_get_all_rs(st, true, &new_rs, &old, &nold))
			return;
	}
	pd_scale_rs_event(st, new_rs, deploy_replicas(st->d));
	if (deployment_complete(st->d, &st->d->status))
		pd_cleanup_deployment(st, old, nold);
	pd_sync_rollout_status(st, new_rs);
	free(old);
}
