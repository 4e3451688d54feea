/* client.h - how controllers, the agent and the CLI talk to the API:
 * requests with JSON bodies, and watches. Two implementations: the
 * in-process client (client_local.c, inside `drover serve`: it calls the
 * API handlers directly, with the same semantics as HTTP) and the HTTP
 * client (client_http.c, libcurl: the CLI and, later, remote agents).
 *
 * Ownership: a client_resp owns its body (client_resp_release). */
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

struct client_ops {
	int (*request)(struct client *c, const char *method, const char *path,
		       const char *query, const char *content_type,
		       json_t *body, struct client_resp *out);
	struct client_watch *(*watch)(struct client *c, const char *path,
				      const char *query, client_watch_cb cb,
				      void *arg, struct client_resp *out);
	void (*unwatch)(struct client *c, struct client_watch *w);
	void (*free)(struct client *c);
	/* Makes the writes so far durable (in-process, where the store
	 * commits in groups); NULL when every answer already means it. */
	int (*flush)(struct client *c);
};

struct client {
	const struct client_ops *ops;
};

/* Convenience wrappers. body may be NULL; it is not stolen (in-process,
 * the API may add apiVersion and kind to it). */
int client_request(struct client *c, const char *method, const char *path,
		   const char *query, const char *content_type, json_t *body,
		   struct client_resp *out);
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
