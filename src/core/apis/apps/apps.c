/* apps.c - the field tables of the apps/v1 types drover models
 * (Deployment, ReplicaSet), their typed wrappers, the accessors every
 * reader of them uses, and the ReplicaSet view of a ReplicationController
 * (apps.h; the rules of the rows in schema_rows.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "apps.h"
#include "schema_rows.h"
#include "xalloc.h"

/* apps/v1 Deployment */

/* maxUnavailable and maxSurge are *IntOrString in Go; here an intstr
 * whose INTSTR_UNSET is the nil, which defaulting replaces by "25%". */
static const struct field rolling_update_f[] = {
    F(rolling_update, "maxUnavailable", 1, FT_INTSTR, max_unavailable, O, NULL),
    F(rolling_update, "maxSurge", 2, FT_INTSTR, max_surge, O, NULL),
};
static const struct schema rolling_update_s =
    SCHEMA(rolling_update, rolling_update_f);

/* InPlaceUpdate's one knob, an *IntOrString like rollingUpdate's. */
static const struct field in_place_update_f[] = {
    F(in_place_update, "maxUnavailable", 0, FT_INTSTR, max_unavailable, O,
      NULL),
};
static const struct schema in_place_update_s =
    SCHEMA(in_place_update, in_place_update_f);

static const struct field strategy_f[] = {
    F(deployment_strategy, "type", 1, FT_STR, type, O, NULL),
    F(deployment_strategy, "rollingUpdate", 2, FT_PTR, rolling_update, O,
      &rolling_update_s),
    F(deployment_strategy, "inPlaceUpdate", 0, FT_PTR, in_place_update, O,
      &in_place_update_s),
};
static const struct schema strategy_s = SCHEMA(deployment_strategy, strategy_f);

/* apps/v1 DeploymentSpec. replicas, revisionHistoryLimit and
 * progressDeadlineSeconds are *int32 (unset means the default, 1, 10
 * and 600: defaults.h); minReadySeconds is a plain int32 (0 if absent);
 * template is required and inline. */
static const struct field dspec_f[] = {
    F(deployment_spec, "replicas", 1, FT_OPTINT, replicas, O | I32, NULL),
    F(deployment_spec, "selector", 2, FT_PTR, selector, O,
      &schema_label_selector),
    F(deployment_spec, "template", 3, FT_STRUCT, template, 0,
      &schema_pod_template),
    FP(deployment_spec, "strategy", 4, FT_STRUCT, strategy, 0, &strategy_s,
       PS_RETAIN_KEYS),
    F(deployment_spec, "minReadySeconds", 5, FT_INT, min_ready_seconds, O | I32,
      NULL),
    F(deployment_spec, "revisionHistoryLimit", 6, FT_OPTINT,
      revision_history_limit, O | I32, NULL),
    F(deployment_spec, "paused", 7, FT_BOOL, paused, O, NULL),
    F(deployment_spec, "progressDeadlineSeconds", 9, FT_OPTINT,
      progress_deadline_seconds, O | I32, NULL),
};
static const struct schema dspec_s = SCHEMA(deployment_spec, dspec_f);

/* apps/v1 DeploymentCondition: the rows of every condition
 * (schema_condition). */
static const struct field deployment_condition_f[] = {
    F(condition, "type", 1, FT_STR, type, 0, NULL),
    F(condition, "status", 2, FT_STR, status, 0, NULL),
    F(condition, "lastHeartbeatTime", 0, FT_TIME, last_heartbeat_time, O, NULL),
    F(condition, "lastProbeTime", 0, FT_TIME, last_probe_time, O, NULL),
    F(condition, "lastUpdateTime", 6, FT_TIME, last_update_time, O, NULL),
    F(condition, "lastTransitionTime", 7, FT_TIME, last_transition_time, O,
      NULL),
    F(condition, "reason", 4, FT_STR, reason, O, NULL),
    F(condition, "message", 5, FT_STR, message, O, NULL),
};
static const struct schema deployment_condition_s =
    SCHEMA(condition, deployment_condition_f);

/* apps/v1 DeploymentStatus. collisionCount is *int32: it is nil until
 * the first pod-template-hash collision, and it feeds the hash
 * (tmplhash.c), so nil and 0 must stay distinguishable. */
static const struct field dstatus_f[] = {
    F(deployment_status, "observedGeneration", 1, FT_INT, observed_generation,
      O | I64, NULL),
    F(deployment_status, "replicas", 2, FT_INT, replicas, O | I32, NULL),
    F(deployment_status, "updatedReplicas", 3, FT_INT, updated_replicas,
      O | I32, NULL),
    F(deployment_status, "readyReplicas", 7, FT_INT, ready_replicas, O | I32,
      NULL),
    F(deployment_status, "availableReplicas", 4, FT_INT, available_replicas,
      O | I32, NULL),
    F(deployment_status, "unavailableReplicas", 5, FT_INT, unavailable_replicas,
      O | I32, NULL),
    FK(deployment_status, "conditions", 6, conditions, O,
       &deployment_condition_s, "type"),
    F(deployment_status, "collisionCount", 8, FT_OPTINT, collision_count,
      O | I32, NULL),
};
static const struct schema dstatus_s = SCHEMA(deployment_status, dstatus_f);

