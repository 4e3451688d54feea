/* kinds.c - the kind registry (see kinds.h): one row per kind drover
 * serves, and the lookups over it.
 *
 * What each column means and who reads it:
 *
 *   group, version, api_version   the API path (/apis/apps/v1/... or
 *                                 /api/v1/...) and the apiVersion of
 *                                 manifests: api.c routes a URL with
 *                                 kind_by_resource(group, version,
 *                                 plural); codec/object.c and `drover
 *                                 apply` decode a document with
 *                                 kind_lookup(apiVersion, kind). Only
 *                                 these exact versions are served (no
 *                                 extensions/v1beta1 conversion).
 *   kind, plural, singular,       names: the resource in URLs and
 *   short_names                   discovery (h_read.c lists them, so
 *                                 kubectl's discovery finds "deploy"),
 *                                 and what the CLI accepts in `drover get
 *                                 deploy` / `deployments` /
 *                                 `deployment.apps` (cli/common.c).
 *   namespaced                    whether the path carries
 *                                 /namespaces/NS and metadata.namespace
 *                                 is kept; Node is cluster scoped.
 *   category_all                  listed in discovery's category "all",
 *                                 which `kubectl get all` expands.
 *   subresources                  which of /status, /scale, /binding,
 *                                 /log the router accepts.
 *   rules                         the registry strategy's write rules
 *                                 (h_write.c): generation bumps,
 *                                 annotations through /status, status
 *                                 kept on create.
 *   schema, meta_off              the field table (its group's: core.c, apps.c...) and where
 *                                 metadata sits, so generic code can
 *                                 encode, copy and read names of any
 *                                 kind.
 *   field_labels                  the field selectors `?fieldSelector=`
 *                                 accepts beyond metadata.name and
 *                                 metadata.namespace (api.c).
 *   replicas, selector            accessors for /scale and for the
 *                                 immutable selector check.
 *   initial_status, grace_period  create and delete hooks (h_write.c).
 *   defaults, validate            run on every create and update,
 *                                 defaults first (defaults.h,
 *                                 validate.h).
 *
 * The hooks are small adapters from void * to the typed functions, so
 * the table stays data and the typed functions keep their types. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "defaults.h"
#include "apps.h"
#include "inplace_check.h"
#include "kinds.h"
#include "validate.h"
#include "xalloc.h"

static void
def_deployment(void *o)
{
	defaults_deployment(o);
}

static void
def_replicaset(void *o)
{
	defaults_replicaset(o);
}

static void
def_pod(void *o)
{
	defaults_pod(o);
}

/* Nodes are registered by agents with every field they need; drover has
 * no Node defaults. */
static void
def_node(void *o)
{
	(void)o;
}

static void
def_service(void *o)
{
	defaults_service(o);
}

static void
def_endpoint_slice(void *o)
{
	defaults_endpoint_slice(o);
}

static void
def_endpoints(void *o)
{
	defaults_endpoints(o);
}

/* Events have no defaults: the recorder sets every field. */
static void
def_event(void *o)
{
	(void)o;
}

static void
val_event(const void *o, struct fielderr_list *e)
{
	validate_event(o, e);
}

static void
val_service(const void *o, struct fielderr_list *e)
{
	validate_service(o, e);
}

static void
val_endpoint_slice(const void *o, struct fielderr_list *e)
{
	validate_endpoint_slice(o, e);
}

static void
val_endpoints(const void *o, struct fielderr_list *e)
{
	validate_endpoints(o, e);
}

static void
val_node(const void *o, struct fielderr_list *e)
{
	validate_node(o, e);
}

static void
val_deployment(const void *o, struct fielderr_list *e)
{
	validate_deployment(o, e);
}

/* Deployment admission: an UPDATE of an InPlaceUpdate Deployment is held
 * to the in-place template rules (inplace_check.c). */
static void
admit_deployment(const void *old, const void *o, struct fielderr_list *e)
{
	if (old)
		validate_deployment_update(old, o, e);
}

/* Pod update admission: only the containers' image, command and args
 * may change in the spec (inplace_check.h). */
