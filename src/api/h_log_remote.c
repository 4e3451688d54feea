/* h_log_remote.c - pods/log of a pod on a joined host: the API asks that
 * node's agent, as kube-apiserver asks the kubelet, over HTTPS at the
 * address and port its Node gives (status.addresses InternalIP,
 * status.daemonEndpoints.kubeletEndpoint.Port), verifying the agent's
 * certificate against the cluster's CA (which signed it for that
 * address, h_drover.c) and presenting the node's own credential, which
 * only the control plane and that agent know (src/agent/logserve.h).
 *
 * The answer comes later (api_deferred): the server holds the request
 * while the transfer runs on the loop. One client per node and address
 * is kept for the next request (libcurl keeps its connection).
 *
 * Example: pod web-1 bound to node b (InternalIP 127.0.0.3, Port 10250):
 * GET .../pods/web-1/log?tailLines=5 becomes GET
 * https://127.0.0.3:10250/containerLogs/default/web-1/app?uid=U&
 * tailLines=5 with "Authorization: Bearer <b's credential>"; its text and
 * X-Drover-Log-Offset are the answer. An agent that cannot be reached is
 * a 500 naming the URL and the reason, as Kubernetes answers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "api_int.h"
#include "auth.h"
#include "client_http.h"
#include "xalloc.h"

/* A node's client at one address, kept for its next request. A node
 * that moved gets another; the old one stays until the API is freed (a
 * transfer may still run on it). */
struct node_client {
	char *key; /* "NODE https://ADDR:PORT" */
	struct client *c;
	UT_hash_handle hh;
};

/* One request to an agent: an api_deferred. */
struct fetch {
	struct api_deferred d;
	struct api *a;
	char *node, *base, *path, *query;
	const struct kind_info *res; /* for the Status of a refusal */
	char *name;
	struct client *c; /* the node's, borrowed; NULL until started */
	api_deferred_done done;
	void *arg;
};

static void
fetch_free(struct fetch *f)
{
	free(f->node);
	free(f->base);
	free(f->path);
	free(f->query);
	free(f->name);
	free(f);
}

/* The client of node at base; NULL without a loop or TLS. */
static struct client *
client_for(struct api *a, const char *node, const char *base)
{
	struct node_client *nc;
	char cred[API_CRED_MAX], key[API_NODE_NAME_MAX + 320];
	const char *ca;
	size_t calen;

	snprintf(key, sizeof(key), "%s %s", node, base);
	HASH_FIND_STR(a->node_clients, key, nc);
	if (nc)
		return nc->c;
	ca = a->cfg.auth ? api_auth_ca(a->cfg.auth, &calen) : NULL;
	if (a->cfg.loop == NULL || ca == NULL ||
	    api_auth_node_credential(a->cfg.auth, node, cred))
		return NULL;
	nc = xcalloc(1, sizeof(*nc));
	nc->key = xstrdup(key);
	nc->c = client_http_new_on_loop(a->cfg.loop, base, cred);
	client_http_set_tls(nc->c, ca, calen, false);
	HASH_ADD_KEYPTR(hh, a->node_clients, nc->key, strlen(nc->key), nc);
	return nc->c;
}

static void
on_text(void *arg, int status, struct strbuf *text, int64_t offset,
	const char *err)
{
	struct fetch *f = arg;
	struct api_resp resp = {0};
	char msg[1200];

	if (status == 200) {
		resp.status = 200;
		resp.content_type = "text/plain";
		resp.body = xstrndup(text->buf ? text->buf : "", text->len);
		resp.log_end = offset >= 0 ? offset : 0;
	} else if (status == 400 || status == 404) {
		snprintf(msg, sizeof(msg), "%.*s", (int)text->len,
			 text->buf ? text->buf : "");
		resp_status(&resp, status,
			    status == 400 ? "BadRequest" : "NotFound", msg,
			    f->res, f->name, NULL);
	} else {
		if (status == 0)
			snprintf(msg, sizeof(msg), "Get \"%s%s?%s\": %s",
				 f->base, f->path, f->query, err ? err : "");
		else
			snprintf(msg, sizeof(msg),
				 "Get \"%s%s?%s\": the agent of node %s "
				 "answered %d: %.*s",
				 f->base, f->path, f->query, f->node, status,
				 (int)(text->len > 300 ? 300 : text->len),
				 text->buf ? text->buf : "");
		resp_status(&resp, 500, "InternalError", msg, NULL, NULL, NULL);
	}
	f->done(f->arg, &resp);
	fetch_free(f);
}

