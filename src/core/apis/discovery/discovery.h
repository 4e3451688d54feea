/* discovery.h - discovery.k8s.io/v1 EndpointSlice as drover models it
 * (discovery.c has its field table; its ports and target references are
 * core's v1.EndpointPort and v1.ObjectReference).
 *
 * Ownership: as core.h. */
#ifndef DROVER_DISCOVERY_H
#define DROVER_DISCOVERY_H

#include "core.h"

struct endpoint_conditions {
	struct opt_bool ready;
	struct opt_bool serving;
	struct opt_bool terminating;
};

struct endpoint {
	struct strlist addresses;
	struct endpoint_conditions conditions;
	struct object_ref *target_ref;
	char *node_name;
};
LIST_OF(endpoint);

struct endpoint_slice {
	char *api_version;
	char *kind;
	struct object_meta metadata;
	char *address_type; /* "IPv4" */
	struct endpoint_list endpoints;
	struct endpoint_port_list ports;
};
LIST_OF(endpoint_slice);

extern const struct schema schema_endpoint_slice;

/* Well-known names of EndpointSlices. */
#define LABEL_SERVICE_NAME    "kubernetes.io/service-name"
#define LABEL_MANAGED_BY      "endpointslice.kubernetes.io/managed-by"
#define MANAGED_BY_CONTROLLER "endpointslice-controller.k8s.io"

#endif