static void
admit_pod(const void *old, const void *o, struct fielderr_list *e)
{
	if (old)
		validate_pod_update(old, o, e);
}

static void
val_replicaset(const void *o, struct fielderr_list *e)
{
	validate_replicaset(o, e);
}

static void
def_rc(void *o)
{
	defaults_rc(o);
}

static void
val_rc(const void *o, struct fielderr_list *e)
{
	validate_rc(o, e);
}

/* PodDisruptionBudgets have no defaults (policy/v1 has none). */
static void
def_pdb(void *o)
{
	(void)o;
}

static void
val_pdb(const void *o, struct fielderr_list *e)
{
	validate_pdb(o, e);
}

static void
val_pdb_status(const void *o, struct fielderr_list *e)
{
	validate_pdb_status(&((const struct pod_disruption_budget *)o)->status,
			    e);
}

/* Leases have no defaults. */
static void
def_lease(void *o)
{
	(void)o;
}

static void
val_lease(const void *o, struct fielderr_list *e)
{
	validate_lease(o, e);
}

static struct opt_int *
replicas_rc(void *o)
{
	return &((struct replication_controller *)o)->spec.replicas;
}

static void
val_pod(const void *o, struct fielderr_list *e)
{
	validate_pod(o, e);
}

static struct opt_int *
replicas_deployment(void *o)
{
	return &((struct deployment *)o)->spec.replicas;
}

static struct opt_int *
replicas_replicaset(void *o)
{
	return &((struct replicaset *)o)->spec.replicas;
}

static struct label_selector *
selector_deployment(const void *o)
{
	return ((const struct deployment *)o)->spec.selector;
}

static struct label_selector *
selector_replicaset(const void *o)
{
	return ((const struct replicaset *)o)->spec.selector;
}

/* A pod is Pending until a node runs it (the kubelet's first status).
 * Whatever status a client sent on create is dropped first (the status
 * belongs to the /status writer), then this is applied. */
static void
initial_status_pod(void *o)
{
	((struct pod *)o)->status.phase = xstrdup("Pending");
}

/* A Service's status is what Kubernetes gives one without a load
 * balancer: {"loadBalancer": {}}. */
static void
initial_status_service(void *o)
{
	((struct service *)o)->status.load_balancer = xstrdup("{}");
}

/* A pod on a node is stopped by its agent, within the grace period
 * asked for, else its terminationGracePeriodSeconds, else 30 s; a pod
 * no node runs goes at once.
 *
 * Kubernetes' pod strategy (CheckGracefulDeleteStrategy): the grace is
 * the DELETE's gracePeriodSeconds if given, else the pod's
 * terminationGracePeriodSeconds, else 30; an unscheduled pod is deleted
 * at once. Example: `kubectl delete pod web-x` on a pod with
 * terminationGracePeriodSeconds 10 sets deletionTimestamp now + 10 s,
 * deletionGracePeriodSeconds 10, and the node's agent sends SIGTERM,
 * then SIGKILL after 10 s, then removes the object. A Succeeded or
 * Failed pod is deleted at once too, as in Kubernetes: nothing of it
 * runs any more.
 *
 * requested < 0: the DELETE named no gracePeriodSeconds. Returns false
 * for "delete the object now", true with *grace in seconds for a
 * graceful deletion the agent carries out. */
static bool
grace_period_pod(const void *o, int64_t requested, int64_t *grace)
{
	const struct pod *p = o;

	if (p->spec.node_name == NULL || *p->spec.node_name == '\0')
		return false;
	if (p->status.phase && (!strcmp(p->status.phase, "Succeeded") ||
				!strcmp(p->status.phase, "Failed")))
		return false; /* nothing left to stop */
	*grace = requested >= 0 ? requested
		 : p->spec.termination_grace_period_seconds.set
		     ? p->spec.termination_grace_period_seconds.v
		     : 30;
	return true;
}

/* The field labels of each kind (its GetAttrs and
 * AddFieldLabelConversionFunc in Kubernetes; pkg/registry/core/pod
 * ToSelectableFields for pods). The most used: `spec.nodeName=node-1`,
 * how an agent watches only its own pods. A label not listed is refused
 * with Kubernetes' "field label not supported" error. */
