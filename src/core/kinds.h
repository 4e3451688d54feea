/* kinds.h - the table of object kinds drover serves: apiVersion, kind,
 * plural resource name, schema, defaulting and validation.
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
};

struct kind_info {
	enum kind_id id;
	const char *api_version; /* "apps/v1" */
	const char *kind;        /* "Deployment" */
	const char *plural;      /* "deployments" */
	const struct schema *schema;
	size_t meta_off; /* offsetof(struct X, metadata) */
	bool namespaced;
	void (*defaults)(void *obj);
	void (*validate)(const void *obj, struct fielderr_list *errs);
};

struct object {
	const struct kind_info *k;
	void *obj;
};

struct object_list {
	struct object *v;
	size_t n;
	size_t alloc;
};

const struct kind_info *kind_lookup(const char *api_version, const char *kind);
const struct kind_info *kind_by_id(enum kind_id id);
/* All kinds, for iteration; *n receives the count. */
const struct kind_info *kinds_all(size_t *n);

struct object_meta *object_meta(const struct object *o);
void object_release(struct object *o);
void object_list_release(struct object_list *l);
void object_list_push(struct object_list *l, struct object o);

#endif
