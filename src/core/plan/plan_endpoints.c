/* plan_endpoints.c - the endpoints planner (plan_endpoints.h): from a
 * Service and its pods, the EndpointSlices and the Endpoints object it
 * should have, and the writes that get there.
 *
 * The steps, as Kubernetes' reconciler takes them (bucket, then decide):
 *
 *  1. Entries. Each pod the selector picks, in the Service's namespace,
 *     not Succeeded or Failed (Kubernetes' ShouldPodBeInEndpoints), with
 *     an address (its node's InternalIP, else status.hostIP) and at
 *     least one Service port it serves (ep_pod_host_port), gives one
 *     endpoint with Kubernetes' conditions (staging endpointslice
 *     utils.go, podToEndpoint):
 *        ready       = pod Ready and not terminating
 *        serving     = pod Ready, whether terminating or not
 *        terminating = the pod has a deletionTimestamp
 *     A Service port a pod does not serve is left out of that pod's
 *     port set (getEndpointPorts skips a port FindPort cannot resolve);
 *     a pod that serves none is left out (drover: an endpoint without a
 *     port is of no use to the proxy).
 *  2. Groups. Entries with equal port sets share a group, in the order
 *     of their first pod by name; a group is cut into slices of at most
 *     EP_MAX_PER_SLICE endpoints.
 *     Example: web-a serves "http" on host port 31001, web-b on 31002,
 *     web-c on 31001 (a declared hostPort): groups {31001: web-a, web-c}
 *     and {31002: web-b}, so two slices.
 *  3. Slices. A desired slice reuses an existing slice with the same
 *     port set (updated only if its content differs: nothing is
 *     written when nothing changed); those left over are created, and
 *     existing slices no desired one took are deleted, except that
 *     leftover creates take over leftover deletes as updates
 *     (reconciler.go finalize: "If there are slices to create and
 *     delete, change the creates to updates of the slices that would
 *     otherwise be deleted"). Example: web-a (31001) is replaced by
 *     web-d (31007): the slice that said 31001 is updated to say 31007,
 *     one write instead of a create and a delete.
 *  4. Endpoints. One subset per group, with the ready pods in
 *     `addresses` and the others in `notReadyAddresses`; terminating
 *     pods are left out (the Endpoints controller's includeTerminating
 *     is false); a subset with no address is dropped. Addresses are
 *     sorted by ip, then pod name (Kubernetes sorts by ip, then uid:
 *     drover's addresses are all the node's, so the name is what
 *     tells them apart in a stable way).
 *
 * A Service without a selector gets nothing from this planner (its
 * endpoints are the user's), as in Kubernetes. Writes are ordered
 * creates, updates, deletes, so a proxy never sees fewer endpoints in
 * between than before and after. */
#include <stdlib.h>
#include <string.h>

#include "labels.h"
#include "plan_endpoints.h"
#include "plan_rs.h"
#include "xalloc.h"

/* One pod's endpoint (step 1); ports owned. */
struct entry {
	const struct pod *pod;
	const char *addr;
	struct endpoint_port_list ports;
	bool ready, serving, terminating;
};

/* Entries with one port set (step 2): indexes into the entry array. */
struct group {
	const struct endpoint_port_list *ports; /* the first entry's */
	size_t *idx;
	size_t n, alloc;
};

/* An EndpointPort's name and protocol are written even when empty (""
 * for an unnamed Service port, see core.c), hence "" for NULL. */
static char *
dup_or_empty(const char *s)
{
	return xstrdup(s ? s : "");
}

/* Kubernetes' FindPort (pkg/api/v1/pod/util.go), then drover's host
 * port. Worked example: a pod whose container "web" declares
 *     ports: [{name: http, containerPort: 8080}]
 * and whose status says
 *     containerStatuses: [{name: web, ports: [{name: http,
 *                          containerPort: 8080, hostPort: 31001}]}]
 * serves targetPort "http" and targetPort 8080 both on 31001; targetPort
 * "admin" or 9090 on nothing (0). Kubernetes uses an undeclared numeric
 * targetPort as it is (the pod IP has every port); a drover pod shares
 * the host's ports, and only a declared port has a host port of its own,
 * so an undeclared number resolves to nothing. The protocol must match
 * too (both are TCP after defaulting). */
