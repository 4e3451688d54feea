/* informer.h - a watch-fed cache of one kind (client-go's informer, on
 * one loop): every event is decoded once and kept, so controllers read
 * objects without listing and decoding them through the API on every
 * sync. It lists, then watches from the list's resourceVersion, and
 * lists again when the watch ends (informer.c).
 *
 * Events reach the cache from the loop, never inside a write (in `drover
 * serve`: right after the turn's commit, store.h), so a sync may read
 * pointers into the cache and write through the API: the cache changes
 * only between syncs. It may be behind the store by the writes of the
 * current loop turn, the controller's own included, as client-go's
 * caches are: writes of read objects are compare-and-swaps, and the
 * ReplicaSet controller keeps expectations of its creations and
 * deletions (rs.c).
 *
 * Lookups by namespace/name, uid and owner are hash-indexed (uthash), so a
 * sync costs what it reads, not the size of the cache.
 *
 * Ownership: the informer owns its objects; pointers it returns are valid
 * until the loop delivers the next events (the end of the sync that got
 * them). The informer borrows the client and the loop. */
#ifndef DROVER_CLIENT_INFORMER_H
#define DROVER_CLIENT_INFORMER_H

#include <uv.h>

#include "client.h"
#include "kinds.h"

struct informer;

/* Lists kind k (all namespaces) and watches it; NULL if the first list
 * or watch failed. Later failures are retried from the loop. */
struct informer *informer_new(struct client *c, uv_loop_t *loop,
			      enum kind_id k);
/* The same, of the objects a field selector picks ("spec.nodeName=n1":
 * an agent's pods); field_selector is put in the query as it is, so it
 * holds no '&', '+' or '%' (node names do not). */
struct informer *informer_new_selected(struct client *c, uv_loop_t *loop,
				       enum kind_id k,
				       const char *field_selector);
void informer_free(struct informer *inf);
/* Calls cb after the cache has taken each event (several subscribers). */
void informer_subscribe(struct informer *inf, client_watch_cb cb, void *arg);
void informer_unsubscribe(struct informer *inf, void *arg);
/* The cached objects of namespace ns (NULL: all), in an array the caller
 * frees (the objects it points to belong to the informer). */
size_t informer_list(struct informer *inf, const char *ns,
		     struct object ***out);
/* Number of cached objects. */
size_t informer_count(struct informer *inf);
/* The cached object ns/name, or by uid; NULL if none. */
const struct object *informer_find(struct informer *inf, const char *ns,
				   const char *name);
const struct object *informer_by_uid(struct informer *inf, const char *uid);
/* The cached objects of namespace ns (NULL: all) with an ownerReference
 * to owner_uid; NULL owner_uid: those without a controller (orphans). In
 * an array the caller frees, as informer_list. */
size_t informer_dependents(struct informer *inf, const char *owner_uid,
			   const char *ns, struct object ***out);
/* Whether informer_dependents(inf, owner_uid, ns) may give any, at the
 * cost of one lookup (true may still give none when dependents of
 * several namespaces are filed under owner_uid). */
bool informer_has_dependents(struct informer *inf, const char *owner_uid,
			     const char *ns);
/* A copy of the cached object ns/name, which the caller releases
 * (object_release); -1 if the cache has none. */
int informer_get(struct informer *inf, const char *ns, const char *name,
		 struct object *out);
/* Data derived from each cached object, made when first asked for and
 * dropped (free) when the object changes or goes: for pods, the facts
 * the ReplicaSet planner reads (pod_facts.h), so that a sync reads one
 * compact struct per pod instead of the whole pod. */
typedef void *(*informer_derive_fn)(const struct object *o);
void informer_set_derive(struct informer *inf, informer_derive_fn derive);
/* derive(o), kept until o changes; o must be an object this informer
 * returned. NULL if no derive function is set. */
const void *informer_derived(struct informer *inf, const struct object *o);

#endif
