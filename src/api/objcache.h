/* objcache.h - the API's cache of decoded stored objects: what it last
 * wrote or decoded of each object, at that object's resourceVersion, so
 * that the next update, patch or deletion of it starts from the typed
 * object instead of parsing and decoding the stored text again
 * (Kubernetes' apiserver starts GuaranteedUpdate from its watch cache's
 * copy in the same way).
 *
 * An entry is good for one resourceVersion only: a reader asks with the
 * rv of the item it just read from the store, so whatever else wrote the
 * store meanwhile (another process, a rolled-back group: its versions
 * are never handed out again) the answer is a miss, never a stale
 * object. The cache holds at most OBJCACHE_BYTES of stored text's worth
 * of objects, least recently used first out.
 *
 * Example: a pod created at rv 7 is put (7); the agent's status patch
 * reads the item (rv 7), finds the pod, copies it, and puts the patched
 * one at 8; the deletion that follows reads rv 8 and finds it too. A
 * write by another process at rv 9 makes the next reader's lookup (9) a
 * miss: it decodes the text and puts that.
 *
 * Ownership: the cache owns what it is given; objcache_get copies into
 * the caller's object, which the caller releases. Single-threaded (the
 * API's loop). */
#ifndef DROVER_API_OBJCACHE_H
#define DROVER_API_OBJCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* Twice the size of a 2,000-pod namespace's stored text. */
#define OBJCACHE_BYTES (8u << 20)

struct objcache;

struct objcache *objcache_new(size_t max_bytes);
void objcache_free(struct objcache *c);

/* o as stored under (resource, ns, name) at rv, which the cache takes
 * (o->obj is NULL after); bytes is its stored text's length (what it
 * counts against the bound). Replaces what was there. */
void objcache_put(struct objcache *c, const char *resource, const char *ns,
		  const char *name, int64_t rv, struct object *o, size_t bytes);
/* Whether the object at rv is cached: if so, a copy in *out (which the
 * caller releases). */
bool objcache_get(struct objcache *c, const char *resource, const char *ns,
		  const char *name, int64_t rv, struct object *out);
/* Forgets the object (it was deleted). */
void objcache_drop(struct objcache *c, const char *resource, const char *ns,
		   const char *name);
/* Hits and misses so far, for the tests and /metrics. */
void objcache_counts(const struct objcache *c, uint64_t *hits,
		     uint64_t *misses);

#endif
