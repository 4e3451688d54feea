/* plan_deploy_rolling.c - Kubernetes' rolling.go: a RollingUpdate step: the
 * new RS scaled up within maxSurge, old RSes scaled down within
 * maxUnavailable, unhealthy old pods first (spec §8). Part of plan_deploy
 * (see plan_deploy.c and plan_deploy_int.h). */
#include <string.h>

#include "deploy_util.h"
#include "plan_deploy_int.h"
#include "xalloc.h"

/* ---- RollingUpdate (§8) ----
 *
 * One step does one of three things, in this order (invariant 1 of
 * plan_deploy.c): scale the new RS (up within maxSurge, or down to the
 * desired count), else scale old RSes down (within maxUnavailable), else,
 * once the rollout is complete, clean up the history; the status is
 * written in every case. The world (pods becoming ready) moves between
 * steps, so a whole rollout alternates the first two.
 *
 * Worked example, 10 replicas, maxSurge 25% (3, rounded up),
 * maxUnavailable 25% (2, rounded down), so at most 13 pods and at least
 * 8 available; the template changed, old RS at 10, all available, new
 * pods ready 1 s after they start:
 *   step 1: the new RS is created at 3 (13 - 10 of room; a creation is
 *           not a scale), then old 10 -> 8: 13 desired, 8 must stay
 *           available, the 3 new pods are not ready: 13 - 8 - 3 = 2;
 *   step 2: new 3 -> 5 (13 - 11 of room);
 *   1 s later the 5 new pods are ready: step 3: old 8 -> 3
 *           (13 - 8 - 0 = 5); step 4: new 5 -> 10; step 5: old 3 -> 0.
 * `drover plan --simulate -f examples/plan/rolling-10.yaml` prints these
 * steps. */

/* reconcileNewReplicaSet (§8.3): the new RS down to the desired count if
 * it has more, else up as far as maxSurge allows (new_rs_new_replicas: it
 * grows by min(maxTotal - every RS's desired count, replicas - its own)). */
static bool
reconcile_new_rs(struct st *st, struct replicaset **all, size_t nall,
		 struct replicaset *new_rs)
{
	const struct deployment *d = st->d;

	if (new_rs == NULL || rs_replicas(new_rs) == deploy_replicas(d))
		return false;
	if (rs_replicas(new_rs) > deploy_replicas(d))
		return pd_scale_rs_event(st, new_rs, deploy_replicas(d));
	return pd_scale_rs_event(st, new_rs,
				 new_rs_new_replicas(d, all, nall, new_rs));
}

/* cleanupUnhealthyReplicas (§8.4): shrink old RSes by their unavailable
 * pods, oldest first, at most max_cleanup in total. Removing a pod that
 * is not available costs no availability, so these go before any
 * available one. Example: max_cleanup 2, the oldest old RS at 5 with 1
 * available: 4 are unhealthy, it goes to 3 and the budget is spent.
 * Returns the number removed, or -1 on a stale status (more available
 * than desired). */
static int64_t
cleanup_unhealthy(struct st *st, struct replicaset **old, size_t nold,
		  int64_t max_cleanup)
{
	int64_t total = 0;
	size_t i;

	xqsort(old, nold, sizeof(*old), rs_cmp_creation);
	for (i = 0; i < nold; i++) {
		struct replicaset *rs = old[i];
		int64_t unhealthy, n;

		if (total >= max_cleanup)
			break;
		if (rs_replicas(rs) == 0)
			continue;
		unhealthy = rs_replicas(rs) - rs->status.available_replicas;
		if (unhealthy == 0)
			continue;
		n = max_cleanup - total < unhealthy ? max_cleanup - total
						    : unhealthy;
		if (n < 0)
			return -1;
		pd_scale_rs_event(st, rs, rs_replicas(rs) - n);
		total += n;
	}
	return total;
}

