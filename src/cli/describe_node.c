/* describe_node.c - `drover describe node`: kubectl's describeNode, line
 * for line for the fields drover has.
 *
 *   Name:               node-1
 *   Roles:              <none>
 *   ...
 *   Lease:
 *     HolderIdentity:  node-1
 *   Conditions:          (a table)
 *   Addresses, Capacity, Allocatable, System Info
 *   Non-terminated Pods:          (2 in total)
 *     Namespace  Name  CPU Requests  CPU Limits  Memory Requests  ...
 *     default    web   100m (5%)     0 (0%)      128Mi (1%)       ...
 *   Allocated resources:  (the sums, then hugepages and extended ones)
 *   Events:
 *
 * Quantities are printed as resource.Quantity prints them (quantity.h:
 * "1000000" is "1M"), and summed as kubectl sums them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "columns.h"
#include "common.h"
#include "coordination.h"
#include "object.h"
#include "quantity.h"
#include "xalloc.h"

#define ROLE_PREFIX "node-role.kubernetes.io/"

/* A ResourceList being summed: names (not owned) and amounts. */
struct rlist {
	struct rentry {
		const char *name;
		struct qty q;
	} * v;
	size_t n;
};

static struct qty *
rlist_find(const struct rlist *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			return &l->v[i].q;
	return NULL;
}

/* addResourceList: adds q under name (a copy for a new name). */
static void
rlist_add(struct rlist *l, const char *name, const struct qty *q)
{
	struct qty *have = rlist_find(l, name);

	if (have == NULL) {
		l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
		l->v[l->n].name = name;
		l->v[l->n].q = (struct qty){0};
		have = &l->v[l->n++].q;
	}
	qty_add(have, q);
}

/* Adds every parseable entry of m (the API validated them). */
static void
rlist_add_map(struct rlist *l, const struct strmap *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		struct qty q;

		if (qty_parse(m->v[i].value, &q) == QTY_OK)
			rlist_add(l, m->v[i].key, &q);
	}
}

/* The amount of name in l; an absent one is zero. */
static struct qty
rlist_get(const struct rlist *l, const char *name)
{
	struct qty *q = rlist_find(l, name);

	return q ? *q : (struct qty){0};
}

/* "<quantity> (<percent>%)"; the percent as Go's int64(float64(a) /
 * float64(b) * 100). kubectl divides by a zero allocatable in its pod
 * rows (guarded false): +Inf or NaN, which amd64 converts to the
 * smallest int64, and prints 0% in its totals (guarded true). */
static void
add_share(struct strbuf *sb, const struct qty *q, enum qty_scale scale,
	  int64_t of, bool guarded)
{
	char buf[64];
	int64_t pct;

	qty_string(q, buf, sizeof(buf));
	if (of == 0)
		pct = guarded ? 0 : INT64_MIN;
	else
		pct = (int64_t)((double)qty_value(q, scale) / (double)of * 100);
	strbuf_addf(sb, "%s (%lld%%)", buf, (long long)pct);
}

/* findNodeRoles: the names after node-role.kubernetes.io/, and the
 * value of kubernetes.io/role, sorted and without repeats. */
static void
add_roles(struct strbuf *sb, const struct strmap *labels)
{
	const char **roles = xcalloc(labels->n + 1, sizeof(*roles));
	size_t i, j, n = 0;

	for (i = 0; i < labels->n; i++) {
		const char *k = labels->v[i].key, *r = NULL;

		if (!strncmp(k, ROLE_PREFIX, strlen(ROLE_PREFIX)))
			r = k + strlen(ROLE_PREFIX);
		else if (!strcmp(k, "kubernetes.io/role"))
			r = labels->v[i].value;
		if (r == NULL || *r == '\0')
			continue;
		/* insertion sort; a repeat is left out */
		for (j = 0; j < n && strcmp(roles[j], r) < 0; j++)
			;
		if (j < n && !strcmp(roles[j], r))
			continue;
		memmove(roles + j + 1, roles + j, (n - j) * sizeof(*roles));
		roles[j] = r;
		n++;
	}
	strbuf_addstr(sb, "Roles:\t");
	for (i = 0; i < n; i++)
		strbuf_addf(sb, "%s%s", i ? "," : "", roles[i]);
	strbuf_addstr(sb, n ? "\n" : "<none>\n");
	free(roles);
}

/* kubectl sorts taints by "effect,key". */
static int
taint_cmp(const void *a, const void *b)
{
	const struct taint *x = *(const struct taint *const *)a;
	const struct taint *y = *(const struct taint *const *)b;
	int c = strcmp(x->effect ? x->effect : "", y->effect ? y->effect : "");

	return c ? c : strcmp(x->key ? x->key : "", y->key ? y->key : "");
}

