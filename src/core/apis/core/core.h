/* core.h - the core/v1 types drover models, with Kubernetes' field
 * names: the pod spec and template, Pod, ReplicationController, Node,
 * Service, Endpoints, Event, ObjectReference (core.c has their field
 * tables, in Kubernetes' order).
 *
 * Ownership: every object owns all of its strings, maps, lists and optional
 * sub-structs. Release an object with <kind>_release() (which zeroes it),
 * copy it with <kind>_copy(). Optional sub-structs (FT_PTR) are heap
 * pointers owned by their parent. */
#ifndef DROVER_CORE_H
#define DROVER_CORE_H

#include "meta.h"

/* ---- pod spec ---- */

struct field_ref {
	char *api_version;
	char *field_path;
};

struct env_source {
	struct field_ref *field_ref;
};

struct env_var {
	char *name;
	char *value;
	struct env_source *value_from;
};
LIST_OF(env_var);

struct container_port {
	char *name;
	int64_t container_port;
	int64_t host_port;
	char *host_ip;
	char *protocol;
};
LIST_OF(container_port);

struct exec_action {
	struct strlist command;
};

struct http_header {
	char *name;
	char *value;
};
LIST_OF(http_header);

struct http_get_action {
	char *path;
	struct intstr port;
	char *host;
	char *scheme;
	struct http_header_list http_headers;
};

struct tcp_socket_action {
	struct intstr port;
	char *host;
};

struct probe {
	struct exec_action *exec;
	struct http_get_action *http_get;
	struct tcp_socket_action *tcp_socket;
	struct opt_int initial_delay_seconds;
	struct opt_int timeout_seconds;
	struct opt_int period_seconds;
	struct opt_int success_threshold;
	struct opt_int failure_threshold;
	struct opt_int termination_grace_period_seconds;
};

struct resources {
	struct strmap limits;
	struct strmap requests;
};

struct lifecycle_handler {
	struct exec_action *exec;
	struct http_get_action *http_get;
	struct tcp_socket_action *tcp_socket;
};

struct lifecycle {
	struct lifecycle_handler *post_start;
	struct lifecycle_handler *pre_stop;
};

/* ---- security contexts (what a container's process may do) ---- */

struct capabilities {
	struct strlist add; /* "NET_BIND_SERVICE", "ALL", ... */
	struct strlist drop;
};

/* containers[].securityContext; it overrides the pod's fields of the
 * same name. The raw members are accepted, not interpreted. */
struct security_context {
	struct capabilities *capabilities;
	struct opt_bool privileged;
	char *se_linux_options; /* raw JSON */
	char *windows_options;  /* raw JSON */
	struct opt_int run_as_user;
	struct opt_int run_as_group;
	struct opt_bool run_as_non_root;
	struct opt_bool read_only_root_filesystem;
	struct opt_bool allow_privilege_escalation;
	char *proc_mount;
	char *seccomp_profile;   /* raw JSON */
	char *app_armor_profile; /* raw JSON */
};

/* spec.securityContext */
struct pod_security_context {
	char *se_linux_options; /* raw JSON */
	char *windows_options;  /* raw JSON */
	struct opt_int run_as_user;
	struct opt_int run_as_group;
	struct opt_bool run_as_non_root;
	struct intlist supplemental_groups;
	char *supplemental_groups_policy;
	struct opt_int fs_group;
	char *sysctls; /* raw JSON */
	char *fs_group_change_policy;
	char *seccomp_profile;   /* raw JSON */
	char *app_armor_profile; /* raw JSON */
	char *se_linux_change_policy;
};

/* ---- volumes ----
 *
 * spec.volumes: only emptyDir is modelled. drover runs a pod's
 * processes on the host, unisolated, so an emptyDir is a directory the
 * agent makes for the pod under its data directory when the pod starts
 * and removes when the pod is deleted (runtime_spawn.c); medium
 * "Memory" is accepted and is the same plain directory (no tmpfs), and
 * sizeLimit is kept, not enforced. Other sources (configMap, secret,
 * hostPath, persistentVolumeClaim, ...) are not modelled, so the strict
 * decoder refuses them as unknown fields. */

/* v1.EmptyDirVolumeSource */
struct empty_dir_volume_source {
	char *medium;     /* "" (the node's disk) or "Memory" */
	char *size_limit; /* a quantity, as written ("1Gi") */
};

