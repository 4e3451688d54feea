/* meta.c - the field tables of apimachinery's meta/v1 types drover
 * models (ObjectMeta, OwnerReference, LabelSelector, the Condition every
 * status uses) and their helpers (meta.h; the rules of the rows in
 * schema_rows.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "meta.h"
#include "schema_rows.h"
#include "xalloc.h"

/* metav1.OwnerReference. controller/blockOwnerDeletion are *bool: unset
 * and false are different values (meta_controller_ref needs set && true).
 */
static const struct field owner_ref_f[] = {
    F(owner_ref, "apiVersion", 5, FT_STR, api_version, 0, NULL),
    F(owner_ref, "kind", 1, FT_STR, kind, 0, NULL),
    F(owner_ref, "name", 3, FT_STR, name, 0, NULL),
    F(owner_ref, "uid", 4, FT_STR, uid, 0, NULL),
    F(owner_ref, "controller", 6, FT_OPTBOOL, controller, O, NULL),
    F(owner_ref, "blockOwnerDeletion", 7, FT_OPTBOOL, block_owner_deletion, O,
      NULL),
};
static const struct schema owner_ref_s = SCHEMA(owner_ref, owner_ref_f);

/* metav1.ObjectMeta, the fields drover stores. generation is int64;
 * deletionTimestamp set means "being deleted" (pod_is_active). */
static const struct field meta_f[] = {
    F(object_meta, "name", 1, FT_STR, name, O, NULL),
    F(object_meta, "generateName", 2, FT_STR, generate_name, O, NULL),
    F(object_meta, "namespace", 3, FT_STR, namespace, O, NULL),
    F(object_meta, "uid", 5, FT_STR, uid, O, NULL),
    F(object_meta, "resourceVersion", 6, FT_STR, resource_version, O, NULL),
    F(object_meta, "generation", 7, FT_INT, generation, O | I64, NULL),
    F(object_meta, "creationTimestamp", 8, FT_TIME, creation_timestamp,
      FF_NULLTIME, NULL),
    F(object_meta, "deletionTimestamp", 9, FT_TIME, deletion_timestamp, O,
      NULL),
    F(object_meta, "deletionGracePeriodSeconds", 10, FT_OPTINT,
      deletion_grace_period_seconds, O | I64, NULL),
    F(object_meta, "labels", 11, FT_STRMAP, labels, O, NULL),
    F(object_meta, "annotations", 12, FT_STRMAP, annotations, O, NULL),
    FK(object_meta, "ownerReferences", 13, owner_references, O, &owner_ref_s,
       "uid"),
    FP(object_meta, "finalizers", 14, FT_STRLIST, finalizers, O, NULL,
       PS_MERGE),
};
const struct schema schema_object_meta = SCHEMA(object_meta, meta_f);

/* metav1.LabelSelectorRequirement and LabelSelector (labels.c
 * evaluates them). */
static const struct field selector_req_f[] = {
    F(selector_req, "key", 1, FT_STR, key, 0, NULL),
    F(selector_req, "operator", 2, FT_STR, operator, 0, NULL),
    F(selector_req, "values", 3, FT_STRLIST, values, O, NULL),
};
static const struct schema selector_req_s =
    SCHEMA(selector_req, selector_req_f);

static const struct field label_selector_f[] = {
    F(label_selector, "matchLabels", 1, FT_STRMAP, match_labels, O, NULL),
    F(label_selector, "matchExpressions", 2, FT_LIST, match_expressions, O,
      &selector_req_s),
};
const struct schema schema_label_selector =
    SCHEMA(label_selector, label_selector_f);

/* The rows of every kind's conditions: Deployment conditions use
 * lastUpdateTime (the progress deadline's clock) and
 * lastTransitionTime; pod conditions lastProbeTime and
 * lastTransitionTime; node conditions add lastHeartbeatTime. Unused
 * time members stay 0 and are omitted. The statuses refer to a copy of
 * these rows per Go type (PodCondition in core.c, DeploymentCondition
 * in apps.c, ...), which carries that type's protobuf numbers: the
 * types share their JSON, not their numbers (lastTransitionTime is 4 in
 * a PodCondition, 7 in a DeploymentCondition). This table, which
 * condition_append and condition_remove copy and release with, has no
 * numbers. Keep the copies' rows the same as these (test_schema_pb.c
 * checks it). */
static const struct field condition_f[] = {
    F(condition, "type", 0, FT_STR, type, 0, NULL),
    F(condition, "status", 0, FT_STR, status, 0, NULL),
    F(condition, "lastHeartbeatTime", 0, FT_TIME, last_heartbeat_time, O, NULL),
    F(condition, "lastProbeTime", 0, FT_TIME, last_probe_time, O, NULL),
    F(condition, "lastUpdateTime", 0, FT_TIME, last_update_time, O, NULL),
    F(condition, "lastTransitionTime", 0, FT_TIME, last_transition_time, O,
      NULL),
    F(condition, "reason", 0, FT_STR, reason, O, NULL),
    F(condition, "message", 0, FT_STR, message, O, NULL),
};
const struct schema schema_condition = SCHEMA(condition, condition_f);

/* metav1.Condition (apimachinery's types.go): lastTransitionTime, reason
 * and message have no omitempty. */
static const struct field condition_v1_f[] = {
    F(condition, "type", 1, FT_STR, type, 0, NULL),
    F(condition, "status", 2, FT_STR, status, 0, NULL),
    F(condition, "observedGeneration", 3, FT_INT, observed_generation, O | I64,
      NULL),
    F(condition, "lastTransitionTime", 4, FT_TIME, last_transition_time, 0,
      NULL),
    F(condition, "reason", 5, FT_STR, reason, 0, NULL),
    F(condition, "message", 6, FT_STR, message, 0, NULL),
};
const struct schema schema_condition_v1 = SCHEMA(condition, condition_v1_f);

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
