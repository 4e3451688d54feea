/* core.c - the field tables of the core/v1 types drover models (the
 * pod spec and template, Pod, ReplicationController, Node, Service,
 * Endpoints, Event, ObjectReference) and their typed wrappers (core.h;
 * the rules of the rows in schema_rows.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "schema_rows.h"
#include "xalloc.h"

/* The downward API's env source: only fieldRef is modelled
 * (downward.c); configMapKeyRef, secretKeyRef and resourceFieldRef are
 * not modelled. */
static const struct field field_ref_f[] = {
    F(field_ref, "apiVersion", 1, FT_STR, api_version, O, NULL),
    F(field_ref, "fieldPath", 2, FT_STR, field_path, 0, NULL),
};
static const struct schema field_ref_s = SCHEMA(field_ref, field_ref_f);

static const struct field env_source_f[] = {
    F(env_source, "fieldRef", 1, FT_PTR, field_ref, O, &field_ref_s),
};
static const struct schema env_source_s = SCHEMA(env_source, env_source_f);

static const struct field env_var_f[] = {
    F(env_var, "name", 1, FT_STR, name, 0, NULL),
    F(env_var, "value", 2, FT_STR, value, O, NULL),
    F(env_var, "valueFrom", 3, FT_PTR, value_from, O, &env_source_s),
};
static const struct schema env_var_s = SCHEMA(env_var, env_var_f);

/* v1.ContainerPort. containerPort has no omitempty in Go and is
 * required (validate.h); hostPort 0 means "none" and is left out. */
static const struct field container_port_f[] = {
    F(container_port, "name", 1, FT_STR, name, O, NULL),
    F(container_port, "hostPort", 2, FT_INT, host_port, O | I32, NULL),
    F(container_port, "containerPort", 3, FT_INT, container_port, I32, NULL),
    F(container_port, "protocol", 4, FT_STR, protocol, O, NULL),
    F(container_port, "hostIP", 5, FT_STR, host_ip, O, NULL),
};
static const struct schema container_port_s =
    SCHEMA(container_port, container_port_f);

/* The probe and lifecycle handlers the node agent runs: exec, httpGet,
 * tcpSocket (grpc and sleep are not modelled). port is an IntOrString: a
 * number or a container port's name. */
static const struct field exec_action_f[] = {
    F(exec_action, "command", 1, FT_STRLIST, command, O, NULL),
};
static const struct schema exec_action_s = SCHEMA(exec_action, exec_action_f);

static const struct field http_header_f[] = {
    F(http_header, "name", 1, FT_STR, name, 0, NULL),
    F(http_header, "value", 2, FT_STR, value, 0, NULL),
};
static const struct schema http_header_s = SCHEMA(http_header, http_header_f);

static const struct field http_get_f[] = {
    F(http_get_action, "path", 1, FT_STR, path, O, NULL),
    F(http_get_action, "port", 2, FT_INTSTR, port, 0, NULL),
    F(http_get_action, "host", 3, FT_STR, host, O, NULL),
    F(http_get_action, "scheme", 4, FT_STR, scheme, O, NULL),
    F(http_get_action, "httpHeaders", 5, FT_LIST, http_headers, O,
      &http_header_s),
};
static const struct schema http_get_s = SCHEMA(http_get_action, http_get_f);

static const struct field tcp_socket_f[] = {
    F(tcp_socket_action, "port", 1, FT_INTSTR, port, 0, NULL),
    F(tcp_socket_action, "host", 2, FT_STR, host, O, NULL),
};
static const struct schema tcp_socket_s =
    SCHEMA(tcp_socket_action, tcp_socket_f);

/* v1.Probe. The timing fields are plain int32 in Go but opt_int here, so
 * the decoder records whether they were written and defaulting
 * (defaults.h) fills only unwritten ones (Kubernetes fills zeros, see
 * defaults_probe). They are FF_NOPTR: Go's protobuf writes their 0,
 * which reads as unwritten, as in Go's JSON. The probe-level
 * terminationGracePeriodSeconds is *int64, as in Go. exec, httpGet and
 * tcpSocket are Go's ProbeHandler, embedded inline (field 1 of Probe in
 * protobuf). */
#define TIMING (O | I32 | FF_NOPTR)
static const struct field probe_f[] = {
    F(probe, "exec", PB_INLINE(1, 1), FT_PTR, exec, O, &exec_action_s),
    F(probe, "httpGet", PB_INLINE(1, 2), FT_PTR, http_get, O, &http_get_s),
    F(probe, "tcpSocket", PB_INLINE(1, 3), FT_PTR, tcp_socket, O,
      &tcp_socket_s),
    F(probe, "initialDelaySeconds", 2, FT_OPTINT, initial_delay_seconds, TIMING,
      NULL),
    F(probe, "timeoutSeconds", 3, FT_OPTINT, timeout_seconds, TIMING, NULL),
    F(probe, "periodSeconds", 4, FT_OPTINT, period_seconds, TIMING, NULL),
    F(probe, "successThreshold", 5, FT_OPTINT, success_threshold, TIMING, NULL),
    F(probe, "failureThreshold", 6, FT_OPTINT, failure_threshold, TIMING, NULL),
    F(probe, "terminationGracePeriodSeconds", 7, FT_OPTINT,
      termination_grace_period_seconds, O | I64, NULL),
};
#undef TIMING
static const struct schema probe_s = SCHEMA(probe, probe_f);

