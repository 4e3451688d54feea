/* h_drover.c - drover's own endpoints beside Kubernetes' API, for joining
 * hosts (auth.h):
 *
 *   GET    /drover/v1/cluster-info        anyone: {"certificateAuthority":
 *                                         PEM}, what an agent checks
 *                                         against its token's CA hash
 *   POST   /drover/v1/join                a join token as the bearer,
 *                                         {"nodeName": N} -> 200
 *                                         {"nodeName", "token"}: N's
 *                                         credential
 *   POST   /drover/v1/servingcert         a node: {"addresses": [...]},
 *                                         each one of its Node's ->
 *                                         {"certificate", "key"}: what
 *                                         its agent serves logs with
 *   GET    /drover/v1/jointokens          the admin: the tokens' entries
 *   POST   /drover/v1/jointokens          the admin: {"ttlSeconds",
 *                                         "description"} -> 201 with the
 *                                         token, shown this once
 *   DELETE /drover/v1/jointokens/ID       the admin
 *
 * A join for a node name whose Lease (kube-node-lease/N) is still live
 * (renewed within its leaseDurationSeconds) is refused with 409: another
 * agent holds that name. Errors are Kubernetes Status objects. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "auth.h"
#include "names.h"
#include "store.h"
#include "tlsca.h"

#define PREFIX "/drover/v1/"

static void
fail(struct api_resp *resp, int code, const char *reason, const char *msg)
{
	resp_status(resp, code, reason, msg, NULL, NULL, NULL);
}

/* How long ago node's Lease was renewed (ms) if it is still live at now,
 * else -1. */
static int64_t
lease_live(struct api *a, const char *node, dtime now)
{
	struct store_key k = {"leases", "kube-node-lease", node};
	struct store_item it = {0};
	json_t *o, *spec;
	const char *renew;
	json_int_t dur;
	dtime at;
	int64_t ago = -1;

	if (store_get(a->cfg.store, &k, &it))
		return -1;
	o = json_loads(it.value, 0, NULL);
	spec = json_object_get(o, "spec");
	renew = json_string_value(json_object_get(spec, "renewTime"));
	dur = json_integer_value(json_object_get(spec, "leaseDurationSeconds"));
	if (renew && dtime_parse(renew, &at) == 0 &&
	    now < at + DTIME_SEC(dur > 0 ? dur : 40))
		ago = now - at;
	json_decref(o);
	store_item_release(&it);
	return ago;
}

static void
h_join(struct api *a, const struct api_req *req, struct api_resp *resp)
{
	json_t *body;
	const char *node;
	char cred[API_CRED_MAX], msg[512];
	dtime now = a->cfg.now(a->cfg.arg);
	int64_t ago;

	if (req->bearer == NULL ||
	    api_auth_join_check(a->cfg.auth, req->bearer, now)) {
		fail(resp, 401, "Unauthorized",
		     "the join token is unknown or has expired");
		return;
	}
	if ((body = api_parse_body(req, resp)) == NULL)
		return;
	node = json_string_value(json_object_get(body, "nodeName"));
	if (node == NULL || !*node || strlen(node) > API_NODE_NAME_MAX ||
	    !name_is_dns1123_subdomain(node, strlen(node))) {
		snprintf(
		    msg, sizeof(msg),
		    "nodeName: Invalid value: \"%s\": " MSG_DNS1123_SUBDOMAIN,
		    node ? node : "");
		fail(resp, 422, "Invalid", msg);
	} else if ((ago = lease_live(a, node, now)) >= 0) {
		snprintf(msg, sizeof(msg),
			 "node \"%s\" is held by a live agent: its Lease was "
			 "renewed %llds ago; choose another --node-name, or "
			 "stop that agent and wait for its Lease to expire",
			 node, (long long)(ago / 1000));
		fail(resp, 409, "AlreadyExists", msg);
	} else if (api_auth_node_credential(a->cfg.auth, node, cred)) {
		fail(resp, 500, "InternalError", "cannot make the credential");
	} else {
		resp_json(resp, 200,
			  json_pack("{ss ss ss ss}", "kind", "JoinResponse",
				    "apiVersion", "drover/v1", "nodeName", node,
				    "token", cred));
	}
	json_decref(body);
}

/* Whether addr is one of the addresses in node's Node status. */
static bool
node_has_address(struct api *a, const char *node, const char *addr)
{
	struct store_key k = {"nodes", "", node};
	struct store_item it = {0};
	json_t *o, *l, *e;
	size_t i;
	bool found = false;

	if (store_get(a->cfg.store, &k, &it))
		return false;
	o = json_loads(it.value, 0, NULL);
	l = json_object_get(json_object_get(o, "status"), "addresses");
	json_array_foreach(l, i, e)
	{
		const char *v =
		    json_string_value(json_object_get(e, "address"));

		if (v && !strcmp(v, addr))
			found = true;
	}
	json_decref(o);
	store_item_release(&it);
	return found;
}

/* POST servingcert by a node: {"addresses": [...]}, each one of its
 * Node's addresses -> a certificate for them and its key. */
