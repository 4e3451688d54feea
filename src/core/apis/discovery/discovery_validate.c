/* discovery_validate.c - ValidateEndpointSlice, the part drover's
 * slices use (discovery_validate.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "discovery_validate.h"
#include "validation.h"

/* ValidateEndpointSlice, in part: addressType IPv4, IPv6 or FQDN
 * (required); every endpoint has 1 address (drover writes one; Kubernetes
 * allows up to 100); ports 1..65535 (Kubernetes: 0 too, for "all
 * ports"). Only the controller writes these objects; the rules catch a
 * user's hand-written slice that no proxy could use. */
void
validate_endpoint_slice(const struct endpoint_slice *s,
			struct fielderr_list *errs)
{
	struct strbuf p = STRBUF_INIT;
	size_t i;

	validate_object_meta(&s->metadata, true, "metadata", errs);
	if (s->address_type == NULL || !*s->address_type)
		fielderr_add(errs, FE_REQUIRED, "addressType", NULL, "");
	else if (strcmp(s->address_type, "IPv4") &&
		 strcmp(s->address_type, "IPv6") &&
		 strcmp(s->address_type, "FQDN"))
		fielderr_addf_str(errs, FE_NOT_SUPPORTED, "addressType",
				  s->address_type,
				  "supported values: \"FQDN\", \"IPv4\", "
				  "\"IPv6\"");
	for (i = 0; i < s->endpoints.n; i++)
		if (s->endpoints.v[i].addresses.n != 1)
			fielderr_add(
			    errs, FE_INVALID,
			    val_pathf(&p, "endpoints[%zu].addresses", i), NULL,
			    "must contain exactly 1 address");
	for (i = 0; i < s->ports.n; i++)
		if (s->ports.v[i].port < 1 || s->ports.v[i].port > 65535)
			fielderr_addf_int(
			    errs, FE_INVALID,
			    val_pathf(&p, "ports[%zu].port", i),
			    s->ports.v[i].port,
			    "must be between 1 and 65535, inclusive");
	strbuf_release(&p);
}
