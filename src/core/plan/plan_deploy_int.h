/* plan_deploy_int.h - what the files of the Deployment planner share:
 * the working state of one step and the functions one file calls in
 * another (plan_deploy.c: the sync, claiming, the RS list, scaling,
 * cleanup; plan_deploy_rolling.c, plan_deploy_recreate.c,
 * plan_deploy_rollback.c, plan_deploy_progress.c: Kubernetes' rolling.go,
 * recreate.go, rollback.go and progress.go). Not for use outside them.
 *
 * Two kinds of functions live here, as in Nomad's reconciler:
 *  - decisions (the pure steps): they take their inputs as const (the
 *    Deployment, ReplicaSets, pods, now) and return a value: a size, a
 *    list of resizes, a list of RSes to delete, a status. They never see
 *    `struct st` and change nothing.
 *  - the sync, which owns `struct st`: it takes the RS list, calls a
 *    decision, and applies its result to the working copies in `out`,
 *    recording the actions and events (pd_apply_resizes, pd_scale_rs_event,
 *    pd_write_status...). */
#ifndef DROVER_PLAN_DEPLOY_INT_H
#define DROVER_PLAN_DEPLOY_INT_H

#include "plan_deploy.h"

/* The sync's working state: the input, the output being built (its
 * objects are the working copies the step changes), and the RS sizes as
 * they were when the step's RS list was taken (invariant 2 of
 * plan_deploy.c). Only the sync and its appliers touch it. */
struct st {
	const struct plan_deploy_in *in;
	struct plan_deploy_out *out;
	struct deployment *d;
	int64_t *snap; /* RS sizes when the step's RS list was taken */
	bool *deleted; /* parallel to out->rs */
	size_t alloc;
	bool have_snap;
};

/* ---- decision results ---- */

/* The decisions see RS arrays as const. deploy_util's sums and
 * new_rs_new_replicas predate that: they take `struct replicaset *const *`
 * and only read through it. These two conversions are the only places
 * the planner crosses between the two views. */
static inline const struct replicaset *const *
rs_ro(struct replicaset *const *v)
{
	return (const struct replicaset *const *)v;
}

static inline struct replicaset *const *
rs_rw(const struct replicaset *const *v)
{
	return (struct replicaset *const *)v;
}

/* One ReplicaSet's new size, decided by a step and applied by the sync
 * (pd_apply_resizes finds the working copy `rs` points at). `refresh`
 * selects Kubernetes' scaleReplicaSet, which also writes an RS whose size
 * is right but whose desired/max-replicas annotations are stale; without
 * it the resize is scaleReplicaSetAndRecordEvent, which does nothing at
 * the right size. */
struct rs_resize {
	const struct replicaset *rs;
	int64_t to;
	bool refresh;
};

/* An ordered list of resizes: the order of the actions they become. The
 * list owns v (not the RSes); release it with resize_list_release(). */
struct resize_list {
	struct rs_resize *v;
	size_t n;
	size_t alloc;
};

void resize_add(struct resize_list *l, const struct replicaset *rs, int64_t to,
		bool refresh);
void resize_list_release(struct resize_list *l);

/* ---- decisions (pure) ---- */

/* cleanupDeployment's choice (§14): the old RSes to delete, in the order
 * of their deletions. The caller frees the array (not the RSes). */
size_t pd_history_victims(const struct deployment *d,
			  const struct replicaset *const *old, size_t nold,
			  const struct replicaset ***victims);
/* Pods that the ReplicaSets' statuses count as ready or available but
 * that are not, for the Deployment: InPlaceUpdate pods whose update has
 * begun while their old process still answers (inplace_inflight). */
struct pd_inflight {
	int64_t ready, available;
};

/* calculateStatus (§10): the status of the step's RS list `live`, where
 * spec[i] is the size of live[i] when the list was taken (invariant 2 of
 * plan_deploy.c), less the pods of fl (NULL: none). The conditions are
 * d's with Available set. The caller owns *ns (schema_release). */
void pd_calculate_status(const struct deployment *d,
			 const struct replicaset *const *live,
			 const int64_t *spec, size_t n,
			 const struct replicaset *new_rs,
			 const struct pd_inflight *fl, dtime now,
			 struct deployment_status *ns);

/* InPlaceUpdate (plan_deploy_inplace.c). inplace_pick: the old pods to
 * update in place now, in order, into *picked (the caller frees the
 * array, not the pods). inplace_scale_decision: scale()'s resizes for an
 * InPlaceUpdate Deployment with several active RSes; old newest first. */
size_t inplace_pick(const struct deployment *d, const struct replicaset *new_rs,
		    const struct replicaset *const *old, size_t nold,
		    const struct pod *const *pods, size_t npods, dtime now,
		    const struct pod ***picked);
/* The InPlaceUpdate pods of new_rs whose update is pending
 * (inplace_pending) and that still count as ready or available. */
struct pd_inflight inplace_inflight(const struct replicaset *new_rs,
				    const struct pod *const *pods, size_t npods,
				    dtime now);
struct resize_list inplace_scale_decision(const struct deployment *d,
					  const struct replicaset *new_rs,
					  const struct replicaset *const *old,
					  size_t nold);

/* ---- the sync and its appliers (plan_deploy.c) ---- */

size_t pd_active_only(struct replicaset **v, size_t n);
void pd_cleanup_deployment(struct st *st, struct replicaset **old, size_t nold);
int pd_get_all_rs(struct st *st, bool create, struct replicaset **newp,
		  struct replicaset ***oldp, size_t *noldp);
size_t pd_live_rs(struct st *st, const struct replicaset *skip,
		  struct replicaset ***out);
/* Applies l in order to the working copies; true if any size changed. */
bool pd_apply_resizes(struct st *st, const struct resize_list *l);
void pd_rollback(struct st *st);
bool pd_rollback_to(const struct deployment *d, int64_t *rev);
void pd_rollout_inplace(struct st *st);
void pd_rollout_recreate(struct st *st);
void pd_rollout_rolling(struct st *st);
const char *pd_rs_name(const struct replicaset *rs);
bool pd_scale_rs_event(struct st *st, struct replicaset *rs, int64_t to);
void pd_sync_deployment_status(struct st *st, const struct replicaset *new_rs);
void pd_sync_rollout_status(struct st *st, const struct replicaset *new_rs);
void pd_write_deployment(struct st *st);
void pd_write_status(struct st *st);

#endif