int64_t
ep_pod_host_port(const struct pod *p, const struct service_port *sp)
{
	const struct intstr *t = &sp->target_port;
	size_t i, j, k;

	for (i = 0; i < p->spec.containers.n; i++) {
		const struct container *c = &p->spec.containers.v[i];

		for (j = 0; j < c->ports.n; j++) {
			const struct container_port *cp = &c->ports.v[j];
			bool match = (t->type == INTSTR_STRING && cp->name &&
				      t->sval && !strcmp(cp->name, t->sval)) ||
				     (t->type == INTSTR_INT &&
				      cp->container_port == t->ival);

			if (!match || (cp->protocol && sp->protocol &&
				       strcmp(cp->protocol, sp->protocol)))
				continue;
			for (k = 0; k < p->status.container_statuses.n; k++) {
				const struct container_status *cs =
				    &p->status.container_statuses.v[k];
				size_t m;

				if (!cs->name || !c->name ||
				    strcmp(cs->name, c->name))
					continue;
				for (m = 0; m < cs->ports.n; m++)
					if (cs->ports.v[m].container_port ==
					    cp->container_port)
						return cs->ports.v[m].host_port;
			}
			return 0; /* declared, no host port yet */
		}
	}
	return 0;
}

/* The node's InternalIP, else the pod's hostIP; NULL if neither (a pod
 * no node runs yet: Kubernetes leaves a pod without an IP out too). In
 * `drover serve` both are 127.0.0.1; a node of a multi-host drover
 * reports the address its agents reach it on. The node list is scanned:
 * a cluster has a few nodes and a sync reads each pod's once. */
static const char *
pod_address(const struct plan_endpoints_in *in, const struct pod *p)
{
	size_t i, j;

	for (i = 0; p->spec.node_name && i < in->nnodes; i++) {
		const struct node *n = in->nodes[i];

		if (!n->metadata.name ||
		    strcmp(n->metadata.name, p->spec.node_name))
			continue;
		for (j = 0; j < n->status.addresses.n; j++) {
			const struct node_address *a =
			    &n->status.addresses.v[j];

			if (a->type && !strcmp(a->type, "InternalIP") &&
			    a->address && *a->address)
				return a->address;
		}
	}
	return p->status.host_ip && *p->status.host_ip ? p->status.host_ip
						       : NULL;
}

/* Port sets in a total order: by length, then port by port (in the
 * Service's order) by host port, name, protocol and appProtocol. Two
 * port sets are equal when all of these are: the key by which endpoints
 * share a slice (Kubernetes hashes the same fields into its
 * endpointSliceCache's port map key). The order lets steps 2 and 3 sort
 * by port set instead of comparing every pair: drover's pods each have
 * their own host port, so a Service of 5,000 pods has 5,000 port sets;
 * its plan took 83 ms with pairwise comparisons, 39 ms sorted (20,000
 * pods: 157 ms, the allocations of 20,000 slices). */
static const char *
nz(const char *s)
{
	return s ? s : "";
}

static int
ports_cmp(const struct endpoint_port_list *a,
	  const struct endpoint_port_list *b)
{
	size_t i;
	int c;

	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	for (i = 0; i < a->n; i++) {
		const struct endpoint_port *x = &a->v[i], *y = &b->v[i];

		if (x->port != y->port)
			return x->port < y->port ? -1 : 1;
		if ((c = strcmp(nz(x->name), nz(y->name))) ||
		    (c = strcmp(nz(x->protocol), nz(y->protocol))) ||
		    (c = strcmp(nz(x->app_protocol), nz(y->app_protocol))))
			return c;
	}
	return 0;
}

static bool
ports_equal(const struct endpoint_port_list *a,
	    const struct endpoint_port_list *b)
{
	return ports_cmp(a, b) == 0;
}