static const struct field deployment_f[] = {
    F(deployment, "apiVersion", 0, FT_STR, api_version, O, NULL),
    F(deployment, "kind", 0, FT_STR, kind, O, NULL),
    F(deployment, "metadata", 1, FT_STRUCT, metadata, 0, &schema_object_meta),
    F(deployment, "spec", 2, FT_STRUCT, spec, 0, &dspec_s),
    F(deployment, "status", 3, FT_STRUCT, status, 0, &dstatus_s),
};
const struct schema schema_deployment = SCHEMA(deployment, deployment_f);

/* apps/v1 ReplicaSet */

/* apps/v1 ReplicaSetSpec and ReplicaSetStatus. status.replicas has no
 * omitempty in Go, so a scaled-to-zero RS prints "replicas": 0. */
static const struct field rsspec_f[] = {
    F(replicaset_spec, "replicas", 1, FT_OPTINT, replicas, O | I32, NULL),
    F(replicaset_spec, "minReadySeconds", 4, FT_INT, min_ready_seconds, O | I32,
      NULL),
    F(replicaset_spec, "selector", 2, FT_PTR, selector, O,
      &schema_label_selector),
    F(replicaset_spec, "template", 3, FT_STRUCT, template, 0,
      &schema_pod_template),
};
static const struct schema rsspec_s = SCHEMA(replicaset_spec, rsspec_f);

static const struct field replicaset_f[] = {
    F(replicaset, "apiVersion", 0, FT_STR, api_version, O, NULL),
    F(replicaset, "kind", 0, FT_STR, kind, O, NULL),
    F(replicaset, "metadata", 1, FT_STRUCT, metadata, 0, &schema_object_meta),
    F(replicaset, "spec", 2, FT_STRUCT, spec, 0, &rsspec_s),
    F(replicaset, "status", 3, FT_STRUCT, status, 0, &schema_replicaset_status),
};
const struct schema schema_replicaset = SCHEMA(replicaset, replicaset_f);

/* Typed wrappers, so callers need not name the schema: release frees
 * what the object owns (not the object), copy deep-copies into an
 * uninitialized (or released) destination. */
void
deployment_release(struct deployment *d)
{
	schema_release(&schema_deployment, d);
}

void
deployment_copy(struct deployment *dst, const struct deployment *src)
{
	schema_copy(&schema_deployment, dst, src);
}

void
replicaset_release(struct replicaset *rs)
{
	schema_release(&schema_replicaset, rs);
}

void
replicaset_copy(struct replicaset *dst, const struct replicaset *src)
{
	schema_copy(&schema_replicaset, dst, src);
}

/* kind "ReplicationController" is what rs_owner_kind() reads: pods the
 * planner creates for the view get a v1 ReplicationController
 * ownerReference, and only pods with one count as the RC's. An unset
 * spec.replicas stays unset, which rs_replicas() reads as 1, the RC's
 * default too. The selector is copied as it is; an empty one would
 * select every pod, which defaulting (the template's labels) and
 * validate_rc keep from reaching here. */
void
rc_as_replicaset(const struct replication_controller *rc, struct replicaset *rs)
{
	memset(rs, 0, sizeof(*rs));
	rs->api_version = xstrdup("v1");
	rs->kind = xstrdup("ReplicationController");
	schema_copy(&schema_object_meta, &rs->metadata, &rc->metadata);
	rs->spec.replicas = rc->spec.replicas;
	rs->spec.min_ready_seconds = rc->spec.min_ready_seconds;
	rs->spec.selector = xcalloc(1, sizeof(*rs->spec.selector));
	strmap_copy(&rs->spec.selector->match_labels, &rc->spec.selector);
	pod_template_copy(&rs->spec.template, &rc->spec.template);
	schema_copy(&schema_replicaset_status, &rs->status, &rc->status);
}

/* *(deployment.Spec.Replicas): an unset count reads as 1, the API
 * default, so that an undefaulted object read from a test or a file plans
 * the way the API server would have stored it. */
int64_t
deploy_replicas(const struct deployment *d)
{
	return d->spec.replicas.set ? d->spec.replicas.v : 1;
}

int64_t
rs_replicas(const struct replicaset *rs)
{
	return rs->spec.replicas.set ? rs->spec.replicas.v : 1;
}

/* Only RollingUpdate has a surge/unavailable budget; Recreate (and an
 * unknown type, which validation rejects) gets 0 for both, as in
 * Kubernetes' MaxSurge/MaxUnavailable. */
bool
deploy_is_rolling(const struct deployment *d)
{
	return d->spec.strategy.type &&
	       strcmp(d->spec.strategy.type, "RollingUpdate") == 0;
}

bool
deploy_is_inplace(const struct deployment *d)
{
	return d->spec.strategy.type &&
	       strcmp(d->spec.strategy.type, "InPlaceUpdate") == 0;
}
