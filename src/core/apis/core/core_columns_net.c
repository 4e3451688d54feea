/* core_columns_net.c - the columns of Services, Endpoints and Nodes
 * (printers.go: printService, printEndpoints, printNode), registered in
 * columns.c; EndpointSlices' are in discovery_columns.c.
 *
 *   NAME  TYPE       CLUSTER-IP  EXTERNAL-IP  PORT(S)        AGE     services
 *   web   ClusterIP  127.0.0.1   <none>       80/TCP,81/TCP  5m
 *   NAME  ENDPOINTS                        AGE                      endpoints
 *   web   127.0.0.1:31001,127.0.0.1:31002  5m
 *   NAME       ADDRESSTYPE  PORTS  ENDPOINTS  AGE                   slices
 *   web-x7k2p  IPv4         31001  127.0.0.1  5m
 *   NAME    STATUS  ROLES   AGE  VERSION  [INTERNAL-IP ...]          nodes
 *   node-1  Ready   <none>  5m   v1.28.0-drover
 *
 * kubectl shows at most three endpoints or ports and then " + N
 * more...". drover has no virtual cluster IP: a Service is served on
 * every node's address at its port, and spec.clusterIP holds the
 * address of the API server's node (h_service.c), which CLUSTER-IP
 * shows as Kubernetes does; EXTERNAL-IP is <none> (no load balancer, no
 * externalIPs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_columns.h"
#include "xalloc.h"

/* formatEndpoints: address:port pairs, port by port within each
 * subset, three at most. A subset of five addresses with one port 80
 * prints "10.0.0.1:80,10.0.0.2:80,10.0.0.3:80 + 2 more...". port_name
 * (`describe`'s per-port form) keeps only that port's pairs. A subset
 * without ports adds nothing here; kubectl lists its bare IPs (a
 * headless Service's, which drover's Services cannot be). */
void
columns_endpoints(const struct endpoints *e, const char *port_name,
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
				if (shown == COLUMNS_MAX_SHOWN)
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
	columns_more(shown, total, sb);
}

/* ---- Service ----
 *
 * printService: TYPE is spec.type, CLUSTER-IP spec.clusterIPs[0] (else
 * clusterIP, else <none>), EXTERNAL-IP <none>, PORT(S) each port as
 * "port/protocol" (Kubernetes adds ":nodePort" for NodePort Services;
 * drover's NodePort is the port itself, so it adds nothing), SELECTOR
 * (wide) the selector map. */

static void
cell_svc_type(const struct object *o, dtime now, struct strbuf *out)
{
	const struct service *s = o->obj;

	(void)now;
	strbuf_addstr(out, s->spec.type ? s->spec.type : "");
}

static void
cell_svc_cluster_ip(const struct object *o, dtime now, struct strbuf *out)
{
	const struct service_spec *sp = &((const struct service *)o->obj)->spec;

	(void)now;
	strbuf_addstr(out, sp->cluster_ips.n ? sp->cluster_ips.v[0]
			   : sp->cluster_ip && *sp->cluster_ip ? sp->cluster_ip
							       : "<none>");
}

/* getServiceExternalIP for ClusterIP and NodePort Services without
 * externalIPs, which drover does not model. */
static void
cell_svc_external_ip(const struct object *o, dtime now, struct strbuf *out)
{
	(void)o;
	(void)now;
	strbuf_addstr(out, "<none>");
}

/* makePortString: "80/TCP", one per port, "<none>" without. */
static void
cell_svc_ports(const struct object *o, dtime now, struct strbuf *out)
{
	const struct service *s = o->obj;
	size_t i;

	(void)now;
	for (i = 0; i < s->spec.ports.n; i++)
		strbuf_addf(out, "%s%lld/%s", i ? "," : "",
			    (long long)s->spec.ports.v[i].port,
			    s->spec.ports.v[i].protocol
				? s->spec.ports.v[i].protocol
				: "TCP");
	if (s->spec.ports.n == 0)
		strbuf_addstr(out, "<none>");
}

static void
cell_svc_selector(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	columns_labels(&((const struct service *)o->obj)->spec.selector, out);
}

const struct column columns_service[] = {
    NAME_COL,
    {"Type", "string", "", 0,
     "type determines how the Service is exposed. drover: ClusterIP or "
     "NodePort, both served on every node's address at the port.",
     cell_svc_type},
    {"Cluster-IP", "string", "", 0,
     "Cluster IP of the service. drover: the address of the API server's "
     "node; every node serves the Service at its own address.",
     cell_svc_cluster_ip},
    {"External-IP", "string", "", 0, "External IP of the service.",
     cell_svc_external_ip},
    {"Port(s)", "string", "", 0,
     "The list of ports that are exposed by this service.", cell_svc_ports},
    AGE_COL,
    {"Selector", "string", "", 1,
     "Route service traffic to pods with label keys and values matching "
     "this selector.",
     cell_svc_selector},
};
const size_t columns_service_n = COLUMNS_N(columns_service);

/* ---- Endpoints ----
 *
 * printEndpoints: the ready addresses with their ports, three at most.
 * drover's endpoints are host ports on 127.0.0.1, one per pod:
 * "127.0.0.1:31001,127.0.0.1:31002". */

static void
cell_endpoints(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	columns_endpoints(o->obj, NULL, out);
}

const struct column columns_endpoints_tbl[] = {
    NAME_COL,
    {"Endpoints", "string", "", 0, "Endpoints of the service.", cell_endpoints},
    AGE_COL,
};
const size_t columns_endpoints_n = COLUMNS_N(columns_endpoints_tbl);

