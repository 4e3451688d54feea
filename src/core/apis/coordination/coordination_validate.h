/* coordination_validate.h - Kubernetes' validation of Leases
 * (pkg/apis/coordination/validation). As core_validate.h. */
#ifndef DROVER_COORDINATION_VALIDATE_H
#define DROVER_COORDINATION_VALIDATE_H

#include "coordination.h"
#include "fielderr.h"

void validate_lease(const struct lease *l, struct fielderr_list *errs);

#endif
