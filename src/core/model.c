/* model.c - the field tables that describe every model struct (see
 * schema.h), in Kubernetes' field order, and small object helpers.
 *
 * One table per Go type, one row per field drover models: F(struct,
 * "jsonName", type, member, flags, sub). The rows follow the order of
 * the fields in Kubernetes' Go types (k8s.io/api/core/v1 and apps/v1
 * types.go), so encoded objects list members in the order `kubectl get
 * -o json` shows them. The order also feeds the pod-template-hash,
 * computed over schema_dump() of the template, which walks these rows
 * in order: reordering, adding or removing a row under pod_template
 * (object_meta, pod_spec, container and below) renames every ReplicaSet
 * a Deployment creates afterwards (existing ones are still found: the
 * new-RS test compares templates, not hashes).
 *
 * Flags: O (omitempty) matches the Go json tag: a field tagged
 * `json:"replicas"` without omitempty (ReplicaSetStatus.replicas,
 * ContainerStatus.ready, exitCode) is always encoded, 0 included.
 * I32/I64 are the Go integer widths, so that `replicas: 3000000000` is
 * refused as Kubernetes refuses it. creationTimestamp is FF_NULLTIME:
 * Kubernetes prints an unset one as null rather than leaving it out.
 *
 * Patch strategies (FK and FP rows): the lists a strategic merge patch
 * merges element by element, with Kubernetes' patchStrategy:"merge" and
 * patchMergeKey tags (core/v1 and apps/v1 types.go):
 *
 *   containers, env                     by "name"
 *   ports (container)                   by "containerPort"
 *   ports (Service)                     by "port"
 *   conditions (all statuses)           by "type"
 *   node addresses                      by "type"
 *   ownerReferences                     by "uid"
 *   podIPs                              by "ip"
 *   finalizers                          a set of strings (merge, no key)
 *
 * and one map with patchStrategy:"retainKeys", DeploymentSpec.strategy:
 * `kubectl apply` of {type: Recreate} over a RollingUpdate Deployment
 * sends {"$retainKeys": ["type"], "type": "Recreate"} and the server
 * drops rollingUpdate.
 *
 * Why it matters: `kubectl set image` and `kubectl apply` send patches
 * like {"spec":{"template":{"spec":{"containers":[{"name":"web",
 * "image":"web:2"}]}}}}; merging by name changes only that container's
 * image and keeps its ports, probes and env, where replacing the list
 * would leave a container with nothing but a name and an image. Lists
 * without a strategy (tolerations, taints, httpHeaders, command, args,
 * containerStatuses, matchExpressions) are replaced whole, as Kubernetes
 * does for lists without a patch strategy (src/codec/smp.c applies and
 * computes the patches). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "xalloc.h"

/* A plain row: no merge key. */
#define F(st, name, ty, member, fl, sub)                                       \
	{                                                                      \
		name, ty, offsetof(struct st, member), fl, sub, NULL, 0        \
	}
/* A plain row with a patch strategy (enum patch_strategy). */
#define FP(st, name, ty, member, fl, sub, ps)                                  \
	{                                                                      \
		name, ty, offsetof(struct st, member), fl, sub, NULL, ps       \
	}
/* A list merged element by element in a strategic merge patch, the
 * elements named by member `key` (Kubernetes' patchMergeKey). */
#define FK(st, name, member, fl, sub, key)                                     \
	{                                                                      \
		name, FT_LIST, offsetof(struct st, member), fl, sub, key,      \
		    PS_MERGE                                                   \
	}
#define O   FF_OMITEMPTY
#define I32 FF_INT32
#define I64 FF_INT64

/* metav1.OwnerReference. controller/blockOwnerDeletion are *bool: unset
 * and false are different values (meta_controller_ref needs set && true).
 */
static const struct field owner_ref_f[] = {
    F(owner_ref, "apiVersion", FT_STR, api_version, 0, NULL),
    F(owner_ref, "kind", FT_STR, kind, 0, NULL),
    F(owner_ref, "name", FT_STR, name, 0, NULL),
    F(owner_ref, "uid", FT_STR, uid, 0, NULL),
    F(owner_ref, "controller", FT_OPTBOOL, controller, O, NULL),
    F(owner_ref, "blockOwnerDeletion", FT_OPTBOOL, block_owner_deletion, O,
      NULL),
};
static const struct schema owner_ref_s = SCHEMA(owner_ref, owner_ref_f);

/* metav1.ObjectMeta, the fields drover stores. generation is int64;
 * deletionTimestamp set means "being deleted" (pod_is_active). */
static const struct field meta_f[] = {
    F(object_meta, "name", FT_STR, name, O, NULL),
    F(object_meta, "generateName", FT_STR, generate_name, O, NULL),
    F(object_meta, "namespace", FT_STR, namespace, O, NULL),
    F(object_meta, "uid", FT_STR, uid, O, NULL),
    F(object_meta, "resourceVersion", FT_STR, resource_version, O, NULL),
    F(object_meta, "generation", FT_INT, generation, O | I64, NULL),
    F(object_meta, "creationTimestamp", FT_TIME, creation_timestamp,
      FF_NULLTIME, NULL),
    F(object_meta, "deletionTimestamp", FT_TIME, deletion_timestamp, O, NULL),
    F(object_meta, "deletionGracePeriodSeconds", FT_OPTINT,
      deletion_grace_period_seconds, O | I64, NULL),
    F(object_meta, "labels", FT_STRMAP, labels, O, NULL),
    F(object_meta, "annotations", FT_STRMAP, annotations, O, NULL),
    FK(object_meta, "ownerReferences", owner_references, O, &owner_ref_s,
       "uid"),
    FP(object_meta, "finalizers", FT_STRLIST, finalizers, O, NULL, PS_MERGE),
};
const struct schema schema_object_meta = SCHEMA(object_meta, meta_f);

/* metav1.LabelSelectorRequirement and LabelSelector (labels.c
 * evaluates them). */
static const struct field selector_req_f[] = {
    F(selector_req, "key", FT_STR, key, 0, NULL),
    F(selector_req, "operator", FT_STR, operator, 0, NULL),
    F(selector_req, "values", FT_STRLIST, values, O, NULL),
};
static const struct schema selector_req_s =
    SCHEMA(selector_req, selector_req_f);

