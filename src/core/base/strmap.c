/* strmap.c - sorted string map (binary search, insertion by shifting).
 *
 * Invariant: v[0..n) is sorted by strcmp of the keys (byte order, so
 * "B" < "a") with no duplicate key. Everything relies on it: lookups are
 * O(log n), equality is one parallel walk, and iteration order is the
 * key order, which makes labels and annotations print, encode and hash
 * (schema_dump) the same whatever order a manifest wrote them in, the
 * way Go's encoding/json sorts map keys. Inserting is O(n) for the
 * shift; maps here are labels and annotations, a handful of entries.
 *
 * Ownership: the map owns every key and value (copied in, freed by
 * strmap_release); strmap_get returns a pointer into the map, valid
 * until the next set or del of that map. Values must not be NULL
 * (strmap_equal compares them with strcmp). */
#include <stdlib.h>
#include <string.h>

#include "strmap.h"
#include "xalloc.h"

void
strmap_release(struct strmap *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		free(m->v[i].key);
		free(m->v[i].value);
	}
	free(m->v);
	m->v = NULL;
	m->n = m->alloc = 0;
}

/* dst is overwritten (not released first); the copy is sorted because
 * the source is. */
void
strmap_copy(struct strmap *dst, const struct strmap *src)
{
	size_t i;

	dst->n = dst->alloc = src->n;
	dst->v = src->n ? xmalloc(src->n * sizeof(*dst->v)) : NULL;
	for (i = 0; i < src->n; i++) {
		dst->v[i].key = xstrdup(src->v[i].key);
		dst->v[i].value = xstrdup(src->v[i].value);
	}
}

/* Index of key, or -(insertion point)-1 (the java.util.Arrays
 * convention, so one search serves get, set and del). Example on keys
 * [app, env, tier]: "env" -> 1; "rel" -> -(2)-1 = -3 (goes before
 * tier); "zone" -> -4 (at the end). Invariant of the loop: every key
 * before lo is smaller than key, every key from hi on is larger. */
static long
find(const struct strmap *m, const char *key)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(m->v[mid].key, key);

		if (c == 0)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -(long)lo - 1;
}

const char *
strmap_get(const struct strmap *m, const char *key)
{
	long i = find(m, key);

	return i >= 0 ? m->v[i].value : NULL;
}

/* Insert or replace. On replace the key keeps its place and only the
 * value changes; the new value is copied before the old one is freed, so
 * setting a key to its own current value (a pointer into the map) is
 * safe. */
void
strmap_set(struct strmap *m, const char *key, const char *value)
{
	long i = find(m, key);
	size_t at;

	if (i >= 0) {
		char *nv = xstrdup(value);

		free(m->v[i].value);
		m->v[i].value = nv;
		return;
	}
	at = (size_t)(-i - 1);
	ALLOC_GROW(m->v, m->n + 1, m->alloc);
	memmove(m->v + at + 1, m->v + at, (m->n - at) * sizeof(*m->v));
	m->v[at].key = xstrdup(key);
	m->v[at].value = xstrdup(value);
	m->n++;
}

/* Returns whether the key was there; the rest stays sorted. */
bool
strmap_del(struct strmap *m, const char *key)
{
	long i = find(m, key);

	if (i < 0)
		return false;
	free(m->v[i].key);
	free(m->v[i].value);
	memmove(m->v + i, m->v + i + 1, (m->n - (size_t)i - 1) * sizeof(*m->v));
	m->n--;
	return true;
}

/* Both sorted: equal iff the same pairs at the same indexes, O(n). An
 * absent map and an empty one are equal (n == 0 both), as Kubernetes'
 * semantic equality treats nil and empty maps. */
bool
strmap_equal(const struct strmap *a, const struct strmap *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (strcmp(a->v[i].key, b->v[i].key) ||
		    strcmp(a->v[i].value, b->v[i].value))
			return false;
	return true;
}
