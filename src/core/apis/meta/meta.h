/* meta.h - apimachinery's meta/v1 types as drover models them: the
 * ObjectMeta every object has, OwnerReference, LabelSelector, and the
 * Condition every status lists (meta.c has their field tables).
 *
 * Ownership: every object owns all of its strings, maps, lists and optional
 * sub-structs; schema_release() frees them, schema_copy() deep-copies. */
#ifndef DROVER_META_H
#define DROVER_META_H

#include <stdbool.h>
#include <stdint.h>

#include "dtime.h"
#include "intstr.h"
#include "schema.h"
#include "strmap.h"

/* A list of T: struct T_list {v, n, alloc}, released and copied with its
 * schema (schema.h). */
#define LIST_OF(type)                                                          \
	struct type##_list {                                                   \
		struct type *v;                                                \
		size_t n;                                                      \
		size_t alloc;                                                  \
	}

/* ---- metadata ---- */

struct owner_ref {
	char *api_version;
	char *kind;
	char *name;
	char *uid;
	struct opt_bool controller;
	struct opt_bool block_owner_deletion;
};
LIST_OF(owner_ref);

struct object_meta {
	char *name;
	char *generate_name;
	char *namespace;
	char *uid;
	char *resource_version;
	int64_t generation;
	dtime creation_timestamp;
	dtime deletion_timestamp;
	struct opt_int deletion_grace_period_seconds;
	struct strmap labels;
	struct strmap annotations;
	struct owner_ref_list owner_references;
	struct strlist finalizers;
};

/* ---- label selectors ---- */

struct selector_req {
	char *key;
	char *operator; /* In, NotIn, Exists, DoesNotExist */
	struct strlist values;
};
LIST_OF(selector_req);

struct label_selector {
	struct strmap match_labels;
	struct selector_req_list match_expressions;
};

/* ---- conditions ---- */

struct condition {
	char *type;
	char *status;              /* "True", "False", "Unknown" */
	dtime last_heartbeat_time; /* Node conditions */
	dtime last_probe_time;
	dtime last_update_time;
	dtime last_transition_time;
	char *reason;
	char *message;
	/* metav1.Condition's (schema_condition_v1): the .metadata.generation
	 * the condition was set from. */
	int64_t observed_generation;
};
LIST_OF(condition);

/* ---- a decoded object of some kind (runtime.Object) ----
 *
 * The typed struct of its kind (struct deployment, struct pod...) and
 * the kind's registry entry (kinds.h), which says where its metadata,
 * replicas and selector are. */

struct kind_info;

struct object {
	const struct kind_info *k;
	void *obj;
};

struct object_list {
	struct object *v;
	size_t n;
	size_t alloc;
};

extern const struct schema schema_object_meta;
extern const struct schema schema_label_selector;
extern const struct schema schema_condition;
/* metav1.Condition, the newer kinds' (policy/v1): type, status,
 * observedGeneration, lastTransitionTime, reason, message, every one
 * but observedGeneration always written. */
extern const struct schema schema_condition_v1;

/* Conditions: find by type (NULL if absent). */
struct condition *condition_find(struct condition_list *l, const char *type);
const struct condition *condition_get(const struct condition_list *l,
				      const char *type);
void condition_remove(struct condition_list *l, const char *type);
/* Appends a copy of c. */
void condition_append(struct condition_list *l, const struct condition *c);

/* Removes every ownerReference to (kind, uid or name). */
void meta_remove_owner_refs(struct object_meta *m, const char *kind,
			    const char *uid, const char *name);

/* The controller ownerReference of m, or NULL. */
const struct owner_ref *meta_controller_ref(const struct object_meta *m);
/* Whether m has an ownerReference (controller or not) to uid. */
bool meta_has_owner(const struct object_meta *m, const char *uid);

#endif
