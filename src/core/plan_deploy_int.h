/* plan_deploy_int.h - what the files of the Deployment planner share:
 * the working state of one step and the functions one file calls in
 * another (plan_deploy.c: the sync, claiming, the RS list, scaling,
 * cleanup; plan_deploy_rolling.c, plan_deploy_recreate.c,
 * plan_deploy_rollback.c, plan_deploy_progress.c: Kubernetes' rolling.go,
 * recreate.go, rollback.go and progress.go). Not for use outside them. */
#ifndef DROVER_PLAN_DEPLOY_INT_H
#define DROVER_PLAN_DEPLOY_INT_H

#include "plan_deploy.h"

/* One step: the input, the output being built (its objects are the
 * working copies the step changes), and the RS sizes as they were when
 * the step's RS list was taken (invariant 2 of plan_deploy.c). */
struct st {
	const struct plan_deploy_in *in;
	struct plan_deploy_out *out;
	struct deployment *d;
	int64_t *snap; /* RS sizes when the step's RS list was taken */
	bool *deleted; /* parallel to out->rs */
	size_t alloc;
	bool have_snap;
};

size_t pd_active_only(struct replicaset **v, size_t n);
void pd_cleanup_deployment(struct st *st, struct replicaset **old, size_t nold);
int pd_get_all_rs(struct st *st, bool create, struct replicaset **newp,
		  struct replicaset ***oldp, size_t *noldp);
size_t pd_live_rs(struct st *st, const struct replicaset *skip,
		  struct replicaset ***out);
void pd_rollback(struct st *st);
bool pd_rollback_to(const struct deployment *d, int64_t *rev);
void pd_rollout_recreate(struct st *st);
void pd_rollout_rolling(struct st *st);
const char *pd_rs_name(const struct replicaset *rs);
bool pd_scale_rs_event(struct st *st, struct replicaset *rs, int64_t to);
void pd_sync_deployment_status(struct st *st, const struct replicaset *new_rs);
void pd_sync_rollout_status(struct st *st, const struct replicaset *new_rs);
void pd_write_deployment(struct st *st);
void pd_write_status(struct st *st);

#endif
