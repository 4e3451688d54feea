/* client.h - how controllers, the agent and the CLI talk to the API:
 * requests with JSON bodies, and watches. Three implementations: the
 * in-process client (src/api/client_local.c, inside `drover serve`: it
 * calls the API handlers directly, with the same semantics as HTTP), the
 * HTTP client (client_http.c, libcurl: the CLI, and remote agents on a
 * loop) and a recording fake for tests (client_fake.c).
 *
 * Synchronous and asynchronous use. Every client answers `request` at
 * once (the HTTP one blocks until the answer is in). A client made on a
 * libuv loop (client_local_new_on_loop, client_http_new_on_loop,
 * client_fake_new) also answers `request_async` and, over HTTP, `watch`:
 *
 * - request_async: 0, and then cb is called exactly once, from the loop,
 *   never before request_async has returned (both transports: in-process
 *   the request is made at once and only the answer waits for the next
 *   loop turn; over HTTP the whole request runs on the loop). -1 if the
 *   request could not be started at all (a client without a loop, no
 *   libcurl): cb is then never called, as with libuv. A server that
 *   cannot be reached is an answer: status 0 and error set.
 * - watch: the events come to cb from the loop, never inside a request
 *   (in-process after the loop turn's commit, store.h; over HTTP as the
 *   stream arrives). A refusal that
 *   a client made on a loop learns of (410 Gone from a resourceVersion
 *   older than the history, 400 on a bad selector) comes to cb as one
 *   ERROR event whose object is the server's Status ({"type":"ERROR",
 *   "object":{"kind":"Status","code":410,"reason":"Expired",...}}: the
 *   form in which Kubernetes itself reports a 410 on a watch), and then
 *   NULL; a client without a loop returns NULL with the Status in out.
 *
 * Callbacks: a callback may make requests, start watches and unwatch any
 * watch (its own too); it must not free the client.
 *
 * Ownership: a client_resp owns its body and error (client_resp_release);
 * the one handed to a client_done_cb belongs to the transport and is
 * released when the callback returns (keep the body with json_incref, or
 * take it by setting resp->body to NULL). */
#ifndef DROVER_CLIENT_CLIENT_H
#define DROVER_CLIENT_CLIENT_H

#include <jansson.h>
#include <stdbool.h>

struct client;
struct client_watch;

struct client_resp {
	int status;   /* HTTP status; 0 if the server could not be reached */
	json_t *body; /* parsed JSON, or NULL; in-process it may be shared
			 with watchers: read it, never modify it */
	char *error;  /* transport error text, or NULL */
};

/* Called with each watch event ({"type":..., "object":...}); NULL ev
 * means the stream ended. The event may be shared with other watchers
 * (in-process): read it or take references, never modify it. */
typedef void (*client_watch_cb)(void *arg, json_t *ev);
/* Called once with the answer of request_async (see above). */
typedef void (*client_done_cb)(void *arg, struct client_resp *resp);

struct client_ops {
	int (*request)(struct client *c, const char *method, const char *path,
		       const char *query, const char *content_type,
		       json_t *body, struct client_resp *out);
	/* A watch (query holds watch=true): a handle, or NULL with the
	 * refusal or the transport error in out. out->status is 200 when
	 * the watch is known to be open (in-process), 0 when the answer is
	 * still to come (HTTP on a loop). The handle is the client's; end
	 * it with unwatch, also after cb got NULL. */
	struct client_watch *(*watch)(struct client *c, const char *path,
				      const char *query, client_watch_cb cb,
				      void *arg, struct client_resp *out);
	/* Ends a watch: cb is not called again. w may be NULL. */
	void (*unwatch)(struct client *c, struct client_watch *w);
	/* Frees the client and cancels what is in flight, without calling
	 * its callbacks. A client on a loop closes its handles: the loop
	 * must run once more to release them. */
	void (*free)(struct client *c);
	/* Makes the writes so far durable (in-process, where the store
	 * commits in groups); NULL when every answer already means it. */
	int (*flush)(struct client *c);
	/* The request, its answer handed to cb from the loop (see above);
	 * NULL on a client that has none. body is not stolen. */
	int (*request_async)(struct client *c, const char *method,
			     const char *path, const char *query,
			     const char *content_type, json_t *body,
			     client_done_cb cb, void *arg);
	/* Drops the request_async under way with this arg: its cb is never
	 * called (for an owner that goes before the answer comes); nothing
	 * if there is none. */
	void (*cancel)(struct client *c, void *arg);
};

struct client {
	const struct client_ops *ops;
};

/* Convenience wrappers. body may be NULL; it is not stolen (in-process,
 * the API may add apiVersion and kind to it). */
int client_request(struct client *c, const char *method, const char *path,
		   const char *query, const char *content_type, json_t *body,
		   struct client_resp *out);
/* ops->request_async: 0, or -1 (cb never called) if the client has none
 * or the request cannot be started. */
int client_request_async(struct client *c, const char *method, const char *path,
			 const char *query, const char *content_type,
			 json_t *body, client_done_cb cb, void *arg);
/* ops->cancel (see above); nothing on a client without request_async. */
void client_cancel(struct client *c, void *arg);
void client_resp_release(struct client_resp *r);
/* ops->flush if there is one: 0, or -1 if the writes could not be made
 * durable (they are rolled back; see store_flush). */
int client_flush(struct client *c);
/* "message" of a Status body, or the transport error, or "HTTP <n>". */
const char *client_resp_message(const struct client_resp *r, char *buf,
				size_t len);

/* Path of an object or collection: ns may be NULL (all namespaces),
 * name may be NULL (the collection), sub may be NULL. */
void client_path(char *buf, size_t len, const char *group, const char *version,
		 const char *plural, const char *ns, const char *name,
		 const char *sub);

#endif