static const char *const pod_fields[] = {"spec.nodeName",
					 "spec.restartPolicy",
					 "spec.schedulerName",
					 "spec.serviceAccountName",
					 "spec.hostNetwork",
					 "status.phase",
					 "status.podIP",
					 "status.podIPs",
					 "status.nominatedNodeName",
					 NULL};
static const char *const replicaset_fields[] = {"status.replicas", NULL};
static const char *const rc_fields[] = {"status.replicas", NULL};
static const char *const node_fields[] = {"spec.unschedulable", NULL};
static const char *const service_fields[] = {"spec.type", NULL};
/* pkg/registry/core/event ToSelectableFields: what `kubectl describe`
 * asks for ("involvedObject.name=web,involvedObject.namespace=default,
 * involvedObject.kind=Deployment,involvedObject.uid=...") and `kubectl
 * get events --field-selector type=Warning`. */
static const char *const event_fields[] = {"involvedObject.kind",
					   "involvedObject.namespace",
					   "involvedObject.name",
					   "involvedObject.uid",
					   "involvedObject.apiVersion",
					   "involvedObject.resourceVersion",
					   "involvedObject.fieldPath",
					   "reason",
					   "reportingComponent",
					   "source",
					   "type",
					   NULL};

/* Indexed by enum kind_id: kinds[KIND_POD].id == KIND_POD, which
 * kind_by_id relies on. Keep the order of the enum. */
