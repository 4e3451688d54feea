/* proxy.h - the Service proxy's data path: listeners on 127.0.0.1 ports
 * that spread connections (TCP mode) or requests (HTTP/1.1 mode) over a
 * Service's endpoints, following their readiness, and drain endpoints
 * without breaking a connection (kube-proxy's job, done in-process, in
 * the way of haproxy's and nginx's stream proxies).
 *
 * Threads. proxy_start() starts one thread with its own libuv loop: the
 * whole data path runs there, never on the caller's loop, so that no
 * stall of the control plane becomes the proxy's latency
 * (notes/proxy-measure.md). Every function below may be called from any
 * thread, except that proxy_stop() must not be called from the idle
 * callback.
 *
 * Ownership. proxy_start() returns a proxy the caller owns and ends with
 * proxy_stop(), which frees it. proxy_set_table() copies the table (the
 * caller keeps and frees its own); the copy is applied on the proxy's
 * loop, in the order of the calls (a table replaces the previous one
 * whole: a service absent from it is removed). */
#ifndef DROVER_PROXY_H
#define DROVER_PROXY_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

enum proxy_mode {
	PROXY_TCP = 0, /* bytes both ways, one endpoint per connection */
	PROXY_HTTP,    /* HTTP/1.1: one endpoint per request, keep-alive */
};

enum proxy_balance {
	PROXY_ROUND_ROBIN = 0,
	PROXY_LEAST_CONN, /* the ready endpoint with the fewest connections */
};

/* An endpoint's state, as an EndpointSlice's conditions say it:
 * ready (conditions.ready), draining (serving but terminating: no new
 * connections or requests, the open ones finish), gone (like draining,
 * for an endpoint the caller is about to remove; also reported when
 * idle). An endpoint left out of a new table counts as gone. */
enum proxy_ep_state {
	PROXY_EP_READY = 0,
	PROXY_EP_DRAINING,
	PROXY_EP_GONE,
};

struct proxy_endpoint {
	const char *address;  /* "127.0.0.1" (IPv4 or IPv6 literal) */
	int port;             /* 1..65535 */
	const char *key;      /* the pod: "namespace/name/uid"; unique */
	const char *revision; /* the pod's pod-template-hash, "" if none */
	enum proxy_ep_state state;
};

struct proxy_service {
	const char *name;    /* "namespace/name[:port]"; unique in a table */
	const char *address; /* the listen address, "127.0.0.1" */
	int port;            /* the listen port, given by the caller */
	enum proxy_mode mode;
	enum proxy_balance balance;
	/* A connection with no traffic either way for this long is closed
	 * (TCP mode; HTTP mode: a client between requests, a pooled backend
	 * connection). 0: the default, 300 s. */
	unsigned idle_timeout_ms;
	/* A backend connect that takes longer fails (and the next endpoint
	 * is tried). 0: the default, 1 s. */
	unsigned connect_timeout_ms;
	const struct proxy_endpoint *endpoints;
	size_t n_endpoints;
};

struct proxy_table {
	const struct proxy_service *services;
	size_t n_services;
	/* The caller's own number of this table (the agent's generation),
	 * named in the proxy's log lines; 0 if none. */
	int64_t generation;
};

/* Called on the proxy's thread when an endpoint that is draining or gone
 * (or was left out of the table) has no connection left: the moment its
 * process may be stopped. Called once per such transition; an endpoint
 * made ready again and drained again is reported again. It must not
 * block and must not call proxy_stop(); to reach a libuv loop of the
 * caller's, copy the strings and uv_async_send() from here. */
typedef void (*proxy_idle_cb)(void *arg, const char *service, const char *key);

/* Called on the proxy's thread once the table of generation gen is
 * applied (proxy_applied() says the same), under the same rules as
 * proxy_idle_cb. */
typedef void (*proxy_applied_cb)(void *arg, int64_t gen);

/* Called on the proxy's thread when a service's listener opened or
 * failed to (proxy_service_stats' listen_error changed: 0, or the
 * negative errno), under the same rules as proxy_idle_cb. */
