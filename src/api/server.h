/* server.h - the HTTP face of the API: libmicrohttpd driven from the
 * drover libuv loop (external epoll mode: every callback runs on the loop
 * thread), one MHD daemon per listener.
 *
 * Listeners: a unix socket (created with mode 0600; filesystem permissions
 * are its authentication) and optionally a TCP address, HTTPS with the
 * certificate given (or plain HTTP when none is), that requires
 * "Authorization: Bearer <token>" (compared in constant time). Watches
 * are chunked streams: the connection is suspended while idle and resumed
 * when events arrive.
 *
 * Limits, so that no one client can freeze or exhaust the server:
 * - A watch stream whose client reads slower than events arrive is ended
 *   (the client sees the chunked stream end and resumes from its last
 *   resourceVersion, as with Kubernetes' watch cache) once it lags by more
 *   than watch_buffer bytes. The events of a watch's initial state do not
 *   count: a client may be slow to take them.
 * - A list is sent in pieces, each printed once MHD has taken the one
 *   before, its rows read a batch at a time from a store cursor; what a
 *   list holds (the batch, the cursor) and what the watches lag count
 *   together against watch_buffer_total. Past it, the stream whose
 *   client has gone longest without taking a byte is ended (a watch at
 *   the end of an event, a list cut short), and only a stalled one: one
 *   that had a chance to send in the last MHD_run and whose client took
 *   nothing; a client that takes bytes is never ended for the total.
 * - A TCP connection that has not sent the headers of a request with the
 *   right token within header_timeout seconds of being accepted is
 *   closed (the TLS handshake is part of that time). When a new one makes
 *   them more than max_unauth in all or max_unauth_per_addr from one
 *   address, the one closed is the one that got least far (nothing
 *   received, then a TLS handshake under way, then a handshake finished,
 *   then a request line received), the oldest among equals.
 *   Connections that have presented the token are counted apart and never
 *   closed for the sake of new ones.
 * - A connection (TCP or unix) that sends nothing for idle_timeout seconds
 *   while a request's headers or body are coming, between requests, or
 *   while it does not take its response, is closed. Watch streams are
 *   exempt: they last until timeoutSeconds or until they lag too much,
 *   and one whose client has hung up is ended within seconds (MHD does not
 *   watch a suspended connection's socket).
 *
 * Ownership: the server borrows api and loop; http_server_stop() closes
 * every connection and frees the server (asynchronously for the uv
 * handles: the loop must run once more). */
#ifndef DROVER_API_SERVER_H
#define DROVER_API_SERVER_H

#include <uv.h>

#include "api.h"

struct http_server_config {
	struct api *api;
	uv_loop_t *loop;
	const char *unix_path; /* NULL: no unix socket */
	const char *tcp_host;  /* NULL: no TCP listener */
	int tcp_port;          /* 0: pick one (see http_server_tcp_port) */
	const char *token;     /* required on TCP */
	/* Nodes' credentials (auth.h), also accepted on TCP; NULL: none.
	 * Borrowed. */
	const struct api_auth *auth;
	/* PEM of the TCP listener's certificate and key (NULL: plain HTTP,
	 * only with drover serve --insecure-http); copied by MHD. */
	const char *tls_cert;
	const char *tls_key;
	/* GnuTLS priority string of the TLS listener (versions and cipher
	 * suites); NULL: libmicrohttpd's default. */
	const char *tls_priorities;
	unsigned max_connections;
	/* 0 for each: the default below. */
	size_t watch_buffer;
	size_t watch_buffer_total;
	unsigned header_timeout; /* seconds */
	unsigned idle_timeout;   /* seconds */
	unsigned max_unauth;
	unsigned max_unauth_per_addr;
};

#define HTTP_WATCH_BUFFER       (4 * 1024 * 1024)
#define HTTP_WATCH_BUFFER_TOTAL (16 * 1024 * 1024)
#define HTTP_HEADER_TIMEOUT     2
/* kube-apiserver's: an agent's connection outlives the 10 s between two
 * heartbeats. At 10 s each heartbeat of a 1,000-node fleet opened a new
 * TLS connection (2-3 ms of the control plane's CPU each). */
#define HTTP_IDLE_TIMEOUT        90
#define HTTP_MAX_UNAUTH          512
#define HTTP_MAX_UNAUTH_PER_ADDR 64

struct http_server;

int http_server_start(const struct http_server_config *cfg,
		      struct http_server **out, char *err, size_t errlen);
int http_server_tcp_port(const struct http_server *s);
/* More writes are durable (the store's background sync, store.h): the
 * answers that waited for them go out at the next run. */
void http_server_durable(struct http_server *s);
void http_server_stop(struct http_server *s);

#endif
