/* discovery_defaults.c - SetDefaults_EndpointPort of an EndpointSlice
 * (protocol TCP); its addressType has no default (it is required). */
#include "core_defaults.h"
#include "discovery_defaults.h"

void
defaults_endpoint_slice(struct endpoint_slice *s)
{
	defaults_endpoint_ports(&s->ports);
}
