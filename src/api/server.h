/* server.h - the HTTP face of the API: libmicrohttpd driven from the
 * drover libuv loop (external epoll mode: every callback runs on the loop
 * thread), one MHD daemon per listener.
 *
 * Listeners: a unix socket (created with mode 0600; filesystem permissions
 * are its authentication) and optionally a TCP address that requires
 * "Authorization: Bearer <token>". Watches are chunked streams: the
 * connection is suspended while idle and resumed when events arrive.
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
	unsigned max_connections;
};

struct http_server;

int http_server_start(const struct http_server_config *cfg,
		      struct http_server **out, char *err, size_t errlen);
int http_server_tcp_port(const struct http_server *s);
void http_server_stop(struct http_server *s);

#endif
