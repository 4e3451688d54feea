/* columns.h - the table columns of every kind: what `kubectl get` (through
 * the API's server-side Table, api/table.c) and `drover get` (cli/cmd_get.c)
 * print. The columns and their rules are table.h's; each API group's
 * tables are in its room (core_columns.h, apps_columns.h,
 * discovery_columns.h); columns_of() is the registry (columns.c). */
#ifndef DROVER_COLUMNS_H
#define DROVER_COLUMNS_H

#include "apps_columns.h"
#include "coordination_columns.h"
#include "core_columns.h"
#include "discovery_columns.h"
#include "kinds.h"
#include "policy_columns.h"
#include "table.h"

/* The columns of kind id, in order (Kubernetes' default table for a
 * kind without its own); never NULL (*n >= 2). Static data. */
const struct column *columns_of(enum kind_id id, size_t *n);

#endif
