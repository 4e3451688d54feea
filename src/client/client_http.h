/* client_http.h - the HTTP client (libcurl): the CLI's way to the API.
 * server is a unix socket path or an http:// URL; token is the bearer
 * token for TCP (NULL for none). Requests are synchronous; a watch
 * blocks, calling the callback per event, until the callback returns
 * non-zero (through client_http_watch_stop) or the stream ends. */
#ifndef DROVER_CLIENT_CLIENT_HTTP_H
#define DROVER_CLIENT_CLIENT_HTTP_H

#include <stdint.h>

#include "client.h"
#include "strbuf.h"

struct client *client_http_new(const char *server, const char *token);
/* s percent-encoded for a query value or a path segment (libcurl's
 * curl_easy_escape: all but A-Z a-z 0-9 - . _ ~); the caller frees it.
 * NULL if libcurl cannot be loaded. */
char *client_http_escape(const char *s);
/* Blocking watch: returns when cb asked to stop (*stop set) or the stream
 * ended; out gets the HTTP status. timeout_ms 0: none. */
int client_http_watch_blocking(struct client *c, const char *path,
			       const char *query, client_watch_cb cb, void *arg,
			       volatile int *stop, long timeout_ms,
			       struct client_resp *out);

/* A GET whose answer is not JSON (pods/log): the body in text, and the
 * X-Drover-Log-Offset header in *offset (-1 if absent). Returns the HTTP
 * status, 0 if the server could not be reached (err filled). */
int client_http_get_text(struct client *c, const char *path, const char *query,
			 struct strbuf *text, int64_t *offset, char *err,
			 size_t errlen);

#endif