/* A port set and the index of what has it (an entry, a slice), sorted
 * by port set, then index: equal port sets end up side by side, in the
 * order they came in. */
struct keyed {
	const struct endpoint_port_list *ports;
	size_t idx;
};

static int
cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	int c = ports_cmp(x->ports, y->ports);

	if (c)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int
cmp_pod_name(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return strcmp(x->pod->metadata.name ? x->pod->metadata.name : "",
		      y->pod->metadata.name ? y->pod->metadata.name : "");
}

/* Step 1: the entries, sorted by pod name; *n receives the count. The
 * sort makes the output a function of the pods alone, not of the order
 * the cache lists them in, so that an unchanged world plans no writes.
 * Example with selector app=web and targetPort http: web-b (Ready, host
 * port 31002), web-a (not Ready, 31001), api-x (app=api) and web-c
 * (Succeeded) give the entries web-a (ready false, serving false) and
 * web-b (ready true, serving true), in that order. */
static struct entry *
entries_of(const struct plan_endpoints_in *in, size_t *n)
{
	const struct service *s = in->svc;
	struct entry *v = NULL;
	size_t alloc = 0, i, j;

	*n = 0;
	for (i = 0; i < in->npods; i++) {
		const struct pod *p = in->pods[i];
		const char *ph = p->status.phase, *addr;
		struct entry e = {p, NULL, {0}, false, false, false};

		if (!p->metadata.namespace || !s->metadata.namespace ||
		    strcmp(p->metadata.namespace, s->metadata.namespace) ||
		    !labels_subset(&s->spec.selector, &p->metadata.labels))
			continue;
		if (ph && (!strcmp(ph, "Succeeded") || !strcmp(ph, "Failed")))
			continue;
		if ((addr = pod_address(in, p)) == NULL)
			continue;
		for (j = 0; j < s->spec.ports.n; j++) {
			const struct service_port *sp = &s->spec.ports.v[j];
			int64_t hp = ep_pod_host_port(p, sp);
			struct endpoint_port *ep;

			if (hp <= 0)
				continue;
			ep = anylist_push((struct anylist *)&e.ports,
					  sizeof(*ep));
			ep->name = dup_or_empty(sp->name);
			ep->port = hp;
			ep->protocol = dup_or_empty(sp->protocol);
			ep->app_protocol =
			    sp->app_protocol ? xstrdup(sp->app_protocol) : NULL;
		}
		if (e.ports.n == 0)
			continue;
		/* discovery/v1's EndpointConditions: serving is the
		 * pod's readiness whatever else, ready is serving and not
		 * terminating ("ready should never be true for terminating
		 * endpoints"). A Ready pod being deleted: ready false,
		 * serving true, terminating true. */
		e.addr = addr;
		e.terminating = p->metadata.deletion_timestamp != 0;
		e.serving = pod_is_ready(p);
		e.ready = e.serving && !e.terminating;
		ALLOC_GROW(v, *n + 1, alloc);
		v[(*n)++] = e;
	}
	if (*n > 1)
		qsort(v, *n, sizeof(*v), cmp_pod_name);
	return v;
}

/* Step 2: groups by port set, in order of first appearance. A linear
 * search per entry: a Service has few distinct port sets in Kubernetes,
 * and in drover as many as its pods at worst (each pod its own host
 * port), so this is O(pods x groups); a hundred pods cost ten thousand
 * port-set comparisons of one port each. */
static int
cmp_group_first(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	return x->idx[0] < y->idx[0] ? -1 : x->idx[0] > y->idx[0];
}