static const struct field label_selector_f[] = {
    F(label_selector, "matchLabels", FT_STRMAP, match_labels, O, NULL),
    F(label_selector, "matchExpressions", FT_LIST, match_expressions, O,
      &selector_req_s),
};
const struct schema schema_label_selector =
    SCHEMA(label_selector, label_selector_f);

/* The downward API's env source: only fieldRef is modelled
 * (downward.c); configMapKeyRef, secretKeyRef and resourceFieldRef are
 * not modelled. */
static const struct field field_ref_f[] = {
    F(field_ref, "apiVersion", FT_STR, api_version, O, NULL),
    F(field_ref, "fieldPath", FT_STR, field_path, 0, NULL),
};
static const struct schema field_ref_s = SCHEMA(field_ref, field_ref_f);

static const struct field env_source_f[] = {
    F(env_source, "fieldRef", FT_PTR, field_ref, O, &field_ref_s),
};
static const struct schema env_source_s = SCHEMA(env_source, env_source_f);

static const struct field env_var_f[] = {
    F(env_var, "name", FT_STR, name, 0, NULL),
    F(env_var, "value", FT_STR, value, O, NULL),
    F(env_var, "valueFrom", FT_PTR, value_from, O, &env_source_s),
};
static const struct schema env_var_s = SCHEMA(env_var, env_var_f);

/* v1.ContainerPort. containerPort has no omitempty in Go and is
 * required (validate.c); hostPort 0 means "none" and is left out. */
static const struct field container_port_f[] = {
    F(container_port, "name", FT_STR, name, O, NULL),
    F(container_port, "hostPort", FT_INT, host_port, O | I32, NULL),
    F(container_port, "containerPort", FT_INT, container_port, I32, NULL),
    F(container_port, "protocol", FT_STR, protocol, O, NULL),
    F(container_port, "hostIP", FT_STR, host_ip, O, NULL),
};
static const struct schema container_port_s =
    SCHEMA(container_port, container_port_f);

/* The probe and lifecycle handlers the node agent runs: exec, httpGet,
 * tcpSocket (grpc and sleep are not modelled). port is an IntOrString: a
 * number or a container port's name. */
static const struct field exec_action_f[] = {
    F(exec_action, "command", FT_STRLIST, command, O, NULL),
};
static const struct schema exec_action_s = SCHEMA(exec_action, exec_action_f);

static const struct field http_header_f[] = {
    F(http_header, "name", FT_STR, name, 0, NULL),
    F(http_header, "value", FT_STR, value, 0, NULL),
};
static const struct schema http_header_s = SCHEMA(http_header, http_header_f);

static const struct field http_get_f[] = {
    F(http_get_action, "path", FT_STR, path, O, NULL),
    F(http_get_action, "port", FT_INTSTR, port, 0, NULL),
    F(http_get_action, "host", FT_STR, host, O, NULL),
    F(http_get_action, "scheme", FT_STR, scheme, O, NULL),
    F(http_get_action, "httpHeaders", FT_LIST, http_headers, O, &http_header_s),
};
static const struct schema http_get_s = SCHEMA(http_get_action, http_get_f);

static const struct field tcp_socket_f[] = {
    F(tcp_socket_action, "port", FT_INTSTR, port, 0, NULL),
    F(tcp_socket_action, "host", FT_STR, host, O, NULL),
};
static const struct schema tcp_socket_s =
    SCHEMA(tcp_socket_action, tcp_socket_f);

/* v1.Probe. The timing fields are plain int32 in Go but opt_int here, so
 * the decoder records whether they were written and defaulting
 * (defaults.c) fills only unwritten ones (Kubernetes fills zeros, see
 * defaults_probe). The probe-level terminationGracePeriodSeconds is
 * *int64, as in Go. */
static const struct field probe_f[] = {
    F(probe, "exec", FT_PTR, exec, O, &exec_action_s),
    F(probe, "httpGet", FT_PTR, http_get, O, &http_get_s),
    F(probe, "tcpSocket", FT_PTR, tcp_socket, O, &tcp_socket_s),
    F(probe, "initialDelaySeconds", FT_OPTINT, initial_delay_seconds, O | I32,
      NULL),
    F(probe, "timeoutSeconds", FT_OPTINT, timeout_seconds, O | I32, NULL),
    F(probe, "periodSeconds", FT_OPTINT, period_seconds, O | I32, NULL),
    F(probe, "successThreshold", FT_OPTINT, success_threshold, O | I32, NULL),
    F(probe, "failureThreshold", FT_OPTINT, failure_threshold, O | I32, NULL),
    F(probe, "terminationGracePeriodSeconds", FT_OPTINT,
      termination_grace_period_seconds, O | I64, NULL),
};
static const struct schema probe_s = SCHEMA(probe, probe_f);

/* Quantities are kept as the strings written ("500m", "1Gi"):
 * drover does not schedule on resources, so it never parses them. */
static const struct field resources_f[] = {
    F(resources, "limits", FT_STRMAP, limits, O, NULL),
    F(resources, "requests", FT_STRMAP, requests, O, NULL),
};
static const struct schema resources_s = SCHEMA(resources, resources_f);

static const struct field handler_f[] = {
    F(lifecycle_handler, "exec", FT_PTR, exec, O, &exec_action_s),
    F(lifecycle_handler, "httpGet", FT_PTR, http_get, O, &http_get_s),
    F(lifecycle_handler, "tcpSocket", FT_PTR, tcp_socket, O, &tcp_socket_s),
};
static const struct schema handler_s = SCHEMA(lifecycle_handler, handler_f);

static const struct field lifecycle_f[] = {
    F(lifecycle, "postStart", FT_PTR, post_start, O, &handler_s),
    F(lifecycle, "preStop", FT_PTR, pre_stop, O, &handler_s),
};
static const struct schema lifecycle_s = SCHEMA(lifecycle, lifecycle_f);

