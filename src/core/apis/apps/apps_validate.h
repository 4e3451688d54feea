/* apps_validate.h - Kubernetes' validation of the apps/v1 kinds drover
 * serves (pkg/apis/apps/validation): Deployment (with drover's
 * InPlaceUpdate strategy) and ReplicaSet. As core_validate.h: every
 * problem is appended to errs, after defaulting. */
#ifndef DROVER_APPS_VALIDATE_H
#define DROVER_APPS_VALIDATE_H

#include "apps.h"
#include "fielderr.h"

void validate_deployment(const struct deployment *d,
			 struct fielderr_list *errs);
void validate_replicaset(const struct replicaset *rs,
			 struct fielderr_list *errs);

#endif
