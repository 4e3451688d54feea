/* smp.h - Kubernetes' strategic merge patch, once, for every kind: the
 * server applies it (PATCH with application/strategic-merge-patch+json,
 * src/api/patch.c) and `drover apply` computes it (src/cli/cmd_apply.c),
 * both from the patch strategies of the schema tables (struct field
 * .patch and .merge_key in src/core/apis (core.c, apps.c, discovery.c): Kubernetes' patchStrategy
 * and patchMergeKey struct tags), as k8s.io/apimachinery's
 * pkg/util/strategicpatch does from the Go types.
 *
 * What a patch means (worked examples in smp.c and tests/unit/codec_smp.c):
 *   - maps merge key by key; null deletes a key;
 *   - lists with strategy merge merge element by element, by merge key
 *     (containers by "name") or, lists of strings, as a set
 *     (finalizers); other lists are replaced whole;
 *   - directives: "$patch": "replace" | "delete" (a map, or a list
 *     element: {"name": "side", "$patch": "delete"}),
 *     "$setElementOrder/<list>" (the order of the merged list),
 *     "$retainKeys" (the keys a map keeps, for PS_RETAIN_KEYS fields),
 *     "$deleteFromPrimitiveList/<list>" (strings to remove from a
 *     merged list of strings).
 *
 * Every function leaves its arguments untouched and returns a new
 * reference the caller owns, or NULL with Kubernetes' error text in err
 * (mergepatch's errors: "unknown patch type: remove in map: map[...]",
 * "invalid patch format of retainKeys", "map: map[image:x] does not
 * contain declared merge key: name"). */
#ifndef DROVER_CODEC_SMP_H
#define DROVER_CODEC_SMP_H

#include <jansson.h>
#include <stddef.h>

#include "schema.h"

/* StrategicMergeMapPatch: target with patch applied, under schema s
 * (NULL: no strategies known, maps merge and lists are replaced). */
json_t *smp_apply(json_t *target, json_t *patch, const struct schema *s,
		  char *err, size_t errlen);

/* CreateTwoWayMergePatch: the patch that turns orig into mod, with
 * "$setElementOrder" lists where a merged list changed. */
json_t *smp_two_way(json_t *orig, json_t *mod, const struct schema *s,
		    char *err, size_t errlen);

/* CreateThreeWayMergePatch (overwrite = true), what `kubectl apply`
 * sends: orig is the last applied configuration (NULL: none), mod the
 * new manifest, cur the live object. Fields mod sets that cur lacks or
 * holds differently are set; fields orig had and mod dropped are
 * deleted; fields only cur has (defaults, controllers) stay. */
json_t *smp_three_way(json_t *orig, json_t *mod, json_t *cur,
		      const struct schema *s, char *err, size_t errlen);

#endif
