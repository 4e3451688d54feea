/* h_service.c - the API's check that a Service's ports are free: drover
 * serves every Service on each node's address at the Service's `port`
 * (as Kubernetes serves a nodePort on every node), so two Services may
 * not hold the same port, in any namespace.
 *
 * Kubernetes allocates node ports inside the write (the REST storage's
 * port allocator): a create or update that asks for a port another
 * Service holds is refused with
 *   spec.ports[0].nodePort: Invalid value: 30080: provided port is
 *   already allocated
 * and nothing is stored. drover does the same for `port`, with the same
 * message. The check and the write run in one handler on the loop, so
 * no other write can come between them.
 *
 * drover also refuses a targetPort name that none of the pods the
 * Service selects declares (Kubernetes accepts it, and the Service
 * silently gets no endpoints): the pods and the pod templates of the
 * Deployments and ReplicaSets of its namespace whose labels the selector
 * matches are read, and when there is at least one and none has a
 * container port of that name, the write is refused with
 *   spec.ports[0].targetPort: Invalid value: "htp": no container port
 *   of the pods this Service selects is named "htp"
 * A Service created before its workload is accepted: nothing to check
 * against yet.
 *
 * spec.clusterIP (service_cluster_ip) holds the address of the API
 * server's node, which is where a client on that host reaches the
 * Service (every node serves it at its own address and the Service's
 * port); Kubernetes' column CLUSTER-IP shows it. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "store.h"
#include "xalloc.h"

/* The ports held by stored Services other than ns/name; a port taken
 * twice by o itself is validate_service's (Duplicate value). Returns 0
 * if every port is free, else -1 with a 422 in resp (or 500 if the
 * store could not list). */
int
service_ports_free(struct api *a, const struct object *o, struct api_resp *resp)
{
	const struct service *s = o->obj;
	const struct object_meta *m = &s->metadata;
	struct fielderr_list errs = {0};
	struct store_items items = {0};
	int64_t rv;
	size_t i, j, k;
	char path[64];

	if (store_list(a->cfg.store, "services", NULL, NULL, &items, &rv)) {
		resp_internal(resp, "the store cannot list services");
		return -1;
	}
	for (i = 0; i < s->spec.ports.n; i++) {
		bool taken = false;

		for (j = 0; j < items.n && !taken; j++) {
			const struct store_item *it = &items.v[j];
			json_t *v, *ports, *p;

			if (!strcmp(it->ns, m->namespace ? m->namespace : "") &&
			    !strcmp(it->name, m->name ? m->name : ""))
				continue; /* its own stored version */
			v = json_loads(it->value, 0, NULL);
			ports = json_object_get(json_object_get(v, "spec"),
						"ports");
			json_array_foreach(ports, k, p)
			{
				if (json_integer_value(json_object_get(
					p, "port")) == s->spec.ports.v[i].port)
					taken = true;
			}
			json_decref(v);
		}
		if (taken) {
			snprintf(path, sizeof(path), "spec.ports[%zu].port", i);
			fielderr_addf_int(&errs, FE_INVALID, path,
					  s->spec.ports.v[i].port,
					  "provided port is already allocated");
		}
	}
	store_items_release(&items);
	if (errs.n == 0)
		return 0;
	resp_invalid(resp, o->k, m->name, &errs);
	fielderr_list_release(&errs);
	return -1;
}

/* Whether the JSON labels hold every pair of sel. */
static bool
json_labels_match(const struct strmap *sel, json_t *labels)
{
	size_t i;

	for (i = 0; i < sel->n; i++) {
		const char *v =
		    json_string_value(json_object_get(labels, sel->v[i].key));

		if (v == NULL || strcmp(v, sel->v[i].value))
			return false;
	}
	return true;
}

/* Whether a pod spec (JSON) declares a container port named name. */
static bool
json_spec_names_port(json_t *spec, const char *name)
{
	json_t *c, *p;
	size_t i, j;

	json_array_foreach(json_object_get(spec, "containers"), i, c)
	{
		json_array_foreach(json_object_get(c, "ports"), j, p)
		{
			const char *n =
			    json_string_value(json_object_get(p, "name"));

			if (n && !strcmp(n, name))
				return true;
		}
	}
	return false;
}

/* Over the pods (template false) or the pod templates of resource in
 * ns that sel matches: how many there are, and whether one names port
 * `name` (*named). -1 if the store cannot list. */
static long
count_selected(struct api *a, const char *resource, bool template,
	       const char *ns, const struct strmap *sel, const char *name,
	       bool *named)
{
	struct store_items items = {0};
	int64_t rv;
	long n = 0;
	size_t i;

	if (store_list(a->cfg.store, resource, ns, NULL, &items, &rv))
		return -1;
	for (i = 0; i < items.n; i++) {
		json_t *v = json_loads(items.v[i].value, 0, NULL);
		json_t *pod = template
				  ? json_object_get(json_object_get(v, "spec"),
						    "template")
				  : v;

		if (json_labels_match(
			sel, json_object_get(json_object_get(pod, "metadata"),
					     "labels"))) {
			n++;
			if (json_spec_names_port(json_object_get(pod, "spec"),
						 name))
				*named = true;
		}
		json_decref(v);
	}
	store_items_release(&items);
	return n;
}

