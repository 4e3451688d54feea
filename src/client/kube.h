/* kube.h - typed reads and writes through the API client for the
 * controllers and the agent: objects come back decoded (with their
 * resourceVersion, so a write of a read object is a compare-and-swap). */
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
/* The same with a query ("fieldSelector=spec.nodeName%3Dn1"; NULL:
 * none), already percent-encoded. */
int kube_list_query(struct client *c, enum kind_id k, const char *ns,
		    const char *query, struct object_list *out);
/* Writes: POST (create), PUT (update, sub may be "status"), DELETE.
 * Return the HTTP status (0 on transport failure); on success the
 * object's resourceVersion and generation are updated from the answer
 * (create, update), and its name, uid and creationTimestamp too if it
 * had none (a create, from generateName). */
int kube_create(struct client *c, struct object *o);
int kube_update(struct client *c, struct object *o, const char *sub);
int kube_delete(struct client *c, enum kind_id k, const char *ns,
		const char *name);
/* PATCH the status subresource of o from o's status to st (a struct of
 * the kind's status schema), as the kubelet's PatchPodStatus does: a
 * strategic merge patch of what changed (codec_two_way_patch, diff.h)
 * with o's uid as a precondition ({"metadata":{"uid":...}}), and no
 * resourceVersion, so that it does not conflict with writes of other
 * fields; an object re-created under the same name refuses it with 409
 * Conflict. Returns the HTTP status (0 on transport failure), or -1 if
 * the statuses are equal (nothing is sent). o and st are not modified:
 * o keeps the resourceVersion it had. */
int kube_patch_status(struct client *c, const struct object *o, const void *st);

#endif