/* The security contexts. The parts drover's process runtime applies
 * (users, groups, runAsNonRoot, capabilities, privileged,
 * allowPrivilegeEscalation) are interpreted; the rest (SELinux,
 * Windows, seccomp, AppArmor, sysctls) are FT_RAW: kept as canonical
 * JSON, round-tripped and compared, never acted on. The two context
 * pointers are FF_HASHRAW because they were FT_RAW once (schema.c,
 * FT_PTR in schema_dump). */
static const struct field capabilities_f[] = {
    F(capabilities, "add", FT_STRLIST, add, O, NULL),
    F(capabilities, "drop", FT_STRLIST, drop, O, NULL),
};
static const struct schema capabilities_s =
    SCHEMA(capabilities, capabilities_f);

static const struct field security_context_f[] = {
    F(security_context, "capabilities", FT_PTR, capabilities, O,
      &capabilities_s),
    F(security_context, "privileged", FT_OPTBOOL, privileged, O, NULL),
    F(security_context, "seLinuxOptions", FT_RAW, se_linux_options, O, NULL),
    F(security_context, "windowsOptions", FT_RAW, windows_options, O, NULL),
    F(security_context, "runAsUser", FT_OPTINT, run_as_user, O | I64, NULL),
    F(security_context, "runAsGroup", FT_OPTINT, run_as_group, O | I64, NULL),
    F(security_context, "runAsNonRoot", FT_OPTBOOL, run_as_non_root, O, NULL),
    F(security_context, "readOnlyRootFilesystem", FT_OPTBOOL,
      read_only_root_filesystem, O, NULL),
    F(security_context, "allowPrivilegeEscalation", FT_OPTBOOL,
      allow_privilege_escalation, O, NULL),
    F(security_context, "procMount", FT_STR, proc_mount, O, NULL),
    F(security_context, "seccompProfile", FT_RAW, seccomp_profile, O, NULL),
    F(security_context, "appArmorProfile", FT_RAW, app_armor_profile, O, NULL),
};
const struct schema schema_security_context =
    SCHEMA(security_context, security_context_f);

static const struct field pod_security_context_f[] = {
    F(pod_security_context, "seLinuxOptions", FT_RAW, se_linux_options, O,
      NULL),
    F(pod_security_context, "windowsOptions", FT_RAW, windows_options, O, NULL),
    F(pod_security_context, "runAsUser", FT_OPTINT, run_as_user, O | I64, NULL),
    F(pod_security_context, "runAsGroup", FT_OPTINT, run_as_group, O | I64,
      NULL),
    F(pod_security_context, "runAsNonRoot", FT_OPTBOOL, run_as_non_root, O,
      NULL),
    F(pod_security_context, "supplementalGroups", FT_INTLIST,
      supplemental_groups, O, NULL),
    F(pod_security_context, "supplementalGroupsPolicy", FT_STR,
      supplemental_groups_policy, O, NULL),
    F(pod_security_context, "fsGroup", FT_OPTINT, fs_group, O | I64, NULL),
    F(pod_security_context, "sysctls", FT_RAW, sysctls, O, NULL),
    F(pod_security_context, "fsGroupChangePolicy", FT_STR,
      fs_group_change_policy, O, NULL),
    F(pod_security_context, "seccompProfile", FT_RAW, seccomp_profile, O, NULL),
    F(pod_security_context, "appArmorProfile", FT_RAW, app_armor_profile, O,
      NULL),
    F(pod_security_context, "seLinuxChangePolicy", FT_STR,
      se_linux_change_policy, O, NULL),
};
const struct schema schema_pod_security_context =
    SCHEMA(pod_security_context, pod_security_context_f);

/* v1.Container: containers and env merge by name, ports by
 * containerPort (see the top of the file). resources is an inline struct
 * (a Go value, not a pointer), so it is never nil. */
static const struct field container_f[] = {
    F(container, "name", FT_STR, name, 0, NULL),
    F(container, "image", FT_STR, image, O, NULL),
    F(container, "command", FT_STRLIST, command, O, NULL),
    F(container, "args", FT_STRLIST, args, O, NULL),
    F(container, "workingDir", FT_STR, working_dir, O, NULL),
    FK(container, "ports", ports, O, &container_port_s, "containerPort"),
    FK(container, "env", env, O, &env_var_s, "name"),
    F(container, "resources", FT_STRUCT, resources, 0, &resources_s),
    F(container, "livenessProbe", FT_PTR, liveness_probe, O, &probe_s),
    F(container, "readinessProbe", FT_PTR, readiness_probe, O, &probe_s),
    F(container, "startupProbe", FT_PTR, startup_probe, O, &probe_s),
    F(container, "lifecycle", FT_PTR, lifecycle, O, &lifecycle_s),
    F(container, "terminationMessagePath", FT_STR, termination_message_path, O,
      NULL),
    F(container, "terminationMessagePolicy", FT_STR, termination_message_policy,
      O, NULL),
    F(container, "imagePullPolicy", FT_STR, image_pull_policy, O, NULL),
    F(container, "securityContext", FT_PTR, security_context, O | FF_HASHRAW,
      &schema_security_context),
};
static const struct schema container_s = SCHEMA(container, container_f);

static const struct field toleration_f[] = {
    F(toleration, "key", FT_STR, key, O, NULL),
    F(toleration, "operator", FT_STR, operator, O, NULL),
    F(toleration, "value", FT_STR, value, O, NULL),
    F(toleration, "effect", FT_STR, effect, O, NULL),
    F(toleration, "tolerationSeconds", FT_OPTINT, toleration_seconds, O | I64,
      NULL),
};
static const struct schema toleration_s = SCHEMA(toleration, toleration_f);

/* v1.PodSpec. containers has no omitempty in Go (it is required);
 * affinity is FT_RAW, accepted and kept, not acted on (placement.c
 * reads nodeSelector and tolerations). */
