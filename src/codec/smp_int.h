/* smp_int.h - what the files of the strategic merge patch share
 * (private to src/codec/smp*.c; callers see smp.h only).
 *
 *   smp.c       applying a patch (mergeMap): the API's PATCH, and the
 *               merge of two patches inside smp_three_way
 *   smp_diff.c  computing a patch (diffMaps): two-way and three-way
 *   smp_go.c    Go's view of decoded JSON (kinds, ==, DeepEqual, %v),
 *               mergepatch's errors, the schema's patch metadata, and
 *               the order of merged lists (normalizeElementOrder)
 *
 * Ownership: every function leaves its json_t arguments untouched and
 * returns new references the caller owns, or NULL with the first error
 * in the smp_ctx. */
#ifndef DROVER_CODEC_SMP_INT_H
#define DROVER_CODEC_SMP_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "schema.h"
#include "strbuf.h"

#define SMP_DIRECTIVE        "$patch"
#define SMP_RETAIN_KEYS      "$retainKeys"
#define SMP_DELETE_PRIMITIVE "$deleteFromPrimitiveList"
#define SMP_SET_ORDER        "$setElementOrder"

/* mergepatch's error texts (k8s.io/apimachinery/pkg/util/mergepatch). */
#define SMP_ERR_RETAIN        "invalid patch format of retainKeys"
#define SMP_ERR_PRIMITIVE     "invalid patch format of primitive list"
#define SMP_ERR_SET_ORDER     "invalid patch format of setElementOrder list"
#define SMP_ERR_LIST_OF_LISTS "lists of lists are not supported"

/* The first error of one call, into the caller's buffer. */
struct smp_ctx {
	char *err;
	size_t errlen;
	bool failed;
};

/* Records the error (the first one only); returns -1. */
int smp_fail(struct smp_ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The kind of a decoded value as Go sees it; an absent member and JSON
 * null are both nil, all numbers are float64. */
enum smp_kind { GK_NIL, GK_MAP, GK_SLICE, GK_STRING, GK_NUMBER, GK_BOOL };

enum smp_kind smp_kind(const json_t *v);
/* Go's %v of a value (maps with sorted keys, strings bare): appended to
 * sb, or as a new string the caller frees. */
void smp_go_value(struct strbuf *sb, const json_t *v);
char *smp_go_text(const json_t *v);
/* Go's == on decoded scalars; reflect.DeepEqual. */
bool smp_go_eq(const json_t *a, const json_t *b);
bool smp_deep_eq(const json_t *a, const json_t *b);
bool smp_has_prefix(const char *s, const char *prefix);

/* mergepatch.ErrNoMergeKey and ErrBadArgType; both return -1. */
int smp_no_merge_key(const json_t *m, const char *key, struct smp_ctx *c);
int smp_bad_arg_type(const char *expected, const json_t *actual,
		     struct smp_ctx *c);

/* What the schema says of a member: the sub-schema of a struct or of a
 * list's elements, the merge key, the strategy (enum patch_strategy). */
struct smp_meta {
	const struct schema *sub;
	const char *key;
	unsigned ps;
};

struct smp_meta smp_meta_of(const struct schema *s, const char *k);
/* sliceElementType: the one kind of every element of a and b. */
int smp_elem_kind(const json_t *a, const json_t *b, enum smp_kind *kind,
		  struct smp_ctx *c);
/* A list element's merge key value (key NULL: the element itself). */
const json_t *smp_key_of(const json_t *v, const char *key);
/* index: the position of x in l by merge key (or value), -1 if none. */
long smp_index_of(const json_t *l, const json_t *x, const char *key);
/* findMapInSliceBasedOnKeyValue: the position, -1, or -2 on error. */
long smp_find_by_key(const json_t *l, const char *key, const json_t *value,
		     struct smp_ctx *c);
/* The element is {"$patch": "delete", ...}. */
bool smp_is_delete(const json_t *v);
/* normalizeSliceOrder: list sorted by order (NULL on error). */
json_t *smp_sort_by_order(const json_t *list, const json_t *order,
			  const char *key, struct smp_ctx *c);
/* The merged list in its final order: items named by `by` in by's
 * order, the others in server's, interleaved (normalizeElementOrder). */
json_t *smp_order_merged(const json_t *merged, const json_t *by,
			 const json_t *server, const char *key,
			 struct smp_ctx *c);
/* mergeKeyValueEqual: 1, 0, or -1 on error. */
int smp_key_value_equal(const json_t *l, const json_t *r, const char *key,
			struct smp_ctx *c);

/* MergeOptions. */
struct smp_mopts {
	bool parallel;     /* MergeParallelList: the server applies the
			    * directives; false when combining two patches */
	bool ignore_nulls; /* IgnoreUnmatchedNulls */
};

/* mergeMap: orig (may be NULL) with patch merged in, a new object. */
json_t *smp_merge_map(json_t *orig, json_t *patch, const struct schema *s,
		      const struct smp_mopts *o, struct smp_ctx *c);

#endif
