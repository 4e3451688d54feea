/* client_http.h - the HTTP client (libcurl): the CLI's way to the API,
 * and a remote controller's or agent's.
 *
 * server is a unix socket path or an http:// or https:// URL; token is
 * the bearer token for TCP (NULL for none). Over https the server's
 * certificate is verified against the system's CAs, or the CA given to
 * client_http_set_tls (drover serve's DIR/tls/ca.crt, from a kubeconfig's
 * certificate-authority-data), and its name against the URL's host.
 *
 * Without a loop (client_http_new: the CLI) requests are synchronous,
 * ops->watch is refused, and client_http_watch_blocking blocks, calling
 * the callback per event, until *stop is set or the stream ends.
 *
 * On a loop (client_http_new_on_loop) the client also has request_async
 * and ops->watch, both on libcurl's multi interface driven by the loop
 * (uv_poll_t per socket, a uv_timer_t for libcurl's timeouts). A watch's
 * stream of newline-delimited JSON events is parsed as it arrives, a
 * line at a time, and each event handed to the callback from the loop;
 * when the stream ends (timeoutSeconds, the server ended it for lagging,
 * the server went away) the callback gets NULL; when the server refused
 * the watch (410 Gone from a resourceVersion older than its history,
 * 400, 401) it first gets an ERROR event with the server's Status as its
 * object (client.h). Synchronous requests still work on such a client,
 * and block the loop while they last.
 *
 * Errors: a server that cannot be reached is status 0 with error text
 * ("cannot reach the drover API at ...: Couldn't connect to server"),
 * synchronously or in the client_done_cb; a watch that cannot connect
 * just ends (NULL).
 *
 * libcurl is loaded with dlopen on the first client made, so a process
 * that never makes one (drover serve) never maps it.
 *
 * Ownership: the client borrows loop, and copies server, token and CA.
 * ops->free cancels transfers in flight without calling their callbacks
 * and closes the handles; the loop must then run once more. */
#ifndef DROVER_CLIENT_CLIENT_HTTP_H
#define DROVER_CLIENT_CLIENT_HTTP_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "client.h"
#include "strbuf.h"

struct client *client_http_new(const char *server, const char *token);
struct client *client_http_new_on_loop(uv_loop_t *loop, const char *server,
				       const char *token);
/* Over https: trust the CA in ca_pem (PEM, ca_len bytes, copied; NULL:
 * the system's CAs), or with insecure verify nothing (kubeconfig's
 * insecure-skip-tls-verify). Call before the first request. */
void client_http_set_tls(struct client *c, const char *ca_pem, size_t ca_len,
			 bool insecure);
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

/* The same on a client made on a loop: cb(arg, status, text, offset,
 * err) once, from the loop (status 0 and err set if the server could not
 * be reached, in CLIENT_TEXT_CONNECT_MS, or did not answer in
 * CLIENT_TEXT_TIMEOUT_MS; text is the client's, valid during the call).
 * 0, or -1 if the request could not be started (cb is then never
 * called). */
#define CLIENT_TEXT_CONNECT_MS 10000
#define CLIENT_TEXT_TIMEOUT_MS 60000
typedef void (*client_text_cb)(void *arg, int status, struct strbuf *text,
			       int64_t offset, const char *err);
int client_http_get_text_async(struct client *c, const char *path,
			       const char *query, client_text_cb cb, void *arg);
/* Cancels the unfinished request made with arg (get_text_async or
 * request_async): its callback is never called. */
void client_http_cancel(struct client *c, void *arg);

#endif
