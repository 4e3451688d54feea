/* kinds.h - the kind registry: for every kind drover serves, one entry
 * says everything the rest of the code needs to know about it. API
 * routing and discovery, the CLI's kind names, field selectors, the
 * status and scale subresources, the write rules of the API and the
 * strategic-merge keys (in the schema, struct field.merge_key) all read
 * this table; adding a kind is one entry here, its model and schema, and
 * its planner.
 *
 * Worked example, the Deployment entry: group "apps", version "v1"
 * (apiVersion "apps/v1"), resource "deployments", singular "deployment",
 * short name "deploy", namespaced; it serves /status and /scale; a
 * change of its spec or of its annotations bumps metadata.generation
 * (the rollback annotation is a request to the controller), its selector
 * may not change after create, and a status write may also set its
 * annotations (the controller records the revision there).
 *
 * struct object is a type-tagged pointer to one model object; it owns obj
 * (heap) and frees it in object_release(). */
#ifndef DROVER_KINDS_H
#define DROVER_KINDS_H

#include "fielderr.h"
#include "model.h"

enum kind_id {
	KIND_DEPLOYMENT,
	KIND_REPLICASET,
	KIND_POD,
	KIND_NODE,
	KIND_SERVICE,
	KIND_ENDPOINT_SLICE,
	KIND_ENDPOINTS,
	KIND_EVENT,
	KIND_REPLICATION_CONTROLLER,
	KIND_POD_DISRUPTION_BUDGET,
	KIND_LEASE,
};

/* Subresources a kind serves beside the object itself. */
#define KIND_SUB_STATUS  0x1u /* /status: a write changes only .status */
#define KIND_SUB_SCALE   0x2u /* /scale: autoscaling/v1 Scale */
#define KIND_SUB_BINDING 0x4u /* /binding: assigns a node (pods) */
#define KIND_SUB_LOG     0x8u /* /log: the containers' output (pods) */
/* /inplaceupdate: drover's in-place update of a pod with its change of
 * owner in one transaction (pods; inplace_apply.h). Not in discovery. */
#define KIND_SUB_INPLACE 0x10u
/* /eviction: a policy/v1 Eviction, the pod's deletion if its disruption
 * budget allows (pods; plan/eviction.h). */
#define KIND_SUB_EVICTION 0x20u

/* Write rules of the API server (the kind's registry strategy). */
#define KIND_GEN_ANNOTATIONS    0x1u /* annotations bump generation too */
#define KIND_STATUS_ANNOTATIONS 0x2u /* a status write may set annotations */
#define KIND_CREATE_WITH_STATUS                                                \
	0x4u /* create keeps the status sent (an agent's Node) */

#define KIND_MAX_SHORT_NAMES 3

struct kind_info {
	enum kind_id id;
	const char *group;       /* "apps"; "" for the core group */
	const char *version;     /* "v1" */
	const char *api_version; /* "apps/v1": group/version, or version */
	const char *kind;        /* "Deployment" */
	const char *plural;      /* "deployments": the resource */
	const char *singular;    /* "deployment" */
	const char
	    *short_names[KIND_MAX_SHORT_NAMES]; /* "deploy"; NULL-ended */
	bool namespaced;
	/* In the discovery category "all" (`kubectl get all`): Kubernetes
	 * puts pods, services, replicationcontrollers and the apps and
	 * batch workloads there, not nodes, endpoints, slices or events. */
	bool category_all;
	unsigned subresources; /* KIND_SUB_* */
	unsigned rules;        /* KIND_* write rules */
	const struct schema *schema;
	size_t meta_off; /* offsetof(struct X, metadata) */
	/* Field selector labels beyond metadata.name and metadata.namespace
	 * (the kind's GetAttrs); NULL-ended, or NULL. */
	const char *const *field_labels;
	/* spec.replicas and spec.selector of kinds that have them (scale,
	 * the immutable selector), else NULL. */
	struct opt_int *(*replicas)(void *obj);
	struct label_selector *(*selector)(const void *obj);
	/* The status an object starts with on create, after the one sent
	 * was dropped (Pod: phase Pending); NULL: empty. */
	void (*initial_status)(void *obj);
	/* Graceful deletion (CheckGracefulDeleteStrategy): true if a DELETE
	 * asking for `requested` seconds (-1: the object's default) only
	 * marks obj, for *grace seconds, and something else (the agent of
	 * its node) finishes it; NULL: deletions are immediate. */
	bool (*grace_period)(const void *obj, int64_t requested,
			     int64_t *grace);
	void (*defaults)(void *obj);
	void (*validate)(const void *obj, struct fielderr_list *errs);
	/* A write of the /status subresource (the kind's
	 * ValidateXStatusUpdate), on the object with its new status; NULL:
	 * none. */
	void (*validate_status)(const void *obj, struct fielderr_list *errs);
	/* The API's checks that need the stored object or are the API's
	 * alone (drover plan does not run them): run after validate on a
	 * CREATE (old NULL) and on an UPDATE of the main resource (old:
	 * the stored object); NULL: none. Deployment: the InPlaceUpdate
	 * gate and template rules (kinds.c). */
	void (*admit)(const void *old, const void *obj,
		      struct fielderr_list *errs);
};

/* struct object and struct object_list: meta.h. */

const struct kind_info *kind_lookup(const char *api_version, const char *kind);
const struct kind_info *kind_by_id(enum kind_id id);
/* By API path parts: group ("" for core), version and resource. */
const struct kind_info *kind_by_resource(const char *group, const char *version,
					 const char *plural);
/* All kinds, for iteration; *n receives the count. */
const struct kind_info *kinds_all(size_t *n);
/* "deployments.apps", or "pods" for the core group. */
void kind_qualified_plural(const struct kind_info *k, char *buf, size_t len);

/* The field selector label is one the kind supports. */
bool kind_field_label(const struct kind_info *k, const char *label);
/* The JSON path a supported field label compares: the label itself,
 * except where Kubernetes' GetAttrs maps it elsewhere (an Event's
 * "source" is source.component). Static or label. */
const char *kind_field_path(const struct kind_info *k, const char *label);
/* The status field of the kind's schema and the status of obj; NULL for
 * a kind without one. */
const struct field *kind_status_field(const struct kind_info *k);
const struct schema *kind_status_schema(const struct kind_info *k);
void *kind_status(const struct kind_info *k, void *obj);

struct object_meta *object_meta(const struct object *o);
void object_release(struct object *o);
void object_list_release(struct object_list *l);
void object_list_push(struct object_list *l, struct object o);

#endif
