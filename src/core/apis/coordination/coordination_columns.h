/* coordination_columns.h - the table of Leases. As table.h. */
#ifndef DROVER_COORDINATION_COLUMNS_H
#define DROVER_COORDINATION_COLUMNS_H

#include "coordination.h"
#include "table.h"

extern const struct column columns_lease[];
extern const size_t columns_lease_n;

#endif