/* v1.Volume: a name (a DNS-1123 label, unique in the pod) and its
 * source (v1.VolumeSource inline: emptyDir is the only member drover
 * models; a volume written without one defaults to emptyDir {}). */
struct volume {
	char *name;
	struct empty_dir_volume_source *empty_dir;
};
LIST_OF(volume);

/* v1.VolumeMount: a declared volume, by name, at mountPath in the
 * container. */
struct volume_mount {
	char *name;
	bool read_only;
	char *mount_path;
};
LIST_OF(volume_mount);

struct container {
	char *name;
	char *image;
	struct strlist command;
	struct strlist args;
	char *working_dir;
	struct container_port_list ports;
	struct env_var_list env;
	struct resources resources;
	struct volume_mount_list volume_mounts;
	struct probe *liveness_probe;
	struct probe *readiness_probe;
	struct probe *startup_probe;
	struct lifecycle *lifecycle;
	char *termination_message_path;
	char *termination_message_policy;
	char *image_pull_policy;
	struct security_context *security_context;
};
LIST_OF(container);

struct toleration {
	char *key;
	char *operator;
	char *value;
	char *effect;
	struct opt_int toleration_seconds;
};
LIST_OF(toleration);

/* ---- node affinity ----
 *
 * spec.affinity. nodeAffinity is interpreted (placement.c): its
 * required terms filter nodes as nodeSelector does. podAffinity and
 * podAntiAffinity are kept as the JSON written, round-tripped and
 * compared, not acted on. */

/* v1.NodeSelectorRequirement: in matchExpressions, a requirement on a
 * node label (In, NotIn, Exists, DoesNotExist, Gt, Lt: Gt and Lt compare
 * one integer value with the label's); in matchFields, on a node field
 * (metadata.name, In or NotIn, one value). */
struct node_selector_req {
	char *key;
	char *operator;
	struct strlist values;
};
LIST_OF(node_selector_req);

/* v1.NodeSelectorTerm: every requirement must hold (ANDed); a term with
 * none matches no node. */
struct node_selector_term {
	struct node_selector_req_list match_expressions;
	struct node_selector_req_list match_fields;
};
LIST_OF(node_selector_term);

/* v1.NodeSelector: one of the terms must match (ORed). */
struct node_selector {
	struct node_selector_term_list node_selector_terms;
};

/* v1.PreferredSchedulingTerm: weight 1..100. */
struct preferred_scheduling_term {
	int64_t weight;
	struct node_selector_term preference;
};
LIST_OF(preferred_scheduling_term);

/* v1.NodeAffinity (the IgnoredDuringExecution pair: a pod already bound
 * stays where it is when the node's labels change). */
struct node_affinity {
	struct node_selector *required;
	struct preferred_scheduling_term_list preferred;
};

/* v1.Affinity */
struct affinity {
	struct node_affinity *node_affinity;
	char *pod_affinity;      /* raw JSON */
	char *pod_anti_affinity; /* raw JSON */
};

struct pod_spec {
	struct volume_list volumes;
	struct container_list containers;
	char *restart_policy;
	struct opt_int termination_grace_period_seconds;
	struct opt_int active_deadline_seconds;
	char *dns_policy;
	struct strmap node_selector;
	char *service_account_name;
	char *node_name;
	char *hostname;
	char *scheduler_name;
	struct toleration_list tolerations;
	struct pod_security_context *security_context;
	struct affinity *affinity;
};

struct pod_template {
	struct object_meta metadata;
	struct pod_spec spec;
};

/* ---- the ReplicaSet status shape ----
 *
 * apps/v1 ReplicaSetStatus, which v1 ReplicationControllerStatus has field
 * for field: kept here, with the older of the two kinds, and used by both. */

struct replicaset_status {
	int64_t replicas;
	int64_t fully_labeled_replicas;
	int64_t ready_replicas;
	int64_t available_replicas;
	int64_t observed_generation;
	struct condition_list conditions;
};

/* ---- v1 ReplicationController ----
 *
 * The ReplicaSet's predecessor: the same spec, but an equality-based
 * selector (a plain label map, `selector: {app: web}`), which defaults to
 * the template's labels. Its status has the ReplicaSet's fields
 * (replicas, fullyLabeledReplicas, readyReplicas, availableReplicas,
 * observedGeneration, conditions), so it reuses that struct. The
 * ReplicaSet controller runs it through rc_as_replicaset(). */
