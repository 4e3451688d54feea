/* patch.h - JSON Merge Patch (RFC 7386) and JSON Patch (RFC 6902) on
 * jansson values, and a strategic merge patch for the kinds drover serves
 * (lists of named items such as containers merge by name). */
#ifndef DROVER_API_PATCH_H
#define DROVER_API_PATCH_H

#include <jansson.h>

/* Each returns a new reference to the patched document, or NULL with a
 * message in err (a strategic merge patch: an unknown "$patch"
 * directive). The target is not modified. */
json_t *patch_merge(json_t *target, json_t *patch);
json_t *patch_strategic(json_t *target, json_t *patch, char *err,
			size_t errlen);
json_t *patch_json(json_t *target, json_t *ops, char *err, size_t errlen);

#endif
