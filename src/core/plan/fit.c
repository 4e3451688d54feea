/* fit.c - NodeResourcesFit's arithmetic and NodePorts' conflict test
 * (see fit.h).
 *
 * Worked example: a node with allocatable {cpu: 2, memory: 1Gi, pods:
 * 110} and two pods bound to it requesting cpu 1 each (used: 2000m, 0
 * bytes, 2 pods). A third pod requesting cpu 1:
 *
 *   cpu     1000 > 2000 - 2000 = 0 free      -> Insufficient cpu
 *   memory  0 requested                       -> not looked at
 *   pods    2 + 1 <= 110                      -> fine
 *
 * so fit_check gives FIT_CPU, and the scheduler says "0/1 nodes are
 * available: 1 Insufficient cpu.". When one of the two pods goes away
 * (deleted and gone, or Succeeded/Failed) 1000m is free and it fits.
 * A pod that requests nothing (no resources at all) still needs a pod
 * slot: on that node the 111th pod gets "Too many pods". */
#include <stdio.h>
#include <string.h>

#include "fit.h"
#include "quantity.h"
#include "strbuf.h"
#include "xalloc.h"

/* value of key in m at scale, 0 if absent or not a quantity: cpu "500m"
 * at QTY_MILLI is 500, memory "1Gi" at QTY_UNIT 1073741824, "abc" 0 */
static int64_t
amount(const struct strmap *m, const char *key, enum qty_scale scale)
{
	int64_t v = 0;

	if (quantity_parse(strmap_get(m, key), scale, &v) != QTY_OK)
		return 0;
	return v;
}

/* a + b, saturating: a sum of validated int64 requests cannot wrap */
static int64_t
sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* computePodResourceRequest (noderesources/fit.go): the sum of the
 * containers' requests. Kubernetes then takes, per resource, the max of
 * that sum and each init container's request, and adds the pod's
 * overhead; drover models neither. Example: containers requesting
 * {cpu: 250m, memory: 64Mi} and {cpu: 1} -> 1250m, 67108864 bytes. */
void
fit_pod_request(const struct pod_spec *spec, struct res_amount *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	out->pods = 1;
	for (i = 0; i < spec->containers.n; i++) {
		const struct strmap *r =
		    &spec->containers.v[i].resources.requests;

		out->milli_cpu =
		    sat_add(out->milli_cpu, amount(r, "cpu", QTY_MILLI));
		out->memory =
		    sat_add(out->memory, amount(r, "memory", QTY_UNIT));
	}
}

/* A node whose allocatable has no "pods" entry has no pod slot: every
 * pod gets "Too many pods" there, as in Kubernetes (a kubelet always
 * reports pods, 110 unless --max-pods says otherwise). */
void
fit_node_allocatable(const struct node *n, struct res_amount *out)
{
	const struct strmap *a = &n->status.allocatable;

	out->milli_cpu = amount(a, "cpu", QTY_MILLI);
	out->memory = amount(a, "memory", QTY_UNIT);
	out->pods = amount(a, "pods", QTY_UNIT);
}

/* kube-scheduler's informer leaves out pods whose phase is Succeeded or
 * Failed (their processes are gone, their requests free); a pod being
 * deleted keeps its resources until the agent has stopped it and the
 * object is gone, so that a replacement never overlaps it on the node.
 * Examples: Pending without spec.nodeName: false (it holds nothing
 * yet); Running on node-1: true; Succeeded or Failed: false; Running
 * with a deletionTimestamp: true until the object is gone. */
bool
fit_pod_counts(const struct pod *p)
{
	const char *ph = p->status.phase;

	if (p->spec.node_name == NULL || !*p->spec.node_name)
		return false;
	return !(ph && (!strcmp(ph, "Succeeded") || !strcmp(ph, "Failed")));
}

/* fitsRequest (noderesources/fit.go) for cpu, memory and the pod
 * count. Kubernetes compares req > alloc - used; the sums here are the
 * same test without the subtraction's overflow.
 *
 * Example: allocatable {cpu 2000m, memory 1Gi, pods 110}, used {cpu
 * 2500m (allocatable shrank under bound pods), 0, 3 pods}. A pod
 * requesting nothing fits (4 <= 110, cpu not compared); one requesting
 * cpu 100m gets FIT_CPU; used pods at 110 would add FIT_PODS to it. */
unsigned
fit_check(const struct res_amount *req, const struct res_amount *used,
	  const struct res_amount *alloc)
{
	unsigned r = 0;

	if (sat_add(used->pods, req->pods) > alloc->pods)
		r |= FIT_PODS;
	/* free = alloc - used, compared without wrapping: used may exceed
	 * alloc when allocatable shrank under bound pods */
	if (req->milli_cpu > 0 &&
	    sat_add(used->milli_cpu, req->milli_cpu) > alloc->milli_cpu)
		r |= FIT_CPU;
	if (req->memory > 0 &&
	    sat_add(used->memory, req->memory) > alloc->memory)
		r |= FIT_MEMORY;
	return r;
}

/* The scheduler's running tally of a node's use (src/ctl/sched.c):
 * sign 1 when a pod starts to count on the node (bound, or assumed
 * while its binding is written), -1 when it stops (terminal, gone, or
 * an assumption undone). */
void
fit_add(struct res_amount *used, const struct res_amount *req, int sign)
{
	used->milli_cpu = sat_add(used->milli_cpu, sign * req->milli_cpu);
	used->memory = sat_add(used->memory, sign * req->memory);
	used->pods = sat_add(used->pods, sign * req->pods);
}

