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
 * required (validate.h); hostPort 0 means "none" and is left out. */
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
 * (defaults.h) fills only unwritten ones (Kubernetes fills zeros, see
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

/* Volumes (core.h): v1.Volume with emptyDir as its only source, and
 * v1.VolumeMount. Both lists are FF_HASHNEW rows: added after
 * pod-template-hashes were in use, they are left out of the hash of a
 * template that has none, so its ReplicaSet keeps its name. volumes
 * merge by name, volumeMounts by mountPath (their patchMergeKeys). */
static const struct field empty_dir_f[] = {
    F(empty_dir_volume_source, "medium", FT_STR, medium, O, NULL),
    F(empty_dir_volume_source, "sizeLimit", FT_STR, size_limit, O, NULL),
};
static const struct schema empty_dir_s =
    SCHEMA(empty_dir_volume_source, empty_dir_f);

static const struct field volume_f[] = {
    F(volume, "name", FT_STR, name, 0, NULL),
    F(volume, "emptyDir", FT_PTR, empty_dir, O, &empty_dir_s),
};
static const struct schema volume_s = SCHEMA(volume, volume_f);

static const struct field volume_mount_f[] = {
    F(volume_mount, "name", FT_STR, name, 0, NULL),
    F(volume_mount, "readOnly", FT_BOOL, read_only, O, NULL),
    F(volume_mount, "mountPath", FT_STR, mount_path, 0, NULL),
};
static const struct schema volume_mount_s =
    SCHEMA(volume_mount, volume_mount_f);

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
    FK(container, "volumeMounts", volume_mounts, O | FF_HASHNEW,
       &volume_mount_s, "mountPath"),
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

/* v1.Affinity. nodeAffinity is typed (placement.c filters on its
 * required terms); podAffinity and podAntiAffinity stay FT_RAW: accepted,
 * kept and served as written, not acted on. nodeSelectorTerms has no
 * omitempty in Go (it is required); the lists are atomic in a strategic
 * merge patch, as in Kubernetes (no patchStrategy). */
static const struct field node_selector_req_f[] = {
    F(node_selector_req, "key", FT_STR, key, 0, NULL),
    F(node_selector_req, "operator", FT_STR, operator, 0, NULL),
    F(node_selector_req, "values", FT_STRLIST, values, O, NULL),
};
static const struct schema node_selector_req_s =
    SCHEMA(node_selector_req, node_selector_req_f);

static const struct field node_selector_term_f[] = {
    F(node_selector_term, "matchExpressions", FT_LIST, match_expressions, O,
      &node_selector_req_s),
    F(node_selector_term, "matchFields", FT_LIST, match_fields, O,
      &node_selector_req_s),
};
static const struct schema node_selector_term_s =
    SCHEMA(node_selector_term, node_selector_term_f);

static const struct field node_selector_f[] = {
    F(node_selector, "nodeSelectorTerms", FT_LIST, node_selector_terms, 0,
      &node_selector_term_s),
};
static const struct schema node_selector_s =
    SCHEMA(node_selector, node_selector_f);

static const struct field preferred_term_f[] = {
    F(preferred_scheduling_term, "weight", FT_INT, weight, I32, NULL),
    F(preferred_scheduling_term, "preference", FT_STRUCT, preference, 0,
      &node_selector_term_s),
};
static const struct schema preferred_term_s =
    SCHEMA(preferred_scheduling_term, preferred_term_f);

static const struct field node_affinity_f[] = {
    F(node_affinity, "requiredDuringSchedulingIgnoredDuringExecution", FT_PTR,
      required, O, &node_selector_s),
    F(node_affinity, "preferredDuringSchedulingIgnoredDuringExecution", FT_LIST,
      preferred, O, &preferred_term_s),
};
static const struct schema node_affinity_s =
    SCHEMA(node_affinity, node_affinity_f);

static const struct field affinity_f[] = {
    F(affinity, "nodeAffinity", FT_PTR, node_affinity, O, &node_affinity_s),
    F(affinity, "podAffinity", FT_RAW, pod_affinity, O, NULL),
    F(affinity, "podAntiAffinity", FT_RAW, pod_anti_affinity, O, NULL),
};
static const struct schema affinity_s = SCHEMA(affinity, affinity_f);

/* v1.PodSpec. containers has no omitempty in Go (it is required);
 * volumes is FF_HASHNEW (see above). affinity is FF_HASHRAW: it was an FT_RAW string, so a template without
 * one (or with "{}") keeps its pod-template-hash. */
static const struct field pod_spec_f[] = {
    FK(pod_spec, "volumes", volumes, O | FF_HASHNEW, &volume_s, "name"),
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
    F(pod_spec, "affinity", FT_PTR, affinity, O | FF_HASHRAW, &affinity_s),
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

/* apps/v1 ReplicaSetCondition and v1 ReplicationControllerCondition
 * (the same numbers): the rows of every condition (schema_condition). */
static const struct field rs_condition_f[] = {
    F(condition, "type", FT_STR, type, 0, NULL),
    F(condition, "status", FT_STR, status, 0, NULL),
    F(condition, "lastHeartbeatTime", FT_TIME, last_heartbeat_time, O, NULL),
    F(condition, "lastProbeTime", FT_TIME, last_probe_time, O, NULL),
    F(condition, "lastUpdateTime", FT_TIME, last_update_time, O, NULL),
    F(condition, "lastTransitionTime", FT_TIME, last_transition_time, O, NULL),
    F(condition, "reason", FT_STR, reason, O, NULL),
    F(condition, "message", FT_STR, message, O, NULL),
};
static const struct schema rs_condition_s = SCHEMA(condition, rs_condition_f);

/* The ReplicaSet status shape, which v1 ReplicationControllerStatus has
 * too (core.h). */
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
    FK(replicaset_status, "conditions", conditions, O, &rs_condition_s, "type"),
};
const struct schema schema_replicaset_status =
    SCHEMA(replicaset_status, rsstatus_f);

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
    F(replication_controller, "status", FT_STRUCT, status, 0,
      &schema_replicaset_status),
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

/* v1.PodCondition: the rows of every condition (schema_condition). */
static const struct field pod_condition_f[] = {
    F(condition, "type", FT_STR, type, 0, NULL),
    F(condition, "status", FT_STR, status, 0, NULL),
    F(condition, "lastHeartbeatTime", FT_TIME, last_heartbeat_time, O, NULL),
    F(condition, "lastProbeTime", FT_TIME, last_probe_time, O, NULL),
    F(condition, "lastUpdateTime", FT_TIME, last_update_time, O, NULL),
    F(condition, "lastTransitionTime", FT_TIME, last_transition_time, O, NULL),
    F(condition, "reason", FT_STR, reason, O, NULL),
    F(condition, "message", FT_STR, message, O, NULL),
};
static const struct schema pod_condition_s = SCHEMA(condition, pod_condition_f);

/* v1.PodStatus. phase and the Ready condition are what the controllers
 * read (pod_facts.c); podIPs merge by ip. */
static const struct field pstatus_f[] = {
    F(pod_status, "phase", FT_STR, phase, O, NULL),
    FK(pod_status, "conditions", conditions, O, &pod_condition_s, "type"),
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

/* Port has a capital P in Kubernetes' JSON, and no omitempty. */
static const struct field dendpoint_f[] = {
    F(daemon_endpoint, "Port", FT_INT, port, I32, NULL),
};
static const struct schema dendpoint_s = SCHEMA(daemon_endpoint, dendpoint_f);

static const struct field dendpoints_f[] = {
    F(node_daemon_endpoints, "kubeletEndpoint", FT_STRUCT, kubelet_endpoint, O,
      &dendpoint_s),
};
static const struct schema dendpoints_s =
    SCHEMA(node_daemon_endpoints, dendpoints_f);

/* v1.NodeCondition: the rows of every condition (schema_condition). */
static const struct field node_condition_f[] = {
    F(condition, "type", FT_STR, type, 0, NULL),
    F(condition, "status", FT_STR, status, 0, NULL),
    F(condition, "lastHeartbeatTime", FT_TIME, last_heartbeat_time, O, NULL),
    F(condition, "lastProbeTime", FT_TIME, last_probe_time, O, NULL),
    F(condition, "lastUpdateTime", FT_TIME, last_update_time, O, NULL),
    F(condition, "lastTransitionTime", FT_TIME, last_transition_time, O, NULL),
    F(condition, "reason", FT_STR, reason, O, NULL),
    F(condition, "message", FT_STR, message, O, NULL),
};
static const struct schema node_condition_s =
    SCHEMA(condition, node_condition_f);

static const struct field nstatus_f[] = {
    F(node_status, "capacity", FT_STRMAP, capacity, O, NULL),
    F(node_status, "allocatable", FT_STRMAP, allocatable, O, NULL),
    FK(node_status, "conditions", conditions, O, &node_condition_s, "type"),
    FK(node_status, "addresses", addresses, O, &naddr_s, "type"),
    F(node_status, "daemonEndpoints", FT_STRUCT, daemon_endpoints, O,
      &dendpoints_s),
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

/* ServiceStatus.conditions, a metav1.Condition in Kubernetes: the rows of
 * every condition (schema_condition), with metav1.Condition's numbers. */
static const struct field service_condition_f[] = {
    F(condition, "type", FT_STR, type, 0, NULL),
    F(condition, "status", FT_STR, status, 0, NULL),
    F(condition, "lastHeartbeatTime", FT_TIME, last_heartbeat_time, O, NULL),
    F(condition, "lastProbeTime", FT_TIME, last_probe_time, O, NULL),
    F(condition, "lastUpdateTime", FT_TIME, last_update_time, O, NULL),
    F(condition, "lastTransitionTime", FT_TIME, last_transition_time, O, NULL),
    F(condition, "reason", FT_STR, reason, O, NULL),
    F(condition, "message", FT_STR, message, O, NULL),
};
static const struct schema service_condition_s =
    SCHEMA(condition, service_condition_f);

/* conditions merge by "type" (ServiceStatus.Conditions' patchMergeKey,
 * listType map). */
static const struct field service_status_f[] = {
    F(service_status, "loadBalancer", FT_RAW, load_balancer, O, NULL),
    FK(service_status, "conditions", conditions, O, &service_condition_s,
       "type"),
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
const struct schema schema_object_ref = SCHEMA(object_ref, object_ref_f);

/* v1.EndpointPort (an Endpoints' subsets); discovery/v1.EndpointPort
 * has a copy of these rows with its own numbers (discovery.c). name is
 * a *string in the slice ("" for an unnamed Service port) and is always
 * written. */
static const struct field endpoint_port_f[] = {
    F(endpoint_port, "name", FT_STR, name, 0, NULL),
    F(endpoint_port, "port", FT_INT, port, I32, NULL),
    F(endpoint_port, "protocol", FT_STR, protocol, O, NULL),
    F(endpoint_port, "appProtocol", FT_STR, app_protocol, O, NULL),
};
const struct schema schema_endpoint_port =
    SCHEMA(endpoint_port, endpoint_port_f);

/* v1 Endpoints */

static const struct field endpoint_address_f[] = {
    F(endpoint_address, "ip", FT_STR, ip, 0, NULL),
    F(endpoint_address, "nodeName", FT_STR, node_name, O, NULL),
    F(endpoint_address, "targetRef", FT_PTR, target_ref, O, &schema_object_ref),
};
static const struct schema endpoint_address_s =
    SCHEMA(endpoint_address, endpoint_address_f);

static const struct field endpoint_subset_f[] = {
    F(endpoint_subset, "addresses", FT_LIST, addresses, O, &endpoint_address_s),
    F(endpoint_subset, "notReadyAddresses", FT_LIST, not_ready_addresses, O,
      &endpoint_address_s),
    F(endpoint_subset, "ports", FT_LIST, ports, O, &schema_endpoint_port),
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
    F(event_v1, "involvedObject", FT_STRUCT, involved_object, 0,
      &schema_object_ref),
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