/* Quantities are kept as the strings written ("500m", "1Gi"):
 * drover does not schedule on resources, so it never parses them. */
static const struct field resources_f[] = {
    F(resources, "limits", 1, FT_STRMAP, limits, O | QTY, NULL),
    F(resources, "requests", 2, FT_STRMAP, requests, O | QTY, NULL),
};
static const struct schema resources_s = SCHEMA(resources, resources_f);

static const struct field handler_f[] = {
    F(lifecycle_handler, "exec", 1, FT_PTR, exec, O, &exec_action_s),
    F(lifecycle_handler, "httpGet", 2, FT_PTR, http_get, O, &http_get_s),
    F(lifecycle_handler, "tcpSocket", 3, FT_PTR, tcp_socket, O, &tcp_socket_s),
};
static const struct schema handler_s = SCHEMA(lifecycle_handler, handler_f);

static const struct field lifecycle_f[] = {
    F(lifecycle, "postStart", 1, FT_PTR, post_start, O, &handler_s),
    F(lifecycle, "preStop", 2, FT_PTR, pre_stop, O, &handler_s),
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
    F(capabilities, "add", 1, FT_STRLIST, add, O, NULL),
    F(capabilities, "drop", 2, FT_STRLIST, drop, O, NULL),
};
static const struct schema capabilities_s =
    SCHEMA(capabilities, capabilities_f);

static const struct field security_context_f[] = {
    F(security_context, "capabilities", 1, FT_PTR, capabilities, O,
      &capabilities_s),
    F(security_context, "privileged", 2, FT_OPTBOOL, privileged, O, NULL),
    F(security_context, "seLinuxOptions", 3, FT_RAW, se_linux_options, O, NULL),
    F(security_context, "windowsOptions", 10, FT_RAW, windows_options, O, NULL),
    F(security_context, "runAsUser", 4, FT_OPTINT, run_as_user, O | I64, NULL),
    F(security_context, "runAsGroup", 8, FT_OPTINT, run_as_group, O | I64,
      NULL),
    F(security_context, "runAsNonRoot", 5, FT_OPTBOOL, run_as_non_root, O,
      NULL),
    F(security_context, "readOnlyRootFilesystem", 6, FT_OPTBOOL,
      read_only_root_filesystem, O, NULL),
    F(security_context, "allowPrivilegeEscalation", 7, FT_OPTBOOL,
      allow_privilege_escalation, O, NULL),
    F(security_context, "procMount", 9, FT_STR, proc_mount, O, NULL),
    F(security_context, "seccompProfile", 11, FT_RAW, seccomp_profile, O, NULL),
    F(security_context, "appArmorProfile", 12, FT_RAW, app_armor_profile, O,
      NULL),
};
const struct schema schema_security_context =
    SCHEMA(security_context, security_context_f);

static const struct field pod_security_context_f[] = {
    F(pod_security_context, "seLinuxOptions", 1, FT_RAW, se_linux_options, O,
      NULL),
    F(pod_security_context, "windowsOptions", 8, FT_RAW, windows_options, O,
      NULL),
    F(pod_security_context, "runAsUser", 2, FT_OPTINT, run_as_user, O | I64,
      NULL),
    F(pod_security_context, "runAsGroup", 6, FT_OPTINT, run_as_group, O | I64,
      NULL),
    F(pod_security_context, "runAsNonRoot", 3, FT_OPTBOOL, run_as_non_root, O,
      NULL),
    F(pod_security_context, "supplementalGroups", 4, FT_INTLIST,
      supplemental_groups, O, NULL),
    F(pod_security_context, "supplementalGroupsPolicy", 12, FT_STR,
      supplemental_groups_policy, O, NULL),
    F(pod_security_context, "fsGroup", 5, FT_OPTINT, fs_group, O | I64, NULL),
    F(pod_security_context, "sysctls", 7, FT_RAW, sysctls, O, NULL),
    F(pod_security_context, "fsGroupChangePolicy", 9, FT_STR,
      fs_group_change_policy, O, NULL),
    F(pod_security_context, "seccompProfile", 10, FT_RAW, seccomp_profile, O,
      NULL),
    F(pod_security_context, "appArmorProfile", 11, FT_RAW, app_armor_profile, O,
      NULL),
    F(pod_security_context, "seLinuxChangePolicy", 13, FT_STR,
      se_linux_change_policy, O, NULL),
};
const struct schema schema_pod_security_context =
    SCHEMA(pod_security_context, pod_security_context_f);

/* Volumes (core.h): v1.Volume with emptyDir as its only source, and
 * v1.VolumeMount. Both lists are FF_HASHNEW rows: added after
 * pod-template-hashes were in use, they are left out of the hash of a
 * template that has none, so its ReplicaSet keeps its name. volumes
 * merge by name, volumeMounts by mountPath (their patchMergeKeys). */