static void
h_serving(struct api *a, const struct api_req *req, struct api_resp *resp)
{
	json_t *body, *l, *e;
	const char *addrs[16];
	char *cert, *key, msg[600];
	size_t i, n = 0;

	if (req->node == NULL) {
		fail(resp, 403, "Forbidden",
		     "servingcert: only a node's agent asks for its serving "
		     "certificate");
		return;
	}
	if ((body = api_parse_body(req, resp)) == NULL)
		return;
	l = json_object_get(body, "addresses");
	json_array_foreach(l, i, e)
	{
		const char *v = json_string_value(e);

		if (v == NULL || n == sizeof(addrs) / sizeof(*addrs)) {
			fail(resp, 422, "Invalid",
			     "addresses: Invalid value: up to 16 strings");
			goto out;
		}
		if (!node_has_address(a, req->node, v)) {
			snprintf(msg, sizeof(msg),
				 "addresses: Invalid value: \"%.300s\": not "
				 "an address of node %s",
				 v, req->node);
			fail(resp, 422, "Invalid", msg);
			goto out;
		}
		addrs[n++] = v;
	}
	if (n == 0) {
		fail(resp, 422, "Invalid", "addresses: Required value");
	} else if (api_auth_issue_serving(a->cfg.auth, req->node, addrs, n,
					  &cert, &key, msg, sizeof(msg))) {
		fail(resp, 500, "InternalError", msg);
	} else {
		resp_json(resp, 200,
			  json_pack("{ss ss ss ss}", "kind",
				    "ServingCertificate", "apiVersion",
				    "drover/v1", "certificate", cert, "key",
				    key));
		free(cert);
		free(key);
	}
out:
	json_decref(body);
}

static void
h_tokens(struct api *a, const struct api_req *req, const char *id,
	 struct api_resp *resp)
{
	const char *m = req->method;
	char err[512], tok[API_JOIN_TOKEN_LEN];

	if (req->node) {
		char msg[256];

		snprintf(msg, sizeof(msg),
			 "jointokens is forbidden: User \"system:node:%s\" "
			 "cannot manage join tokens",
			 req->node);
		fail(resp, 403, "Forbidden", msg);
	} else if (!strcmp(m, "GET") && id == NULL) {
		resp_json(resp, 200,
			  json_pack("{ss ss so}", "kind", "JoinTokenList",
				    "apiVersion", "drover/v1", "items",
				    api_auth_join_list(a->cfg.auth)));
	} else if (!strcmp(m, "POST") && id == NULL) {
		json_t *body = api_parse_body(req, resp), *ttl, *entry;
		const char *desc;

		if (body == NULL)
			return;
		ttl = json_object_get(body, "ttlSeconds");
		desc = json_string_value(json_object_get(body, "description"));
		if (ttl &&
		    (!json_is_integer(ttl) || json_integer_value(ttl) < 0)) {
			fail(resp, 422, "Invalid",
			     "ttlSeconds: Invalid value: must be a whole "
			     "number of seconds, 0 or more (0: never "
			     "expires)");
		} else if (api_auth_join_create(
			       a->cfg.auth, a->cfg.now(a->cfg.arg),
			       DTIME_SEC(json_integer_value(ttl)), desc, tok,
			       &entry, err, sizeof(err))) {
			fail(resp, 500, "InternalError", err);
		} else {
			size_t calen;
			const char *ca = api_auth_ca(a->cfg.auth, &calen);
			char hash[TLSCA_HASH_LEN], full[256];

			if (ca && tlsca_ca_hash(ca, calen, hash) == 0)
				snprintf(full, sizeof(full), "%s::%s", tok,
					 hash);
			else
				snprintf(full, sizeof(full), "%s", tok);
			json_object_set_new(entry, "token", json_string(full));
			json_object_set_new(entry, "kind",
					    json_string("JoinToken"));
			json_object_set_new(entry, "apiVersion",
					    json_string("drover/v1"));
			resp_json(resp, 201, entry);
		}
		json_decref(body);
	} else if (!strcmp(m, "DELETE") && id) {
		int r = api_auth_join_delete(a->cfg.auth, id, err, sizeof(err));
		char msg[128];

		if (r < 0) {
			fail(resp, 500, "InternalError", err);
		} else if (r > 0) {
			snprintf(msg, sizeof(msg),
				 "join token \"%.16s\" not found", id);
			fail(resp, 404, "NotFound", msg);
		} else {
			resp_json(resp, 200,
				  json_pack("{ss ss s{} ss}", "kind", "Status",
					    "apiVersion", "v1", "metadata",
					    "status", "Success"));
		}
	} else {
		fail(resp, 405, "MethodNotAllowed",
		     "the server does not allow this method on the requested "
		     "resource");
	}
}

bool
api_is_open_path(const char *method, const char *path)
{
	return (!strcmp(method, "GET") &&
		!strcmp(path, PREFIX "cluster-info")) ||
	       (!strcmp(method, "POST") && !strcmp(path, PREFIX "join"));
}

bool
h_drover(struct api *a, const struct api_req *req, struct api_resp *resp)
{
	const char *p = req->path;

	if (strncmp(p, PREFIX, strlen(PREFIX)))
		return false;
	p += strlen(PREFIX);
	if (a->cfg.auth == NULL) {
		fail(resp, 404, "NotFound",
		     "joining hosts needs drover serve --listen");
	} else if (!strcmp(p, "cluster-info") && !strcmp(req->method, "GET")) {
		size_t len;
		const char *ca = api_auth_ca(a->cfg.auth, &len);

		resp_json(resp, 200,
			  json_pack("{ss ss ss?}", "kind", "ClusterInfo",
				    "apiVersion", "drover/v1",
				    "certificateAuthority", ca));
	} else if (!strcmp(p, "join") && !strcmp(req->method, "POST")) {
		h_join(a, req, resp);
	} else if (!strcmp(p, "servingcert") && !strcmp(req->method, "POST")) {
		h_serving(a, req, resp);
	} else if (!strcmp(p, "jointokens")) {
		h_tokens(a, req, NULL, resp);
	} else if (!strncmp(p, "jointokens/", 11) && p[11] &&
		   !strchr(p + 11, '/')) {
		h_tokens(a, req, p + 11, resp);
	} else {
		fail(resp, 404, "NotFound",
		     "the server could not find the requested resource");
	}
	return true;
}
