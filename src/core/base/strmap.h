/* strmap.h - a small string-to-string map kept sorted by key.
 *
 * Used for labels, annotations and nodeSelector. Sorted order makes
 * output deterministic (Go's JSON encoder sorts map keys too). A strmap
 * owns its keys and values. An empty map and an absent one are the same
 * value (n == 0), as in Kubernetes' semantic equality. */
#ifndef DROVER_STRMAP_H
#define DROVER_STRMAP_H

#include <stdbool.h>
#include <stddef.h>

struct strmap_entry {
	char *key;
	char *value;
};

struct strmap {
	struct strmap_entry *v;
	size_t n;
	size_t alloc;
};

void strmap_release(struct strmap *m);
void strmap_copy(struct strmap *dst, const struct strmap *src);
const char *strmap_get(const struct strmap *m, const char *key);
void strmap_set(struct strmap *m, const char *key, const char *value);
bool strmap_del(struct strmap *m, const char *key); /* true if removed */
bool strmap_equal(const struct strmap *a, const struct strmap *b);

#endif
