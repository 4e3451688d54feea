/* services.h - the node agent's part of Services: it watches Services,
 * EndpointSlices and Nodes, turns them into this node's proxy table,
 * runs the proxy process (daemon/proxyd.c) and hands it the table, and
 * takes part in the drain handshake (core/drain.h): it publishes what
 * its proxy has seen and still routes to in an annotation of its Node,
 * and answers whether a pod of this node that is being deleted may get
 * its SIGTERM.
 *
 * The table. Each port of each Service becomes one listener at this
 * node's address and the port's `port`, named "namespace/name" (a
 * Service with one port) or "namespace/name:port-name". Its endpoints
 * are those of the Service's slices with an address: ready ones get new
 * connections and requests; the others (terminating, or not ready) only
 * finish what they have. `appProtocol: http` makes the listener
 * HTTP-aware; the annotation `proxy.drover.io/balance: least-conn` picks
 * least-connections instead of round-robin.
 *
 * The proxy process outlives the daemon: a new agent connects to the
 * one that runs (its socket) and sends its table; it starts one only
 * when none answers, and tells it to exit once no Service is left.
 *
 * Listeners. A Service port that cannot be bound (another program or a
 * pod holds it) is tried again by the proxy with back-off until it
 * binds. Each time a listener's state changes, the agent records an
 * Event on the Service (Warning FailedToListen with the address and the
 * error; Normal Listening once it opens after a failure) and publishes
 * the state of every listener of this node in the Node annotation
 * LISTENERS_ANNOTATION, {"default/web": "listening", "default/db":
 * "cannot listen on 127.0.0.1:8000: address already in use"}, which
 * `drover describe svc` shows.
 *
 * Ownership: agent_services_start() returns an object the caller ends
 * with agent_services_stop(); it borrows the loop and the client. */
#ifndef DROVER_AGENT_SERVICES_H
#define DROVER_AGENT_SERVICES_H

#include <stdbool.h>
#include <uv.h>

#include "client.h"
#include "model.h"
#include "recorder.h"

#define LISTENERS_ANNOTATION "proxy.drover.io/listeners"

struct agent_services_config {
	uv_loop_t *loop;
	struct client *client;
	const char *node;    /* this node's name */
	const char *address; /* where Services listen: the node's address */
	const char *socket;  /* the proxy process's control socket */
	const char *log;     /* the proxy process's output */
	/* The pod-template-hash of one of this node's pods, by name (the
	 * revision the proxy counts requests by); NULL if not known. */
	const char *(*revision)(void *arg, const char *ns, const char *name);
	/* The drain state may have changed: terminating pods should ask
	 * agent_services_drained() again. */
	void (*changed)(void *arg);
	void *arg;
	/* Where the Events about Services go (a listener that cannot open,
	 * and opens again): the "kube-proxy" recorder of this node; NULL:
	 * none. Borrowed. */
	struct recorder *rec;
};

struct agent_services;

/* NULL if the informers cannot be made. */
struct agent_services *
agent_services_start(const struct agent_services_config *cfg);
/* Leaves the proxy process running (it serves on without the agent). */
void agent_services_stop(struct agent_services *s);

/* Whether pod p, being deleted, may be signalled: no Service selects
 * it, or its slices show none of its endpoints ready and every node's
 * proxy has seen that and has nothing open to it (core/drain.h). */
bool agent_services_drained(struct agent_services *s, const struct pod *p);
/* Appends the proxy's counters (Prometheus text, as the proxy process
 * last sent them, at most a second old) to out; nothing without one. */
struct strbuf;
void agent_services_metrics(struct agent_services *s, struct strbuf *out);
/* The pod is gone: forget what was kept for it. */
void agent_services_forget(struct agent_services *s, const char *uid);

#endif