static const struct field empty_dir_f[] = {
    F(empty_dir_volume_source, "medium", 1, FT_STR, medium, O, NULL),
    F(empty_dir_volume_source, "sizeLimit", 2, FT_STR, size_limit, O | QTY,
      NULL),
};
static const struct schema empty_dir_s =
    SCHEMA(empty_dir_volume_source, empty_dir_f);

/* emptyDir is a field of Go's VolumeSource, embedded inline in Volume
 * (field 2 of Volume in protobuf). */
static const struct field volume_f[] = {
    F(volume, "name", 1, FT_STR, name, 0, NULL),
    F(volume, "emptyDir", PB_INLINE(2, 2), FT_PTR, empty_dir, O, &empty_dir_s),
};
static const struct schema volume_s = SCHEMA(volume, volume_f);

static const struct field volume_mount_f[] = {
    F(volume_mount, "name", 1, FT_STR, name, 0, NULL),
    F(volume_mount, "readOnly", 2, FT_BOOL, read_only, O, NULL),
    F(volume_mount, "mountPath", 3, FT_STR, mount_path, 0, NULL),
};
static const struct schema volume_mount_s =
    SCHEMA(volume_mount, volume_mount_f);

/* v1.Container: containers and env merge by name, ports by
 * containerPort (see the top of the file). resources is an inline struct
 * (a Go value, not a pointer), so it is never nil. */
static const struct field container_f[] = {
    F(container, "name", 1, FT_STR, name, 0, NULL),
    F(container, "image", 2, FT_STR, image, O, NULL),
    F(container, "command", 3, FT_STRLIST, command, O, NULL),
    F(container, "args", 4, FT_STRLIST, args, O, NULL),
    F(container, "workingDir", 5, FT_STR, working_dir, O, NULL),
    FK(container, "ports", 6, ports, O, &container_port_s, "containerPort"),
    FK(container, "env", 7, env, O, &env_var_s, "name"),
    F(container, "resources", 8, FT_STRUCT, resources, 0, &resources_s),
    FK(container, "volumeMounts", 9, volume_mounts, O | FF_HASHNEW,
       &volume_mount_s, "mountPath"),
    F(container, "livenessProbe", 10, FT_PTR, liveness_probe, O, &probe_s),
    F(container, "readinessProbe", 11, FT_PTR, readiness_probe, O, &probe_s),
    F(container, "startupProbe", 22, FT_PTR, startup_probe, O, &probe_s),
    F(container, "lifecycle", 12, FT_PTR, lifecycle, O, &lifecycle_s),
    F(container, "terminationMessagePath", 13, FT_STR, termination_message_path,
      O, NULL),
    F(container, "terminationMessagePolicy", 20, FT_STR,
      termination_message_policy, O, NULL),
    F(container, "imagePullPolicy", 14, FT_STR, image_pull_policy, O, NULL),
    F(container, "securityContext", 15, FT_PTR, security_context,
      O | FF_HASHRAW, &schema_security_context),
};
static const struct schema container_s = SCHEMA(container, container_f);

static const struct field toleration_f[] = {
    F(toleration, "key", 1, FT_STR, key, O, NULL),
    F(toleration, "operator", 2, FT_STR, operator, O, NULL),
    F(toleration, "value", 3, FT_STR, value, O, NULL),
    F(toleration, "effect", 4, FT_STR, effect, O, NULL),
    F(toleration, "tolerationSeconds", 5, FT_OPTINT, toleration_seconds,
      O | I64, NULL),
};
static const struct schema toleration_s = SCHEMA(toleration, toleration_f);

/* v1.Affinity. nodeAffinity is typed (placement.c filters on its
 * required terms); podAffinity and podAntiAffinity stay FT_RAW: accepted,
 * kept and served as written, not acted on. nodeSelectorTerms has no
 * omitempty in Go (it is required); the lists are atomic in a strategic
 * merge patch, as in Kubernetes (no patchStrategy). */
static const struct field node_selector_req_f[] = {
    F(node_selector_req, "key", 1, FT_STR, key, 0, NULL),
    F(node_selector_req, "operator", 2, FT_STR, operator, 0, NULL),
    F(node_selector_req, "values", 3, FT_STRLIST, values, O, NULL),
};
static const struct schema node_selector_req_s =
    SCHEMA(node_selector_req, node_selector_req_f);

static const struct field node_selector_term_f[] = {
    F(node_selector_term, "matchExpressions", 1, FT_LIST, match_expressions, O,
      &node_selector_req_s),
    F(node_selector_term, "matchFields", 2, FT_LIST, match_fields, O,
      &node_selector_req_s),
};
static const struct schema node_selector_term_s =
    SCHEMA(node_selector_term, node_selector_term_f);

static const struct field node_selector_f[] = {
    F(node_selector, "nodeSelectorTerms", 1, FT_LIST, node_selector_terms, 0,
      &node_selector_term_s),
};
static const struct schema node_selector_s =
    SCHEMA(node_selector, node_selector_f);

static const struct field preferred_term_f[] = {
    F(preferred_scheduling_term, "weight", 1, FT_INT, weight, I32, NULL),
    F(preferred_scheduling_term, "preference", 2, FT_STRUCT, preference, 0,
      &node_selector_term_s),
};
static const struct schema preferred_term_s =
    SCHEMA(preferred_scheduling_term, preferred_term_f);