/* printNodeTaintsMultiline, each as Taint.ToString(): "key=value:effect",
 * "key:effect", "key=value:", "key". */
static void
add_taints(struct strbuf *sb, const struct taint_list *l)
{
	const struct taint **v;
	size_t i;

	strbuf_addstr(sb, "Taints:\t");
	if (l->n == 0) {
		strbuf_addstr(sb, "<none>\n");
		return;
	}
	v = xcalloc(l->n, sizeof(*v));
	for (i = 0; i < l->n; i++)
		v[i] = &l->v[i];
	qsort(v, l->n, sizeof(*v), taint_cmp);
	for (i = 0; i < l->n; i++) {
		const char *key = v[i]->key ? v[i]->key : "";
		const char *val = v[i]->value ? v[i]->value : "";
		const char *eff = v[i]->effect ? v[i]->effect : "";

		if (i)
			strbuf_addch(sb, '\t');
		strbuf_addstr(sb, key);
		if (*val)
			strbuf_addf(sb, "=%s", val);
		if (*eff || *val)
			strbuf_addf(sb, ":%s", eff);
		strbuf_addch(sb, '\n');
	}
	free(v);
}

/* The node's Lease in kube-node-lease, or kubectl's line saying why it
 * cannot be had (the server's message: `leases.coordination.k8s.io "n"
 * not found`). */
static void
add_lease(struct client *c, const char *node, struct strbuf *sb)
{
	const struct kind_info *k = kind_by_id(KIND_LEASE);
	struct object o = {0};
	struct client_resp r;
	char path[1024];

	cli_path(path, sizeof(path), k, NODE_LEASE_NAMESPACE, node, NULL);
	client_request(c, "GET", path, NULL, NULL, NULL, &r);
	if (r.status != 200 || cli_decode(r.body, KIND_LEASE, &o)) {
		const char *msg =
		    json_string_value(json_object_get(r.body, "message"));

		strbuf_addf(sb, "Lease:\tFailed to get lease: %s\n",
			    msg ? msg : "the server answered nothing");
	} else {
		const struct lease_spec *s = &((struct lease *)o.obj)->spec;

		strbuf_addf(sb, "Lease:\n  HolderIdentity:\t%s\n",
			    s->holder_identity ? s->holder_identity
					       : "<unset>");
		strbuf_addstr(sb, "  AcquireTime:\t");
		cli_describe_time(sb, s->acquire_time);
		strbuf_addstr(sb, "\n  RenewTime:\t");
		cli_describe_time(sb, s->renew_time);
		strbuf_addch(sb, '\n');
		object_release(&o);
	}
	client_resp_release(&r);
}

static void
add_conditions(struct strbuf *sb, const struct condition_list *l)
{
	size_t i;

	if (l->n == 0)
		return;
	strbuf_addstr(sb, "Conditions:\n"
			  "  Type\tStatus\tLastHeartbeatTime\t"
			  "LastTransitionTime\tReason\tMessage\n"
			  "  ----\t------\t-----------------\t"
			  "------------------\t------\t-------\n");
	for (i = 0; i < l->n; i++) {
		const struct condition *c = &l->v[i];

		strbuf_addf(sb, "  %s \t%s \t", c->type ? c->type : "",
			    c->status ? c->status : "");
		cli_describe_go_time(sb, c->last_heartbeat_time);
		strbuf_addstr(sb, " \t");
		cli_describe_go_time(sb, c->last_transition_time);
		strbuf_addf(sb, " \t%s \t%s\n", c->reason ? c->reason : "",
			    c->message ? c->message : "");
	}
}

/* "Capacity:" and its resources sorted by name, as quantities print. */
static void
add_resource_list(struct strbuf *sb, const char *title, const struct strmap *m)
{
	size_t i;

	if (m->n == 0)
		return;
	strbuf_addf(sb, "%s:\n", title);
	for (i = 0; i < m->n; i++) {
		struct qty q;
		char buf[64];

		if (qty_parse(m->v[i].value, &q) == QTY_OK)
			qty_string(&q, buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "%s", m->v[i].value);
		strbuf_addf(sb, "  %s:\t%s\n", m->v[i].key, buf);
	}
}

