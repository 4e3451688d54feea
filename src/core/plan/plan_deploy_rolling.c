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

/* reconcileNewReplicaSet (§8.3): the size the new RS should have now:
 * the desired count if it has that many or more, else as far up as
 * maxSurge allows (new_rs_new_replicas = NewRSNewReplicas: it grows by
 * min(maxPods - every RS's desired count, replicas - its own)). Example:
 * 10 replicas, surge 3, old 8 and new 3: min(13 - 11, 10 - 3) = 2, so 5.
 * The sync scales it when the number differs from its size. */
static int64_t
new_rs_target(const struct deployment *d, const struct replicaset *const *all,
	      size_t nall, const struct replicaset *new_rs)
{
	if (rs_replicas(new_rs) >= deploy_replicas(d))
		return deploy_replicas(d);
	return new_rs_new_replicas(d, rs_rw(all), nall, new_rs);
}

/* What one pass over the old RSes decided: the resizes (old RSes only,
 * in the order they are made), how many pods they remove, and whether a
 * stale status stopped the pass. */
struct old_pass {
	struct resize_list resizes;
	int64_t removed;
	bool stale;
};

/* cleanupUnhealthyReplicas (§8.4): shrink old RSes by their unavailable
 * pods, oldest first, at most max_cleanup in total. Removing a pod that
 * is not available costs no availability, so these go before any
 * available one. Example: max_cleanup 2, the oldest old RS at 5 with 1
 * available: 4 are unhealthy, it goes to 3 and the budget is spent.
 * `old` is oldest first; size[i] is old[i]'s size. A status with more
 * available than desired pods is stale: the pass stops there, keeping
 * the resizes decided before it (Kubernetes has scaled those already),
 * and the rollout step does no scale-down this time. */
static struct old_pass
cleanup_unhealthy(const struct replicaset *const *old, const int64_t *size,
		  size_t nold, int64_t max_cleanup)
{
	struct old_pass r = {0};
	size_t i;

	for (i = 0; i < nold; i++) {
		int64_t unhealthy, n;

		if (r.removed >= max_cleanup)
			break;
		if (size[i] == 0)
			continue;
		unhealthy = size[i] - old[i]->status.available_replicas;
		if (unhealthy == 0)
			continue;
		n = max_cleanup - r.removed < unhealthy
			? max_cleanup - r.removed
			: unhealthy;
		if (n < 0) {
			r.stale = true;
			return r;
		}
		resize_add(&r.resizes, old[i], size[i] - n, false);
		r.removed += n;
	}
	return r;
}

/* scaleDownOldReplicaSetsForRollingUpdate (§8.4): remove available old
 * pods while keeping minAvailable, oldest RS first. Example: 10 replicas,
 * maxUnavailable 2 (minAvailable 8), 10 available across all RSes: a
 * budget of 2, taken from the oldest old RS that has pods. `all` gives
 * the available count (statuses, which no resize changes); `old` is
 * oldest first and size[i] its size after the unhealthy cleanup. */
static struct old_pass
scale_down_old(const struct deployment *d, const struct replicaset *const *all,
	       size_t nall, const struct replicaset *const *old,
	       const int64_t *size, size_t nold)
{
	int64_t min_avail = deploy_replicas(d) - max_unavailable(d);
	int64_t avail = rs_available_sum(rs_rw(all), nall), budget;
	struct old_pass r = {0};
	size_t i;

	if (avail <= min_avail)
		return r;
	budget = avail - min_avail;
	for (i = 0; i < nold; i++) {
		int64_t n;

		if (r.removed >= budget)
			break;
		if (size[i] == 0)
			continue;
		n = size[i] < budget - r.removed ? size[i] : budget - r.removed;
		resize_add(&r.resizes, old[i], size[i] - n, false);
		r.removed += n;
	}
	return r;
}

