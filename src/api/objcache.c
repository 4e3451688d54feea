/* objcache.c - the objects the API wrote last, kept parsed (objcache.h).
 *
 * One uthash table keyed by "resource\0namespace\0name"; uthash keeps
 * its items in the order they were added, so deleting and adding an
 * entry again on each use makes that order least-recently-used first,
 * and the oldest is the table's head. */
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "objcache.h"
#include "xalloc.h"

struct entry {
	UT_hash_handle hh;
	int64_t rv;
	json_t *v;
	char *text;
	size_t klen;
	char key[]; /* resource \0 ns \0 name */
};

struct objcache {
	struct entry *items;
	size_t len, max;
};

struct objcache *
objcache_new(size_t max)
{
	struct objcache *c;

	if (max == 0)
		return NULL;
	c = xcalloc(1, sizeof(*c));
	c->max = max;
	return c;
}

static void
entry_free(struct entry *e)
{
	json_decref(e->v);
	free(e->text);
	free(e);
}

static void
remove_entry(struct objcache *c, struct entry *e)
{
	HASH_DEL(c->items, e);
	c->len--;
	entry_free(e);
}

void
objcache_clear(struct objcache *c)
{
	struct entry *e, *tmp;

	if (c == NULL)
		return;
	HASH_ITER(hh, c->items, e, tmp)
	remove_entry(c, e);
}

void
objcache_free(struct objcache *c)
{
	objcache_clear(c);
	free(c);
}

size_t
objcache_len(const struct objcache *c)
{
	return c ? c->len : 0;
}

/* The key into buf; its length, or 0 if it does not fit (not cached). */
static size_t
make_key(char *buf, size_t size, const char *resource, const char *ns,
	 const char *name)
{
	size_t a = strlen(resource), b = ns ? strlen(ns) : 0, n = strlen(name);

	if (a + b + n + 2 > size)
		return 0;
	memcpy(buf, resource, a);
	buf[a] = '\0';
	memcpy(buf + a + 1, ns ? ns : "", b);
	buf[a + 1 + b] = '\0';
	memcpy(buf + a + b + 2, name, n);
	return a + b + n + 2;
}

static struct entry *
find(struct objcache *c, const char *resource, const char *ns, const char *name,
     char *key, size_t *klen)
{
	struct entry *e = NULL;

	*klen = make_key(key, 512, resource, ns, name);
	if (*klen)
		HASH_FIND(hh, c->items, key, *klen, e);
	return e;
}

void
objcache_put(struct objcache *c, const char *resource, const char *ns,
	     const char *name, int64_t rv, json_t *v, const char *text)
{
	char key[512];
	size_t klen;
	struct entry *e;

	if (c == NULL || v == NULL)
		return;
	if ((e = find(c, resource, ns, name, key, &klen)) != NULL)
		remove_entry(c, e);
	if (klen == 0)
		return;
	while (c->len >= c->max)
		remove_entry(c, c->items); /* the least recently used */
	e = xmalloc(sizeof(*e) + klen);
	memcpy(e->key, key, klen);
	e->klen = klen;
	e->rv = rv;
	e->v = json_incref(v);
	e->text = xstrdup(text);
	HASH_ADD(hh, c->items, key, klen, e);
	c->len++;
}

json_t *
objcache_get(struct objcache *c, const char *resource, const char *ns,
	     const char *name, int64_t *rv, const char **text)
{
	char key[512];
	size_t klen;
	struct entry *e;

	if (c == NULL || (e = find(c, resource, ns, name, key, &klen)) == NULL)
		return NULL;
	HASH_DEL(c->items, e); /* to the end: used last */
	HASH_ADD(hh, c->items, key, e->klen, e);
	*rv = e->rv;
	if (text)
		*text = e->text;
	return e->v;
}

void
objcache_drop(struct objcache *c, const char *resource, const char *ns,
	      const char *name)
{
	char key[512];
	size_t klen;
	struct entry *e;

	if (c && (e = find(c, resource, ns, name, key, &klen)) != NULL)
		remove_entry(c, e);
}
