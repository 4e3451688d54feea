/* plan_deploy_progress.c - Kubernetes' progress.go and the status half of
 * sync.go: the Deployment's status from its RSes as they were when the step
 * began, the Progressing condition and the progress deadline (spec §10,
 * §11). Part of plan_deploy (see plan_deploy.c and plan_deploy_int.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deploy_util.h"
#include "kinds.h"
#include "plan_deploy_int.h"
#include "xalloc.h"

/* ---- status (§10, §11) ---- */

/* The step's RS list as the status reads it: the live owned RSes, oldest
 * first, and their sizes when the step's RS list was taken (invariant 2
 * of plan_deploy.c; the current sizes when it was not taken). The arrays
 * are the caller's to free.
 *
 * Example: the step that creates web-new at 3 and scales web-old 10 ->
 * 8 reports spec sizes 10 and 3, as Kubernetes does with the RS
 * pointers it listed before scaling: unavailableReplicas is 13 minus
 * the available pods, and 11 minus them only from the next step. */
struct live_view {
	struct replicaset **rs;
	int64_t *spec;
	size_t n;
};

static struct live_view
live_view(struct st *st)
{
	struct live_view v;
	size_t i, k;

	v.n = pd_live_rs(st, NULL, &v.rs);
	v.spec = xmalloc((v.n + 1) * sizeof(*v.spec));
	for (i = 0; i < v.n; i++) {
		v.spec[i] = rs_replicas(v.rs[i]);
		for (k = 0; st->have_snap && k < st->out->nrs; k++)
			if (st->out->rs[k] == v.rs[i])
				v.spec[i] = st->snap[k];
	}
	return v;
}

static void
live_view_release(struct live_view *v)
{
	free(v->rs);
	free(v->spec);
}

/* calculateStatus over the step's RS list. unavailableReplicas is the
 * desired count minus the available one, never below 0: with 13 desired
 * (old 10 + new 3) and 10 available it is 3, although spec.replicas is
 * 10. Available is True while available >= minAvailable (replicas -
 * maxUnavailable: 8 of 10 with 25%). An InPlaceUpdate Deployment's
 * maxUnavailable is its inPlaceUpdate.maxUnavailable, the budget its
 * steps keep to (inplace_max_unavailable: 10 replicas at the default
 * 25%, 8 available mid-update is still Available); a Recreate one's is
 * 0, so it needs every replica available and is Available=False for
 * the whole gap between old and new.
 *
 * fl takes out the InPlaceUpdate pods whose update has begun while the
 * old process still answers: their RS counts them ready and available,
 * the Deployment must not (5 available, one of them mid-update: 4). */
void
pd_calculate_status(const struct deployment *d,
		    const struct replicaset *const *live, const int64_t *spec,
		    size_t n, const struct replicaset *new_rs,
		    const struct pd_inflight *fl, dtime now,
		    struct deployment_status *ns)
{
	int64_t desired = 0, unavailable;
	size_t i;

	for (i = 0; i < n; i++)
		desired += spec[i];
	memset(ns, 0, sizeof(*ns));
	ns->observed_generation = d->metadata.generation;
	ns->replicas = rs_live_sum(rs_rw(live), n);
	ns->updated_replicas = new_rs ? new_rs->status.replicas : 0;
	ns->ready_replicas = rs_ready_sum(rs_rw(live), n);
	ns->available_replicas = rs_available_sum(rs_rw(live), n);
	if (fl) {
		ns->ready_replicas -= fl->ready;
		ns->available_replicas -= fl->available;
		if (ns->ready_replicas < 0)
			ns->ready_replicas = 0;
		if (ns->available_replicas < 0)
			ns->available_replicas = 0;
	}
	ns->unavailable_replicas = desired - ns->available_replicas;
	if (ns->unavailable_replicas < 0)
		ns->unavailable_replicas = 0;
	ns->collision_count = d->status.collision_count;
	for (i = 0; i < d->status.conditions.n; i++)
		condition_append(&ns->conditions, &d->status.conditions.v[i]);
	unavailable = deploy_is_inplace(d) ? inplace_max_unavailable(d)
					   : max_unavailable(d);
	if (ns->available_replicas >= deploy_replicas(d) - unavailable)
		set_condition(&ns->conditions, "Available", "True",
			      REASON_MIN_AVAILABLE,
			      "Deployment has minimum availability.", now);
	else
		set_condition(&ns->conditions, "Available", "False",
			      REASON_MIN_UNAVAILABLE,
			      "Deployment does not have minimum availability.",
			      now);
}

