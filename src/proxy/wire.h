/* wire.h - the control messages between a node agent and its proxy
 * process (`drover __proxy`): one JSON object a line on a unix socket.
 *
 * The agent sends whole tables, numbered by its own generation:
 *
 *   {"op":"table","gen":7,"services":[{"name":"default/web:http",
 *     "address":"127.0.0.1","port":8080,"mode":"http",
 *     "balance":"round-robin","idleTimeoutMs":0,"connectTimeoutMs":0,
 *     "endpoints":[{"address":"127.0.0.1","port":30001,
 *       "key":"default/web-5d4f-abcde/9c1e...","revision":"5d4f",
 *       "state":"ready"}]}]}
 *   {"op":"exit"}            (no Service left: the process ends)
 *
 * and the proxy answers, after each table is applied and whenever an
 * endpoint that is not ready has its last connection end:
 *
 *   {"op":"busy","gen":7,"busy":["default/web-5d4f-abcde/9c1e..."],
 *    "errors":{"default/db":"cannot listen on 127.0.0.1:80: permission
 *    denied"},"listening":["default/web:http"]}
 *
 * "gen" is the agent's generation of the last table applied; "busy" the
 * keys of the endpoints, draining or gone, that still have connections;
 * "errors" the listeners of that table that could not open (the proxy
 * tries again with back-off; the agent records an Event on the Service),
 * "listening" those that are open. A busy message is also sent when a
 * listener opens or fails, and only for a table of the agent connected
 * (a new agent has not sent one yet: nothing is sent).
 * An endpoint of that table that is not ready and not busy is drained:
 * no connection or request will reach it again. That is all the drain
 * handshake needs (agent/drain.c).
 *
 * Ownership: proxy_wire_table() returns a new reference; a table parsed
 * by proxy_wire_parse_table() belongs to the caller, who frees it with
 * proxy_wire_table_free(). */
#ifndef DROVER_PROXY_WIRE_H
#define DROVER_PROXY_WIRE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "proxy.h"
#include "strbuf.h"

/* The "table" message of t, generation gen. */
json_t *proxy_wire_table(int64_t gen, const struct proxy_table *t);

/* Reads a "table" message. 0, or -1 with *why saying what is wrong (a
 * static string). */
int proxy_wire_parse_table(const json_t *msg, int64_t *gen,
			   struct proxy_table **out, const char **why);
void proxy_wire_table_free(struct proxy_table *t);

/* The framing, shared by both ends. proxy_wire_send() queues text and a
 * newline on s (a copy: the caller keeps text); 0, or a libuv error
 * (then the caller closes the stream). proxy_wire_feed() appends n read
 * bytes to the unfinished line in *in and hands each complete line to
 * fn, without its newline, while fn returns true; the rest stays in
 * *in for the next read. */
int proxy_wire_send(uv_stream_t *s, const char *text);
typedef bool (*proxy_wire_line_fn)(void *arg, const char *line, size_t n);
void proxy_wire_feed(struct strbuf *in, const char *data, size_t n,
		     proxy_wire_line_fn fn, void *arg);

/* Names of the enums on the wire, and back (-1: unknown). */
const char *proxy_wire_mode_name(enum proxy_mode m);
const char *proxy_wire_balance_name(enum proxy_balance b);
const char *proxy_wire_state_name(enum proxy_ep_state s);
int proxy_wire_mode(const char *s);
int proxy_wire_balance(const char *s);
int proxy_wire_state(const char *s);

#endif
