/* coordination_validate.c - ValidateLease (pkg/apis/coordination/
 * validation/validation.go): the metadata, then ValidateLeaseSpec: a set
 * leaseDurationSeconds greater than 0, a set leaseTransitions not
 * negative. */
#include "coordination_validate.h"
#include "validation.h"

void
validate_lease(const struct lease *l, struct fielderr_list *errs)
{
	const struct lease_spec *s = &l->spec;

	validate_object_meta(&l->metadata, true, "metadata", errs);
	if (s->lease_duration_seconds.set && s->lease_duration_seconds.v <= 0)
		fielderr_addf_int(errs, FE_INVALID, "spec.leaseDurationSeconds",
				  s->lease_duration_seconds.v,
				  "must be greater than 0");
	if (s->lease_transitions.set && s->lease_transitions.v < 0)
		fielderr_addf_int(errs, FE_INVALID, "spec.leaseTransitions",
				  s->lease_transitions.v, MSG_GE0);
}