struct rc_spec {
	struct opt_int replicas;
	int64_t min_ready_seconds;
	struct strmap selector;
	struct pod_template template;
};

struct replication_controller {
	char *api_version;
	char *kind;
	struct object_meta metadata;
	struct rc_spec spec;
	struct replicaset_status status;
};

/* ---- v1 Pod ---- */

struct state_waiting {
	char *reason;
	char *message;
};

struct state_running {
	dtime started_at;
};

struct state_terminated {
	int64_t exit_code;
	int64_t signal;
	char *reason;
	char *message;
	dtime started_at;
	dtime finished_at;
	char *container_id;
};

struct container_state {
	struct state_waiting *waiting;
	struct state_running *running;
	struct state_terminated *terminated;
};

struct container_status {
	char *name;
	struct container_state state;
	struct container_state last_state;
	bool ready;
	int64_t restart_count;
	char *image;
	char *image_id;
	char *container_id;
	struct opt_bool started;
	/* drover: the host ports allocated for the declared ports */
	struct container_port_list ports;
};
LIST_OF(container_status);

struct pod_ip {
	char *ip;
};
LIST_OF(pod_ip);

struct pod_status {
	char *phase; /* Pending, Running, Succeeded, Failed, Unknown */
	struct condition_list conditions;
	char *message;
	char *reason;
	char *host_ip;
	char *pod_ip;
	struct pod_ip_list pod_ips;
	dtime start_time;
	struct container_status_list container_statuses;
};

struct pod {
	char *api_version;
	char *kind;
	struct object_meta metadata;
	struct pod_spec spec;
	struct pod_status status;
};
LIST_OF(pod);

/* ---- v1 Node ---- */

struct taint {
	char *key;
	char *value;
	char *effect; /* NoSchedule, PreferNoSchedule, NoExecute */
	dtime time_added;
};
LIST_OF(taint);

struct node_spec {
	bool unschedulable;
	struct taint_list taints;
	char *pod_cidr;
	char *provider_id;
};

struct node_address {
	char *type; /* InternalIP, Hostname */
	char *address;
};
LIST_OF(node_address);

/* v1.NodeSystemInfo: every field is required (no omitempty in Go, and
 * clients such as the Python one refuse a node without one). */
struct node_info {
	char *machine_id;
	char *system_uuid;
	char *boot_id;
	char *kernel_version;
	char *os_image;
	char *container_runtime_version;
	char *kubelet_version;
	char *kube_proxy_version;
	char *operating_system;
	char *architecture;
};

/* v1.NodeDaemonEndpoints: where the node's agent answers the API
 * (kubeletEndpoint.Port, its pods' logs). */
struct daemon_endpoint {
	int64_t port;
};
struct node_daemon_endpoints {
	struct daemon_endpoint kubelet_endpoint;
};

struct node_status {
	struct strmap capacity;
	struct strmap allocatable;
	struct condition_list conditions;
	struct node_address_list addresses;
	struct node_daemon_endpoints daemon_endpoints;
	struct node_info node_info;
};

struct node {
	char *api_version;
	char *kind;
	struct object_meta metadata;
	struct node_spec spec;
	struct node_status status;
};
LIST_OF(node);

/* ---- v1 Service ---- */

/* v1.ServicePort. targetPort is a container port's number or name
 * (core_defaults.c: the port when absent); appProtocol "http" asks the
 * proxy for its HTTP mode. */
struct service_port {
	char *name;
	char *protocol; /* "TCP" (the only one drover serves) */
	char *app_protocol;
	int64_t port;
	struct intstr target_port;
};
LIST_OF(service_port);

struct service_spec {
	struct service_port_list ports;
	struct strmap selector;
	/* The address at which a client on the API server's host reaches the
	 * Service: that node's address (InternalIP), set by the API at create
	 * (h_service.c). Every node serves the Service at its own address
	 * and `port`; there is no virtual IP. clusterIPs is [clusterIP]. */
	char *cluster_ip;
	struct strlist cluster_ips;
	char *type; /* "ClusterIP" or "NodePort" */
};

/* v1.ServiceStatus. drover provisions no load balancer: loadBalancer
 * stays {} (raw JSON, as Kubernetes prints it), and both fields are
 * written only through services/NAME/status. */
