/* plan_deploy_inplace.c - drover's InPlaceUpdate strategy (the KEP seed,
 * issue 11): one step of an in-place rollout. Part of plan_deploy (see
 * plan_deploy.c and plan_deploy_int.h).
 *
 * ReplicaSets exactly as RollingUpdate: a template change creates the new
 * revision's RS (or, on rollback, finds the old RS whose template equals
 * the Deployment's and renumbers it), so revisions, history and undo work
 * unchanged. What differs is how pods reach it: no pod is created or
 * deleted; each old pod is asked to be updated IN PLACE (ACT_UPDATE_IN_PLACE
 * on kind Pod: same name, uid, node and host ports, containers restarted
 * with the new image/command/args). The applier (the controller, next
 * milestone; the simulator today) moves the pod's pod-template-hash label
 * and controller ref to the new RS and both RSes' spec.replicas by one in
 * a single transaction, so Σ spec.replicas stays spec.replicas and the new
 * RS holds `replicas - Σ old` (new_rs_new_replicas).
 *
 * One step (level-triggered, like rolloutRolling):
 *   1. the RS list (creating the new RS at replicas - Σ old: 0 beside a
 *      full old RS, everything for a first rollout);
 *   2. if the new RS's size is not replicas - Σ old (a first rollout, a
 *      repair), it is scaled and the step ends;
 *   3. otherwise the old pods to update now are chosen (below) and
 *      become actions; once the rollout is complete the history is
 *      cleaned up; the status is written.
 *
 * Choosing pods (inplace_pick). Buckets, in this order:
 *   rank 0 Failed, 1 Pending, 2 Running but not Ready, 3 Ready but not
 *   yet available (minReadySeconds), 4 available;
 * within a rank the oldest creationTimestamp first, then the name (a
 * total order, so plans are deterministic). Pods being deleted,
 * Succeeded pods and the new RS's pods are not candidates.
 *
 * In flight: a pod the transaction of inplace_apply.h moved to the new
 * RS carries the intent (ANN_IN_PLACE_UPDATE) and, until it is Ready on
 * the new spec, is pending (inplace_pending): it counts as unavailable
 * here, and the Deployment's status does not count it as ready or
 * available (inplace_inflight) although its RS's status may, while the
 * old process still answers; so `rollout status` cannot finish before
 * the last pod has.
 *
 * The budget: at most maxUnavailable (mu) pods of the Deployment may be
 * unavailable, counting those that already are. Let U be the pods short
 * of available (replicas - available, where a pod whose update has begun
 * counts as unavailable even while still Ready) and H the unavailable
 * candidates (ranks 0-3). Updating an unavailable pod does not raise U,
 * so it costs nothing of the budget and holds no slot of it: every one
 * is updated at once, as the in-place seed updates unhealthy pods
 * first. Updating an available one raises U by 1. So
 *   unhealthy picks = H
 *   healthy picks   = mu - U                 (never below 0)
 * A pod whose update cannot complete (say it fits on no node) stays
 * unavailable, as it was; it blocks no other unhealthy pod, and the
 * available ones only as any unavailable pod does, by the budget. When
 * that leaves nothing to do, the rollout makes no progress and its
 * deadline says so (ProgressDeadlineExceeded).
 * Worked examples:
 *   - 5 replicas, mu 1, all available: U 0, H 0: one healthy pod; while
 *     it restarts U is 1 and nothing else moves: one at a time.
 *   - 10 replicas, 25% -> 2: two pods per wave.
 *   - 5 replicas, mu 1, one old pod not Ready: U 1, H 1: it is picked,
 *     and no healthy one (1 - 1 = 0).
 *   - 5 replicas, mu 1, three old pods Pending: U 3, H 3: all three; the
 *     world is already past the budget, so no available pod is touched
 *     until they recover.
 *   - 4 replicas, mu 1, one Pending (fits nowhere) and one not Ready: U
 *     2, H 2: both at once. The not-Ready one becomes Ready on the new
 *     spec (U 1), the Pending one never does: 3 of 4 are available, the
 *     budget is spent, the two old available pods wait, and the
 *     deadline ends the rollout. Holding a slot per unhealthy update
 *     would have updated the Pending pod alone and waited for ever.
 *
 * Scaling while updating (inplace_scale_decision, called by scale() on a
 * scaling event): more replicas go to the new RS (new pods start on the
 * new template at once, nothing to update later); fewer are taken from
 * the old RSes first, oldest first (pods that would have needed an
 * update), then from the new RS. Example: 5 replicas mid-update, old 3,
 * new 2; scaled to 7: new 4 (old 3 still to update); scaled to 2: old 0,
 * new 2. */
#include <stdlib.h>
#include <string.h>

