/* downward.h - the downward API for environment variables
 * (env[].valueFrom.fieldRef): which field paths Kubernetes accepts, and
 * the value a path gives for a pod. Pure.
 *
 * Accepted, as Kubernetes' validEnvDownwardAPIFieldPathExpressions plus
 * the subscripted forms: metadata.name, metadata.namespace, metadata.uid,
 * metadata.labels['KEY'], metadata.annotations['KEY'], spec.nodeName,
 * spec.serviceAccountName, status.hostIP, status.hostIPs, status.podIP,
 * status.podIPs (and spec.host, the v1 alias of spec.nodeName). */
#ifndef DROVER_DOWNWARD_H
#define DROVER_DOWNWARD_H

#include <stdbool.h>

#include "fielderr.h"
#include "core.h"

/* validateObjectFieldSelector for env: errors under path (the fieldRef's
 * own path, "spec.containers[0].env[1].valueFrom.fieldRef"). */
void downward_validate_env(const struct field_ref *ref, const char *path,
			   struct fielderr_list *errs);

/* Splits "metadata.labels['k']" into "metadata.labels" and "k"
 * (fieldpath.SplitMaybeSubscriptedPath); false if not subscripted. The
 * pieces are copied into base and key, NUL-terminated, truncated to the
 * sizes given. */
bool downward_split(const char *path, char *base, size_t nbase, char *key,
		    size_t nkey);

/* The value of an accepted path for pod p on node `node` whose pod and
 * host address is `ip`: a pointer into p or to node/ip, never NULL ("" for
 * an absent label, annotation or unknown path). */
const char *downward_env_value(const struct pod *p, const char *path,
			       const char *node, const char *ip);

#endif