static const struct field pod_spec_f[] = {
    FK(pod_spec, "containers", containers, 0, &container_s, "name"),
    F(pod_spec, "restartPolicy", FT_STR, restart_policy, O, NULL),
    F(pod_spec, "terminationGracePeriodSeconds", FT_OPTINT,
      termination_grace_period_seconds, O | I64, NULL),
    F(pod_spec, "activeDeadlineSeconds", FT_OPTINT, active_deadline_seconds,
      O | I64, NULL),
    F(pod_spec, "dnsPolicy", FT_STR, dns_policy, O, NULL),
    F(pod_spec, "nodeSelector", FT_STRMAP, node_selector, O, NULL),
    F(pod_spec, "serviceAccountName", FT_STR, service_account_name, O, NULL),
    F(pod_spec, "nodeName", FT_STR, node_name, O, NULL),
    F(pod_spec, "hostname", FT_STR, hostname, O, NULL),
    F(pod_spec, "securityContext", FT_PTR, security_context, O | FF_HASHRAW,
      &schema_pod_security_context),
    F(pod_spec, "affinity", FT_RAW, affinity, O, NULL),
    F(pod_spec, "schedulerName", FT_STR, scheduler_name, O, NULL),
    F(pod_spec, "tolerations", FT_LIST, tolerations, O, &toleration_s),
};
const struct schema schema_pod_spec = SCHEMA(pod_spec, pod_spec_f);

/* v1.PodTemplateSpec: what tmplhash dumps and what rs_matches_template
 * compares (ignoring the pod-template-hash label). */
static const struct field pod_template_f[] = {
    F(pod_template, "metadata", FT_STRUCT, metadata, 0, &schema_object_meta),
    F(pod_template, "spec", FT_STRUCT, spec, 0, &schema_pod_spec),
};
const struct schema schema_pod_template = SCHEMA(pod_template, pod_template_f);

/* One table for every kind's conditions: Deployment conditions use
 * lastUpdateTime (the progress deadline's clock) and
 * lastTransitionTime; pod conditions lastProbeTime and
 * lastTransitionTime; node conditions add lastHeartbeatTime. Unused
 * time members stay 0 and are omitted. */
static const struct field condition_f[] = {
    F(condition, "type", FT_STR, type, 0, NULL),
    F(condition, "status", FT_STR, status, 0, NULL),
    F(condition, "lastHeartbeatTime", FT_TIME, last_heartbeat_time, O, NULL),
    F(condition, "lastProbeTime", FT_TIME, last_probe_time, O, NULL),
    F(condition, "lastUpdateTime", FT_TIME, last_update_time, O, NULL),
    F(condition, "lastTransitionTime", FT_TIME, last_transition_time, O, NULL),
    F(condition, "reason", FT_STR, reason, O, NULL),
    F(condition, "message", FT_STR, message, O, NULL),
};
const struct schema schema_condition = SCHEMA(condition, condition_f);

/* apps/v1 Deployment */

/* maxUnavailable and maxSurge are *IntOrString in Go; here an intstr
 * whose INTSTR_UNSET is the nil, which defaulting replaces by "25%". */
static const struct field rolling_update_f[] = {
    F(rolling_update, "maxUnavailable", FT_INTSTR, max_unavailable, O, NULL),
    F(rolling_update, "maxSurge", FT_INTSTR, max_surge, O, NULL),
};
static const struct schema rolling_update_s =
    SCHEMA(rolling_update, rolling_update_f);

/* InPlaceUpdate's one knob, an *IntOrString like rollingUpdate's. */
static const struct field in_place_update_f[] = {
    F(in_place_update, "maxUnavailable", FT_INTSTR, max_unavailable, O, NULL),
};
static const struct schema in_place_update_s =
    SCHEMA(in_place_update, in_place_update_f);

static const struct field strategy_f[] = {
    F(deployment_strategy, "type", FT_STR, type, O, NULL),
    F(deployment_strategy, "rollingUpdate", FT_PTR, rolling_update, O,
      &rolling_update_s),
    F(deployment_strategy, "inPlaceUpdate", FT_PTR, in_place_update, O,
      &in_place_update_s),
};
static const struct schema strategy_s = SCHEMA(deployment_strategy, strategy_f);

/* apps/v1 DeploymentSpec. replicas, revisionHistoryLimit and
 * progressDeadlineSeconds are *int32 (unset means the default, 1, 10
 * and 600: defaults.c); minReadySeconds is a plain int32 (0 if absent);
 * template is required and inline. */
static const struct field dspec_f[] = {
    F(deployment_spec, "replicas", FT_OPTINT, replicas, O | I32, NULL),
    F(deployment_spec, "selector", FT_PTR, selector, O, &schema_label_selector),
    F(deployment_spec, "template", FT_STRUCT, template, 0,
      &schema_pod_template),
    FP(deployment_spec, "strategy", FT_STRUCT, strategy, 0, &strategy_s,
       PS_RETAIN_KEYS),
    F(deployment_spec, "minReadySeconds", FT_INT, min_ready_seconds, O | I32,
      NULL),
    F(deployment_spec, "revisionHistoryLimit", FT_OPTINT,
      revision_history_limit, O | I32, NULL),
    F(deployment_spec, "paused", FT_BOOL, paused, O, NULL),
    F(deployment_spec, "progressDeadlineSeconds", FT_OPTINT,
      progress_deadline_seconds, O | I32, NULL),
};
static const struct schema dspec_s = SCHEMA(deployment_spec, dspec_f);

/* apps/v1 DeploymentStatus. collisionCount is *int32: it is nil until
 * the first pod-template-hash collision, and it feeds the hash
 * (tmplhash.c), so nil and 0 must stay distinguishable. */
static const struct field dstatus_f[] = {
    F(deployment_status, "observedGeneration", FT_INT, observed_generation,
      O | I64, NULL),
    F(deployment_status, "replicas", FT_INT, replicas, O | I32, NULL),
    F(deployment_status, "updatedReplicas", FT_INT, updated_replicas, O | I32,
      NULL),
    F(deployment_status, "readyReplicas", FT_INT, ready_replicas, O | I32,
      NULL),
    F(deployment_status, "availableReplicas", FT_INT, available_replicas,
      O | I32, NULL),
    F(deployment_status, "unavailableReplicas", FT_INT, unavailable_replicas,
      O | I32, NULL),
    FK(deployment_status, "conditions", conditions, O, &schema_condition,
       "type"),
    F(deployment_status, "collisionCount", FT_OPTINT, collision_count, O | I32,
      NULL),
};
static const struct schema dstatus_s = SCHEMA(deployment_status, dstatus_f);