static const struct kind_info kinds[] = {
    {
	.id = KIND_DEPLOYMENT,
	.group = "apps",
	.version = "v1",
	.api_version = "apps/v1",
	.kind = "Deployment",
	.plural = "deployments",
	.singular = "deployment",
	.short_names = {"deploy"},
	.namespaced = true,
	.category_all = true,
	.subresources = KIND_SUB_STATUS | KIND_SUB_SCALE,
	.rules = KIND_GEN_ANNOTATIONS | KIND_STATUS_ANNOTATIONS,
	.schema = &schema_deployment,
	.meta_off = offsetof(struct deployment, metadata),
	.replicas = replicas_deployment,
	.selector = selector_deployment,
	.defaults = def_deployment,
	.validate = val_deployment,
	.admit = admit_deployment,
    },
    {
	.id = KIND_REPLICASET,
	.group = "apps",
	.version = "v1",
	.api_version = "apps/v1",
	.kind = "ReplicaSet",
	.plural = "replicasets",
	.singular = "replicaset",
	.short_names = {"rs"},
	.namespaced = true,
	.category_all = true,
	.subresources = KIND_SUB_STATUS | KIND_SUB_SCALE,
	.schema = &schema_replicaset,
	.meta_off = offsetof(struct replicaset, metadata),
	.field_labels = replicaset_fields,
	.replicas = replicas_replicaset,
	.selector = selector_replicaset,
	.defaults = def_replicaset,
	.validate = val_replicaset,
    },
    {
	.id = KIND_POD,
	.group = "",
	.version = "v1",
	.api_version = "v1",
	.kind = "Pod",
	.plural = "pods",
	.singular = "pod",
	.short_names = {"po"},
	.namespaced = true,
	.category_all = true,
	.subresources = KIND_SUB_STATUS | KIND_SUB_BINDING | KIND_SUB_LOG |
			KIND_SUB_INPLACE | KIND_SUB_EVICTION,
	.schema = &schema_pod,
	.meta_off = offsetof(struct pod, metadata),
	.field_labels = pod_fields,
	.initial_status = initial_status_pod,
	.grace_period = grace_period_pod,
	.defaults = def_pod,
	.validate = val_pod,
	.admit = admit_pod,
    },
    {
	.id = KIND_NODE,
	.group = "",
	.version = "v1",
	.api_version = "v1",
	.kind = "Node",
	.plural = "nodes",
	.singular = "node",
	.short_names = {"no"},
	.namespaced = false,
	.subresources = KIND_SUB_STATUS,
	.rules = KIND_CREATE_WITH_STATUS,
	.schema = &schema_node,
	.meta_off = offsetof(struct node, metadata),
	.field_labels = node_fields,
	.defaults = def_node,
	.validate = val_node,
    },
    /* A Service: a stable port on every node in front of the pods its
     * selector picks (README "Services"). Its status is Kubernetes'
     * shape, loadBalancer {} (no load balancer is made): a client that
     * sends one, as `kubectl expose` does, has it replaced. */
    {
	.id = KIND_SERVICE,
	.group = "",
	.version = "v1",
	.api_version = "v1",
	.kind = "Service",
	.plural = "services",
	.singular = "service",
	.short_names = {"svc"},
	.namespaced = true,
	.category_all = true,
	.schema = &schema_service,
	.meta_off = offsetof(struct service, metadata),
	.subresources = KIND_SUB_STATUS,
	.initial_status = initial_status_service,
	.field_labels = service_fields,
	.defaults = def_service,
	.validate = val_service,
    },
    /* The endpoints controller's output (ctl/endpoints.c), read by the
     * node agent's proxy; discovery.k8s.io has no short name for it. */
    {
	.id = KIND_ENDPOINT_SLICE,
	.group = "discovery.k8s.io",
	.version = "v1",
	.api_version = "discovery.k8s.io/v1",
	.kind = "EndpointSlice",
	.plural = "endpointslices",
	.singular = "endpointslice",
	.namespaced = true,
	.schema = &schema_endpoint_slice,
	.meta_off = offsetof(struct endpoint_slice, metadata),
	.defaults = def_endpoint_slice,
	.validate = val_endpoint_slice,
    },
    {
	.id = KIND_ENDPOINTS,
	.group = "",
	.version = "v1",
	.api_version = "v1",
	.kind = "Endpoints",
	.plural = "endpoints",
	.singular = "endpoints",
	.short_names = {"ep"},
	.namespaced = true,
	.schema = &schema_endpoints,
	.meta_off = offsetof(struct endpoints, metadata),
	.defaults = def_endpoints,
	.validate = val_endpoints,
    },
    /* What the controllers and the agent did (src/client/recorder.c),
     * shown by `describe`; expired after --event-ttl (ctl.c). */
    {
	.id = KIND_EVENT,
	.group = "",
	.version = "v1",
	.api_version = "v1",
	.kind = "Event",
	.plural = "events",
	.singular = "event",
	.short_names = {"ev"},
	.namespaced = true,
	.schema = &schema_event_v1,
	.meta_off = offsetof(struct event_v1, metadata),
	.field_labels = event_fields,
	.defaults = def_event,
	.validate = val_event,
    },
    /* v1 ReplicationController: kept pod count like a ReplicaSet, with
     * an equality selector; `drover rolling-update` rolls one to the
     * next. Its selector may change (no .selector accessor): the
     * rolling update relabels the old controller. */
    {
	.id = KIND_REPLICATION_CONTROLLER,
	.group = "",
	.version = "v1",
	.api_version = "v1",
	.kind = "ReplicationController",
	.plural = "replicationcontrollers",
	.singular = "replicationcontroller",
	.short_names = {"rc"},
	.namespaced = true,
	.category_all = true,
	.subresources = KIND_SUB_STATUS | KIND_SUB_SCALE,
	.schema = &schema_replication_controller,
	.meta_off = offsetof(struct replication_controller, metadata),
	.field_labels = rc_fields,
	.replicas = replicas_rc,
	.defaults = def_rc,
	.validate = val_rc,
    },
    /* policy/v1 PodDisruptionBudget: what an eviction (a drain) must
     * leave healthy; its status is the disruption controller's. */
    {
	.id = KIND_POD_DISRUPTION_BUDGET,
	.group = "policy",
	.version = "v1",
	.api_version = "policy/v1",
	.kind = "PodDisruptionBudget",
	.plural = "poddisruptionbudgets",
	.singular = "poddisruptionbudget",
	.short_names = {"pdb"},
	.namespaced = true,
	.subresources = KIND_SUB_STATUS,
	.schema = &schema_pod_disruption_budget,
	.meta_off = offsetof(struct pod_disruption_budget, metadata),
	.defaults = def_pdb,
	.validate = val_pdb,
	.validate_status = val_pdb_status,
    },
    /* coordination.k8s.io/v1 Lease: a node's heartbeat (its agent renews
     * kube-node-lease/NODE every 10 s). */
    {
	.id = KIND_LEASE,
	.group = "coordination.k8s.io",
	.version = "v1",
	.api_version = "coordination.k8s.io/v1",
	.kind = "Lease",
	.plural = "leases",
	.singular = "lease",
	.namespaced = true,
	.schema = &schema_lease,
	.meta_off = offsetof(struct lease, metadata),
	.defaults = def_lease,
	.validate = val_lease,
    },
};