static void
fetch_start(struct api_deferred *d, api_deferred_done done, void *arg)
{
	struct fetch *f = (struct fetch *)d;
	struct api_resp resp = {0};

	f->done = done;
	f->arg = arg;
	f->c = client_for(f->a, f->node, f->base);
	if (f->c && client_http_get_text_async(f->c, f->path, f->query, on_text,
					       f) == 0)
		return;
	resp_status(&resp, 500, "InternalError",
		    "cannot ask the node's agent for the logs", NULL, NULL,
		    NULL);
	done(arg, &resp);
	fetch_free(f);
}

static void
fetch_cancel(struct api_deferred *d)
{
	struct fetch *f = (struct fetch *)d;

	if (f->c)
		client_http_cancel(f->c, f);
	fetch_free(f);
}

int
h_log_remote(struct api *a, const char *node, const struct route *rt,
	     const struct podlog_req *rq, struct api_resp *resp)
{
	struct store_key k = {"nodes", "", node};
	struct store_item it = {0};
	struct strbuf q = STRBUF_INIT;
	json_t *n, *l, *e;
	const char *addr = NULL;
	json_int_t port;
	struct fetch *f;
	char base[300], path[1100];
	size_t i;

	if (a->cfg.loop == NULL || a->cfg.auth == NULL ||
	    store_get(a->cfg.store, &k, &it))
		return -1;
	n = json_loads(it.value, 0, NULL);
	store_item_release(&it);
	l = json_object_get(json_object_get(n, "status"), "addresses");
	json_array_foreach(l, i, e)
	{
		const char *t = json_string_value(json_object_get(e, "type"));

		if (t && !strcmp(t, "InternalIP") && addr == NULL)
			addr = json_string_value(json_object_get(e, "address"));
	}
	port = json_integer_value(json_object_get(
	    json_object_get(json_object_get(json_object_get(n, "status"),
					    "daemonEndpoints"),
			    "kubeletEndpoint"),
	    "Port"));
	if (addr == NULL || port <= 0 || port > 65535) {
		json_decref(n);
		return -1;
	}
	snprintf(base, sizeof(base),
		 strchr(addr, ':') ? "https://[%s]:%lld" : "https://%s:%lld",
		 addr, (long long)port);
	json_decref(n);
	snprintf(path, sizeof(path), "/containerLogs/%s/%s/%s", rq->ns, rq->pod,
		 rq->container);
	/* The names are DNS labels and the uid a UUID: nothing to escape. */
	strbuf_addf(&q, "uid=%s&offset=%lld", rq->uid ? rq->uid : "",
		    (long long)rq->offset);
	if (rq->previous)
		strbuf_addstr(&q, "&previous=true");
	if (rq->limit >= 0)
		strbuf_addf(&q, "&limitBytes=%lld", (long long)rq->limit);
	if (rq->tail >= 0)
		strbuf_addf(&q, "&tailLines=%lld", (long long)rq->tail);
	f = xcalloc(1, sizeof(*f));
	f->d.start = fetch_start;
	f->d.cancel = fetch_cancel;
	f->a = a;
	f->node = xstrdup(node);
	f->base = xstrdup(base);
	f->path = xstrdup(path);
	f->query = strbuf_detach(&q);
	f->res = rt->res;
	f->name = xstrdup(rt->name);
	resp->deferred = &f->d;
	return 0;
}

void
h_log_remote_free(struct api *a)
{
	struct node_client *nc, *tmp;

	HASH_ITER(hh, a->node_clients, nc, tmp)
	{
		HASH_DEL(a->node_clients, nc);
		nc->c->ops->free(nc->c);
		free(nc->key);
		free(nc);
	}
}