static const struct field node_affinity_f[] = {
    F(node_affinity, "requiredDuringSchedulingIgnoredDuringExecution", 1,
      FT_PTR, required, O, &node_selector_s),
    F(node_affinity, "preferredDuringSchedulingIgnoredDuringExecution", 2,
      FT_LIST, preferred, O, &preferred_term_s),
};
static const struct schema node_affinity_s =
    SCHEMA(node_affinity, node_affinity_f);

static const struct field affinity_f[] = {
    F(affinity, "nodeAffinity", 1, FT_PTR, node_affinity, O, &node_affinity_s),
    F(affinity, "podAffinity", 2, FT_RAW, pod_affinity, O, NULL),
    F(affinity, "podAntiAffinity", 3, FT_RAW, pod_anti_affinity, O, NULL),
};
static const struct schema affinity_s = SCHEMA(affinity, affinity_f);

/* v1.PodSpec. containers has no omitempty in Go (it is required);
 * volumes is FF_HASHNEW (see above). affinity is FF_HASHRAW: it was an FT_RAW string, so a template without
 * one (or with "{}") keeps its pod-template-hash. */
static const struct field pod_spec_f[] = {
    FK(pod_spec, "volumes", 1, volumes, O | FF_HASHNEW, &volume_s, "name"),
    FK(pod_spec, "containers", 2, containers, 0, &container_s, "name"),
    F(pod_spec, "restartPolicy", 3, FT_STR, restart_policy, O, NULL),
    F(pod_spec, "terminationGracePeriodSeconds", 4, FT_OPTINT,
      termination_grace_period_seconds, O | I64, NULL),
    F(pod_spec, "activeDeadlineSeconds", 5, FT_OPTINT, active_deadline_seconds,
      O | I64, NULL),
    F(pod_spec, "dnsPolicy", 6, FT_STR, dns_policy, O, NULL),
    F(pod_spec, "nodeSelector", 7, FT_STRMAP, node_selector, O, NULL),
    F(pod_spec, "serviceAccountName", 8, FT_STR, service_account_name, O, NULL),
    F(pod_spec, "nodeName", 10, FT_STR, node_name, O, NULL),
    F(pod_spec, "hostname", 16, FT_STR, hostname, O, NULL),
    F(pod_spec, "securityContext", 14, FT_PTR, security_context, O | FF_HASHRAW,
      &schema_pod_security_context),
    F(pod_spec, "affinity", 18, FT_PTR, affinity, O | FF_HASHRAW, &affinity_s),
    F(pod_spec, "schedulerName", 19, FT_STR, scheduler_name, O, NULL),
    F(pod_spec, "tolerations", 22, FT_LIST, tolerations, O, &toleration_s),
};
const struct schema schema_pod_spec = SCHEMA(pod_spec, pod_spec_f);

/* v1.PodTemplateSpec: what tmplhash dumps and what rs_matches_template
 * compares (ignoring the pod-template-hash label). */
static const struct field pod_template_f[] = {
    F(pod_template, "metadata", 1, FT_STRUCT, metadata, 0, &schema_object_meta),
    F(pod_template, "spec", 2, FT_STRUCT, spec, 0, &schema_pod_spec),
};
const struct schema schema_pod_template = SCHEMA(pod_template, pod_template_f);

/* apps/v1 ReplicaSetCondition and v1 ReplicationControllerCondition
 * (the same numbers): the rows of every condition (schema_condition). */
static const struct field rs_condition_f[] = {
    F(condition, "type", 1, FT_STR, type, 0, NULL),
    F(condition, "status", 2, FT_STR, status, 0, NULL),
    F(condition, "lastHeartbeatTime", 0, FT_TIME, last_heartbeat_time, O, NULL),
    F(condition, "lastProbeTime", 0, FT_TIME, last_probe_time, O, NULL),
    F(condition, "lastUpdateTime", 0, FT_TIME, last_update_time, O, NULL),
    F(condition, "lastTransitionTime", 3, FT_TIME, last_transition_time, O,
      NULL),
    F(condition, "reason", 4, FT_STR, reason, O, NULL),
    F(condition, "message", 5, FT_STR, message, O, NULL),
};
static const struct schema rs_condition_s = SCHEMA(condition, rs_condition_f);

/* The ReplicaSet status shape, which v1 ReplicationControllerStatus has
 * too (core.h). */
static const struct field rsstatus_f[] = {
    F(replicaset_status, "replicas", 1, FT_INT, replicas, I32, NULL),
    F(replicaset_status, "fullyLabeledReplicas", 2, FT_INT,
      fully_labeled_replicas, O | I32, NULL),
    F(replicaset_status, "readyReplicas", 4, FT_INT, ready_replicas, O | I32,
      NULL),
    F(replicaset_status, "availableReplicas", 5, FT_INT, available_replicas,
      O | I32, NULL),
    F(replicaset_status, "observedGeneration", 3, FT_INT, observed_generation,
      O | I64, NULL),
    FK(replicaset_status, "conditions", 6, conditions, O, &rs_condition_s,
       "type"),
};
const struct schema schema_replicaset_status =
    SCHEMA(replicaset_status, rsstatus_f);

