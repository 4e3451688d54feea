/* kinds.c - the kind table. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "defaults.h"
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

static void
def_node(void *o)
{
	(void)o;
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

static void
val_replicaset(const void *o, struct fielderr_list *e)
{
	validate_replicaset(o, e);
}

static void
val_pod(const void *o, struct fielderr_list *e)
{
	validate_pod(o, e);
}

static const struct kind_info kinds[] = {
    {KIND_DEPLOYMENT, "apps/v1", "Deployment", "deployments",
     &schema_deployment, offsetof(struct deployment, metadata), true,
     def_deployment, val_deployment},
    {KIND_REPLICASET, "apps/v1", "ReplicaSet", "replicasets",
     &schema_replicaset, offsetof(struct replicaset, metadata), true,
     def_replicaset, val_replicaset},
    {KIND_POD, "v1", "Pod", "pods", &schema_pod, offsetof(struct pod, metadata),
     true, def_pod, val_pod},
    {KIND_NODE, "v1", "Node", "nodes", &schema_node,
     offsetof(struct node, metadata), false, def_node, val_node},
};

const struct kind_info *
kind_lookup(const char *api_version, const char *kind)
{
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i].api_version, api_version) &&
		    !strcmp(kinds[i].kind, kind))
			return &kinds[i];
	return NULL;
}

const struct kind_info *
kind_by_id(enum kind_id id)
{
	return &kinds[id];
}

const struct kind_info *
kinds_all(size_t *n)
{
	*n = sizeof(kinds) / sizeof(kinds[0]);
	return kinds;
}

struct object_meta *
object_meta(const struct object *o)
{
	return (struct object_meta *)((char *)o->obj + o->k->meta_off);
}

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

void
object_list_push(struct object_list *l, struct object o)
{
	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n++] = o;
}
