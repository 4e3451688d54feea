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

/* ---- status (§10, §11) ---- */

static int64_t
snap_of(const struct st *st, const struct replicaset *rs)
{
	size_t i;

	for (i = 0; i < st->out->nrs; i++)
		if (st->out->rs[i] == rs)
			return st->have_snap ? st->snap[i] : rs_replicas(rs);
	return rs_replicas(rs);
}

/* calculateStatus over the step's RS list (all live owned RSes). */
static void
calculate_status(struct st *st, const struct replicaset *new_rs,
		 struct deployment_status *ns)
{
	const struct deployment *d = st->d;
	struct replicaset **all;
	size_t n = pd_live_rs(st, NULL, &all), i;
	int64_t spec = 0;

	for (i = 0; i < n; i++)
		spec += snap_of(st, all[i]);
	memset(ns, 0, sizeof(*ns));
	ns->observed_generation = d->metadata.generation;
	ns->replicas = rs_live_sum(all, n);
	ns->updated_replicas = new_rs ? new_rs->status.replicas : 0;
	ns->ready_replicas = rs_ready_sum(all, n);
	ns->available_replicas = rs_available_sum(all, n);
	ns->unavailable_replicas = spec - ns->available_replicas;
	if (ns->unavailable_replicas < 0)
		ns->unavailable_replicas = 0;
	ns->collision_count = d->status.collision_count;
	for (i = 0; i < d->status.conditions.n; i++)
		condition_append(&ns->conditions, &d->status.conditions.v[i]);
	if (ns->available_replicas >= deploy_replicas(d) - max_unavailable(d))
		set_condition(
		    &ns->conditions, "Available", "True", REASON_MIN_AVAILABLE,
		    "Deployment has minimum availability.", st->in->now);
	else
		set_condition(&ns->conditions, "Available", "False",
			      REASON_MIN_UNAVAILABLE,
			      "Deployment does not have minimum availability.",
			      st->in->now);
	free(all);
}

static const struct schema *
status_schema(void)
{
	/* The status struct is the 5th field of the deployment schema. */
	return kind_status_schema(kind_by_id(KIND_DEPLOYMENT));
}

/* Replaces d.status with ns (taking ownership) and records the write,
 * unless they are equal. Returns true if written. */
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

/* requeueStuckDeployment (§11.5). */
static void
requeue_stuck(struct st *st, const struct deployment_status *ns)
{
	const struct deployment *d = st->d;
	const struct condition *c =
	    condition_get(&d->status.conditions, "Progressing");
	int64_t after;

	if (!deploy_has_progress_deadline(d) || c == NULL)
		return;
	if (deployment_complete(d, ns) ||
	    (c->reason && !strcmp(c->reason, REASON_TIMED_OUT)))
		return;
	after = c->last_update_time +
		DTIME_SEC(d->spec.progress_deadline_seconds.v) - st->in->now;
	if (after < 1000)
		st->out->requeue_after_ms = 0;
	else
		st->out->requeue_after_ms = after + 1000;
}

/* syncRolloutStatus (§11.4). */
void
pd_sync_rollout_status(struct st *st, const struct replicaset *new_rs)
{
	struct deployment *d = st->d;
	struct deployment_status ns;
	const struct condition *cur;
	bool complete_already;
	const char *name = new_rs ? pd_rs_name(new_rs) : d->metadata.name;
	const char *what = new_rs ? "ReplicaSet" : "Deployment";
	char msg[600];

	calculate_status(st, new_rs, &ns);
	if (!deploy_has_progress_deadline(d))
		condition_remove(&ns.conditions, "Progressing");
	cur = condition_get(&d->status.conditions, "Progressing");
	complete_already = ns.replicas == ns.updated_replicas && cur &&
			   cur->reason &&
			   !strcmp(cur->reason, REASON_NEW_RS_AVAILABLE);
	if (deploy_has_progress_deadline(d) && !complete_already) {
		if (deployment_complete(d, &ns)) {
			snprintf(msg, sizeof(msg),
				 "%s \"%s\" has successfully progressed.", what,
				 name);
			set_condition(&ns.conditions, "Progressing", "True",
				      REASON_NEW_RS_AVAILABLE, msg,
				      st->in->now);
		} else if (deployment_progressing(d, &ns)) {
			struct condition c = {
			    .type = "Progressing",
			    .status = "True",
			    .reason = REASON_RS_UPDATED,
			    .message = msg,
			    .last_update_time = st->in->now,
			    .last_transition_time = st->in->now,
			};

			snprintf(msg, sizeof(msg), "%s \"%s\" is progressing.",
				 what, name);
			if (cur) {
				if (cur->status && !strcmp(cur->status, "True"))
					c.last_transition_time =
					    cur->last_transition_time;
				condition_remove(&ns.conditions, "Progressing");
			}
			/* SetDeploymentCondition on a list without it */
			condition_append(&ns.conditions, &c);
		} else if (deployment_timed_out(d, &ns, st->in->now)) {
			snprintf(msg, sizeof(msg),
				 "%s \"%s\" has timed out progressing.", what,
				 name);
			set_condition(&ns.conditions, "Progressing", "False",
				      REASON_TIMED_OUT, msg, st->in->now);
		}
	}
	/* ReplicaFailure: the new RS's, else any RS's, else none. */
	{
		const struct condition *rf = NULL;
		size_t i;

		if (new_rs)
			rf = condition_get(&new_rs->status.conditions,
					   "ReplicaFailure");
		for (i = 0; !rf && i < st->out->nrs; i++)
			if (!st->deleted[i])
				rf = condition_get(
				    &st->out->rs[i]->status.conditions,
				    "ReplicaFailure");
		if (rf && rf->status && !strcmp(rf->status, "True"))
			set_condition(&ns.conditions, "ReplicaFailure", "True",
				      rf->reason ? rf->reason : "",
				      rf->message ? rf->message : "",
				      st->in->now);
		else
			condition_remove(&ns.conditions, "ReplicaFailure");
	}
	if (schema_equal(status_schema(), &d->status, &ns)) {
		requeue_stuck(st, &ns);
		schema_release(status_schema(), &ns);
		return;
	}
	commit_status(st, &ns);
}

/* syncDeploymentStatus: status without touching Progressing. */
void
pd_sync_deployment_status(struct st *st, const struct replicaset *new_rs)
{
	struct deployment_status ns;

	calculate_status(st, new_rs, &ns);
	commit_status(st, &ns);
}