/* ---- Node (printNode) ----
 *
 *   NAME  STATUS                    ROLES          AGE  VERSION
 *   vm    Ready,SchedulingDisabled  control-plane  3d   drover-agent
 *
 * VERSION is nodeInfo.kubeletVersion, which drover's agent reports as
 * "drover-agent"; the wide columns are the first InternalIP and
 * ExternalIP addresses, the OS image and kernel the agent reports
 * ("<unknown>" when empty) and the runtime, always drover's process
 * runtime. */

/* "Ready" / "NotReady" / "Unknown" from the Ready condition (Unknown
 * also when there is none), then ",SchedulingDisabled" for a cordoned
 * node: `kubectl cordon node-1` -> "Ready,SchedulingDisabled". */
static void
cell_node_status(const struct object *o, dtime now, struct strbuf *out)
{
	const struct node *n = o->obj;
	const char *st = "Unknown";
	size_t i;

	(void)now;
	for (i = 0; i < n->status.conditions.n; i++) {
		const struct condition *c = &n->status.conditions.v[i];

		if (c->type && !strcmp(c->type, "Ready"))
			st = c->status && !strcmp(c->status, "True")
				 ? "Ready"
				 : "NotReady";
	}
	strbuf_addstr(out, st);
	if (n->spec.unschedulable)
		strbuf_addstr(out, ",SchedulingDisabled");
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* findNodeRoles: the suffix of every "node-role.kubernetes.io/ROLE"
 * label and the value of "kubernetes.io/role", as a sorted set, comma
 * separated: {node-role.kubernetes.io/control-plane: "",
 * kubernetes.io/role: edge} -> "control-plane,edge"; "<none>". */
static void
cell_node_roles(const struct object *o, dtime now, struct strbuf *out)
{
	const struct strmap *l =
	    &((const struct node *)o->obj)->metadata.labels;
	static const char prefix[] = "node-role.kubernetes.io/";
	const char **roles = xcalloc(l->n + 1, sizeof(*roles));
	size_t i, n = 0;

	(void)now;
	for (i = 0; i < l->n; i++) {
		const char *role = NULL;

		if (!strncmp(l->v[i].key, prefix, sizeof(prefix) - 1))
			role = l->v[i].key + sizeof(prefix) - 1;
		else if (!strcmp(l->v[i].key, "kubernetes.io/role"))
			role = l->v[i].value;
		if (role && *role)
			roles[n++] = role;
	}
	qsort(roles, n, sizeof(*roles), cmp_str);
	for (i = 0; i < n; i++)
		if (i == 0 || strcmp(roles[i], roles[i - 1]))
			strbuf_addf(out, "%s%s", i ? "," : "", roles[i]);
	if (n == 0)
		strbuf_addstr(out, "<none>");
	free(roles);
}

static void
unknown_if_empty(const char *s, struct strbuf *out)
{
	strbuf_addstr(out, s && *s ? s : "<unknown>");
}

static void
cell_node_version(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	strbuf_addstr(
	    out, ((const struct node *)o->obj)->status.node_info.kubelet_version
		     ? ((const struct node *)o->obj)
			   ->status.node_info.kubelet_version
		     : "");
}

/* getNodeInternalIP / getNodeExternalIP: the first address of the
 * type, "<none>". */
static void
node_address(const struct node *n, const char *type, struct strbuf *out)
{
	size_t i;

	for (i = 0; i < n->status.addresses.n; i++)
		if (n->status.addresses.v[i].type &&
		    !strcmp(n->status.addresses.v[i].type, type) &&
		    n->status.addresses.v[i].address) {
			strbuf_addstr(out, n->status.addresses.v[i].address);
			return;
		}
	strbuf_addstr(out, "<none>");
}

static void
cell_node_internal_ip(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	node_address(o->obj, "InternalIP", out);
}

static void
cell_node_external_ip(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	node_address(o->obj, "ExternalIP", out);
}

static void
cell_node_os_image(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	unknown_if_empty(
	    ((const struct node *)o->obj)->status.node_info.os_image, out);
}

static void
cell_node_kernel(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	unknown_if_empty(
	    ((const struct node *)o->obj)->status.node_info.kernel_version,
	    out);
}

/* drover's node agent runs processes, not containers: its runtime. */
static void
cell_node_runtime(const struct object *o, dtime now, struct strbuf *out)
{
	(void)o;
	(void)now;
	strbuf_addstr(out, "drover-process");
}

const struct column columns_node[] = {
    NAME_COL,
    {"Status", "string", "", 0, "The status of the node", cell_node_status},
    {"Roles", "string", "", 0, "The roles of the node", cell_node_roles},
    AGE_COL,
    {"Version", "string", "", 0, "Kubelet Version reported by the node.",
     cell_node_version},
    {"Internal-IP", "string", "", 1, "List of addresses reachable to the node.",
     cell_node_internal_ip},
    {"External-IP", "string", "", 1, "List of addresses reachable to the node.",
     cell_node_external_ip},
    {"OS-Image", "string", "", 1, "OS Image reported by the node.",
     cell_node_os_image},
    {"Kernel-Version", "string", "", 1, "Kernel Version reported by the node.",
     cell_node_kernel},
    {"Container-Runtime", "string", "", 1,
     "Container Runtime Version reported by the node.", cell_node_runtime},
};
const size_t columns_node_n = COLUMNS_N(columns_node);
