/* objcache.c - the API's cache of decoded stored objects (objcache.h):
 * a uthash table by "resource/ns/name", its entries in a utlist list in
 * order of use, the least recently used dropped first once the entries'
 * stored text passes the bound. */
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include <utlist.h>

#include "kinds.h"
#include "objcache.h"
#include "strbuf.h"
#include "xalloc.h"

struct centry {
	char *key;
	int64_t rv;
	struct object o;
	size_t bytes;
	UT_hash_handle hh;
	struct centry *prev, *next; /* most recently used first */
};

struct objcache {
	struct centry *by_key;
	struct centry *lru;
	size_t bytes, max_bytes;
	uint64_t hits, misses;
};

struct objcache *
objcache_new(size_t max_bytes)
{
	struct objcache *c = xcalloc(1, sizeof(*c));

	c->max_bytes = max_bytes;
	return c;
}

static void
entry_free(struct objcache *c, struct centry *e)
{
	HASH_DEL(c->by_key, e);
	DL_DELETE(c->lru, e);
	c->bytes -= e->bytes;
	object_release(&e->o);
	free(e->key);
	free(e);
}

void
objcache_free(struct objcache *c)
{
	struct centry *e, *tmp;

	if (c == NULL)
		return;
	HASH_ITER(hh, c->by_key, e, tmp)
	entry_free(c, e);
	free(c);
}

/* "resource/ns/name" in sb (names hold no '/'). */
static void
key_of(struct strbuf *sb, const char *resource, const char *ns,
       const char *name)
{
	strbuf_addf(sb, "%s/%s/%s", resource, ns ? ns : "", name);
}

static struct centry *
find(struct objcache *c, const char *resource, const char *ns, const char *name)
{
	struct strbuf k = STRBUF_INIT;
	struct centry *e;

	key_of(&k, resource, ns, name);
	HASH_FIND_STR(c->by_key, k.buf, e);
	strbuf_release(&k);
	return e;
}

static void
copy_object(struct object *dst, const struct object *src)
{
	dst->k = src->k;
	dst->obj = xcalloc(1, src->k->schema->size);
	schema_copy(src->k->schema, dst->obj, src->obj);
}

void
objcache_put(struct objcache *c, const char *resource, const char *ns,
	     const char *name, int64_t rv, struct object *o, size_t bytes)
{
	struct centry *e = find(c, resource, ns, name);
	struct strbuf k = STRBUF_INIT;

	if (e)
		entry_free(c, e);
	if (bytes > c->max_bytes) {
		object_release(o);
		return;
	}
	e = xcalloc(1, sizeof(*e));
	key_of(&k, resource, ns, name);
	e->key = strbuf_detach(&k);
	e->rv = rv;
	e->bytes = bytes;
	e->o = *o;
	o->obj = NULL;
	HASH_ADD_KEYPTR(hh, c->by_key, e->key, strlen(e->key), e);
	DL_PREPEND(c->lru, e);
	c->bytes += bytes;
	while (c->bytes > c->max_bytes && c->lru)
		entry_free(c, c->lru->prev); /* the tail: least recent */
}

bool
objcache_get(struct objcache *c, const char *resource, const char *ns,
	     const char *name, int64_t rv, struct object *out)
{
	struct centry *e = find(c, resource, ns, name);

	if (e == NULL || e->rv != rv) {
		c->misses++;
		return false;
	}
	c->hits++;
	DL_DELETE(c->lru, e);
	DL_PREPEND(c->lru, e);
	copy_object(out, &e->o);
	return true;
}

void
objcache_drop(struct objcache *c, const char *resource, const char *ns,
	      const char *name)
{
	struct centry *e = find(c, resource, ns, name);

	if (e)
		entry_free(c, e);
}

void
objcache_counts(const struct objcache *c, uint64_t *hits, uint64_t *misses)
{
	*hits = c->hits;
	*misses = c->misses;
}