/* v1 ReplicationController: ReplicationControllerSpec has replicas,
 * minReadySeconds, selector (map[string]string) and template; its
 * status has the ReplicaSet status' fields. */
static const struct field rcspec_f[] = {
    F(rc_spec, "replicas", 1, FT_OPTINT, replicas, O | I32, NULL),
    F(rc_spec, "minReadySeconds", 4, FT_INT, min_ready_seconds, O | I32, NULL),
    F(rc_spec, "selector", 2, FT_STRMAP, selector, O, NULL),
    F(rc_spec, "template", 3, FT_STRUCT, template, 0, &schema_pod_template),
};
static const struct schema rcspec_s = SCHEMA(rc_spec, rcspec_f);

static const struct field rc_f[] = {
    F(replication_controller, "apiVersion", 0, FT_STR, api_version, O, NULL),
    F(replication_controller, "kind", 0, FT_STR, kind, O, NULL),
    F(replication_controller, "metadata", 1, FT_STRUCT, metadata, 0,
      &schema_object_meta),
    F(replication_controller, "spec", 2, FT_STRUCT, spec, 0, &rcspec_s),
    F(replication_controller, "status", 3, FT_STRUCT, status, 0,
      &schema_replicaset_status),
};
const struct schema schema_replication_controller =
    SCHEMA(replication_controller, rc_f);

/* v1 Pod */

/* v1.ContainerState: exactly one of waiting/running/terminated is set
 * by the agent; all three are pointers so the encoder prints only that
 * one. */
static const struct field waiting_f[] = {
    F(state_waiting, "reason", 1, FT_STR, reason, O, NULL),
    F(state_waiting, "message", 2, FT_STR, message, O, NULL),
};
static const struct schema waiting_s = SCHEMA(state_waiting, waiting_f);

static const struct field running_f[] = {
    F(state_running, "startedAt", 1, FT_TIME, started_at, O, NULL),
};
static const struct schema running_s = SCHEMA(state_running, running_f);

static const struct field terminated_f[] = {
    F(state_terminated, "exitCode", 1, FT_INT, exit_code, I32, NULL),
    F(state_terminated, "signal", 2, FT_INT, signal, O | I32, NULL),
    F(state_terminated, "reason", 3, FT_STR, reason, O, NULL),
    F(state_terminated, "message", 4, FT_STR, message, O, NULL),
    F(state_terminated, "startedAt", 5, FT_TIME, started_at, O, NULL),
    F(state_terminated, "finishedAt", 6, FT_TIME, finished_at, O, NULL),
    F(state_terminated, "containerID", 7, FT_STR, container_id, O, NULL),
};
static const struct schema terminated_s =
    SCHEMA(state_terminated, terminated_f);

static const struct field cstate_f[] = {
    F(container_state, "waiting", 1, FT_PTR, waiting, O, &waiting_s),
    F(container_state, "running", 2, FT_PTR, running, O, &running_s),
    F(container_state, "terminated", 3, FT_PTR, terminated, O, &terminated_s),
};
static const struct schema cstate_s = SCHEMA(container_state, cstate_f);

/* v1.ContainerStatus. ready, restartCount, image and imageID have no
 * omitempty in Go. ports is drover's (Kubernetes has no such field):
 * the host port the agent allocated for each container port
 * (portalloc.c), reported so that a restarted container gets the same
 * one back. */
static const struct field cstatus_f[] = {
    F(container_status, "name", 1, FT_STR, name, 0, NULL),
    F(container_status, "state", 2, FT_STRUCT, state, 0, &cstate_s),
    F(container_status, "lastState", 3, FT_STRUCT, last_state, 0, &cstate_s),
    F(container_status, "ready", 4, FT_BOOL, ready, 0, NULL),
    F(container_status, "restartCount", 5, FT_INT, restart_count, I32, NULL),
    F(container_status, "image", 6, FT_STR, image, 0, NULL),
    F(container_status, "imageID", 7, FT_STR, image_id, 0, NULL),
    F(container_status, "containerID", 8, FT_STR, container_id, O, NULL),
    F(container_status, "started", 9, FT_OPTBOOL, started, O, NULL),
    F(container_status, "ports", 0, FT_LIST, ports, O, &container_port_s),
};
const struct schema schema_container_status =
    SCHEMA(container_status, cstatus_f);

static const struct field pod_ip_f[] = {
    F(pod_ip, "ip", 1, FT_STR, ip, O, NULL),
};
static const struct schema pod_ip_s = SCHEMA(pod_ip, pod_ip_f);

/* v1.PodCondition: the rows of every condition (schema_condition). */
static const struct field pod_condition_f[] = {
    F(condition, "type", 1, FT_STR, type, 0, NULL),
    F(condition, "status", 2, FT_STR, status, 0, NULL),
    F(condition, "lastHeartbeatTime", 0, FT_TIME, last_heartbeat_time, O, NULL),
    F(condition, "lastProbeTime", 3, FT_TIME, last_probe_time, O, NULL),
    F(condition, "lastUpdateTime", 0, FT_TIME, last_update_time, O, NULL),
    F(condition, "lastTransitionTime", 4, FT_TIME, last_transition_time, O,
      NULL),
    F(condition, "reason", 5, FT_STR, reason, O, NULL),
    F(condition, "message", 6, FT_STR, message, O, NULL),
};
static const struct schema pod_condition_s = SCHEMA(condition, pod_condition_f);

