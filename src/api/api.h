/* api.h - drover's Kubernetes-shaped API, independent of HTTP.
 *
 * api_handle() takes one request (method, path, query, body) and produces
 * one response (status code and JSON body), doing what the Kubernetes API
 * server does for the supported kinds: strict decoding, defaulting and
 * validation on every write, server-managed metadata (uid,
 * creationTimestamp, generation, resourceVersion), subresources, patches,
 * graceful and cascading deletion, Status objects for every refusal. The
 * HTTP server (server.c) and the in-process client are thin adapters over
 * it, so both behave the same.
 *
 * Watches: api_watch_open() starts a stream; events are handed to the
 * caller's callback as complete JSON lines until api_watch_close().
 * In-process watchers use api_watch_open_obj() and get the events as
 * JSON values instead, without a text round trip.
 *
 * Ownership: the caller owns requests; a response's body belongs to the
 * response (api_resp_release). Single-threaded, on the daemon's loop. */
#ifndef DROVER_API_H
#define DROVER_API_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "dtime.h"
#include "podlog.h"
#include "strbuf.h"
#include "store.h"

#define API_MAX_BODY (3 * 1024 * 1024) /* Kubernetes' request limit */

struct api_config {
	struct store *store;
	dtime (*now)(void *arg);
	/* Fills buf with n random bytes (uids, generated names). */
	void (*random)(void *arg, unsigned char *buf, size_t n);
	void *arg;
	/* GET /metrics answers what this registry collects (NULL: 404). The
	 * API's own families come from api_metrics_collect and
	 * api_store_metrics_collect, which the owner registers. */
	struct metrics *metrics;
	/* Who may join and how nodes are known (auth.h): /drover/v1/...
	 * (h_drover.c); NULL: those endpoints answer 404. Borrowed. */
	struct api_auth *auth;
	/* DefaultTolerationSeconds (kube-apiserver's admission plugin): a
	 * pod created without them gets the NoExecute tolerations of
	 * node.kubernetes.io/not-ready and /unreachable for these many
	 * seconds (--default-not-ready-toleration-seconds, 300); false:
	 * none added. */
	bool default_tolerations;
	int64_t not_ready_toleration_s, unreachable_toleration_s;
	/* The loop answers that come later run on (pods/log of a pod on a
	 * joined host, api_deferred); NULL: such requests answer 404. */
	uv_loop_t *loop;
};

struct api_req {
	const char *method; /* GET, POST, PUT, PATCH, DELETE */
	const char *path;   /* /apis/apps/v1/namespaces/default/deployments */
	const char *query;  /* "labelSelector=app%3Dweb&watch=true" or NULL */
	/* Or the query already decoded (an HTTP server's parser did it):
	 * nargs key/value pairs, args[2i] and args[2i+1]; query is then
	 * ignored. */
	const char *const *args;
	size_t nargs;
	const char *content_type;
	/* The Accept header, or NULL: a Table for `kubectl get` (table.c). */
	const char *accept;
	const char *body;
	size_t body_len;
	/* In-process callers: the body as a JSON value instead of text (the
	 * API may add apiVersion and kind to it), and the answer as a JSON
	 * value in resp->json rather than text. */
	json_t *json;
	bool want_json;
	/* Or the body text already parsed as JSON by the server, off the
	 * loop (a large body, server.c): the value (borrowed), or NULL and
	 * the parser's error. The media type is checked as for text. */
	json_t *parsed;
	const json_error_t *parse_error;
	/* Who asks: NULL for the admin (the token, the unix socket, an
	 * in-process client), else the node whose credential it presented:
	 * it acts as system:node:NAME (node_authz.c). */
	const char *node;
	/* The bearer token, for POST /drover/v1/join (a join token). */
	const char *bearer;
};

/* An answer produced in pieces (a long list), so that the server can send
 * it a piece at a time and serve other requests between pieces. next()
 * appends the next piece to out (tens of KB), or returns false once the
 * answer is complete (nothing appended); free() releases it. held is
 * what the stream keeps in memory besides the pieces it printed (rows
 * read ahead, its store cursor), as next() left it: the server counts
 * it in its budget of what clients leave unread. */
struct api_stream {
	bool (*next)(struct api_stream *s, struct strbuf *out);
	void (*free)(struct api_stream *s);
	size_t held;
};

/* An answer that comes later: pods/log of a pod on a joined host, which
 * the API asks that node's agent for over the network (h_log_remote.c).
 * The server holds the request and calls start(d, done, arg): done(arg,
 * resp) comes once, from the loop, with the answer (the callee owns it
 * then), and d is freed. cancel(d) ends it instead, started or not (done
 * is then never called), and frees it. */
struct api_resp;
typedef void (*api_deferred_done)(void *arg, struct api_resp *resp);
struct api_deferred {
	void (*start)(struct api_deferred *d, api_deferred_done done,
		      void *arg);
	void (*cancel)(struct api_deferred *d);
};

