/* discovery_columns.c - the table of EndpointSlices (printers.go
 * printEndpointSlice), discovery_columns.h:
 *
 *   NAME       ADDRESSTYPE  PORTS  ENDPOINTS  AGE
 *   web-x7k2p  IPv4         31001  127.0.0.1  5m */
#include <stdio.h>

#include "discovery_columns.h"

/* ---- EndpointSlice ----
 *
 * printEndpointSlice: ADDRESSTYPE, the ports' numbers and the endpoints'
 * addresses, "<unset>" where Kubernetes prints it. A slice's ports are
 * the host ports of its pods, so drover's slices differ per port set
 * (plan_endpoints.c). */

static void
cell_slice_type(const struct object *o, dtime now, struct strbuf *out)
{
	const struct endpoint_slice *s = o->obj;

	(void)now;
	strbuf_addstr(out, s->address_type ? s->address_type : "");
}

/* formatDiscoveryPorts: the port numbers, "<unset>" for none. */
static void
cell_slice_ports(const struct object *o, dtime now, struct strbuf *out)
{
	const struct endpoint_slice *s = o->obj;
	size_t i;

	(void)now;
	for (i = 0; i < s->ports.n && i < COLUMNS_MAX_SHOWN; i++)
		strbuf_addf(out, "%s%lld", i ? "," : "",
			    (long long)s->ports.v[i].port);
	if (s->ports.n == 0)
		strbuf_addstr(out, "<unset>");
	columns_more(i, s->ports.n, out);
}

/* formatDiscoveryEndpoints: every address, "<unset>" for none. */
static void
cell_slice_endpoints(const struct object *o, dtime now, struct strbuf *out)
{
	const struct endpoint_slice *s = o->obj;
	size_t i, j, n = 0, shown = 0;

	(void)now;
	for (i = 0; i < s->endpoints.n; i++)
		for (j = 0; j < s->endpoints.v[i].addresses.n; j++) {
			n++;
			if (shown == COLUMNS_MAX_SHOWN)
				continue;
			strbuf_addf(out, "%s%s", shown ? "," : "",
				    s->endpoints.v[i].addresses.v[j]);
			shown++;
		}
	if (n == 0)
		strbuf_addstr(out, "<unset>");
	columns_more(shown, n, out);
}

const struct column columns_endpoint_slice[] = {
    NAME_COL,
    {"AddressType", "string", "", 0,
     "The type of address carried by this EndpointSlice.", cell_slice_type},
    {"Ports", "string", "", 0, "Ports provided by this EndpointSlice.",
     cell_slice_ports},
    {"Endpoints", "string", "", 0, "Endpoints carried by this EndpointSlice.",
     cell_slice_endpoints},
    AGE_COL,
};
const size_t columns_endpoint_slice_n = COLUMNS_N(columns_endpoint_slice);