/* v1.PodStatus. phase and the Ready condition are what the controllers
 * read (pod_facts.c); podIPs merge by ip. */
static const struct field pstatus_f[] = {
    F(pod_status, "phase", 1, FT_STR, phase, O, NULL),
    FK(pod_status, "conditions", 2, conditions, O, &pod_condition_s, "type"),
    F(pod_status, "message", 3, FT_STR, message, O, NULL),
    F(pod_status, "reason", 4, FT_STR, reason, O, NULL),
    F(pod_status, "hostIP", 5, FT_STR, host_ip, O, NULL),
    F(pod_status, "podIP", 6, FT_STR, pod_ip, O, NULL),
    FK(pod_status, "podIPs", 12, pod_ips, O, &pod_ip_s, "ip"),
    F(pod_status, "startTime", 7, FT_TIME, start_time, O, NULL),
    F(pod_status, "containerStatuses", 8, FT_LIST, container_statuses, O,
      &schema_container_status),
};
static const struct schema pstatus_s = SCHEMA(pod_status, pstatus_f);

static const struct field pod_f[] = {
    F(pod, "apiVersion", 0, FT_STR, api_version, O, NULL),
    F(pod, "kind", 0, FT_STR, kind, O, NULL),
    F(pod, "metadata", 1, FT_STRUCT, metadata, 0, &schema_object_meta),
    F(pod, "spec", 2, FT_STRUCT, spec, 0, &schema_pod_spec),
    F(pod, "status", 3, FT_STRUCT, status, 0, &pstatus_s),
};
const struct schema schema_pod = SCHEMA(pod, pod_f);

/* v1 Node */

/* v1 Node: the taints placement.c checks, the addresses and conditions
 * the agent reports. nodeInfo is inline (a Go value). */
static const struct field taint_f[] = {
    F(taint, "key", 1, FT_STR, key, 0, NULL),
    F(taint, "value", 2, FT_STR, value, O, NULL),
    F(taint, "effect", 3, FT_STR, effect, 0, NULL),
    F(taint, "timeAdded", 4, FT_TIME, time_added, O, NULL),
};
static const struct schema taint_s = SCHEMA(taint, taint_f);

static const struct field nspec_f[] = {
    F(node_spec, "podCIDR", 1, FT_STR, pod_cidr, O, NULL),
    F(node_spec, "providerID", 3, FT_STR, provider_id, O, NULL),
    F(node_spec, "unschedulable", 4, FT_BOOL, unschedulable, O, NULL),
    F(node_spec, "taints", 5, FT_LIST, taints, O, &taint_s),
};
static const struct schema nspec_s = SCHEMA(node_spec, nspec_f);

static const struct field naddr_f[] = {
    F(node_address, "type", 1, FT_STR, type, 0, NULL),
    F(node_address, "address", 2, FT_STR, address, 0, NULL),
};
static const struct schema naddr_s = SCHEMA(node_address, naddr_f);

static const struct field ninfo_f[] = {
    F(node_info, "machineID", 1, FT_STR, machine_id, 0, NULL),
    F(node_info, "systemUUID", 2, FT_STR, system_uuid, 0, NULL),
    F(node_info, "bootID", 3, FT_STR, boot_id, 0, NULL),
    F(node_info, "kernelVersion", 4, FT_STR, kernel_version, 0, NULL),
    F(node_info, "osImage", 5, FT_STR, os_image, 0, NULL),
    F(node_info, "containerRuntimeVersion", 6, FT_STR,
      container_runtime_version, 0, NULL),
    F(node_info, "kubeletVersion", 7, FT_STR, kubelet_version, 0, NULL),
    F(node_info, "kubeProxyVersion", 8, FT_STR, kube_proxy_version, 0, NULL),
    F(node_info, "operatingSystem", 9, FT_STR, operating_system, 0, NULL),
    F(node_info, "architecture", 10, FT_STR, architecture, 0, NULL),
};
static const struct schema ninfo_s = SCHEMA(node_info, ninfo_f);

/* Port has a capital P in Kubernetes' JSON, and no omitempty. */
static const struct field dendpoint_f[] = {
    F(daemon_endpoint, "Port", 1, FT_INT, port, I32, NULL),
};
static const struct schema dendpoint_s = SCHEMA(daemon_endpoint, dendpoint_f);

static const struct field dendpoints_f[] = {
    F(node_daemon_endpoints, "kubeletEndpoint", 1, FT_STRUCT, kubelet_endpoint,
      O, &dendpoint_s),
};
static const struct schema dendpoints_s =
    SCHEMA(node_daemon_endpoints, dendpoints_f);

