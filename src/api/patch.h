/* patch.h - JSON Merge Patch (RFC 7386) and JSON Patch (RFC 6902) on
 * jansson values, and Kubernetes' strategic merge patch for the kinds
 * drover serves: a list merges element by element by the merge key its
 * schema declares (struct field.merge_key: containers by "name", ports by
 * "containerPort", conditions by "type"); other lists are replaced. The
 * server (h_write.c) and `drover apply`'s three-way patch (cmd_apply.c)
 * both read the keys here. */
#ifndef DROVER_API_PATCH_H
#define DROVER_API_PATCH_H

#include <jansson.h>

#include "schema.h"

/* Each returns a new reference to the patched document, or NULL with a
 * message in err (a strategic merge patch: an unknown "$patch"
 * directive). The target is not modified. */
json_t *patch_merge(json_t *target, json_t *patch);
json_t *patch_strategic(json_t *target, json_t *patch, const struct schema *s,
			char *err, size_t errlen);

/* The field member of schema s (NULL if s is NULL or has none), the
 * merge key of a list field (NULL: not merged by key), and the element
 * of list whose key member equals value (NULL if none). */
const struct field *patch_field(const struct schema *s, const char *member);
const char *patch_merge_key(const struct field *f);
json_t *patch_find_keyed(json_t *list, const char *key, json_t *value);
json_t *patch_json(json_t *target, json_t *ops, char *err, size_t errlen);

#endif