static void
add_system_info(struct strbuf *sb, const struct node_info *ni)
{
#define S(x) ((x) ? (x) : "")
	strbuf_addf(sb,
		    "System Info:\n  Machine ID:\t%s\n  System UUID:\t%s\n"
		    "  Boot ID:\t%s\n  Kernel Version:\t%s\n"
		    "  OS Image:\t%s\n  Operating System:\t%s\n"
		    "  Architecture:\t%s\n  Container Runtime Version:\t%s\n"
		    "  Kubelet Version:\t%s\n  Kube-Proxy Version:\t%s\n",
		    S(ni->machine_id), S(ni->system_uuid), S(ni->boot_id),
		    S(ni->kernel_version), S(ni->os_image),
		    S(ni->operating_system), S(ni->architecture),
		    S(ni->container_runtime_version), S(ni->kubelet_version),
		    S(ni->kube_proxy_version));
#undef S
}

/* IsStandardContainerResourceName or pods: not an extended resource. */
static bool
standard_resource(const char *name)
{
	return !strcmp(name, "cpu") || !strcmp(name, "memory") ||
	       !strcmp(name, "ephemeral-storage") || !strcmp(name, "pods") ||
	       !strncmp(name, "hugepages-", 10);
}

/* One row of "Allocated resources" with shares of the allocatable. */
static void
add_total(struct strbuf *sb, const char *name, const struct rlist *reqs,
	  const struct rlist *lims, const struct rlist *alloc,
	  enum qty_scale scale)
{
	struct qty r = rlist_get(reqs, name), l = rlist_get(lims, name);
	struct qty a = rlist_get(alloc, name);
	int64_t of = qty_value(&a, scale);

	strbuf_addf(sb, "  %s\t", name);
	add_share(sb, &r, scale, of, true);
	strbuf_addch(sb, '\t');
	add_share(sb, &l, scale, of, true);
	strbuf_addch(sb, '\n');
}

/* describeNodeResource over the pods (decoded, in the server's order):
 * a row per pod with its cpu and memory requests and limits as shares
 * of the node's allocatable (its capacity when it has none), then the
 * sums: cpu, memory, ephemeral-storage, the node's hugepages-* and its
 * extended resources (the last without shares). */
static void
add_node_resources(const struct node *n, const struct object_list *pods,
		   struct strbuf *sb)
{
	const struct strmap *am = n->status.allocatable.n
				      ? &n->status.allocatable
				      : &n->status.capacity;
	struct rlist alloc = {0}, reqs = {0}, lims = {0};
	struct qty acpu, amem;
	int64_t cpu, mem;
	dtime now = clock_now();
	size_t i, j;

	rlist_add_map(&alloc, am);
	acpu = rlist_get(&alloc, "cpu");
	amem = rlist_get(&alloc, "memory");
	cpu = qty_value(&acpu, QTY_MILLI);
	mem = qty_value(&amem, QTY_UNIT);
	strbuf_addf(sb,
		    "Non-terminated Pods:\t(%zu in total)\n"
		    "  Namespace\tName\t\tCPU Requests\tCPU Limits\t"
		    "Memory Requests\tMemory Limits\tAge\n"
		    "  ---------\t----\t\t------------\t----------\t"
		    "---------------\t-------------\t---\n",
		    pods->n);
	for (i = 0; i < pods->n; i++) {
		const struct pod *p = pods->v[i].obj;
		struct rlist pr = {0}, pl = {0};
		struct qty q;
		char age[32];

		for (j = 0; j < p->spec.containers.n; j++) {
			rlist_add_map(
			    &pr, &p->spec.containers.v[j].resources.requests);
			rlist_add_map(
			    &pl, &p->spec.containers.v[j].resources.limits);
		}
		strbuf_addf(sb, "  %s\t%s\t\t",
			    p->metadata.namespace ? p->metadata.namespace : "",
			    p->metadata.name ? p->metadata.name : "");
		q = rlist_get(&pr, "cpu");
		add_share(sb, &q, QTY_MILLI, cpu, false);
		strbuf_addch(sb, '\t');
		q = rlist_get(&pl, "cpu");
		add_share(sb, &q, QTY_MILLI, cpu, false);
		strbuf_addch(sb, '\t');
		q = rlist_get(&pr, "memory");
		add_share(sb, &q, QTY_UNIT, mem, false);
		strbuf_addch(sb, '\t');
		q = rlist_get(&pl, "memory");
		add_share(sb, &q, QTY_UNIT, mem, false);
		columns_age(p->metadata.creation_timestamp, now, age,
			    sizeof(age));
		strbuf_addf(sb, "\t%s\n", age);
		/* getPodsTotalRequestsAndLimits: the pods' sums, summed */
		for (j = 0; j < pr.n; j++)
			rlist_add(&reqs, pr.v[j].name, &pr.v[j].q);
		for (j = 0; j < pl.n; j++)
			rlist_add(&lims, pl.v[j].name, &pl.v[j].q);
		free(pr.v);
		free(pl.v);
	}
	strbuf_addstr(sb, "Allocated resources:\n"
			  "  (Total limits may be over 100 percent, i.e., "
			  "overcommitted.)\n"
			  "  Resource\tRequests\tLimits\n"
			  "  --------\t--------\t------\n");
	add_total(sb, "cpu", &reqs, &lims, &alloc, QTY_MILLI);
	add_total(sb, "memory", &reqs, &lims, &alloc, QTY_UNIT);
	add_total(sb, "ephemeral-storage", &reqs, &lims, &alloc, QTY_UNIT);
	/* the strmap is sorted: hugepages, then the extended ones */
	for (i = 0; i < am->n; i++)
		if (!strncmp(am->v[i].key, "hugepages-", 10))
			add_total(sb, am->v[i].key, &reqs, &lims, &alloc,
				  QTY_UNIT);
	for (i = 0; i < am->n; i++) {
		struct qty r, l;
		char rb[64], lb[64];

		if (standard_resource(am->v[i].key))
			continue;
		r = rlist_get(&reqs, am->v[i].key);
		l = rlist_get(&lims, am->v[i].key);
		qty_string(&r, rb, sizeof(rb));
		qty_string(&l, lb, sizeof(lb));
		strbuf_addf(sb, "  %s\t%s\t%s\n", am->v[i].key, rb, lb);
	}
	free(alloc.v);
	free(reqs.v);
	free(lims.v);
}

