/* apps.h - the apps/v1 types drover models, with Kubernetes' field
 * names: Deployment (with drover's InPlaceUpdate strategy) and
 * ReplicaSet (apps.c has their field tables), and the accessors every
 * reader of them uses.
 *
 * Ownership: as core.h. */
#ifndef DROVER_APPS_H
#define DROVER_APPS_H

#include "core.h"

/* ---- apps/v1 Deployment ---- */

struct rolling_update {
	struct intstr max_unavailable;
	struct intstr max_surge;
};

/* drover's InPlaceUpdate strategy (the KEP seed, issue 11): old pods are
 * updated where they are, maxUnavailable at a time; no surge. */
struct in_place_update {
	struct intstr max_unavailable;
};

struct deployment_strategy {
	char *type; /* "RollingUpdate", "Recreate" or "InPlaceUpdate" */
	struct rolling_update *rolling_update;
	struct in_place_update *in_place_update; /* InPlaceUpdate only */
};

struct deployment_spec {
	struct opt_int replicas;
	struct label_selector *selector;
	struct pod_template template;
	struct deployment_strategy strategy;
	int64_t min_ready_seconds;
	struct opt_int revision_history_limit;
	bool paused;
	struct opt_int progress_deadline_seconds;
};

struct deployment_status {
	int64_t observed_generation;
	int64_t replicas;
	int64_t updated_replicas;
	int64_t ready_replicas;
	int64_t available_replicas;
	int64_t unavailable_replicas;
	struct condition_list conditions;
	struct opt_int collision_count;
};

struct deployment {
	char *api_version;
	char *kind;
	struct object_meta metadata;
	struct deployment_spec spec;
	struct deployment_status status;
};
LIST_OF(deployment);

/* ---- apps/v1 ReplicaSet ---- */

struct replicaset_spec {
	struct opt_int replicas;
	int64_t min_ready_seconds;
	struct label_selector *selector;
	struct pod_template template;
};

struct replicaset {
	char *api_version;
	char *kind;
	struct object_meta metadata;
	struct replicaset_spec spec;
	struct replicaset_status status;
};
LIST_OF(replicaset);

/* ---- schemas (apps.c) ---- */

extern const struct schema schema_deployment;
extern const struct schema schema_replicaset;

/* Well-known names of Deployments and their ReplicaSets. */
#define ANN_REVISION            "deployment.kubernetes.io/revision"
#define ANN_REVISION_HISTORY    "deployment.kubernetes.io/revision-history"
#define ANN_DESIRED_REPLICAS    "deployment.kubernetes.io/desired-replicas"
#define ANN_MAX_REPLICAS        "deployment.kubernetes.io/max-replicas"
#define ANN_ROLLBACK_TO         "deprecated.deployment.rollback.to"
#define LABEL_POD_TEMPLATE_HASH "pod-template-hash"

/* Lifecycle helpers: thin wrappers over schema_release/schema_copy. */
void deployment_release(struct deployment *d);
void deployment_copy(struct deployment *dst, const struct deployment *src);
void replicaset_release(struct replicaset *rs);
void replicaset_copy(struct replicaset *dst, const struct replicaset *src);
/* The ReplicaSet an RC behaves as (selector.matchLabels = its selector),
 * for the ReplicaSet planner; *rs is overwritten and the caller releases
 * it with replicaset_release(). Example: RC web {selector {app: web},
 * replicas 3} → RS web {selector {matchLabels {app: web}}, replicas 3},
 * same metadata, template and status. */
void rc_as_replicaset(const struct replication_controller *rc,
		      struct replicaset *rs);

/* *(spec.replicas): an unset count reads as 1, the API default, so that
 * an undefaulted object read from a test or a file plans the way the API
 * server would have stored it. */
int64_t deploy_replicas(const struct deployment *d);
int64_t rs_replicas(const struct replicaset *rs);
/* spec.strategy.type is RollingUpdate. */
bool deploy_is_rolling(const struct deployment *d);
/* spec.strategy.type is drover's InPlaceUpdate. */
bool deploy_is_inplace(const struct deployment *d);

#endif