static struct group *
groups_of(const struct entry *e, size_t ne, size_t *ng)
{
	struct keyed *k = xcalloc(ne + 1, sizeof(*k));
	struct group *g = NULL;
	size_t alloc = 0, i;

	*ng = 0;
	for (i = 0; i < ne; i++) {
		k[i].ports = &e[i].ports;
		k[i].idx = i;
	}
	qsort(k, ne, sizeof(*k), cmp_keyed);
	for (i = 0; i < ne; i++) {
		struct group *cur;

		if (i == 0 || !ports_equal(k[i].ports, k[i - 1].ports)) {
			ALLOC_GROW(g, *ng + 1, alloc);
			memset(&g[*ng], 0, sizeof(g[*ng]));
			g[*ng].ports = k[i].ports;
			(*ng)++;
		}
		cur = &g[*ng - 1];
		ALLOC_GROW(cur->idx, cur->n + 1, cur->alloc);
		cur->idx[cur->n++] = k[i].idx;
	}
	free(k);
	if (*ng > 1)
		qsort(g, *ng, sizeof(*g), cmp_group_first);
	return g;
}

/* An endpoint's targetRef: kind Pod, namespace, name and uid, as the
 * EndpointSlice controller writes it (no apiVersion, no
 * resourceVersion, so a pod's status change alone does not change it). */
static struct object_ref *
pod_ref(const struct pod *p)
{
	struct object_ref *r = xcalloc(1, sizeof(*r));

	r->kind = xstrdup("Pod");
	r->namespace = dup_or_empty(p->metadata.namespace);
	r->name = dup_or_empty(p->metadata.name);
	r->uid = p->metadata.uid ? xstrdup(p->metadata.uid) : NULL;
	return r;
}

/* The conditions are *bool in Go; the planner always writes them, true
 * or false, so two plans of one world compare equal field by field. */
static void
set_opt(struct opt_bool *o, bool v)
{
	o->set = true;
	o->v = v;
}

/* The labels every slice of s carries: the Service's own (Kubernetes
 * copies them), kubernetes.io/service-name and managed-by. */
static void
slice_labels(const struct service *s, struct strmap *out)
{
	strmap_release(out);
	strmap_copy(out, &s->metadata.labels);
	strmap_set(out, LABEL_SERVICE_NAME, s->metadata.name);
	strmap_set(out, LABEL_MANAGED_BY, MANAGED_BY_CONTROLLER);
}

/* The one ownerReference of a slice: the Service, as controller, so
 * the garbage collector deletes the slice with it. */
static void
slice_owner(const struct service *s, struct object_meta *m)
{
	struct object_meta gone = {.owner_references = m->owner_references};
	struct owner_ref *r;

	schema_release(&schema_object_meta, &gone);
	memset(&m->owner_references, 0, sizeof(m->owner_references));
	r = anylist_push((struct anylist *)&m->owner_references, sizeof(*r));
	r->api_version = xstrdup("v1");
	r->kind = xstrdup("Service");
	r->name = dup_or_empty(s->metadata.name);
	r->uid = dup_or_empty(s->metadata.uid);
	set_opt(&r->controller, true);
	set_opt(&r->block_owner_deletion, true);
}

/* Fills the content of slice dst (its metadata kept, but for labels and
 * owner) from entries idx[from..to) of group g. */
static void
fill_slice(const struct service *svc, const struct entry *e,
	   const struct group *g, size_t from, size_t to,
	   struct endpoint_slice *dst)
{
	struct endpoint_slice gone = {.endpoints = dst->endpoints,
				      .ports = dst->ports};
	size_t i;