/* The pods bound to the node that are not Succeeded or Failed, every
 * namespace, with kubectl's field selector; 0, or the HTTP status. */
static int
node_pods(struct client *c, const char *node, struct object_list *out)
{
	struct strbuf fs = STRBUF_INIT, q = STRBUF_INIT;
	struct client_resp r;
	char path[512], *enc;
	json_t *it;
	size_t i;
	int rc = 0;

	strbuf_addf(&fs,
		    "spec.nodeName=%s,status.phase!=Succeeded,"
		    "status.phase!=Failed",
		    node);
	enc = cli_urlencode(fs.buf);
	strbuf_addf(&q, "fieldSelector=%s", enc);
	free(enc);
	cli_path(path, sizeof(path), kind_by_id(KIND_POD), NULL, NULL, NULL);
	client_request(c, "GET", path, q.buf, NULL, NULL, &r);
	if (r.status != 200)
		rc = r.status ? r.status : -1;
	else
		json_array_foreach(json_object_get(r.body, "items"), i, it)
		{
			struct object o = {0};

			if (cli_decode(it, KIND_POD, &o) == 0)
				object_list_push(out, o);
		}
	client_resp_release(&r);
	strbuf_release(&fs);
	strbuf_release(&q);
	return rc;
}

void
cli_describe_node(struct client *c, const struct node *n, struct strbuf *sb)
{
	const struct object_meta *m = &n->metadata;
	struct object_list pods = {0};
	size_t i;
	int rc;

	strbuf_addf(sb, "Name:\t%s\n", m->name ? m->name : "");
	add_roles(sb, &m->labels);
	cli_describe_labels(sb, "Labels", &m->labels);
	cli_describe_annotations(sb, "Annotations", &m->annotations);
	strbuf_addstr(sb, "CreationTimestamp:\t");
	cli_describe_go_time(sb, m->creation_timestamp);
	strbuf_addch(sb, '\n');
	add_taints(sb, &n->spec.taints);
	strbuf_addf(sb, "Unschedulable:\t%s\n",
		    n->spec.unschedulable ? "true" : "false");
	add_lease(c, m->name ? m->name : "", sb);
	add_conditions(sb, &n->status.conditions);
	strbuf_addstr(sb, "Addresses:\n");
	for (i = 0; i < n->status.addresses.n; i++) {
		const struct node_address *a = &n->status.addresses.v[i];

		strbuf_addf(sb, "  %s:\t%s\n", a->type ? a->type : "",
			    a->address ? a->address : "");
	}
	add_resource_list(sb, "Capacity", &n->status.capacity);
	add_resource_list(sb, "Allocatable", &n->status.allocatable);
	add_system_info(sb, &n->status.node_info);
	if (n->spec.pod_cidr && *n->spec.pod_cidr)
		strbuf_addf(sb, "PodCIDR:\t%s\n", n->spec.pod_cidr);
	if (n->spec.provider_id && *n->spec.provider_id)
		strbuf_addf(sb, "ProviderID:\t%s\n", n->spec.provider_id);
	rc = node_pods(c, m->name ? m->name : "", &pods);
	if (rc == 0)
		add_node_resources(n, &pods, sb);
	else if (rc == 403)
		strbuf_addstr(sb, "Pods:\tnot authorized\n");
	object_list_release(&pods);
	cli_describe_events(c, kind_by_id(KIND_NODE), m, sb);
}
