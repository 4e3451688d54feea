/* apps_columns.h - the tables of the apps/v1 kinds (printDeployment,
 * printReplicaSet). As table.h. */
#ifndef DROVER_APPS_COLUMNS_H
#define DROVER_APPS_COLUMNS_H

#include "apps.h"
#include "table.h"

extern const struct column columns_deployment[], columns_replicaset[];
extern const size_t columns_deployment_n, columns_replicaset_n;

#endif
