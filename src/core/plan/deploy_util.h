/* deploy_util.h - the pure formulas of Kubernetes' deployment controller
 * (pkg/controller/deployment/util/deployment_util.go and the sort orders of
 * controller_utils.go), one function each, named after their Kubernetes
 * counterparts. See spec/deployment.md §2-§5, §7, §11 for the rules and
 * worked examples. Nothing here allocates except where a comment says so.
 *
 * All functions assume defaulted objects (defaults.h); an unset replica
 * count reads as 1, the default. */
#ifndef DROVER_DEPLOY_UTIL_H
#define DROVER_DEPLOY_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"

#define MAX_INT32             2147483647
#define MAX_REV_HISTORY_CHARS 2000

/* Reasons of the Progressing and Available conditions. */
#define REASON_NEW_RS_CREATED   "NewReplicaSetCreated"
#define REASON_FOUND_NEW_RS     "FoundNewReplicaSet"
#define REASON_RS_UPDATED       "ReplicaSetUpdated"
#define REASON_NEW_RS_AVAILABLE "NewReplicaSetAvailable"
#define REASON_TIMED_OUT        "ProgressDeadlineExceeded"
#define REASON_PAUSED           "DeploymentPaused"
#define REASON_RESUMED          "DeploymentResumed"
#define REASON_RS_CREATE_ERROR  "ReplicaSetCreateError"
#define REASON_MIN_AVAILABLE    "MinimumReplicasAvailable"
#define REASON_MIN_UNAVAILABLE  "MinimumReplicasUnavailable"

/* InPlaceUpdate's maxUnavailable: percent rounds down, at least 1 when
 * replicas > 0, clamped to replicas; 0 for other strategies. Examples:
 * 25% of 10 -> 2, 25% of 3 -> 0 -> 1, 7 of 5 -> 5, anything of 0 -> 0. */
int64_t inplace_max_unavailable(const struct deployment *d);
bool deploy_has_progress_deadline(const struct deployment *d);
bool deploy_has_revision_history_limit(const struct deployment *d);

/* ResolveFenceposts: surge rounds up, unavailable rounds down; both zero
 * -> unavailable 1. Returns -1 if either value is a non-percent string.
 * Example: 10 replicas, 25%/25% -> surge 3, unavailable 2. */
int resolve_fenceposts(const struct intstr *max_surge,
		       const struct intstr *max_unavailable, int64_t desired,
		       int64_t *surge, int64_t *unavailable);
int64_t max_surge(const struct deployment *d);
/* Clamped to replicas; 0 when replicas is 0 or not RollingUpdate. */
int64_t max_unavailable(const struct deployment *d);
int64_t min_available(const struct deployment *d);

/* NewRSNewReplicas (§8.2): the size the new ReplicaSet may grow to now.
 * all[] may contain NULL entries (they count 0). */
int64_t new_rs_new_replicas(const struct deployment *d,
			    struct replicaset *const *all, size_t n,
			    const struct replicaset *new_rs);

/* Sums over ReplicaSets (NULL entries count 0). */
int64_t rs_spec_sum(struct replicaset *const *v, size_t n);
int64_t rs_live_sum(struct replicaset *const *v, size_t n);
/* The larger of spec and status replicas, summed: what maxSurge bounds
 * (deploy_util.c says why it differs from Kubernetes). */
int64_t rs_surge_sum(struct replicaset *const *v, size_t n);
int64_t rs_ready_sum(struct replicaset *const *v, size_t n);
int64_t rs_available_sum(struct replicaset *const *v, size_t n);

/* Revision(): a missing annotation is 0; -1 if it does not parse. */
int rs_revision(const struct replicaset *rs, int64_t *out);
int64_t max_revision(struct replicaset *const *v, size_t n);
/* LastRevision: the second highest revision (0 if none). */
int64_t last_revision(struct replicaset *const *v, size_t n);

/* qsort comparators over arrays of struct replicaset * (§2). */
int rs_cmp_creation(const void *a, const void *b);
int rs_cmp_creation_rev(const void *a, const void *b);
int rs_cmp_size_older(const void *a, const void *b);
int rs_cmp_size_newer(const void *a, const void *b);
int rs_cmp_revision(const void *a, const void *b);

/* Annotations (§5). Each returns true if it changed rs. */
bool skip_copy_annotation(const char *key);
bool copy_deployment_annotations_to_rs(const struct deployment *d,
				       struct replicaset *rs);
bool set_new_rs_annotations(const struct deployment *d, struct replicaset *rs,
			    int64_t new_revision, bool exists);
bool set_replicas_annotations(struct replicaset *rs, int64_t desired,
			      int64_t max);
bool replicas_annotations_need_update(const struct replicaset *rs,
				      int64_t desired, int64_t max);
/* The deployment's revision annotation := revision; true if changed. */
bool set_deployment_revision(struct deployment *d, const char *revision);
/* Parses a non-negative 32-bit annotation value; false if absent/bad. */
bool int_annotation(const struct strmap *ann, const char *key, int64_t *out);

/* Proportional scaling (§7.2, §7.3). */
int64_t round_half_away(double x);
int64_t get_proportion(const struct replicaset *rs, const struct deployment *d,
		       int64_t to_add, int64_t added);
bool is_saturated(const struct deployment *d, const struct replicaset *rs);

/* Conditions (§11.1): SetDeploymentCondition of a condition made now. */
void set_condition(struct condition_list *l, const char *type,
		   const char *status, const char *reason, const char *message,
		   dtime now);

/* Predicates (§11.3). */
bool deployment_complete(const struct deployment *d,
			 const struct deployment_status *st);
bool deployment_progressing(const struct deployment *d,
			    const struct deployment_status *st);
bool deployment_timed_out(const struct deployment *d,
			  const struct deployment_status *st, dtime now);

/* EqualIgnoreHash of the deployment's template and the RS's. */
bool rs_matches_template(const struct deployment *d,
			 const struct replicaset *rs);

#endif