/* reconcileOldReplicaSets (§8.4): how many old pods may go at most,
 * maxScaledDown = every RS's desired count - minAvailable - the new RS's
 * unavailable pods (those will not count towards minAvailable until they
 * are ready); unhealthy old pods go first, then available ones within
 * minAvailable. Example (10 replicas, surge 3, unavail 2): old 10 + new 3
 * desired, new pods not ready: 13 - 8 - 3 = 2 old pods may go.
 * Returns both passes' resizes in order (the cleanup's, then the
 * scale-down's: an RS may appear in both, as two writes) and sets
 * *scaled when any pod goes. `old_active` is oldest first. */
static struct resize_list
reconcile_old_rs(const struct deployment *d,
		 const struct replicaset *const *all, size_t nall,
		 const struct replicaset *const *old_active, size_t nold,
		 const struct replicaset *new_rs, bool *scaled)
{
	struct resize_list l = {0};
	struct old_pass cleaned, down;
	const struct replicaset **both;
	int64_t min_avail, new_unavail, max_down, *size;
	size_t i, k;

	*scaled = false;
	if (rs_spec_sum(rs_rw(old_active), nold) == 0)
		return l;
	min_avail = deploy_replicas(d) - max_unavailable(d);
	new_unavail = rs_replicas(new_rs) - new_rs->status.available_replicas;
	max_down = rs_spec_sum(rs_rw(all), nall) - min_avail - new_unavail;
	if (max_down <= 0)
		return l;
	size = xmalloc((nold + 1) * sizeof(*size));
	for (i = 0; i < nold; i++)
		size[i] = rs_replicas(old_active[i]);
	cleaned = cleanup_unhealthy(old_active, size, nold, max_down);
	if (cleaned.stale)
		goto out;
	/* The scale-down sees the sizes the cleanup left. */
	for (k = 0; k < cleaned.resizes.n; k++)
		for (i = 0; i < nold; i++)
			if (old_active[i] == cleaned.resizes.v[k].rs)
				size[i] = cleaned.resizes.v[k].to;
	both = xmalloc((nold + 1) * sizeof(*both));
	memcpy(both, old_active, nold * sizeof(*both));
	both[nold] = new_rs;
	down = scale_down_old(d, both, nold + 1, old_active, size, nold);
	free(both);
	for (k = 0; k < down.resizes.n; k++)
		resize_add(&cleaned.resizes, down.resizes.v[k].rs,
			   down.resizes.v[k].to, false);
	resize_list_release(&down.resizes);
	*scaled = cleaned.removed + down.removed > 0;
out:
	free(size);
	return cleaned.resizes;
}

/* rolloutRolling: one step (see the head of this file). The RS list is
 * taken once, with its sizes (st->snap) for the status (invariant 2).
 * The decisions above compute; this applies. */
void
pd_rollout_rolling(struct st *st)
{
	struct replicaset *new_rs, **old, **all, **old_active;
	struct resize_list l;
	size_t nold, nact;
	bool done;

	if (pd_get_all_rs(st, true, &new_rs, &old, &nold))
		return;
	all = xmalloc((nold + 1) * sizeof(*all));
	memcpy(all, old, nold * sizeof(*all));
	all[nold] = new_rs;
	done = new_rs && pd_scale_rs_event(st, new_rs,
					   new_rs_target(st->d, rs_ro(all),
							 nold + 1, new_rs));
	if (!done) {
		old_active = xmalloc((nold + 1) * sizeof(*old_active));
		memcpy(old_active, old, nold * sizeof(*old_active));
		nact = pd_active_only(old_active, nold);
		xqsort(old_active, nact, sizeof(*old_active), rs_cmp_creation);
		l = reconcile_old_rs(st->d, rs_ro(all), nold + 1,
				     rs_ro(old_active), nact, new_rs, &done);
		pd_apply_resizes(st, &l);
		resize_list_release(&l);
		free(old_active);
	}
	if (!done && deployment_complete(st->d, &st->d->status))
		pd_cleanup_deployment(st, old, nold);
	pd_sync_rollout_status(st, new_rs);
	free(all);
	free(old);
}
