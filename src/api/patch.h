/* patch.h - JSON Merge Patch (RFC 7386) and JSON Patch (RFC 6902) on
 * jansson values, and Kubernetes' strategic merge patch for the kinds
 * drover serves: a list merges element by element by the merge key its
 * schema declares (struct field.merge_key: containers by "name", ports by
 * "containerPort", conditions by "type"); other lists are replaced. The
 * keys are read through src/codec/keyed.h, as `drover apply`'s three-way
 * patch and the agent's status diff read them. */
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

json_t *patch_json(json_t *target, json_t *ops, char *err, size_t errlen);

#endif