static const struct schema *
status_schema(void)
{
	/* The status struct is the 5th field of the deployment schema. */
	return kind_status_schema(kind_by_id(KIND_DEPLOYMENT));
}

/* Replaces d.status with ns (taking ownership) and records the write,
 * unless they are equal. Returns true if written. Equal statuses are
 * not written at all, so a step that changes nothing records no action
 * (`drover plan --once` prints "actions: none"). */
static bool
commit_status(struct st *st, struct deployment_status *ns)
{
	if (schema_equal(status_schema(), &st->d->status, ns)) {
		schema_release(status_schema(), ns);
		return false;
	}
	schema_release(status_schema(), &st->d->status);
	st->d->status = *ns;
	pd_write_status(st);
	return true;
}

/* requeueStuckDeployment (§11.5): when to look again so that the
 * deadline is noticed without an event, or -1 for no requeue (no
 * deadline, no Progressing condition yet, complete, or timed out
 * already). The deadline is lastUpdateTime + progressDeadlineSeconds;
 * under a second away means now (0, with back-off), else one second
 * past it. Example: deadline 600 s, last update at 12:00:00, now
 * 12:09:58.750: 1.25 s left, requeue after 2.25 s; at 12:09:59.500
 * (0.5 s left) requeue now. */
static int64_t
requeue_after(const struct deployment *d, const struct deployment_status *ns,
	      dtime now)
{
	const struct condition *c =
	    condition_get(&d->status.conditions, "Progressing");
	int64_t after;

	if (!deploy_has_progress_deadline(d) || c == NULL)
		return -1;
	if (deployment_complete(d, ns) ||
	    (c->reason && !strcmp(c->reason, REASON_TIMED_OUT)))
		return -1;
	/* The extra second is Kubernetes' guard against waking a few
	 * milliseconds early and finding the deadline not yet passed (the
	 * timeout test is strict). */
	after = c->last_update_time +
		DTIME_SEC(d->spec.progress_deadline_seconds.v) - now;
	return after < 1000 ? 0 : after + 1000;
}

/* syncRolloutStatus's new status (§11.4): calculateStatus, then the
 * Progressing condition, decided in this order:
 *  - no deadline: no Progressing condition at all;
 *  - already complete (all pods updated, reason NewReplicaSetAvailable):
 *    left alone, so a finished rollout never times out afterwards;
 *  - complete now: True, NewReplicaSetAvailable;
 *  - progressing (more updated, ready or available pods than the
 *    Deployment's status says, or fewer old ones): True,
 *    ReplicaSetUpdated, lastUpdateTime now, which restarts the deadline;
 *    its lastTransitionTime stays when it was True already;
 *  - timed out (lastUpdateTime + deadline < now, strictly): False,
 *    ProgressDeadlineExceeded.
 * Then ReplicaFailure is copied from the new RS, else from the first RS
 * of the list that has one, else removed. The caller owns *ns. */
static void
rollout_status(const struct deployment *d, const struct replicaset *const *live,
	       const int64_t *spec, size_t n, const struct replicaset *new_rs,
	       const struct pd_inflight *fl, dtime now,
	       struct deployment_status *ns)
{
	const struct condition *cur, *rf = NULL;
	bool complete_already;
	const char *name = new_rs ? pd_rs_name(new_rs) : d->metadata.name;
	const char *what = new_rs ? "ReplicaSet" : "Deployment";
	char msg[600];
	size_t i;