typedef void (*proxy_listen_cb)(void *arg, const char *service, int error);

struct proxy_config {
	proxy_idle_cb on_idle;       /* may be NULL */
	proxy_applied_cb on_applied; /* may be NULL */
	proxy_listen_cb on_listen;   /* may be NULL */
	void *arg;
};

struct proxy;

/* Starts the proxy's thread with an empty table. NULL on failure. */
struct proxy *proxy_start(const struct proxy_config *cfg);

/* Closes the listeners and every connection, joins the thread, frees p.
 * NULL is allowed. */
void proxy_stop(struct proxy *p);

/* Hands the proxy a new table (copied). Returns its generation (1, 2,
 * ...), or a negative errno: -EINVAL for a table that cannot be used (an
 * address that is not an IP literal, a port out of range, a name or key
 * given twice), -ENOMEM. The table is applied on the proxy's loop soon
 * after: proxy_applied() says when. A port that cannot be bound is not an
 * error here: proxy_service_stats() reports it, and the proxy tries again
 * with back-off (PROXY_RELISTEN_MIN_MS doubling to PROXY_RELISTEN_MAX_MS,
 * and at every table that still has the service) until it binds. */
#define PROXY_RELISTEN_MIN_MS 100
#define PROXY_RELISTEN_MAX_MS 2000
int64_t proxy_set_table(struct proxy *p, const struct proxy_table *t);

/* The generation of the last table applied (0: none yet). */
int64_t proxy_applied(struct proxy *p);

/* Counters (a consistent read of each field, made from any thread). */
struct proxy_service_stats {
	int listen_error; /* 0 when listening, else the negative errno of the
			     bind or listen (-EADDRINUSE) */
	uint64_t active;  /* client connections open */
	uint64_t total;   /* client connections accepted */
	uint64_t connect_failures; /* backend connects that failed */
	uint64_t rejected;         /* client connections or requests closed or
			      answered 502/503 because no endpoint could be
			      reached */
};

struct proxy_endpoint_stats {
	enum proxy_ep_state state;
	uint64_t active; /* backend connections open (HTTP: pooled ones too) */
	uint64_t total;  /* backend connections made */
	uint64_t connect_failures;
	uint64_t requests[5]; /* HTTP: responses by class, [0] = 1xx ... */
};

struct proxy_revision_stats {
	uint64_t requests[5]; /* HTTP: responses by class, [0] = 1xx ... */
	uint64_t count;       /* requests timed */
	double sum_seconds;   /* their total latency */
};

/* 0, or -ENOENT when the service (endpoint, revision) is not in the
 * applied table. Revisions keep their counters as long as their service
 * exists. */
int proxy_service_stats(struct proxy *p, const char *service,
			struct proxy_service_stats *out);
int proxy_endpoint_stats(struct proxy *p, const char *service, const char *key,
			 struct proxy_endpoint_stats *out);
int proxy_revision_stats(struct proxy *p, const char *service,
			 const char *revision,
			 struct proxy_revision_stats *out);

/* 1 when no connection to the endpoint remains (or it is not known), 0
 * otherwise. */
int proxy_endpoint_idle(struct proxy *p, const char *service, const char *key);

/* Appends the Prometheus text exposition (version 0.0.4) of every
 * counter to sb: drover_proxy_connections_active{service},
 * drover_proxy_connections_total, drover_proxy_connect_failures_total,
 * drover_proxy_listener_up, drover_proxy_endpoint_connections_active
 * {service,endpoint,revision}, ..._total, drover_proxy_endpoint_connect_
 * failures_total, drover_proxy_endpoint_requests_total{...,code="2xx"},
 * drover_proxy_requests_total{service,revision,code} and the histogram
 * drover_proxy_request_duration_seconds{service,revision}. */
void proxy_metrics_append(struct proxy *p, struct strbuf *sb);
/* The same as a collector of src/sys/metrics.h (arg: the proxy):
 * metrics_register(m, "proxy", proxy_metrics_collect, p). It takes the
 * proxy's lock; unregister it before proxy_stop(). */
void proxy_metrics_collect(void *arg, struct strbuf *out);

#endif