#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

/* The lookups are linear scans: eight kinds. All return pointers into the
 * static table (never freed) or NULL. */
const struct kind_info *
kind_lookup(const char *api_version, const char *kind)
{
	size_t i;

	for (i = 0; i < NKINDS; i++)
		if (!strcmp(kinds[i].api_version, api_version) &&
		    !strcmp(kinds[i].kind, kind))
			return &kinds[i];
	return NULL;
}

const struct kind_info *
kind_by_id(enum kind_id id)
{
	return (size_t)id < NKINDS ? &kinds[id] : NULL;
}

const struct kind_info *
kind_by_resource(const char *group, const char *version, const char *plural)
{
	size_t i;

	for (i = 0; i < NKINDS; i++)
		if (!strcmp(kinds[i].group, group) &&
		    !strcmp(kinds[i].version, version) &&
		    !strcmp(kinds[i].plural, plural))
			return &kinds[i];
	return NULL;
}

const struct kind_info *
kinds_all(size_t *n)
{
	*n = NKINDS;
	return kinds;
}

/* The resource as kubectl and error messages name it: "deployments.apps"
 * ('deployments.apps "web" not found'), "pods" for the core group. */
void
kind_qualified_plural(const struct kind_info *k, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", k->plural, *k->group ? "." : "", k->group);
}

/* metadata.name and metadata.namespace are selectable on every kind
 * (DefaultClusterScopedAttr / DefaultNamespaceScopedAttr). */
bool
kind_field_label(const struct kind_info *k, const char *label)
{
	size_t i;

	if (!strcmp(label, "metadata.name") ||
	    !strcmp(label, "metadata.namespace"))
		return true;
	for (i = 0; k->field_labels && k->field_labels[i]; i++)
		if (!strcmp(k->field_labels[i], label))
			return true;
	return false;
}

/* The field a field label selects on. They are the same path but for
 * one: an Event's "source" (`--field-selector source=kubelet`) is its
 * source.component, as Kubernetes' Event field set has it. */
const char *
kind_field_path(const struct kind_info *k, const char *label)
{
	if (k->id == KIND_EVENT && !strcmp(label, "source"))
		return "source.component";
	return label;
}

/* The status is found by name in the schema rather than stored in the
 * table, so a kind's status is defined once (in its group's field tables). */
const struct field *
kind_status_field(const struct kind_info *k)
{
	return schema_field(k->schema, "status");
}

const struct schema *
kind_status_schema(const struct kind_info *k)
{
	const struct field *f = kind_status_field(k);

	return f ? f->sub : NULL;
}

void *
kind_status(const struct kind_info *k, void *obj)
{
	const struct field *f = kind_status_field(k);

	return f ? (char *)obj + f->off : NULL;
}

/* metadata lives at a per-kind offset; every model struct has one. */
struct object_meta *
object_meta(const struct object *o)
{
	return (struct object_meta *)((char *)o->obj + o->k->meta_off);
}

/* Frees the object and what it owns; o is left empty, the kind kept. */
void
object_release(struct object *o)
{
	if (o->obj) {
		schema_release(o->k->schema, o->obj);
		free(o->obj);
	}
	o->obj = NULL;
}

void
object_list_release(struct object_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		object_release(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->alloc = 0;
}

/* The list takes ownership of o.obj. */
void
object_list_push(struct object_list *l, struct object o)
{
	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n++] = o;
}