/* v1.NodeCondition: the rows of every condition (schema_condition). */
static const struct field node_condition_f[] = {
    F(condition, "type", 1, FT_STR, type, 0, NULL),
    F(condition, "status", 2, FT_STR, status, 0, NULL),
    F(condition, "lastHeartbeatTime", 3, FT_TIME, last_heartbeat_time, O, NULL),
    F(condition, "lastProbeTime", 0, FT_TIME, last_probe_time, O, NULL),
    F(condition, "lastUpdateTime", 0, FT_TIME, last_update_time, O, NULL),
    F(condition, "lastTransitionTime", 4, FT_TIME, last_transition_time, O,
      NULL),
    F(condition, "reason", 5, FT_STR, reason, O, NULL),
    F(condition, "message", 6, FT_STR, message, O, NULL),
};
static const struct schema node_condition_s =
    SCHEMA(condition, node_condition_f);

static const struct field nstatus_f[] = {
    F(node_status, "capacity", 1, FT_STRMAP, capacity, O | QTY, NULL),
    F(node_status, "allocatable", 2, FT_STRMAP, allocatable, O | QTY, NULL),
    FK(node_status, "conditions", 4, conditions, O, &node_condition_s, "type"),
    FK(node_status, "addresses", 5, addresses, O, &naddr_s, "type"),
    F(node_status, "daemonEndpoints", 6, FT_STRUCT, daemon_endpoints, O,
      &dendpoints_s),
    F(node_status, "nodeInfo", 7, FT_STRUCT, node_info, O, &ninfo_s),
};
static const struct schema nstatus_s = SCHEMA(node_status, nstatus_f);

static const struct field node_f[] = {
    F(node, "apiVersion", 0, FT_STR, api_version, O, NULL),
    F(node, "kind", 0, FT_STR, kind, O, NULL),
    F(node, "metadata", 1, FT_STRUCT, metadata, 0, &schema_object_meta),
    F(node, "spec", 2, FT_STRUCT, spec, 0, &nspec_s),
    F(node, "status", 3, FT_STRUCT, status, 0, &nstatus_s),
};
const struct schema schema_node = SCHEMA(node, node_f);

/* v1 Service */

/* v1.ServicePort and v1.ServiceSpec, in Kubernetes' field order. port
 * has no omitempty in Go; targetPort is defaulted to port. Fields of
 * Kubernetes' Service drover has no use for (nodePort, sessionAffinity,
 * ...) are not modelled, so a manifest that sets them is refused as an
 * unknown field rather than silently not honoured. */
static const struct field service_port_f[] = {
    F(service_port, "name", 1, FT_STR, name, O, NULL),
    F(service_port, "protocol", 2, FT_STR, protocol, O, NULL),
    F(service_port, "appProtocol", 6, FT_STR, app_protocol, O, NULL),
    F(service_port, "port", 3, FT_INT, port, I32, NULL),
    F(service_port, "targetPort", 4, FT_INTSTR, target_port, O, NULL),
};
static const struct schema service_port_s =
    SCHEMA(service_port, service_port_f);

/* ports merge by "port" (ServiceSpec.Ports' patchMergeKey). */
static const struct field service_spec_f[] = {
    FK(service_spec, "ports", 1, ports, O, &service_port_s, "port"),
    F(service_spec, "selector", 2, FT_STRMAP, selector, O, NULL),
    F(service_spec, "clusterIP", 3, FT_STR, cluster_ip, O, NULL),
    F(service_spec, "clusterIPs", 18, FT_STRLIST, cluster_ips, O, NULL),
    F(service_spec, "type", 4, FT_STR, type, O, NULL),
};
static const struct schema service_spec_s =
    SCHEMA(service_spec, service_spec_f);

/* ServiceStatus.conditions, a metav1.Condition in Kubernetes: the rows of
 * every condition (schema_condition), with metav1.Condition's numbers. */
static const struct field service_condition_f[] = {
    F(condition, "type", 1, FT_STR, type, 0, NULL),
    F(condition, "status", 2, FT_STR, status, 0, NULL),
    F(condition, "lastHeartbeatTime", 0, FT_TIME, last_heartbeat_time, O, NULL),
    F(condition, "lastProbeTime", 0, FT_TIME, last_probe_time, O, NULL),
    F(condition, "lastUpdateTime", 0, FT_TIME, last_update_time, O, NULL),
    F(condition, "lastTransitionTime", 4, FT_TIME, last_transition_time, O,
      NULL),
    F(condition, "reason", 5, FT_STR, reason, O, NULL),
    F(condition, "message", 6, FT_STR, message, O, NULL),
};
static const struct schema service_condition_s =
    SCHEMA(condition, service_condition_f);

/* conditions merge by "type" (ServiceStatus.Conditions' patchMergeKey,
 * listType map). */
static const struct field service_status_f[] = {
    F(service_status, "loadBalancer", 1, FT_RAW, load_balancer, O, NULL),
    FK(service_status, "conditions", 2, conditions, O, &service_condition_s,
       "type"),
};
static const struct schema service_status_s =
    SCHEMA(service_status, service_status_f);

static const struct field service_f[] = {
    F(service, "apiVersion", 0, FT_STR, api_version, O, NULL),
    F(service, "kind", 0, FT_STR, kind, O, NULL),
    F(service, "metadata", 1, FT_STRUCT, metadata, 0, &schema_object_meta),
    F(service, "spec", 2, FT_STRUCT, spec, 0, &service_spec_s),
    F(service, "status", 3, FT_STRUCT, status, 0, &service_status_s),
};
const struct schema schema_service = SCHEMA(service, service_f);