/* scaleDownOldReplicaSetsForRollingUpdate (§8.4): remove available old
 * pods while keeping minAvailable, oldest RS first. Example: 10 replicas,
 * maxUnavailable 2 (minAvailable 8), 10 available across all RSes: a
 * budget of 2, taken from the oldest old RS that has pods. */
static int64_t
scale_down_old(struct st *st, struct replicaset **all, size_t nall,
	       struct replicaset **old, size_t nold)
{
	const struct deployment *d = st->d;
	int64_t min_avail = deploy_replicas(d) - max_unavailable(d);
	int64_t avail = rs_available_sum(all, nall), budget, total = 0;
	size_t i;

	if (avail <= min_avail)
		return 0;
	budget = avail - min_avail;
	xqsort(old, nold, sizeof(*old), rs_cmp_creation);
	for (i = 0; i < nold; i++) {
		struct replicaset *rs = old[i];
		int64_t n;

		if (total >= budget)
			break;
		if (rs_replicas(rs) == 0)
			continue;
		n = rs_replicas(rs) < budget - total ? rs_replicas(rs)
						     : budget - total;
		pd_scale_rs_event(st, rs, rs_replicas(rs) - n);
		total += n;
	}
	return total;
}

/* reconcileOldReplicaSets (§8.4): how many old pods may go at most,
 * maxScaledDown = every RS's desired count - minAvailable - the new RS's
 * unavailable pods (those will not count towards minAvailable until they
 * are ready); unhealthy old pods go first, then available ones within
 * minAvailable. Example (10 replicas, surge 3, unavail 2): old 10 + new 3
 * desired, new pods not ready: 13 - 8 - 3 = 2 old pods may go. */
static bool
reconcile_old_rs(struct st *st, struct replicaset **all, size_t nall,
		 struct replicaset **old_active, size_t nold,
		 struct replicaset *new_rs)
{
	const struct deployment *d = st->d;
	int64_t min_avail, new_unavail, max_down, cleaned, scaled;
	struct replicaset **both;

	if (rs_spec_sum(old_active, nold) == 0)
		return false;
	min_avail = deploy_replicas(d) - max_unavailable(d);
	new_unavail = rs_replicas(new_rs) - new_rs->status.available_replicas;
	max_down = rs_spec_sum(all, nall) - min_avail - new_unavail;
	if (max_down <= 0)
		return false;
	cleaned = cleanup_unhealthy(st, old_active, nold, max_down);
	if (cleaned < 0)
		return false;
	both = xmalloc((nold + 1) * sizeof(*both));
	memcpy(both, old_active, nold * sizeof(*both));
	both[nold] = new_rs;
	scaled = scale_down_old(st, both, nold + 1, old_active, nold);
	free(both);
	return cleaned + scaled > 0;
}

/* rolloutRolling: one step (see the head of this file). The RS list is
 * taken once, with its sizes (st->snap) for the status (invariant 2). */
void
pd_rollout_rolling(struct st *st)
{
	struct replicaset *new_rs, **old, **all, **old_active;
	size_t nold, nact;
	bool done;

	if (pd_get_all_rs(st, true, &new_rs, &old, &nold))
		return;
	all = xmalloc((nold + 1) * sizeof(*all));
	memcpy(all, old, nold * sizeof(*all));
	all[nold] = new_rs;
	done = reconcile_new_rs(st, all, nold + 1, new_rs);
	if (!done) {
		old_active = xmalloc((nold + 1) * sizeof(*old_active));
		memcpy(old_active, old, nold * sizeof(*old_active));
		nact = pd_active_only(old_active, nold);
		done = reconcile_old_rs(st, all, nold + 1, old_active, nact,
					new_rs);
		free(old_active);
	}
	if (!done && deployment_complete(st->d, &st->d->status))
		pd_cleanup_deployment(st, old, nold);
	pd_sync_rollout_status(st, new_rs);
	free(all);
	free(old);
}
