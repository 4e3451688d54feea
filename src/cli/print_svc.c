/* print_svc.c - the table columns of `drover get` for Services,
 * EndpointSlices and Endpoints, and the Service part of `drover
 * describe`, as kubectl prints them (its printers.go: printService,
 * printEndpointSlice, printEndpoints, formatEndpoints; describe.go:
 * describeService).
 *
 *   NAME  TYPE       PORT(S)          AGE   [SELECTOR]      services
 *   web   ClusterIP  80/TCP,81/TCP    5m    app=web
 *   NAME        ADDRESSTYPE  PORTS  ENDPOINTS            AGE  slices
 *   web-x7k2p   IPv4         31001  127.0.0.1            5m
 *   NAME  ENDPOINTS                           AGE            endpoints
 *   web   127.0.0.1:31001,127.0.0.1:31002    5m
 *
 * kubectl shows at most three endpoints or ports and then " + N
 * more...". drover has no cluster IP: a Service is served on every
 * node's address at its port, so the CLUSTER-IP and EXTERNAL-IP
 * columns are left out. */
#include <stdio.h>
#include <string.h>

#include "common.h"

#define MAX_SHOWN 3

bool
cli_svc_header(enum kind_id id, bool wide, struct strbuf *sb)
{
	switch (id) {
	case KIND_SERVICE:
		strbuf_addstr(sb, "NAME\tTYPE\tPORT(S)\tAGE");
		if (wide)
			strbuf_addstr(sb, "\tSELECTOR");
		return true;
	case KIND_ENDPOINT_SLICE:
		strbuf_addstr(sb, "NAME\tADDRESSTYPE\tPORTS\tENDPOINTS\tAGE");
		return true;
	case KIND_ENDPOINTS:
		strbuf_addstr(sb, "NAME\tENDPOINTS\tAGE");
		return true;
	default:
		return false;
	}
}

/* " + N more..." after MAX_SHOWN items, as kubectl. */
static void
more(size_t shown, size_t total, struct strbuf *sb)
{
	if (total > shown)
		strbuf_addf(sb, " + %zu more...", total - shown);
}

/* kubectl's formatEndpoints: the ready addresses of every subset with
 * each port, "ip:port", at most three; "<none>" if there are none.
 * port_name non-NULL: only that port (describe's per-port line). */
void
cli_endpoints_string(const struct endpoints *e, const char *port_name,
		     struct strbuf *sb)
{
	size_t i, j, k, total = 0, shown = 0;

	for (i = 0; i < e->subsets.n; i++) {
		const struct endpoint_subset *ss = &e->subsets.v[i];

		for (k = 0; k < ss->ports.n; k++) {
			const char *pn = ss->ports.v[k].name;

			if (port_name && strcmp(pn ? pn : "", port_name))
				continue;
			for (j = 0; j < ss->addresses.n; j++) {
				total++;
				if (shown == MAX_SHOWN)
					continue;
				strbuf_addf(sb, "%s%s:%lld", shown ? "," : "",
					    ss->addresses.v[j].ip,
					    (long long)ss->ports.v[k].port);
				shown++;
			}
		}
	}
	if (total == 0)
		strbuf_addstr(sb, "<none>");
	more(shown, total, sb);
}

static void
service_ports(const struct service *s, struct strbuf *sb)
{
	size_t i;

	for (i = 0; i < s->spec.ports.n; i++)
		strbuf_addf(sb, "%s%lld/%s", i ? "," : "",
			    (long long)s->spec.ports.v[i].port,
			    s->spec.ports.v[i].protocol
				? s->spec.ports.v[i].protocol
				: "TCP");
	if (s->spec.ports.n == 0)
		strbuf_addstr(sb, "<none>");
}

/* printEndpointSlice: PORTS lists the port numbers ("<unset>" for
 * none), ENDPOINTS the addresses. */
static void
slice_cells(const struct endpoint_slice *s, struct strbuf *sb)
{
	size_t i, j, n = 0, shown = 0;

	strbuf_addf(sb, "%s\t", s->address_type ? s->address_type : "");
	for (i = 0; i < s->ports.n && i < MAX_SHOWN; i++)
		strbuf_addf(sb, "%s%lld", i ? "," : "",
			    (long long)s->ports.v[i].port);
	if (s->ports.n == 0)
		strbuf_addstr(sb, "<unset>");
	more(i, s->ports.n, sb);
	strbuf_addch(sb, '\t');
	for (i = 0; i < s->endpoints.n; i++)
		for (j = 0; j < s->endpoints.v[i].addresses.n; j++) {
			n++;
			if (shown == MAX_SHOWN)
				continue;
			strbuf_addf(sb, "%s%s", shown ? "," : "",
				    s->endpoints.v[i].addresses.v[j]);
			shown++;
		}
	if (n == 0)
		strbuf_addstr(sb, "<unset>");
	more(shown, n, sb);
	strbuf_addch(sb, '\t');
}

bool
cli_svc_row(const struct object *o, bool wide, const char *age,
	    struct strbuf *sb)
{
	switch (o->k->id) {
	case KIND_SERVICE: {
		const struct service *s = o->obj;

		strbuf_addf(sb, "%s\t", s->spec.type ? s->spec.type : "");
		service_ports(s, sb);
		strbuf_addf(sb, "\t%s", age);
		if (wide) {
			strbuf_addch(sb, '\t');
			cli_labels_string(&s->spec.selector, sb);
		}
		return true;
	}
	case KIND_ENDPOINT_SLICE:
		slice_cells(o->obj, sb);
		strbuf_addstr(sb, age);
		return true;
	case KIND_ENDPOINTS:
		cli_endpoints_string(o->obj, NULL, sb);
		strbuf_addf(sb, "\t%s", age);
		return true;
	default:
		return false;
	}
}