struct api_resp {
	int status;
	char *body;               /* JSON, NUL-terminated */
	const char *content_type; /* static */
	int64_t log_end;          /* pods/log: the offset after the body */
	/* With req->want_json: the answer as a value (instead of body when
	 * it is JSON). It may be shared with watchers: read it only. */
	json_t *json;
	bool as_json; /* internal: req->want_json */
	/* The answer read nothing of the store (discovery, /version): it
	 * needs no flush before it leaves. */
	bool stateless;
	/* Or, to an HTTP client, the body in pieces (body is then NULL);
	 * api_resp_release frees it unless the server took it. */
	struct api_stream *stream;
	/* Or the answer comes later (status 0 until then); api_resp_release
	 * cancels it unless the server took it. */
	struct api_deferred *deferred;
};

struct api;
struct api_watch;
struct api_auth;

/* Paths any client may ask without a credential: GET
 * /drover/v1/cluster-info, POST /drover/v1/join (h_drover.c). */
bool api_is_open_path(const char *method, const char *path);

/* Called with one event line ("{...}\n"); return non-zero to stop. */
typedef int (*api_watch_cb)(void *arg, const char *line, size_t len);
/* Called with one event ({"type":..., "object":...}). The object may be
 * shared with other watchers: read it, keep references to it, never
 * modify it. Return non-zero to stop. */
typedef int (*api_watch_obj_cb)(void *arg, json_t *ev);

struct api *api_new(const struct api_config *cfg);

/* pods/NAME/log reaches the agent of the pod's node, as the API server
 * reaches the kubelet: an agent that serves its node's logs is registered
 * here under the node's name (in `drover serve`, its own agent; read
 * NULL removes it). The API checks the pod and the container, then asks
 * it (podlog.h); a node with no agent registered answers 404. */
void api_serve_node_logs(struct api *a, const char *node, podlog_read_fn read,
			 void *arg);
/* Lets go of what the API keeps on the loop (its clients of joined
 * nodes' agents, h_log_remote.c): call it before the loop's last run,
 * which closes their handles. api_free does it too, for an API whose
 * loop still runs. */
void api_stop_loop_work(struct api *a);
void api_free(struct api *a);
void api_handle(struct api *a, const struct api_req *req,
		struct api_resp *resp);
void api_resp_release(struct api_resp *resp);
/* Makes the store's writes so far durable (group commit, see store.h):
 * call it before anything leaves the process. 0; or -1, and resp (if not
 * NULL) is replaced by a 500 InternalError Status, as the write it
 * answers was rolled back. */
int api_flush(struct api *a, struct api_resp *resp);
/* Writes are waiting for api_flush. */
bool api_pending(struct api *a);
/* The store has delivered its events to the in-process watchers
 * (store_deliver): the written values kept for them are let go at once,
 * not at the next event. */
void api_events_delivered(struct api *a);
/* The store's last resourceVersion handed out; whether the write that
 * got rv is on disk (committed, not rolled back with its group). */
int64_t api_last_rv(struct api *a);
bool api_durable(struct api *a, int64_t rv);
/* The write that got rv was rolled back with its group. */
bool api_lost(struct api *a, int64_t rv);
/* resp becomes the 500 InternalError of a write that was rolled back
 * (api_flush failed after it was made). */
void api_resp_rolled_back(struct api_resp *resp);

/* metrics_collect_fns (src/sys/metrics.h; arg: the struct api).
 * api_metrics_collect: Kubernetes' apiserver_request_total{verb,
 * resource,subresource,code} and apiserver_request_duration_seconds{verb,
 * resource,subresource} under drover_, for every request answered by
 * api_handle or a watch opened, over HTTP or in process (the
 * controllers' requests count, as they do in Kubernetes). Verbs are
 * Kubernetes': GET, LIST, WATCH, CREATE, UPDATE, PATCH, DELETE; a
 * request for no resource (discovery, /version, /metrics) has its HTTP
 * method and resource "". A write's code is the one api_handle gave,
 * before the group commit (which may yet turn it into a 500).
 * api_store_metrics_collect: the store's writes, commits, commit
 * failures and durations (store_stats). */
struct strbuf;
void api_metrics_collect(void *arg, struct strbuf *out);
void api_store_metrics_collect(void *arg, struct strbuf *out);

/* True if req asks for a watch (GET ...?watch=true|1). */
bool api_is_watch(const struct api_req *req);
/* Opens a watch for req. On refusal returns NULL and fills resp (e.g. 410
 * Gone as a Status); on success resp->status is 200 and the initial events
 * have already been delivered to cb. */
struct api_watch *api_watch_open(struct api *a, const struct api_req *req,
				 api_watch_cb cb, void *arg,
				 struct api_resp *resp);
struct api_watch *api_watch_open_obj(struct api *a, const struct api_req *req,
				     api_watch_obj_cb cb, void *arg,
				     struct api_resp *resp);
/* A BOOKMARK event carrying the current resourceVersion, if the watch
 * asked for bookmarks. */
void api_watch_bookmark(struct api_watch *w);
void api_watch_close(struct api_watch *w);

#endif