/* getContainerPorts + HostPortInfo.Add (nodeports.go, types.go): only
 * ports with a hostPort count; an empty protocol is TCP, an empty hostIP
 * is 0.0.0.0. Example: ports [{containerPort: 8080}, {containerPort: 80,
 * hostPort: 8000}, {containerPort: 53, hostPort: 53, protocol: UDP,
 * hostIP: 127.0.0.1}] give {8000 TCP 0.0.0.0} and {53 UDP 127.0.0.1}. */
size_t
fit_pod_host_ports(const struct pod_spec *spec, struct host_port **out)
{
	struct host_port *v = NULL;
	size_t n = 0, i, j;

	for (i = 0; i < spec->containers.n; i++) {
		const struct container_port_list *l =
		    &spec->containers.v[i].ports;

		for (j = 0; j < l->n; j++) {
			const struct container_port *cp = &l->v[j];
			struct host_port *h;

			if (cp->host_port <= 0 || cp->host_port > 65535)
				continue;
			v = xrealloc(v, (n + 1) * sizeof(*v));
			h = &v[n++];
			memset(h, 0, sizeof(*h));
			h->port = (int)cp->host_port;
			snprintf(h->protocol, sizeof(h->protocol), "%s",
				 cp->protocol && *cp->protocol ? cp->protocol
							       : "TCP");
			snprintf(h->ip, sizeof(h->ip), "%s",
				 cp->host_ip && *cp->host_ip ? cp->host_ip
							     : "0.0.0.0");
		}
	}
	*out = v;
	return n;
}

static bool
wildcard(const char *ip)
{
	return !strcmp(ip, "0.0.0.0") || !strcmp(ip, "::");
}

/* Example: used {8000 TCP 127.0.0.1}. Wanting {8000 TCP 0.0.0.0}
 * conflicts (every address includes 127.0.0.1), {8000 TCP 127.0.0.2}
 * does not, {8000 UDP 127.0.0.1} does not (another protocol), and with
 * used {8000 TCP 0.0.0.0} every address of TCP 8000 conflicts. */
bool
fit_ports_conflict(const struct host_port *want, size_t nwant,
		   const struct host_port *used, size_t nused)
{
	size_t i, j;

	for (i = 0; i < nwant; i++)
		for (j = 0; j < nused; j++) {
			const struct host_port *a = &want[i], *b = &used[j];

			if (a->port != b->port ||
			    strcmp(a->protocol, b->protocol))
				continue;
			if (wildcard(a->ip) || wildcard(b->ip) ||
			    !strcmp(a->ip, b->ip))
				return true;
		}
	return false;
}

/* One name=value of the flag. "pods=1.5" is refused: a count of pods is
 * whole, which "1.5" at scale 0 would silently round up to 2. The test
 * parses the value again at milli scale: "1.5" gives 2 and 1500, which
 * differ; "1k" gives 1000 and 1000000, which agree, so pods=1k is 1000
 * pods. cpu is kept at milli scale, so "cpu=0.5" is 500m. */
static int
parse_one(const char *kv, size_t len, struct strmap *out, struct strbuf *err)
{
	char buf[128], *eq;
	int64_t v, milli;

	if (len >= sizeof(buf)) {
		strbuf_addf(err, "\"%.*s...\": too long", 20, kv);
		return -1;
	}
	memcpy(buf, kv, len);
	buf[len] = '\0';
	eq = strchr(buf, '=');
	if (eq == NULL) {
		strbuf_addf(err, "\"%s\": expected NAME=QUANTITY", buf);
		return -1;
	}
	*eq++ = '\0';
	if (strcmp(buf, "cpu") && strcmp(buf, "memory") &&
	    strcmp(buf, "pods")) {
		strbuf_addf(err, "\"%s\": not one of cpu, memory, pods", buf);
		return -1;
	}
	if (strmap_get(out, buf)) {
		strbuf_addf(err, "%s: given twice", buf);
		return -1;
	}
	if (quantity_parse(eq, strcmp(buf, "cpu") ? QTY_UNIT : QTY_MILLI, &v) !=
		QTY_OK ||
	    v < 0) {
		strbuf_addf(err,
			    "%s: \"%s\": expected a quantity such as 4, "
			    "500m, 8Gi, at least 0",
			    buf, eq);
		return -1;
	}
	if (!strcmp(buf, "pods") &&
	    (quantity_parse(eq, QTY_MILLI, &milli) != QTY_OK ||
	     milli != v * 1000)) {
		strbuf_addf(err, "pods: \"%s\": expected a whole number", eq);
		return -1;
	}
	strmap_set(out, buf, eq);
	return 0;
}

/* "cpu=4,memory=8Gi" sets two entries; the agent keeps the host's own
 * value for a name left out (pods, here). An empty item fails on its
 * own: "cpu=4," reports "": expected NAME=QUANTITY. The values are
 * stored as written, and parsed again where they are used. */
int
fit_parse_allocatable(const char *s, struct strmap *out, struct strbuf *err)
{
	const char *p = s, *comma;

	if (s == NULL || *s == '\0') {
		strbuf_addstr(err, "expected cpu=N,memory=N,pods=N");
		return -1;
	}
	for (;;) {
		comma = strchr(p, ',');
		if (parse_one(p, comma ? (size_t)(comma - p) : strlen(p), out,
			      err))
			return -1;
		if (comma == NULL)
			return 0;
		p = comma + 1;
	}
}
