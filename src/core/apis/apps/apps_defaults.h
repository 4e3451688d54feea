/* apps_defaults.h - Kubernetes' API defaulting of Deployments and
 * ReplicaSets (apps_defaults.c), as core_defaults.h. */
#ifndef DROVER_APPS_DEFAULTS_H
#define DROVER_APPS_DEFAULTS_H

#include "apps.h"

void defaults_deployment(struct deployment *d);
void defaults_replicaset(struct replicaset *rs);

#endif