int
service_target_ports_known(struct api *a, const struct object *o,
			   struct api_resp *resp)
{
	const struct service *s = o->obj;
	const char *ns = s->metadata.namespace ? s->metadata.namespace : "";
	struct fielderr_list errs = {0};
	size_t i;
	char path[64], why[400];

	for (i = 0; s->spec.selector.n && i < s->spec.ports.n; i++) {
		const struct intstr *tp = &s->spec.ports.v[i].target_port;
		static const struct {
			const char *resource;
			bool template;
		} kinds[] = {{"pods", false},
			     {"deployments", true},
			     {"replicasets", true}};
		bool named = false;
		long n = 0, k;
		size_t j;

		if (tp->type != INTSTR_STRING || tp->sval == NULL)
			continue;
		for (j = 0; j < sizeof(kinds) / sizeof(kinds[0]); j++) {
			k = count_selected(a, kinds[j].resource,
					   kinds[j].template, ns,
					   &s->spec.selector, tp->sval, &named);
			if (k < 0) {
				fielderr_list_release(&errs);
				resp_internal(resp, "the store cannot list");
				return -1;
			}
			n += k;
		}
		if (n > 0 && !named) {
			snprintf(path, sizeof(path),
				 "spec.ports[%zu].targetPort", i);
			snprintf(why, sizeof(why),
				 "no container port of the pods this Service "
				 "selects is named \"%s\"",
				 tp->sval);
			fielderr_addf_str(&errs, FE_INVALID, path, tp->sval,
					  why);
		}
	}
	if (errs.n == 0)
		return 0;
	resp_invalid(resp, o->k, s->metadata.name, &errs);
	fielderr_list_release(&errs);
	return -1;
}

/* The InternalIP in a stored Node's text, or NULL; the caller frees
 * it. */
static char *
internal_ip(const char *text)
{
	json_t *n = json_loads(text, 0, NULL), *ad;
	char *out = NULL;
	size_t i;

	json_array_foreach(
	    json_object_get(json_object_get(n, "status"), "addresses"), i, ad)
	{
		const char *t = json_string_value(json_object_get(ad, "type"));
		const char *v =
		    json_string_value(json_object_get(ad, "address"));

		if (t && v && !strcmp(t, "InternalIP")) {
			out = xstrdup(v);
			break;
		}
	}
	json_decref(n);
	return out;
}

/* The InternalIP of the node the API server runs beside: its own
 * agent's node (api_serve_node_logs), else the only node there is; NULL
 * if neither is known. The caller frees it. */
static char *
own_node_address(struct api *a)
{
	struct store_key k = {"nodes", "", NULL};
	struct store_items items = {0};
	struct store_item it;
	char *out = NULL;
	int64_t rv;

	if (a->nlogs > 0) {
		k.name = a->logs[0].node;
		if (store_get(a->cfg.store, &k, &it))
			return NULL;
		out = internal_ip(it.value);
		store_item_release(&it);
		return out;
	}
	if (store_list(a->cfg.store, "nodes", NULL, NULL, &items, &rv) == 0 &&
	    items.n == 1)
		out = internal_ip(items.v[0].value);
	store_items_release(&items);
	return out;
}

static void
set_cluster_ip(struct service_spec *sp, const char *ip)
{
	free(sp->cluster_ip);
	sp->cluster_ip = xstrdup(ip);
	strlist_release(&sp->cluster_ips);
	strlist_push(&sp->cluster_ips, ip);
}

static int
cluster_ip_refused(struct api_resp *resp, const struct object *o,
		   const char *ip, const char *why)
{
	struct fielderr_list errs = {0};

	fielderr_addf_str(&errs, FE_INVALID, "spec.clusterIP", ip, why);
	resp_invalid(resp, o->k,
		     ((const struct service *)o->obj)->metadata.name, &errs);
	fielderr_list_release(&errs);
	return -1;
}

int
service_cluster_ip(struct api *a, struct object *o, const struct object *old,
		   struct api_resp *resp)
{
	struct service_spec *sp = &((struct service *)o->obj)->spec;
	const char *want =
	    sp->cluster_ip && *sp->cluster_ip ? sp->cluster_ip : NULL;
	unsigned char buf[16];
	char *own;
	int r = 0;

	if (old) {
		const struct service_spec *was =
		    &((const struct service *)old->obj)->spec;
		const char *had = was->cluster_ip ? was->cluster_ip : "";

		if (want == NULL && *had)
			set_cluster_ip(sp, had); /* kept, as Kubernetes */
		else if (want && strcmp(want, had))
			return cluster_ip_refused(resp, o, want,
						  "field is immutable");
		return 0;
	}
	if (want && inet_pton(AF_INET, want, buf) != 1 &&
	    inet_pton(AF_INET6, want, buf) != 1)
		return cluster_ip_refused(resp, o, want,
					  "must be a valid IP address, (e.g. "
					  "10.9.8.7 or 2001:db8::ffff)");
	own = own_node_address(a);
	if (want && (own == NULL || strcmp(want, own)))
		r = cluster_ip_refused(
		    resp, o, want,
		    "drover sets it to the address of the API server's node, "
		    "where a client on that host reaches the Service (every "
		    "node serves it at its own address); leave it out");
	else if (own)
		set_cluster_ip(sp, own);
	free(own);
	return r;
}