	pd_calculate_status(d, live, spec, n, new_rs, fl, now, ns);
	if (!deploy_has_progress_deadline(d))
		condition_remove(&ns->conditions, "Progressing");
	/* Example of "already complete": a finished rollout that loses a
	 * pod (9 of 10 left, all the new RS's) still has replicas ==
	 * updatedReplicas and keeps NewReplicaSetAvailable: no progress or
	 * deadline is judged until a new template makes updated < replicas
	 * again. */
	cur = condition_get(&d->status.conditions, "Progressing");
	complete_already = ns->replicas == ns->updated_replicas && cur &&
			   cur->reason &&
			   !strcmp(cur->reason, REASON_NEW_RS_AVAILABLE);
	if (deploy_has_progress_deadline(d) && !complete_already) {
		if (deployment_complete(d, ns)) {
			snprintf(msg, sizeof(msg),
				 "%s \"%s\" has successfully progressed.", what,
				 name);
			set_condition(&ns->conditions, "Progressing", "True",
				      REASON_NEW_RS_AVAILABLE, msg, now);
		} else if (deployment_progressing(d, ns)) {
			/* Not set_condition: it leaves a condition with the
			 * same status and reason alone, timestamps included,
			 * and progress must move lastUpdateTime even when the
			 * reason stays ReplicaSetUpdated. Example: updated at
			 * 12:00:00, more pods available at 12:03:00: the
			 * deadline (600 s) moves from 12:10:00 to 12:13:00;
			 * lastTransitionTime stays if it was True already. */
			struct condition c = {
			    .type = "Progressing",
			    .status = "True",
			    .reason = REASON_RS_UPDATED,
			    .message = msg,
			    .last_update_time = now,
			    .last_transition_time = now,
			};

			snprintf(msg, sizeof(msg), "%s \"%s\" is progressing.",
				 what, name);
			if (cur) {
				if (cur->status && !strcmp(cur->status, "True"))
					c.last_transition_time =
					    cur->last_transition_time;
				condition_remove(&ns->conditions,
						 "Progressing");
			}
			/* SetDeploymentCondition on a list without it */
			condition_append(&ns->conditions, &c);
		} else if (deployment_timed_out(d, ns, now)) {
			snprintf(msg, sizeof(msg),
				 "%s \"%s\" has timed out progressing.", what,
				 name);
			set_condition(&ns->conditions, "Progressing", "False",
				      REASON_TIMED_OUT, msg, now);
		}
	}
	/* ReplicaFailure: the new RS's, else any RS's, else none. */
	if (new_rs)
		rf =
		    condition_get(&new_rs->status.conditions, "ReplicaFailure");
	for (i = 0; !rf && i < n; i++)
		rf = condition_get(&live[i]->status.conditions,
				   "ReplicaFailure");
	if (rf && rf->status && !strcmp(rf->status, "True"))
		set_condition(&ns->conditions, "ReplicaFailure", "True",
			      rf->reason ? rf->reason : "",
			      rf->message ? rf->message : "", now);
	else
		condition_remove(&ns->conditions, "ReplicaFailure");
}

/* The in-flight pods of an InPlaceUpdate step (NULL for the others:
 * they see no pods, or none is in flight). */
static const struct pd_inflight *
inflight(struct st *st, const struct replicaset *new_rs,
	 struct pd_inflight *buf)
{
	if (!deploy_is_inplace(st->d) || new_rs == NULL)
		return NULL;
	*buf =
	    inplace_inflight(new_rs, st->in->pods, st->in->npods, st->in->now);
	return buf;
}

/* syncRolloutStatus (§11.4): writes the new status when it differs;
 * when it does not, the step may still have to come back for the
 * deadline (requeueStuckDeployment). */
void
pd_sync_rollout_status(struct st *st, const struct replicaset *new_rs)
{
	struct live_view v = live_view(st);
	struct deployment_status ns;
	struct pd_inflight fl;
	int64_t after;

	rollout_status(st->d, rs_ro(v.rs), v.spec, v.n, new_rs,
		       inflight(st, new_rs, &fl), st->in->now, &ns);
	live_view_release(&v);
	if (schema_equal(status_schema(), &st->d->status, &ns)) {
		after = requeue_after(st->d, &ns, st->in->now);
		if (after >= 0)
			st->out->requeue_after_ms = after;
		schema_release(status_schema(), &ns);
		return;
	}
	commit_status(st, &ns);
}

/* syncDeploymentStatus: status without touching Progressing. The path
 * of a paused Deployment, a scaling event and a Deployment being
 * deleted: the Progressing condition stays what it was (Unknown,
 * DeploymentPaused while paused, §12); only the counts and Available
 * are recomputed. */
void
pd_sync_deployment_status(struct st *st, const struct replicaset *new_rs)
{
	struct live_view v = live_view(st);
	struct deployment_status ns;
	struct pd_inflight fl;

	pd_calculate_status(st->d, rs_ro(v.rs), v.spec, v.n, new_rs,
			    inflight(st, new_rs, &fl), st->in->now, &ns);
	live_view_release(&v);
	commit_status(st, &ns);
}