static const struct field deployment_f[] = {
    F(deployment, "apiVersion", FT_STR, api_version, O, NULL),
    F(deployment, "kind", FT_STR, kind, O, NULL),
    F(deployment, "metadata", FT_STRUCT, metadata, 0, &schema_object_meta),
    F(deployment, "spec", FT_STRUCT, spec, 0, &dspec_s),
    F(deployment, "status", FT_STRUCT, status, 0, &dstatus_s),
};
const struct schema schema_deployment = SCHEMA(deployment, deployment_f);

/* apps/v1 ReplicaSet */

/* apps/v1 ReplicaSetSpec and ReplicaSetStatus. status.replicas has no
 * omitempty in Go, so a scaled-to-zero RS prints "replicas": 0. */
static const struct field rsspec_f[] = {
    F(replicaset_spec, "replicas", FT_OPTINT, replicas, O | I32, NULL),
    F(replicaset_spec, "minReadySeconds", FT_INT, min_ready_seconds, O | I32,
      NULL),
    F(replicaset_spec, "selector", FT_PTR, selector, O, &schema_label_selector),
    F(replicaset_spec, "template", FT_STRUCT, template, 0,
      &schema_pod_template),
};
static const struct schema rsspec_s = SCHEMA(replicaset_spec, rsspec_f);

static const struct field rsstatus_f[] = {
    F(replicaset_status, "replicas", FT_INT, replicas, I32, NULL),
    F(replicaset_status, "fullyLabeledReplicas", FT_INT, fully_labeled_replicas,
      O | I32, NULL),
    F(replicaset_status, "readyReplicas", FT_INT, ready_replicas, O | I32,
      NULL),
    F(replicaset_status, "availableReplicas", FT_INT, available_replicas,
      O | I32, NULL),
    F(replicaset_status, "observedGeneration", FT_INT, observed_generation,
      O | I64, NULL),
    FK(replicaset_status, "conditions", conditions, O, &schema_condition,
       "type"),
};
static const struct schema rsstatus_s = SCHEMA(replicaset_status, rsstatus_f);

static const struct field replicaset_f[] = {
    F(replicaset, "apiVersion", FT_STR, api_version, O, NULL),
    F(replicaset, "kind", FT_STR, kind, O, NULL),
    F(replicaset, "metadata", FT_STRUCT, metadata, 0, &schema_object_meta),
    F(replicaset, "spec", FT_STRUCT, spec, 0, &rsspec_s),
    F(replicaset, "status", FT_STRUCT, status, 0, &rsstatus_s),
};
const struct schema schema_replicaset = SCHEMA(replicaset, replicaset_f);

/* v1 ReplicationController: ReplicationControllerSpec has replicas,
 * minReadySeconds, selector (map[string]string) and template; its
 * status has the ReplicaSet status' fields. */
static const struct field rcspec_f[] = {
    F(rc_spec, "replicas", FT_OPTINT, replicas, O | I32, NULL),
    F(rc_spec, "minReadySeconds", FT_INT, min_ready_seconds, O | I32, NULL),
    F(rc_spec, "selector", FT_STRMAP, selector, O, NULL),
    F(rc_spec, "template", FT_STRUCT, template, 0, &schema_pod_template),
};
static const struct schema rcspec_s = SCHEMA(rc_spec, rcspec_f);

static const struct field rc_f[] = {
    F(replication_controller, "apiVersion", FT_STR, api_version, O, NULL),
    F(replication_controller, "kind", FT_STR, kind, O, NULL),
    F(replication_controller, "metadata", FT_STRUCT, metadata, 0,
      &schema_object_meta),
    F(replication_controller, "spec", FT_STRUCT, spec, 0, &rcspec_s),
    F(replication_controller, "status", FT_STRUCT, status, 0, &rsstatus_s),
};
const struct schema schema_replication_controller =
    SCHEMA(replication_controller, rc_f);

/* v1 Pod */

/* v1.ContainerState: exactly one of waiting/running/terminated is set
 * by the agent; all three are pointers so the encoder prints only that
 * one. */
static const struct field waiting_f[] = {
    F(state_waiting, "reason", FT_STR, reason, O, NULL),
    F(state_waiting, "message", FT_STR, message, O, NULL),
};
static const struct schema waiting_s = SCHEMA(state_waiting, waiting_f);

static const struct field running_f[] = {
    F(state_running, "startedAt", FT_TIME, started_at, O, NULL),
};
static const struct schema running_s = SCHEMA(state_running, running_f);

static const struct field terminated_f[] = {
    F(state_terminated, "exitCode", FT_INT, exit_code, I32, NULL),
    F(state_terminated, "signal", FT_INT, signal, O | I32, NULL),
    F(state_terminated, "reason", FT_STR, reason, O, NULL),
    F(state_terminated, "message", FT_STR, message, O, NULL),
    F(state_terminated, "startedAt", FT_TIME, started_at, O, NULL),
    F(state_terminated, "finishedAt", FT_TIME, finished_at, O, NULL),
    F(state_terminated, "containerID", FT_STR, container_id, O, NULL),
};
static const struct schema terminated_s =
    SCHEMA(state_terminated, terminated_f);

static const struct field cstate_f[] = {
    F(container_state, "waiting", FT_PTR, waiting, O, &waiting_s),
    F(container_state, "running", FT_PTR, running, O, &running_s),
    F(container_state, "terminated", FT_PTR, terminated, O, &terminated_s),
};
static const struct schema cstate_s = SCHEMA(container_state, cstate_f);

/* v1.ContainerStatus. ready, restartCount, image and imageID have no
 * omitempty in Go. ports is drover's (Kubernetes has no such field):
 * the host port the agent allocated for each container port
 * (portalloc.c), reported so that a restarted container gets the same
 * one back. */
static const struct field cstatus_f[] = {
    F(container_status, "name", FT_STR, name, 0, NULL),
    F(container_status, "state", FT_STRUCT, state, 0, &cstate_s),
    F(container_status, "lastState", FT_STRUCT, last_state, 0, &cstate_s),
    F(container_status, "ready", FT_BOOL, ready, 0, NULL),
    F(container_status, "restartCount", FT_INT, restart_count, I32, NULL),
    F(container_status, "image", FT_STR, image, 0, NULL),
    F(container_status, "imageID", FT_STR, image_id, 0, NULL),
    F(container_status, "containerID", FT_STR, container_id, O, NULL),
    F(container_status, "started", FT_OPTBOOL, started, O, NULL),
    F(container_status, "ports", FT_LIST, ports, O, &container_port_s),
};
const struct schema schema_container_status =
    SCHEMA(container_status, cstatus_f);