struct service_status {
	char *load_balancer; /* raw JSON: v1.LoadBalancerStatus */
	struct condition_list conditions;
};

struct service {
	char *api_version;
	char *kind;
	struct object_meta metadata;
	struct service_spec spec;
	struct service_status status;
};
LIST_OF(service);

/* v1.ObjectReference: what an endpoint stands for (a Pod), and what an
 * Event is about (its involvedObject, where apiVersion, resourceVersion
 * and fieldPath are set too: fieldPath "spec.containers{web}" names one
 * container of a pod, as the kubelet's events do). */
struct object_ref {
	char *kind;
	char *namespace;
	char *name;
	char *uid;
	char *api_version;
	char *resource_version;
	char *field_path;
};

/* discovery/v1.EndpointPort, also the shape of v1.EndpointPort (core):
 * name "" for an unnamed Service port. port is the HOST port the agent
 * allocated for the container port the Service targets. */
struct endpoint_port {
	char *name;
	int64_t port;
	char *protocol;
	char *app_protocol;
};
LIST_OF(endpoint_port);

/* ---- v1 Endpoints ---- */

struct endpoint_address {
	char *ip;
	char *node_name;
	struct object_ref *target_ref;
};
LIST_OF(endpoint_address);

struct endpoint_subset {
	struct endpoint_address_list addresses;
	struct endpoint_address_list not_ready_addresses;
	struct endpoint_port_list ports;
};
LIST_OF(endpoint_subset);

struct endpoints {
	char *api_version;
	char *kind;
	struct object_meta metadata;
	struct endpoint_subset_list subsets;
};

/* ---- v1 Event ---- */

/* v1.EventSource: who recorded it ("deployment-controller", "kubelet")
 * and on which host (the kubelet's node name). */
struct event_source {
	char *component;
	char *host;
};

/* core/v1 Event, the shape client-go's EventRecorder writes: named
 * "<involvedObject.name>.<hex of the first time in ns>", count and
 * lastTimestamp bumped when the same event happens again (recorder.c,
 * src/core/event_corr.h). eventTime stays unset (null): it belongs to
 * events.k8s.io/v1, which drover does not serve. Called event_v1 because
 * struct event is a planner's event (action.h). */
struct event_v1 {
	char *api_version;
	char *kind;
	struct object_meta metadata;
	struct object_ref involved_object;
	char *reason;
	char *message;
	struct event_source source;
	dtime first_timestamp;
	dtime last_timestamp;
	int64_t count;
	char *type; /* "Normal" or "Warning" */
	dtime event_time;
	char *reporting_component;
	char *reporting_instance;
};

/* ---- schemas (core.c) ---- */

extern const struct schema schema_pod_template;
extern const struct schema schema_pod_spec;
extern const struct schema schema_security_context;
extern const struct schema schema_pod_security_context;
extern const struct schema schema_replicaset_status;
extern const struct schema schema_replication_controller;
extern const struct schema schema_pod;
extern const struct schema schema_node;
extern const struct schema schema_container_status;
extern const struct schema schema_service;
extern const struct schema schema_object_ref;
extern const struct schema schema_endpoint_port;
extern const struct schema schema_endpoints;
extern const struct schema schema_event_v1;

/* Well-known names of core objects. */
#define ANN_CHANGE_CAUSE  "kubernetes.io/change-cause"
#define ANN_LAST_APPLIED  "kubectl.kubernetes.io/last-applied-configuration"
#define ANN_RESTARTED_AT  "kubectl.kubernetes.io/restartedAt"
#define ANN_DELETION_COST "controller.kubernetes.io/pod-deletion-cost"
/* On a pod: the name of the ReplicaSet an in-place update of the pod is
 * moving it to, written before any process is touched (the intent of the
 * KEP's crash-safe update); the planner counts such a pod as in flight. */
#define ANN_IN_PLACE_UPDATE "drover.io/in-place-update-to"

/* Lifecycle helpers: thin wrappers over schema_release/schema_copy. */
void rc_release(struct replication_controller *rc);
void rc_copy(struct replication_controller *dst,
	     const struct replication_controller *src);
void pod_release(struct pod *p);
void pod_copy(struct pod *dst, const struct pod *src);
void pod_template_release(struct pod_template *t);
void pod_template_copy(struct pod_template *dst,
		       const struct pod_template *src);

#endif