#include "deploy_util.h"
#include "inplace_apply.h"
#include "inplace_check.h"
#include "plan_deploy_int.h"
#include "plan_rs.h"
#include "xalloc.h"

/* One candidate and its sort key. */
struct cand {
	const struct pod *p;
	int rank;
};

static bool
controlled_by(const struct pod *p, const struct replicaset *rs)
{
	const struct owner_ref *ref = meta_controller_ref(&p->metadata);

	return rs && ref && owner_ref_is(ref, "ReplicaSet", &rs->metadata);
}

/* The RS of `v` (n entries) that controls p, or NULL. */
static const struct replicaset *
owner_in(const struct pod *p, const struct replicaset *const *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (controlled_by(p, v[i]))
			return v[i];
	return NULL;
}

/* The bucket of a pod (see the head of this file). */
static int
pod_rank(const struct pod *p, int64_t min_ready, dtime now)
{
	const char *phase = p->status.phase ? p->status.phase : "";

	if (!strcmp(phase, "Failed"))
		return 0;
	if (!strcmp(phase, "Pending") || *phase == '\0')
		return 1;
	if (!pod_is_ready(p))
		return 2;
	return pod_is_available(p, min_ready, now) ? 4 : 3;
}

static int
cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	dtime tx = x->p->metadata.creation_timestamp;
	dtime ty = y->p->metadata.creation_timestamp;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (tx != ty)
		return tx < ty ? -1 : 1;
	return strcmp(x->p->metadata.name ? x->p->metadata.name : "",
		      y->p->metadata.name ? y->p->metadata.name : "");
}

size_t
inplace_pick(const struct deployment *d, const struct replicaset *new_rs,
	     const struct replicaset *const *old, size_t nold,
	     const struct pod *const *pods, size_t npods, dtime now,
	     const struct pod ***picked)
{
	int64_t mu = inplace_max_unavailable(d), avail = 0, u, h = 0;
	int64_t nh, nr;
	struct cand *c = xmalloc((npods + 1) * sizeof(*c));
	size_t i, nc = 0, k = 0;

	*picked = xmalloc((npods + 1) * sizeof(**picked));
	for (i = 0; i < npods; i++) {
		const struct pod *p = pods[i];
		const struct replicaset *o = owner_in(p, old, nold);
		const char *phase = p->status.phase ? p->status.phase : "";
		bool begun = inplace_pending(p, new_rs);

		if (o == NULL && !controlled_by(p, new_rs))
			continue; /* not the Deployment's */
		if (o == NULL)
			o = new_rs;
		if (!begun && pod_is_active(p) &&
		    pod_is_available(p, o->spec.min_ready_seconds, now))
			avail++;
		if (o == new_rs || begun || p->metadata.deletion_timestamp ||
		    !strcmp(phase, "Succeeded"))
			continue;
		c[nc].p = p;
		c[nc].rank = pod_rank(p, o->spec.min_ready_seconds, now);
		if (c[nc].rank < 4)
			h++;
		nc++;
	}
	u = deploy_replicas(d) - avail;
	if (u < 0)
		u = 0;
	nh = h;
	nr = mu - u;
	xqsort(c, nc, sizeof(*c), cand_cmp);
	for (i = 0; i < nc; i++) {
		if (c[i].rank < 4 && nh > 0) {
			(*picked)[k++] = c[i].p;
			nh--;
		} else if (c[i].rank == 4 && nr > 0) {
			(*picked)[k++] = c[i].p;
			nr--;
		}
	}
	free(c);
	return k;
}

struct pd_inflight
inplace_inflight(const struct replicaset *new_rs, const struct pod *const *pods,
		 size_t npods, dtime now)
{
	struct pd_inflight fl = {0};
	size_t i;

	for (i = 0; i < npods; i++) {
		const struct pod *p = pods[i];

		if (!pod_is_active(p) || !inplace_pending(p, new_rs))
			continue;
		if (pod_is_ready(p))
			fl.ready++;
		if (pod_is_available(p, new_rs->spec.min_ready_seconds, now))
			fl.available++;
	}
	return fl;
}