	schema_release(&schema_endpoint_slice, &gone);
	memset(&dst->endpoints, 0, sizeof(dst->endpoints));
	memset(&dst->ports, 0, sizeof(dst->ports));
	free(dst->api_version);
	dst->api_version = xstrdup("discovery.k8s.io/v1");
	free(dst->kind);
	dst->kind = xstrdup("EndpointSlice");
	slice_labels(svc, &dst->metadata.labels);
	slice_owner(svc, &dst->metadata);
	free(dst->address_type);
	dst->address_type = xstrdup("IPv4");
	for (i = from; i < to; i++) {
		const struct entry *x = &e[g->idx[i]];
		struct endpoint *ep = anylist_push(
		    (struct anylist *)&dst->endpoints, sizeof(*ep));

		strlist_push(&ep->addresses, x->addr);
		set_opt(&ep->conditions.ready, x->ready);
		set_opt(&ep->conditions.serving, x->serving);
		set_opt(&ep->conditions.terminating, x->terminating);
		ep->target_ref = pod_ref(x->pod);
		ep->node_name = x->pod->spec.node_name
				    ? xstrdup(x->pod->spec.node_name)
				    : NULL;
	}
	for (i = 0; i < g->ports->n; i++) {
		struct endpoint_port *p =
		    anylist_push((struct anylist *)&dst->ports, sizeof(*p));

		p->name = dup_or_empty(g->ports->v[i].name);
		p->port = g->ports->v[i].port;
		p->protocol = dup_or_empty(g->ports->v[i].protocol);
		p->app_protocol = g->ports->v[i].app_protocol
				      ? xstrdup(g->ports->v[i].app_protocol)
				      : NULL;
	}
}

/* Appends an action to l and returns its slice (zeroed): the caller
 * fills it, so the action owns everything in it. */
static struct endpoint_slice *
push_action(struct ep_slice_action_list *l, enum ep_op op)
{
	struct ep_slice_action *a =
	    anylist_push((struct anylist *)l, sizeof(*a));

	a->op = op;
	return &a->slice;
}

/* A slice this planner may reuse: managed by the EndpointSlice
 * controller (the label) and not being deleted. */
static bool
ours(const struct endpoint_slice *s)
{
	const char *mb = strmap_get(&s->metadata.labels, LABEL_MANAGED_BY);

	return mb && !strcmp(mb, MANAGED_BY_CONTROLLER) &&
	       !s->metadata.deletion_timestamp;
}

/* One desired slice: its group and its range of the group's entries. */
struct want {
	const struct group *g;
	size_t from, to;
	bool done;
};

/* Moves the actions of src to the end of dst (src left empty). */
static void
append_actions(struct ep_slice_action_list *dst,
	       struct ep_slice_action_list *src)
{
	size_t i;

	for (i = 0; i < src->n; i++)
		*(struct ep_slice_action *)anylist_push(
		    (struct anylist *)dst, sizeof(struct ep_slice_action)) =
		    src->v[i];
	free(src->v);
	memset(src, 0, sizeof(*src));
}

/* Step 3. Worked example: the Service has slices S1 [http:31001]
 * {web-a} and S2 [http:31002] {web-b}; web-a is deleted and web-c comes
 * up on 31003. The desired slices are [http:31002] {web-b} and
 * [http:31003] {web-c}. The first reuses S2, unchanged: no write. The
 * second finds no slice with its port set; S1 is left over, so S1 is
 * updated to [http:31003] {web-c} rather than a new slice created and
 * S1 deleted. Had web-b gone too, S2 would have been deleted. */
