/* discovery_defaults.h - Kubernetes' API defaulting of EndpointSlices
 * (discovery_defaults.c), as core_defaults.h. */
#ifndef DROVER_DISCOVERY_DEFAULTS_H
#define DROVER_DISCOVERY_DEFAULTS_H

#include "discovery.h"

void defaults_endpoint_slice(struct endpoint_slice *s);

#endif
