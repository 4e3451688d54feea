/* node_authz.c - what a node's agent may do (Kubernetes' Node authorizer
 * and NodeRestriction admission, in one place): a request made with a
 * node's credential (auth.h) acts as "system:node:NAME" and may
 *
 *   read anything (get, list, watch: pods, Services, slices, nodes, ...);
 *   create, update, patch and delete its own Node (and its /status);
 *   create, update, patch and delete its own Lease, kube-node-lease/NAME;
 *   update and patch the status of pods bound to it (spec.nodeName),
 *   delete them and evict them;
 *   create, update and patch Events (those it records).
 *
 * Anything else is 403 Forbidden with Kubernetes' message and changes
 * nothing. Examples, for node "n1":
 *   PATCH /api/v1/nodes/n2
 *     -> nodes "n2" is forbidden: node "n1" is not allowed to modify
 *        node "n2"
 *   PATCH /api/v1/namespaces/default/pods/web-1/status, web-1 on n2
 *     -> pods "web-1" is forbidden: node "n1" can only update pod status
 *        for pods with spec.nodeName set to itself
 *   POST /apis/apps/v1/namespaces/default/deployments
 *     -> deployments.apps is forbidden: User "system:node:n1" cannot
 *        create resource "deployments" in API group "apps" in the
 *        namespace "default" */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "store.h"

static void
forbid(struct api_resp *resp, const struct route *rt, const char *msg)
{
	char q[128], full[1024];

	kind_qualified_plural(rt->res, q, sizeof(q));
	if (rt->name)
		snprintf(full, sizeof(full), "%s \"%s\" is forbidden: %s", q,
			 rt->name, msg);
	else
		snprintf(full, sizeof(full), "%s is forbidden: %s", q, msg);
	resp_status(resp, 403, "Forbidden", full, rt->res, rt->name, NULL);
}

/* RBAC's refusal: the node's role does not have the verb. */
static void
forbid_rbac(struct api_resp *resp, const struct route *rt, const char *node,
	    const char *method)
{
	char msg[768], res[160];

	snprintf(res, sizeof(res), "%s%s%s", rt->res->plural,
		 rt->sub ? "/" : "", rt->sub ? rt->sub : "");
	if (rt->ns)
		snprintf(msg, sizeof(msg),
			 "User \"system:node:%s\" cannot %s resource \"%s\" "
			 "in API group \"%s\" in the namespace \"%s\"",
			 node, api_verb(method, rt), res, rt->res->group,
			 rt->ns);
	else
		snprintf(msg, sizeof(msg),
			 "User \"system:node:%s\" cannot %s resource \"%s\" "
			 "in API group \"%s\" at the cluster scope",
			 node, api_verb(method, rt), res, rt->res->group);
	forbid(resp, rt, msg);
}

/* The name of the object a create makes (its body's metadata.name). */
static const char *
created_name(const struct api_req *req, json_t **owned)
{
	json_t *b = req->json ? req->json : req->parsed;

	*owned = NULL;
	if (b == NULL && req->body)
		b = *owned = json_loadb(req->body, req->body_len, 0, NULL);
	return json_string_value(
	    json_object_get(json_object_get(b, "metadata"), "name"));
}

/* The stored pod's spec.nodeName; 1 if it has none or there is no such
 * pod (the request then answers its own 404), 0 with it in out. */
static int
pod_node(struct api *a, const struct route *rt, char *out, size_t len)
{
	struct store_key k = {rt->res->plural, rt->ns, rt->name};
	struct store_item it = {0};
	json_t *o;
	const char *n;
	int r = 1;

	if (store_get(a->cfg.store, &k, &it))
		return 1;
	o = json_loads(it.value, 0, NULL);
	n = json_string_value(
	    json_object_get(json_object_get(o, "spec"), "nodeName"));
	if (n) {
		snprintf(out, len, "%s", n);
		r = 0;
	}
	json_decref(o);
	store_item_release(&it);
	return r;
}

int
api_node_authorize(struct api *a, const struct api_req *req,
		   const struct route *rt, struct api_resp *resp)
{
	const char *node = req->node, *m = req->method, *name = rt->name;
	json_t *owned = NULL;
	char msg[512], on[256];
	int ok;

	if (!strcmp(m, "GET"))
		return 0;
	switch (rt->res->id) {
	case KIND_NODE:
		if (!strcmp(m, "POST"))
			name = created_name(req, &owned);
		ok = name && !strcmp(name, node) &&
		     (rt->name == NULL || !rt->sub ||
		      !strcmp(rt->sub, "status"));
		if (!ok && name) {
			snprintf(msg, sizeof(msg),
				 "node \"%s\" is not allowed to modify node "
				 "\"%s\"",
				 node, name);
			forbid(resp, rt, msg);
			json_decref(owned);
			return -1;
		}
		json_decref(owned);
		break;
	case KIND_LEASE:
		if (!strcmp(m, "POST"))
			name = created_name(req, &owned);
		ok = rt->ns && !strcmp(rt->ns, "kube-node-lease") && name &&
		     !strcmp(name, node);
		json_decref(owned);
		if (!ok) {
			forbid(resp, rt,
			       "can only access node lease with the same name "
			       "as the requesting node");
			return -1;
		}
		break;
	case KIND_POD:
		if (!rt->name) {
			ok = false;
			break;
		}
		if (!strcmp(m, "POST") &&
		    !(rt->sub && !strcmp(rt->sub, "eviction"))) {
			ok = false;
			break;
		}
		if ((!strcmp(m, "PUT") || !strcmp(m, "PATCH")) &&
		    !(rt->sub && !strcmp(rt->sub, "status"))) {
			ok = false;
			break;
		}
		if (pod_node(a, rt, on, sizeof(on)))
			return 0; /* no such pod: its own 404 answers */
		if (strcmp(on, node)) {
			snprintf(msg, sizeof(msg),
				 "node \"%s\" can only %s pods with "
				 "spec.nodeName set to itself",
				 node,
				 !strcmp(m, "DELETE") ? "delete"
				 : !strcmp(m, "POST")
				     ? "evict"
				     : "update pod status for");
			forbid(resp, rt, msg);
			return -1;
		}
		ok = true;
		break;
	case KIND_EVENT:
		ok = !strcmp(m, "POST") || !strcmp(m, "PUT") ||
		     !strcmp(m, "PATCH");
		break;
	default:
		ok = false;
	}
	if (!ok) {
		forbid_rbac(resp, rt, node, m);
		return -1;
	}
	return 0;
}
