/* coordination.c - the field table of coordination.k8s.io/v1 Lease, in
 * the order of k8s.io/api/coordination/v1 types.go (coordination.h; the
 * rules of the rows in schema_rows.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "coordination.h"
#include "schema_rows.h"

#define MICRO (O | FF_MICROTIME)

static const struct field lease_spec_f[] = {
    F(lease_spec, "holderIdentity", 1, FT_STR, holder_identity, O, NULL),
    F(lease_spec, "leaseDurationSeconds", 2, FT_OPTINT, lease_duration_seconds,
      O | I32, NULL),
    F(lease_spec, "acquireTime", 3, FT_TIME, acquire_time, MICRO, NULL),
    F(lease_spec, "renewTime", 4, FT_TIME, renew_time, MICRO, NULL),
    F(lease_spec, "leaseTransitions", 5, FT_OPTINT, lease_transitions, O | I32,
      NULL),
};
static const struct schema lease_spec_s = SCHEMA(lease_spec, lease_spec_f);

static const struct field lease_f[] = {
    F(lease, "apiVersion", 0, FT_STR, api_version, O, NULL),
    F(lease, "kind", 0, FT_STR, kind, O, NULL),
    F(lease, "metadata", 1, FT_STRUCT, metadata, 0, &schema_object_meta),
    F(lease, "spec", 2, FT_STRUCT, spec, 0, &lease_spec_s),
};
const struct schema schema_lease = SCHEMA(lease, lease_f);

void
lease_release(struct lease *l)
{
	schema_release(&schema_lease, l);
}