/* v1.ObjectReference: an endpoint's targetRef, an Event's
 * involvedObject. */
static const struct field object_ref_f[] = {
    F(object_ref, "kind", 1, FT_STR, kind, O, NULL),
    F(object_ref, "namespace", 2, FT_STR, namespace, O, NULL),
    F(object_ref, "name", 3, FT_STR, name, O, NULL),
    F(object_ref, "uid", 4, FT_STR, uid, O, NULL),
    F(object_ref, "apiVersion", 5, FT_STR, api_version, O, NULL),
    F(object_ref, "resourceVersion", 6, FT_STR, resource_version, O, NULL),
    F(object_ref, "fieldPath", 7, FT_STR, field_path, O, NULL),
};
const struct schema schema_object_ref = SCHEMA(object_ref, object_ref_f);

/* v1.EndpointPort (an Endpoints' subsets); discovery/v1.EndpointPort
 * has a copy of these rows with its own numbers (discovery.c). name is
 * a *string in the slice ("" for an unnamed Service port) and is always
 * written. */
static const struct field endpoint_port_f[] = {
    F(endpoint_port, "name", 1, FT_STR, name, 0, NULL),
    F(endpoint_port, "port", 2, FT_INT, port, I32, NULL),
    F(endpoint_port, "protocol", 3, FT_STR, protocol, O, NULL),
    F(endpoint_port, "appProtocol", 4, FT_STR, app_protocol, O, NULL),
};
const struct schema schema_endpoint_port =
    SCHEMA(endpoint_port, endpoint_port_f);

/* v1 Endpoints */

static const struct field endpoint_address_f[] = {
    F(endpoint_address, "ip", 1, FT_STR, ip, 0, NULL),
    F(endpoint_address, "nodeName", 4, FT_STR, node_name, O, NULL),
    F(endpoint_address, "targetRef", 2, FT_PTR, target_ref, O,
      &schema_object_ref),
};
static const struct schema endpoint_address_s =
    SCHEMA(endpoint_address, endpoint_address_f);

static const struct field endpoint_subset_f[] = {
    F(endpoint_subset, "addresses", 1, FT_LIST, addresses, O,
      &endpoint_address_s),
    F(endpoint_subset, "notReadyAddresses", 2, FT_LIST, not_ready_addresses, O,
      &endpoint_address_s),
    F(endpoint_subset, "ports", 3, FT_LIST, ports, O, &schema_endpoint_port),
};
static const struct schema endpoint_subset_s =
    SCHEMA(endpoint_subset, endpoint_subset_f);

static const struct field endpoints_f[] = {
    F(endpoints, "apiVersion", 0, FT_STR, api_version, O, NULL),
    F(endpoints, "kind", 0, FT_STR, kind, O, NULL),
    F(endpoints, "metadata", 1, FT_STRUCT, metadata, 0, &schema_object_meta),
    F(endpoints, "subsets", 2, FT_LIST, subsets, O, &endpoint_subset_s),
};
const struct schema schema_endpoints = SCHEMA(endpoints, endpoints_f);

/* v1 Event, in the order of core/v1 types.go. firstTimestamp and
 * lastTimestamp are metav1.Time: Go prints a zero one as null despite
 * omitempty; eventTime (MicroTime) likewise, and is always null here.
 * count is an int32; reportingComponent and reportingInstance have no
 * omitempty. series, action and related are not modelled. */
static const struct field event_source_f[] = {
    F(event_source, "component", 1, FT_STR, component, O, NULL),
    F(event_source, "host", 2, FT_STR, host, O, NULL),
};
static const struct schema event_source_s =
    SCHEMA(event_source, event_source_f);

static const struct field event_v1_f[] = {
    F(event_v1, "apiVersion", 0, FT_STR, api_version, O, NULL),
    F(event_v1, "kind", 0, FT_STR, kind, O, NULL),
    F(event_v1, "metadata", 1, FT_STRUCT, metadata, 0, &schema_object_meta),
    F(event_v1, "involvedObject", 2, FT_STRUCT, involved_object, 0,
      &schema_object_ref),
    F(event_v1, "reason", 3, FT_STR, reason, O, NULL),
    F(event_v1, "message", 4, FT_STR, message, O, NULL),
    F(event_v1, "source", 5, FT_STRUCT, source, O, &event_source_s),
    F(event_v1, "firstTimestamp", 6, FT_TIME, first_timestamp, FF_NULLTIME,
      NULL),
    F(event_v1, "lastTimestamp", 7, FT_TIME, last_timestamp, FF_NULLTIME, NULL),
    F(event_v1, "count", 8, FT_INT, count, O | I32, NULL),
    F(event_v1, "type", 9, FT_STR, type, O, NULL),
    F(event_v1, "eventTime", 10, FT_TIME, event_time, FF_NULLTIME, NULL),
    F(event_v1, "reportingComponent", 14, FT_STR, reporting_component, 0, NULL),
    F(event_v1, "reportingInstance", 15, FT_STR, reporting_instance, 0, NULL),
};
const struct schema schema_event_v1 = SCHEMA(event_v1, event_v1_f);

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
