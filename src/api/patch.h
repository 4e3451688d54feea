/* patch.h - JSON Merge Patch (RFC 7386) and JSON Patch (RFC 6902) on
 * jansson values, and Kubernetes' strategic merge patch for the kinds
 * drover serves (src/codec/smp.h, from the patch strategies of the
 * schema tables: lists with strategy merge merge element by element,
 * containers by "name", finalizers as a set; "$setElementOrder",
 * "$retainKeys", "$patch" and "$deleteFromPrimitiveList" directives;
 * other lists are replaced). `drover apply` computes its patches with the
 * same code (smp_three_way). */
#ifndef DROVER_API_PATCH_H
#define DROVER_API_PATCH_H

#include <jansson.h>

#include "schema.h"

/* Each returns a new reference to the patched document, or NULL with a
 * message in err (a strategic merge patch: Kubernetes' text, e.g.
 * "unknown patch type: remove in map: map[$patch:remove name:web]"; the
 * API answers 400). The target is not modified. */
json_t *patch_merge(json_t *target, json_t *patch);
json_t *patch_strategic(json_t *target, json_t *patch, const struct schema *s,
			char *err, size_t errlen);

json_t *patch_json(json_t *target, json_t *ops, char *err, size_t errlen);

#endif