static void
plan_slices(const struct plan_endpoints_in *in, const struct entry *e,
	    const struct group *g, size_t ng, struct plan_endpoints_out *out)
{
	const struct service *svc = in->svc;
	struct ep_slice_action_list creates = {0}, updates = {0}, deletes = {0};
	struct want *w = NULL;
	size_t nw = 0, walloc = 0, i, j, k;
	bool *used = xcalloc(in->nslices + 1, sizeof(bool));
	struct keyed *ks = xcalloc(in->nslices + 1, sizeof(*ks));
	size_t nks = 0;

	for (k = 0; k < ng; k++)
		for (i = 0; i < g[k].n; i += EP_MAX_PER_SLICE) {
			ALLOC_GROW(w, nw + 1, walloc);
			w[nw].g = &g[k];
			w[nw].from = i;
			w[nw].to = g[k].n - i > EP_MAX_PER_SLICE
				       ? i + EP_MAX_PER_SLICE
				       : g[k].n;
			w[nw++].done = false;
		}
	/* reuse the slices that have the same port set: the first unused
	 * one of those sorted by port set (a binary search) */
	for (j = 0; j < in->nslices; j++)
		if (ours(in->slices[j])) {
			ks[nks].ports = &in->slices[j]->ports;
			ks[nks++].idx = j;
		}
	qsort(ks, nks, sizeof(*ks), cmp_keyed);
	for (i = 0; i < nw; i++) {
		const struct endpoint_slice *old;
		struct endpoint_slice nu;
		size_t lo = 0, hi = nks, m;

		while (lo < hi) {
			m = lo + (hi - lo) / 2;
			if (ports_cmp(ks[m].ports, w[i].g->ports) < 0)
				lo = m + 1;
			else
				hi = m;
		}
		for (m = lo; m < nks && ports_equal(ks[m].ports, w[i].g->ports);
		     m++)
			if (!used[ks[m].idx])
				break;
		if (m == nks || !ports_equal(ks[m].ports, w[i].g->ports))
			continue;
		j = ks[m].idx;
		old = in->slices[j];
		{
			used[j] = w[i].done = true;
			schema_copy(&schema_endpoint_slice, &nu, old);
			fill_slice(svc, e, w[i].g, w[i].from, w[i].to, &nu);
			if (schema_equal(&schema_endpoint_slice, &nu, old))
				schema_release(&schema_endpoint_slice, &nu);
			else
				*push_action(&updates, EP_UPDATE) = nu;
		}
	}
	free(ks);
	/* the rest: leftover slices are recycled, then new ones made */
	for (i = 0, j = 0; i < nw; i++) {
		struct endpoint_slice *s;

		if (w[i].done)
			continue;
		while (j < in->nslices && (used[j] || !ours(in->slices[j])))
			j++;
		if (j < in->nslices) {
			used[j] = true;
			s = push_action(&updates, EP_UPDATE);
			schema_copy(&schema_endpoint_slice, s, in->slices[j]);
		} else {
			size_t n = strlen(svc->metadata.name);

			s = push_action(&creates, EP_CREATE);
			s->metadata.generate_name = xmalloc(n + 2);
			memcpy(s->metadata.generate_name, svc->metadata.name,
			       n);
			memcpy(s->metadata.generate_name + n, "-", 2);
			s->metadata.namespace =
			    xstrdup(svc->metadata.namespace);
		}
		fill_slice(svc, e, w[i].g, w[i].from, w[i].to, s);
	}
	for (j = 0; j < in->nslices; j++) {
		struct endpoint_slice *s;

		if (used[j] || !ours(in->slices[j]))
			continue;
		s = push_action(&deletes, EP_DELETE);
		s->metadata.name = dup_or_empty(in->slices[j]->metadata.name);
		s->metadata.namespace =
		    dup_or_empty(in->slices[j]->metadata.namespace);
	}
	append_actions(&out->slices, &creates);
	append_actions(&out->slices, &updates);
	append_actions(&out->slices, &deletes);
	free(used);
	free(w);
}

static int
cmp_address(const void *a, const void *b)
{
	const struct endpoint_address *x = a, *y = b;
	int c = strcmp(x->ip, y->ip);

	return c ? c : strcmp(x->target_ref->name, y->target_ref->name);
}

/* Step 4: the Endpoints object, as a copy of the stored one (if any)
 * with its subsets and labels replaced, so that it keeps its uid and
 * resourceVersion (the update is a compare-and-swap) and compares equal
 * to the stored one when nothing changed. Example: web-a Ready on 31001,
 * web-b not Ready on 31002, web-c terminating on 31001 give the subsets
 * {addresses [web-a], ports [http:31001]} and {notReadyAddresses
 * [web-b], ports [http:31002]}; web-c is in no subset. */
static void
plan_endpoints_object(const struct plan_endpoints_in *in, const struct entry *e,
		      const struct group *g, size_t ng,
		      struct plan_endpoints_out *out)
{
	const struct service *svc = in->svc;
	struct endpoints *d = &out->endpoints;
	size_t k, i;

