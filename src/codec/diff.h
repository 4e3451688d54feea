/* diff.h - the two-way strategic merge patch between two encodings of
 * one object (Kubernetes' strategicpatch.CreateTwoWayMergePatch), with
 * the merge keys of the schema tables (struct field.merge_key): the
 * patch the agent sends for a pod's status, made from the status it
 * last knew and the new one, as the kubelet's status manager does
 * (PatchPodStatus). The server applies it with patch_strategic
 * (src/api/patch.c); applying the patch to orig gives mod.
 *
 * It is smp_two_way (src/codec/smp.h), Kubernetes' algorithm: a keyed
 * list that changed carries "$setElementOrder/<list>" with mod's keys.
 * Where that refuses the input (a keyed list whose elements lack their
 * key), each changed member is sent whole with a {"$patch": "replace"}
 * directive instead. JSON null means absent, as in the codec. */
#ifndef DROVER_CODEC_DIFF_H
#define DROVER_CODEC_DIFF_H

#include <jansson.h>

#include "schema.h"

/* The patch from orig to mod, two objects encoded with schema s (NULL:
 * no merge keys known at this level): an object holding what changed,
 * empty if nothing did.
 *
 * - a member gone from mod: null;
 * - an object in both: the patch of the two, left out if empty;
 * - a list with a merge key: the elements added (whole), the elements
 *   changed (their patch with their key), {key, "$patch": "delete"} for
 *   those gone, and the order; e.g. conditions by "type":
 *     orig [{"type":"Ready","status":"False"},{"type":"PodScheduled",...}]
 *     mod  [{"type":"Ready","status":"True"}]
 *     patch "$setElementOrder/conditions": [{"type":"Ready"}],
 *           "conditions": [{"type":"Ready","status":"True"},
 *                          {"type":"PodScheduled","$patch":"delete"}]
 * - anything else that differs (scalars, lists without a key): mod's.
 *
 * Returns a new reference the caller owns; orig and mod are not
 * modified. */
json_t *codec_two_way_patch(json_t *orig, json_t *mod, const struct schema *s);

#endif