struct resize_list
inplace_scale_decision(const struct deployment *d,
		       const struct replicaset *new_rs,
		       const struct replicaset *const *old, size_t nold)
{
	struct resize_list l = {0};
	int64_t total =
	    rs_spec_sum(rs_rw(old), nold) + (new_rs ? rs_replicas(new_rs) : 0);
	int64_t diff = deploy_replicas(d) - total;
	size_t i;

	/* old is newest first (scale()'s order): walk it backwards to take
	 * from the oldest first. */
	for (i = nold; i-- > 0;) {
		int64_t n = rs_replicas(old[i]), take = 0;

		if (n == 0)
			continue;
		if (diff < 0) {
			take = -diff < n ? -diff : n;
			diff += take;
		}
		resize_add(&l, old[i], n - take, true);
	}
	if (new_rs) {
		int64_t n = rs_replicas(new_rs) + diff;

		resize_add(&l, new_rs, n > 0 ? n : 0, true);
	} else if (diff > 0 && nold > 0) {
		/* Paused before the new RS exists: the newest old RS grows,
		 * as Kubernetes' scale() would give it the whole count. */
		for (i = 0; i < l.n; i++)
			if (l.v[i].rs == old[0])
				l.v[i].to += diff;
		if (l.n == 0)
			resize_add(&l, old[0], rs_replicas(old[0]) + diff,
				   true);
	}
	return l;
}

/* Whether the pods of old RS `rs` can reach the Deployment's template in
 * place: its template, without the pod-template-hash label, differs from
 * d's in the containers' image, command and args at most. A rollback or
 * a strategy switched mid-rollout can leave an old RS whose template
 * differs in more (env, ports...): the API's update rule never saw that
 * pair. If not, *path gets the first forbidden field. */
static bool
rs_in_place_ok(const struct deployment *d, const struct replicaset *rs,
	       struct strbuf *path)
{
	return inplace_reachable(&rs->spec.template, &d->spec.template, path);
}

/* rolloutInPlace: one step (see the head of this file).
 *
 * A picked pod whose RS cannot reach the new template in place (see
 * rs_in_place_ok) is replaced instead, as OpenKruise's CloneSet does
 * under InPlaceIfPossible: its RS shrinks by one and the new RS grows by
 * one in the same step, so it uses the same slot of the budget and the
 * ReplicaSet controller deletes one pod of that RS (its own victim
 * ranking also takes unhealthy pods first) and creates one on the new
 * template. A Normal event InPlaceUpdateImpossible names the field. */
void
pd_rollout_inplace(struct st *st)
{
	struct replicaset *new_rs, **old;
	const struct pod **picked, **inplace;
	struct resize_list l = {0};
	size_t nold, n, i, j, ninplace = 0;
	int64_t want, *to, grow = 0;

	if (pd_get_all_rs(st, true, &new_rs, &old, &nold))
		return;
	want = deploy_replicas(st->d) - rs_spec_sum(old, nold);
	if (want < 0)
		want = 0;
	if (rs_replicas(new_rs) != want &&
	    pd_scale_rs_event(st, new_rs, want)) {
		pd_sync_rollout_status(st, new_rs);
		free(old);
		return;
	}
	n = inplace_pick(st->d, new_rs, rs_ro(old), nold, st->in->pods,
			 st->in->npods, st->in->now, &picked);
	to = xcalloc(nold + 1, sizeof(*to));
	inplace = xcalloc(n + 1, sizeof(*inplace));
	for (j = 0; j < nold; j++)
		to[j] = rs_replicas(old[j]);
	for (i = 0; i < n; i++) {
		const char *name = picked[i]->metadata.name;
		struct strbuf path = STRBUF_INIT;

		for (j = 0; j < nold; j++)
			if (controlled_by(picked[i], old[j]))
				break;
		if (j < nold && !rs_in_place_ok(st->d, old[j], &path)) {
			event_add(&st->out->events, "Normal",
				  "InPlaceUpdateImpossible",
				  "Pod %s cannot be updated in place (%s "
				  "differs): replacing it",
				  name, path.buf);
			if (to[j] > 0) {
				to[j]--;
				grow++;
			}
		} else {
			inplace[ninplace++] = picked[i];
		}
		strbuf_release(&path);
	}
	/* Replacements first: an in-place transaction changes both RSes
	 * on the server, so a resize of this step after it would write
	 * over a newer version and be refused. */
	if (grow) {
		for (j = 0; j < nold; j++)
			if (to[j] != rs_replicas(old[j]))
				resize_add(&l, old[j], to[j], false);
		resize_add(&l, new_rs, rs_replicas(new_rs) + grow, false);
		pd_apply_resizes(st, &l);
		resize_list_release(&l);
	}
	for (i = 0; i < ninplace; i++) {
		const char *name = inplace[i]->metadata.name;
		struct action *a = action_add(&st->out->actions,
					      ACT_UPDATE_IN_PLACE, "Pod", name);

		a->target = xstrdup(pd_rs_name(new_rs));
		event_add(&st->out->events, "Normal", "UpdatingInPlace",
			  "Updating pod %s in place to replica set %s", name,
			  pd_rs_name(new_rs));
	}
	free(inplace);
	free(picked);
	free(to);
	if (deployment_complete(st->d, &st->d->status))
		pd_cleanup_deployment(st, old, nold);
	pd_sync_rollout_status(st, new_rs);
	free(old);
}