static const struct field pod_ip_f[] = {
    F(pod_ip, "ip", FT_STR, ip, O, NULL),
};
static const struct schema pod_ip_s = SCHEMA(pod_ip, pod_ip_f);

/* v1.PodStatus. phase and the Ready condition are what the controllers
 * read (pod_facts.c); podIPs merge by ip. */
static const struct field pstatus_f[] = {
    F(pod_status, "phase", FT_STR, phase, O, NULL),
    FK(pod_status, "conditions", conditions, O, &schema_condition, "type"),
    F(pod_status, "message", FT_STR, message, O, NULL),
    F(pod_status, "reason", FT_STR, reason, O, NULL),
    F(pod_status, "hostIP", FT_STR, host_ip, O, NULL),
    F(pod_status, "podIP", FT_STR, pod_ip, O, NULL),
    FK(pod_status, "podIPs", pod_ips, O, &pod_ip_s, "ip"),
    F(pod_status, "startTime", FT_TIME, start_time, O, NULL),
    F(pod_status, "containerStatuses", FT_LIST, container_statuses, O,
      &schema_container_status),
};
static const struct schema pstatus_s = SCHEMA(pod_status, pstatus_f);

static const struct field pod_f[] = {
    F(pod, "apiVersion", FT_STR, api_version, O, NULL),
    F(pod, "kind", FT_STR, kind, O, NULL),
    F(pod, "metadata", FT_STRUCT, metadata, 0, &schema_object_meta),
    F(pod, "spec", FT_STRUCT, spec, 0, &schema_pod_spec),
    F(pod, "status", FT_STRUCT, status, 0, &pstatus_s),
};
const struct schema schema_pod = SCHEMA(pod, pod_f);

/* v1 Node */

/* v1 Node: the taints placement.c checks, the addresses and conditions
 * the agent reports. nodeInfo is inline (a Go value). */
static const struct field taint_f[] = {
    F(taint, "key", FT_STR, key, 0, NULL),
    F(taint, "value", FT_STR, value, O, NULL),
    F(taint, "effect", FT_STR, effect, 0, NULL),
    F(taint, "timeAdded", FT_TIME, time_added, O, NULL),
};
static const struct schema taint_s = SCHEMA(taint, taint_f);

static const struct field nspec_f[] = {
    F(node_spec, "podCIDR", FT_STR, pod_cidr, O, NULL),
    F(node_spec, "providerID", FT_STR, provider_id, O, NULL),
    F(node_spec, "unschedulable", FT_BOOL, unschedulable, O, NULL),
    F(node_spec, "taints", FT_LIST, taints, O, &taint_s),
};
static const struct schema nspec_s = SCHEMA(node_spec, nspec_f);

static const struct field naddr_f[] = {
    F(node_address, "type", FT_STR, type, 0, NULL),
    F(node_address, "address", FT_STR, address, 0, NULL),
};
static const struct schema naddr_s = SCHEMA(node_address, naddr_f);

static const struct field ninfo_f[] = {
    F(node_info, "machineID", FT_STR, machine_id, 0, NULL),
    F(node_info, "systemUUID", FT_STR, system_uuid, 0, NULL),
    F(node_info, "bootID", FT_STR, boot_id, 0, NULL),
    F(node_info, "kernelVersion", FT_STR, kernel_version, 0, NULL),
    F(node_info, "osImage", FT_STR, os_image, 0, NULL),
    F(node_info, "containerRuntimeVersion", FT_STR, container_runtime_version,
      0, NULL),
    F(node_info, "kubeletVersion", FT_STR, kubelet_version, 0, NULL),
    F(node_info, "kubeProxyVersion", FT_STR, kube_proxy_version, 0, NULL),
    F(node_info, "operatingSystem", FT_STR, operating_system, 0, NULL),
    F(node_info, "architecture", FT_STR, architecture, 0, NULL),
};
static const struct schema ninfo_s = SCHEMA(node_info, ninfo_f);

static const struct field nstatus_f[] = {
    F(node_status, "capacity", FT_STRMAP, capacity, O, NULL),
    F(node_status, "allocatable", FT_STRMAP, allocatable, O, NULL),
    FK(node_status, "conditions", conditions, O, &schema_condition, "type"),
    FK(node_status, "addresses", addresses, O, &naddr_s, "type"),
    F(node_status, "nodeInfo", FT_STRUCT, node_info, O, &ninfo_s),
};
static const struct schema nstatus_s = SCHEMA(node_status, nstatus_f);

static const struct field node_f[] = {
    F(node, "apiVersion", FT_STR, api_version, O, NULL),
    F(node, "kind", FT_STR, kind, O, NULL),
    F(node, "metadata", FT_STRUCT, metadata, 0, &schema_object_meta),
    F(node, "spec", FT_STRUCT, spec, 0, &nspec_s),
    F(node, "status", FT_STRUCT, status, 0, &nstatus_s),
};
const struct schema schema_node = SCHEMA(node, node_f);

/* v1 Service */

/* v1.ServicePort and v1.ServiceSpec, in Kubernetes' field order. port
 * has no omitempty in Go; targetPort is defaulted to port. Fields of
 * Kubernetes' Service drover has no use for (nodePort, sessionAffinity,
 * ...) are not modelled, so a manifest that sets them is refused as an
 * unknown field rather than silently not honoured. */
static const struct field service_port_f[] = {
    F(service_port, "name", FT_STR, name, O, NULL),
    F(service_port, "protocol", FT_STR, protocol, O, NULL),
    F(service_port, "appProtocol", FT_STR, app_protocol, O, NULL),
    F(service_port, "port", FT_INT, port, I32, NULL),
    F(service_port, "targetPort", FT_INTSTR, target_port, O, NULL),
};
static const struct schema service_port_s =
    SCHEMA(service_port, service_port_f);

