/* schema_rows.h - how the API groups' field tables are written (the
 * schemas of schema.h): the row macros, and the rules the rows follow.
 *
 * One table per Go type, one row per field drover models: F(struct,
 * "jsonName", pb, type, member, flags, sub). The rows follow the order of
 * the fields in Kubernetes' Go types (k8s.io/api/core/v1 and apps/v1
 * types.go), so encoded objects list members in the order `kubectl get
 * -o json` shows them. The order also feeds the pod-template-hash,
 * computed over schema_dump() of the template, which walks these rows
 * in order: reordering, adding or removing a row under pod_template
 * (object_meta, pod_spec, container and below) renames every ReplicaSet
 * a Deployment creates afterwards (existing ones are still found: the
 * new-RS test compares templates, not hashes).
 *
 * pb is the field's number in Kubernetes' protobuf encoding, copied from
 * the message of the Go type in its generated.proto (k8s.io/api
 * core/v1, apps/v1, policy/v1, discovery/v1, coordination/v1;
 * k8s.io/apimachinery pkg/apis/meta/v1): `optional string
 * generateName = 2;` in message ObjectMeta is the row F(object_meta,
 * "generateName", 2, FT_STR, ...). The protobuf request bodies kubectl
 * sends are read by these numbers (src/codec/k8spb.c), so a wrong one
 * silently decodes the wrong field: copy it from the .proto, never
 * from the row order. 0 is "no number": a kind's apiVersion and kind,
 * which protobuf carries outside the message, and drover's own fields
 * (DeploymentStrategy.inPlaceUpdate, ContainerStatus.ports). A field of
 * a struct Go embeds inline is PB_INLINE(outer, inner) (schema.h):
 * Probe's exec is field 1 of the ProbeHandler in Probe's field 1. One
 * table serves one Go type: where two types share a C struct but not
 * their numbers (the conditions of each status), each has its table.
 *
 * Flags: O (omitempty) matches the Go json tag: a field tagged
 * `json:"replicas"` without omitempty (ReplicaSetStatus.replicas,
 * ContainerStatus.ready, exitCode) is always encoded, 0 included.
 * I32/I64 are the Go integer widths, so that `replicas: 3000000000` is
 * refused as Kubernetes refuses it. creationTimestamp is FF_NULLTIME:
 * Kubernetes prints an unset one as null rather than leaving it out.
 * QTY marks a resource.Quantity (a container's limits and requests), a
 * string in JSON and a message of its own in protobuf.
 *
 * Patch strategies (FK and FP rows): the lists a strategic merge patch
 * merges element by element, with Kubernetes' patchStrategy:"merge" and
 * patchMergeKey tags (core/v1 and apps/v1 types.go):
 *
 *   containers, env, volumes            by "name"
 *   volumeMounts                        by "mountPath"
 *   ports (container)                   by "containerPort"
 *   ports (Service)                     by "port"
 *   conditions (all statuses)           by "type"
 *   node addresses                      by "type"
 *   ownerReferences                     by "uid"
 *   podIPs                              by "ip"
 *   finalizers                          a set of strings (merge, no key)
 *
 * and one map with patchStrategy:"retainKeys", DeploymentSpec.strategy:
 * `kubectl apply` of {type: Recreate} over a RollingUpdate Deployment
 * sends {"$retainKeys": ["type"], "type": "Recreate"} and the server
 * drops rollingUpdate.
 *
 * Why it matters: `kubectl set image` and `kubectl apply` send patches
 * like {"spec":{"template":{"spec":{"containers":[{"name":"web",
 * "image":"web:2"}]}}}}; merging by name changes only that container's
 * image and keeps its ports, probes and env, where replacing the list
 * would leave a container with nothing but a name and an image. Lists
 * without a strategy (tolerations, taints, httpHeaders, command, args,
 * containerStatuses, matchExpressions) are replaced whole, as Kubernetes
 * does for lists without a patch strategy (src/codec/smp.c applies and
 * computes the patches). */
#ifndef DROVER_SCHEMA_ROWS_H
#define DROVER_SCHEMA_ROWS_H

#include <stddef.h>

#include "schema.h"

/* A plain row: no merge key. */
#define F(st, name, pb, ty, member, fl, sub)                                   \
	{                                                                      \
		name, ty, offsetof(struct st, member), fl, sub, NULL, 0, pb    \
	}
/* A plain row with a patch strategy (enum patch_strategy). */
#define FP(st, name, pb, ty, member, fl, sub, ps)                              \
	{                                                                      \
		name, ty, offsetof(struct st, member), fl, sub, NULL, ps, pb   \
	}
/* A list merged element by element in a strategic merge patch, the
 * elements named by member `key` (Kubernetes' patchMergeKey). */
#define FK(st, name, pb, member, fl, sub, key)                                 \
	{                                                                      \
		name, FT_LIST, offsetof(struct st, member), fl, sub, key,      \
		    PS_MERGE, pb                                               \
	}
#define O   FF_OMITEMPTY
#define I32 FF_INT32
#define I64 FF_INT64
#define QTY FF_QUANTITY

#endif
