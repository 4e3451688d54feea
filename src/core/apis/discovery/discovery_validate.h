/* discovery_validate.h - Kubernetes' validation of EndpointSlices
 * (pkg/apis/discovery/validation), the part drover's slices use. As
 * core_validate.h: every problem is appended to errs. */
#ifndef DROVER_DISCOVERY_VALIDATE_H
#define DROVER_DISCOVERY_VALIDATE_H

#include "discovery.h"
#include "fielderr.h"

void validate_endpoint_slice(const struct endpoint_slice *s,
			     struct fielderr_list *errs);

#endif
