/* objcache.h - the objects the API wrote last, kept parsed.
 *
 * Every write of a rollout's hot path starts from the object as stored:
 * a status patch of a pod reads the pod the agent wrote a moment ago,
 * and every in-process watcher gets the written object as an event.
 * Both used to parse the stored text again (jansson: 75 us for a 2 KB
 * pod, on the loop). The API puts each object it writes here, as served
 * (with its resourceVersion), and takes it back:
 *
 *   - for a watch event, only when the event's rv is the entry's: an rv
 *     names one write, so the entry is that write's object exactly;
 *   - as the base of the next write of the same key: that write is a
 *     compare-and-swap on the entry's rv, so an entry that were stale
 *     would fail it (409) and is dropped, never written over newer data.
 *
 * The store is written only by the API of this process, which puts or
 * drops the key of every write (create, update, delete, bind, the in-place
 * transaction), so an entry is the key's current object. A rolled-back
 * group (store.h) empties the cache: its entries may name versions the
 * store forgot.
 *
 * Entries are least-recently-used first out past `max`, and the daemon
 * empties the cache when it has been quiet (serve.c), so that it costs
 * memory only during bursts.
 *
 * Ownership: the cache holds one reference to each value and a copy of
 * its text; objcache_get returns borrowed pointers, valid until the next
 * call that changes the cache. Values in the cache are shared and never
 * changed: a caller that needs to change one copies it. */
#ifndef DROVER_API_OBJCACHE_H
#define DROVER_API_OBJCACHE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct objcache;

/* NULL: no cache (every get misses, put and drop do nothing). */
struct objcache *objcache_new(size_t max);
void objcache_free(struct objcache *c);
/* The object of (resource, ns, name) is now v at rv, stored as text
 * (takes a new reference to v; copies text). ns NULL: cluster-scoped. */
void objcache_put(struct objcache *c, const char *resource, const char *ns,
		  const char *name, int64_t rv, json_t *v, const char *text);
/* The entry of the key (borrowed), or NULL; *rv and *text filled. */
json_t *objcache_get(struct objcache *c, const char *resource, const char *ns,
		     const char *name, int64_t *rv, const char **text);
void objcache_drop(struct objcache *c, const char *resource, const char *ns,
		   const char *name);
void objcache_clear(struct objcache *c);
size_t objcache_len(const struct objcache *c);

#endif
