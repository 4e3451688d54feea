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

/* kube-apiserver's bounds on a JSON patch: at most 10,000 operations
 * (handlers/patch.go, maxJSONPatchOperations), and at most 3 MiB added by
 * its copy operations together (evanphx/json-patch's
 * AccumulatedCopySizeLimit, which kube-apiserver sets to
 * JSONPatchMaxCopyBytes, 3 MiB). Without the second, 18 copies of
 * /metadata into its own annotations (1.3 KB of patch) made 185 MB. */
#define PATCH_MAX_OPS        10000
#define PATCH_MAX_COPY_BYTES (3 * 1024 * 1024)

/* Why patch_json refused a patch, and so what the API answers. */
enum patch_refusal {
	/* 400: not a list of operations (json.Unmarshal's error, "json:
	 * cannot unmarshal object into Go value of type jsonpatch.Patch") */
	PATCH_MALFORMED = 1,
	/* 413: "The allowed maximum operations in a JSON patch is 10000,
	 * got N" */
	PATCH_TOO_MANY,
	/* 422: an operation does not apply, or the copies passed the limit
	 * ("Unable to complete the copy, the accumulated size increase of
	 * copy is N, exceeding the limit 3145728"); kube-apiserver answers
	 * both without the reason (NewGenericServerResponse) */
	PATCH_NOT_APPLIED,
};

/* RFC 6902 within the bounds above: the patched document, or NULL with
 * *refusal set and the reason in err. Each operation is checked before
 * it builds anything, so a refused patch costs at most what the bounds
 * allow. */
json_t *patch_json(json_t *target, json_t *ops, int *refusal, char *err,
		   size_t errlen);

/* The length of json.Marshal's text of v (compact; Go's escapes, \u003c
 * for '<' and the like): what a copy adds to the copy limit's count, and
 * the size of an object to store (h_write.c). Each node shared within v
 * is measured once, so a value that holds one subtree 2^k times costs k
 * steps. */
size_t patch_json_size(json_t *v);

#endif
