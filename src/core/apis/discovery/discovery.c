/* discovery.c - the field tables of discovery.k8s.io/v1 EndpointSlice
 * (discovery.h; the rules of the rows in schema_rows.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "discovery.h"
#include "schema_rows.h"
#include "xalloc.h"

/* discovery/v1.EndpointConditions: three *bool. */
static const struct field epcond_f[] = {
    F(endpoint_conditions, "ready", 1, FT_OPTBOOL, ready, O, NULL),
    F(endpoint_conditions, "serving", 2, FT_OPTBOOL, serving, O, NULL),
    F(endpoint_conditions, "terminating", 3, FT_OPTBOOL, terminating, O, NULL),
};
static const struct schema epcond_s = SCHEMA(endpoint_conditions, epcond_f);

static const struct field endpoint_f[] = {
    F(endpoint, "addresses", 1, FT_STRLIST, addresses, 0, NULL),
    F(endpoint, "conditions", 2, FT_STRUCT, conditions, 0, &epcond_s),
    F(endpoint, "targetRef", 4, FT_PTR, target_ref, O, &schema_object_ref),
    F(endpoint, "nodeName", 6, FT_STR, node_name, O, NULL),
};
static const struct schema endpoint_s = SCHEMA(endpoint, endpoint_f);

/* discovery/v1.EndpointPort: the rows of v1.EndpointPort
 * (schema_endpoint_port), with the slice's protobuf numbers (port is 3
 * here, 2 in an Endpoints). */
static const struct field endpoint_port_f[] = {
    F(endpoint_port, "name", 1, FT_STR, name, 0, NULL),
    F(endpoint_port, "port", 3, FT_INT, port, I32, NULL),
    F(endpoint_port, "protocol", 2, FT_STR, protocol, O, NULL),
    F(endpoint_port, "appProtocol", 4, FT_STR, app_protocol, O, NULL),
};
static const struct schema endpoint_port_s =
    SCHEMA(endpoint_port, endpoint_port_f);

static const struct field endpoint_slice_f[] = {
    F(endpoint_slice, "apiVersion", 0, FT_STR, api_version, O, NULL),
    F(endpoint_slice, "kind", 0, FT_STR, kind, O, NULL),
    F(endpoint_slice, "metadata", 1, FT_STRUCT, metadata, 0,
      &schema_object_meta),
    F(endpoint_slice, "addressType", 4, FT_STR, address_type, 0, NULL),
    F(endpoint_slice, "endpoints", 2, FT_LIST, endpoints, 0, &endpoint_s),
    F(endpoint_slice, "ports", 3, FT_LIST, ports, 0, &endpoint_port_s),
};
const struct schema schema_endpoint_slice =
    SCHEMA(endpoint_slice, endpoint_slice_f);