	if (in->endpoints) {
		struct endpoints gone = {.subsets = {0}};

		schema_copy(&schema_endpoints, d, in->endpoints);
		gone.subsets = d->subsets;
		schema_release(&schema_endpoints, &gone);
		memset(&d->subsets, 0, sizeof(d->subsets));
	} else {
		d->metadata.name = xstrdup(svc->metadata.name);
		d->metadata.namespace = xstrdup(svc->metadata.namespace);
	}
	free(d->api_version);
	d->api_version = xstrdup("v1");
	free(d->kind);
	d->kind = xstrdup("Endpoints");
	strmap_release(&d->metadata.labels);
	strmap_copy(&d->metadata.labels, &svc->metadata.labels);
	for (k = 0; k < ng; k++) {
		struct endpoint_subset ss = {0};

		for (i = 0; i < g[k].n; i++) {
			const struct entry *x = &e[g[k].idx[i]];
			struct endpoint_address *a;

			if (x->terminating)
				continue;
			a = anylist_push(
			    (struct anylist *)(x->ready
						   ? &ss.addresses
						   : &ss.not_ready_addresses),
			    sizeof(*a));
			a->ip = xstrdup(x->addr);
			a->node_name = x->pod->spec.node_name
					   ? xstrdup(x->pod->spec.node_name)
					   : NULL;
			a->target_ref = pod_ref(x->pod);
		}
		if (ss.addresses.n + ss.not_ready_addresses.n == 0)
			continue;
		if (ss.addresses.n > 1)
			qsort(ss.addresses.v, ss.addresses.n,
			      sizeof(*ss.addresses.v), cmp_address);
		if (ss.not_ready_addresses.n > 1)
			qsort(ss.not_ready_addresses.v,
			      ss.not_ready_addresses.n,
			      sizeof(*ss.not_ready_addresses.v), cmp_address);
		for (i = 0; i < g[k].ports->n; i++) {
			const struct endpoint_port *sp = &g[k].ports->v[i];
			struct endpoint_port *p = anylist_push(
			    (struct anylist *)&ss.ports, sizeof(*p));

			p->name = dup_or_empty(sp->name);
			p->port = sp->port;
			p->protocol = dup_or_empty(sp->protocol);
			p->app_protocol =
			    sp->app_protocol ? xstrdup(sp->app_protocol) : NULL;
		}
		*(struct endpoint_subset *)anylist_push(
		    (struct anylist *)&d->subsets, sizeof(ss)) = ss;
	}
	if (in->endpoints == NULL)
		out->endpoints_op = EP_CREATE;
	else if (!schema_equal(&schema_endpoints, d, in->endpoints))
		out->endpoints_op = EP_UPDATE;
}

/* The planner: steps 1 to 4 over a Service with a selector. The
 * entries and groups are scratch; out owns copies of everything. */
void
plan_endpoints(const struct plan_endpoints_in *in,
	       struct plan_endpoints_out *out)
{
	struct entry *e;
	struct group *g;
	size_t ne, ng, i;

	memset(out, 0, sizeof(*out));
	if (in->svc->spec.selector.n == 0)
		return; /* no selector: the endpoints are the user's */
	e = entries_of(in, &ne);
	g = groups_of(e, ne, &ng);
	for (i = 0; i < ne; i++)
		e[i].ready ? out->nready++ : out->nnotready++;
	plan_slices(in, e, g, ng, out);
	plan_endpoints_object(in, e, g, ng, out);
	for (i = 0; i < ng; i++)
		free(g[i].idx);
	free(g);
	for (i = 0; i < ne; i++) {
		struct endpoint_slice gone = {.ports = e[i].ports};

		schema_release(&schema_endpoint_slice, &gone);
	}
	free(e);
}

void
plan_endpoints_out_release(struct plan_endpoints_out *out)
{
	size_t i;

	for (i = 0; i < out->slices.n; i++)
		schema_release(&schema_endpoint_slice, &out->slices.v[i].slice);
	free(out->slices.v);
	schema_release(&schema_endpoints, &out->endpoints);
	memset(out, 0, sizeof(*out));
}