/* ports merge by "port" (ServiceSpec.Ports' patchMergeKey). */
static const struct field service_spec_f[] = {
    FK(service_spec, "ports", ports, O, &service_port_s, "port"),
    F(service_spec, "selector", FT_STRMAP, selector, O, NULL),
    F(service_spec, "clusterIP", FT_STR, cluster_ip, O, NULL),
    F(service_spec, "clusterIPs", FT_STRLIST, cluster_ips, O, NULL),
    F(service_spec, "type", FT_STR, type, O, NULL),
};
static const struct schema service_spec_s =
    SCHEMA(service_spec, service_spec_f);

/* conditions merge by "type" (ServiceStatus.Conditions' patchMergeKey,
 * listType map). */
static const struct field service_status_f[] = {
    F(service_status, "loadBalancer", FT_RAW, load_balancer, O, NULL),
    FK(service_status, "conditions", conditions, O, &schema_condition, "type"),
};
static const struct schema service_status_s =
    SCHEMA(service_status, service_status_f);

static const struct field service_f[] = {
    F(service, "apiVersion", FT_STR, api_version, O, NULL),
    F(service, "kind", FT_STR, kind, O, NULL),
    F(service, "metadata", FT_STRUCT, metadata, 0, &schema_object_meta),
    F(service, "spec", FT_STRUCT, spec, 0, &service_spec_s),
    F(service, "status", FT_STRUCT, status, 0, &service_status_s),
};
const struct schema schema_service = SCHEMA(service, service_f);

/* discovery.k8s.io/v1 EndpointSlice */

/* v1.ObjectReference: an endpoint's targetRef, an Event's
 * involvedObject. */
static const struct field object_ref_f[] = {
    F(object_ref, "kind", FT_STR, kind, O, NULL),
    F(object_ref, "namespace", FT_STR, namespace, O, NULL),
    F(object_ref, "name", FT_STR, name, O, NULL),
    F(object_ref, "uid", FT_STR, uid, O, NULL),
    F(object_ref, "apiVersion", FT_STR, api_version, O, NULL),
    F(object_ref, "resourceVersion", FT_STR, resource_version, O, NULL),
    F(object_ref, "fieldPath", FT_STR, field_path, O, NULL),
};
static const struct schema object_ref_s = SCHEMA(object_ref, object_ref_f);

/* discovery/v1.EndpointConditions: three *bool. */
static const struct field epcond_f[] = {
    F(endpoint_conditions, "ready", FT_OPTBOOL, ready, O, NULL),
    F(endpoint_conditions, "serving", FT_OPTBOOL, serving, O, NULL),
    F(endpoint_conditions, "terminating", FT_OPTBOOL, terminating, O, NULL),
};
static const struct schema epcond_s = SCHEMA(endpoint_conditions, epcond_f);

static const struct field endpoint_f[] = {
    F(endpoint, "addresses", FT_STRLIST, addresses, 0, NULL),
    F(endpoint, "conditions", FT_STRUCT, conditions, 0, &epcond_s),
    F(endpoint, "targetRef", FT_PTR, target_ref, O, &object_ref_s),
    F(endpoint, "nodeName", FT_STR, node_name, O, NULL),
};
static const struct schema endpoint_s = SCHEMA(endpoint, endpoint_f);

/* discovery/v1.EndpointPort and v1.EndpointPort: name is a *string in
 * the slice ("" for an unnamed Service port) and is always written. */
static const struct field endpoint_port_f[] = {
    F(endpoint_port, "name", FT_STR, name, 0, NULL),
    F(endpoint_port, "port", FT_INT, port, I32, NULL),
    F(endpoint_port, "protocol", FT_STR, protocol, O, NULL),
    F(endpoint_port, "appProtocol", FT_STR, app_protocol, O, NULL),
};
static const struct schema endpoint_port_s =
    SCHEMA(endpoint_port, endpoint_port_f);

static const struct field endpoint_slice_f[] = {
    F(endpoint_slice, "apiVersion", FT_STR, api_version, O, NULL),
    F(endpoint_slice, "kind", FT_STR, kind, O, NULL),
    F(endpoint_slice, "metadata", FT_STRUCT, metadata, 0, &schema_object_meta),
    F(endpoint_slice, "addressType", FT_STR, address_type, 0, NULL),
    F(endpoint_slice, "endpoints", FT_LIST, endpoints, 0, &endpoint_s),
    F(endpoint_slice, "ports", FT_LIST, ports, 0, &endpoint_port_s),
};
const struct schema schema_endpoint_slice =
    SCHEMA(endpoint_slice, endpoint_slice_f);

/* v1 Endpoints */

static const struct field endpoint_address_f[] = {
    F(endpoint_address, "ip", FT_STR, ip, 0, NULL),
    F(endpoint_address, "nodeName", FT_STR, node_name, O, NULL),
    F(endpoint_address, "targetRef", FT_PTR, target_ref, O, &object_ref_s),
};
static const struct schema endpoint_address_s =
    SCHEMA(endpoint_address, endpoint_address_f);

static const struct field endpoint_subset_f[] = {
    F(endpoint_subset, "addresses", FT_LIST, addresses, O, &endpoint_address_s),
    F(endpoint_subset, "notReadyAddresses", FT_LIST, not_ready_addresses, O,
      &endpoint_address_s),
    F(endpoint_subset, "ports", FT_LIST, ports, O, &endpoint_port_s),
};
static const struct schema endpoint_subset_s =
    SCHEMA(endpoint_subset, endpoint_subset_f);

static const struct field endpoints_f[] = {
    F(endpoints, "apiVersion", FT_STR, api_version, O, NULL),
    F(endpoints, "kind", FT_STR, kind, O, NULL),
    F(endpoints, "metadata", FT_STRUCT, metadata, 0, &schema_object_meta),
    F(endpoints, "subsets", FT_LIST, subsets, O, &endpoint_subset_s),
};
const struct schema schema_endpoints = SCHEMA(endpoints, endpoints_f);

