/* kube.h - typed reads and writes through the API client for the
 * controllers and the agent: objects come back decoded (with their resourceVersion,
 * so a write of a read object is a compare-and-swap). */
#ifndef DROVER_CLIENT_KUBE_H
#define DROVER_CLIENT_KUBE_H

#include "client.h"
#include "kinds.h"

/* Path of a kind's collection or object. */
void kube_path(char *buf, size_t len, enum kind_id k, const char *ns,
	       const char *name, const char *sub);
/* GET one object: 0, STORE-like -1 on 404 (out->obj NULL), -2 on error. */
int kube_get(struct client *c, enum kind_id k, const char *ns, const char *name,
	     struct object *out);
/* LIST a kind in ns (NULL: all). 0 or -2. */
int kube_list(struct client *c, enum kind_id k, const char *ns,
	      struct object_list *out);
/* Writes: POST (create), PUT (update, sub may be "status"), DELETE.
 * Return the HTTP status (0 on transport failure); on success the
 * object's resourceVersion is updated from the answer (create, update). */
int kube_create(struct client *c, struct object *o);
int kube_update(struct client *c, struct object *o, const char *sub);
int kube_delete(struct client *c, enum kind_id k, const char *ns,
		const char *name);

#endif
