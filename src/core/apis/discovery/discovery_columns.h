/* discovery_columns.h - the table of EndpointSlices. As table.h. */
#ifndef DROVER_DISCOVERY_COLUMNS_H
#define DROVER_DISCOVERY_COLUMNS_H

#include "discovery.h"
#include "table.h"

extern const struct column columns_endpoint_slice[];
extern const size_t columns_endpoint_slice_n;

#endif