/* v1 Event, in the order of core/v1 types.go. firstTimestamp and
 * lastTimestamp are metav1.Time: Go prints a zero one as null despite
 * omitempty; eventTime (MicroTime) likewise, and is always null here.
 * count is an int32; reportingComponent and reportingInstance have no
 * omitempty. series, action and related are not modelled. */
static const struct field event_source_f[] = {
    F(event_source, "component", FT_STR, component, O, NULL),
    F(event_source, "host", FT_STR, host, O, NULL),
};
static const struct schema event_source_s =
    SCHEMA(event_source, event_source_f);

static const struct field event_v1_f[] = {
    F(event_v1, "apiVersion", FT_STR, api_version, O, NULL),
    F(event_v1, "kind", FT_STR, kind, O, NULL),
    F(event_v1, "metadata", FT_STRUCT, metadata, 0, &schema_object_meta),
    F(event_v1, "involvedObject", FT_STRUCT, involved_object, 0, &object_ref_s),
    F(event_v1, "reason", FT_STR, reason, O, NULL),
    F(event_v1, "message", FT_STR, message, O, NULL),
    F(event_v1, "source", FT_STRUCT, source, O, &event_source_s),
    F(event_v1, "firstTimestamp", FT_TIME, first_timestamp, FF_NULLTIME, NULL),
    F(event_v1, "lastTimestamp", FT_TIME, last_timestamp, FF_NULLTIME, NULL),
    F(event_v1, "count", FT_INT, count, O | I32, NULL),
    F(event_v1, "type", FT_STR, type, O, NULL),
    F(event_v1, "eventTime", FT_TIME, event_time, FF_NULLTIME, NULL),
    F(event_v1, "reportingComponent", FT_STR, reporting_component, 0, NULL),
    F(event_v1, "reportingInstance", FT_STR, reporting_instance, 0, NULL),
};
const struct schema schema_event_v1 = SCHEMA(event_v1, event_v1_f);

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

void
rc_release(struct replication_controller *rc)
{
	schema_release(&schema_replication_controller, rc);
}

void
rc_copy(struct replication_controller *dst,
	const struct replication_controller *src)
{
	schema_copy(&schema_replication_controller, dst, src);
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
	schema_copy(&rsstatus_s, &rs->status, &rc->status);
}

void
pod_release(struct pod *p)
{
	schema_release(&schema_pod, p);
}

void
pod_copy(struct pod *dst, const struct pod *src)
{
	schema_copy(&schema_pod, dst, src);
}

void
pod_template_release(struct pod_template *t)
{
	schema_release(&schema_pod_template, t);
}

void
pod_template_copy(struct pod_template *dst, const struct pod_template *src)
{
	schema_copy(&schema_pod_template, dst, src);
}

/* The first condition of that type, or NULL. Kubernetes keeps at most
 * one per type (SetDeploymentCondition replaces); condition_remove
 * removes all, in case an input carried duplicates. The pointer is into
 * the list: valid until it next grows or shrinks. */
struct condition *
condition_find(struct condition_list *l, const char *type)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].type && strcmp(l->v[i].type, type) == 0)
			return &l->v[i];
	return NULL;
}

const struct condition *
condition_get(const struct condition_list *l, const char *type)
{
	return condition_find((struct condition_list *)l, type);
}

void
condition_remove(struct condition_list *l, const char *type)
{
	size_t i = 0;

	while (i < l->n) {
		if (l->v[i].type && strcmp(l->v[i].type, type) == 0) {
			schema_release(&schema_condition, &l->v[i]);
			memmove(&l->v[i], &l->v[i + 1],
				(l->n - i - 1) * sizeof(l->v[0]));
			l->n--;
		} else {
			i++;
		}
	}
}

/* Appends a deep copy of c; the caller keeps c. To replace a condition
 * (SetDeploymentCondition), remove then append: the replaced one moves
 * to the end, which is where Kubernetes puts it too (it filters the old
 * one out and appends). */
void
condition_append(struct condition_list *l, const struct condition *c)
{
	struct condition *n =
	    anylist_push((struct anylist *)l, sizeof(struct condition));

	schema_copy(&schema_condition, n, c);
}

/* metav1.GetControllerOf: the first owner reference with controller:
 * true, or NULL. Validation in Kubernetes allows only one. A reference
 * with controller unset (Go's nil *bool) or false is a plain owner: a
 * pod whose only reference says {kind: ReplicaSet, name: web-1} and
 * nothing more is an orphan to every controller. */
const struct owner_ref *
meta_controller_ref(const struct object_meta *m)
{
	size_t i;

	for (i = 0; i < m->owner_references.n; i++) {
		const struct owner_ref *r = &m->owner_references.v[i];

		if (r->controller.set && r->controller.v)
			return r;
	}
	return NULL;
}

/* By uid alone, controller or not: a NULL uid asked for, or references
 * without a uid, never match. */
bool
meta_has_owner(const struct object_meta *m, const char *uid)
{
	size_t i;

	for (i = 0; i < m->owner_references.n; i++)
		if (uid && m->owner_references.v[i].uid &&
		    !strcmp(m->owner_references.v[i].uid, uid))
			return true;
	return false;
}

/* Removes every reference to the owner (releasing an object, as the
 * controller's ClaimObject does on a selector mismatch). A reference
 * matches by uid when both sides have one, by name otherwise (manifests
 * written by hand often carry no uid); a reference without a kind
 * matches any kind. Example: removing kind ReplicaSet, uid "u1" from
 * [{ReplicaSet web-1 u1}, {ReplicaSet web-2 u2}] leaves web-2. */
void
meta_remove_owner_refs(struct object_meta *m, const char *kind, const char *uid,
		       const char *name)
{
	struct owner_ref_list *l = &m->owner_references;
	size_t i = 0;

	while (i < l->n) {
		struct owner_ref *r = &l->v[i];
		bool kind_ok = !r->kind || !strcmp(r->kind, kind);
		bool same = (uid && *uid && r->uid && *r->uid)
				? !strcmp(r->uid, uid)
				: (r->name && name && !strcmp(r->name, name));

		if (kind_ok && same) {
			schema_release(&owner_ref_s, r);
			memmove(r, r + 1, (l->n - i - 1) * sizeof(*r));
			l->n--;
		} else {
			i++;
		}
	}
}
