/* agent.h - the node agent: registers this host as a v1 Node, keeps its
 * Ready condition fresh with a heartbeat, and looks after the pods bound
 * to it. It is a client of the API only (in-process inside `drover
 * serve`, over HTTP for remote hosts later).
 *
 * With the process runtime (runtime.h; `drover serve` uses it unless told
 * --runtime none) the pods bound here run as processes: the agent starts
 * them, reports
 * their status, stops them gracefully when they are deleted and then
 * finishes the deletion. Without it, pods are objects only: a pod being
 * deleted is finished at once. */
#ifndef DROVER_AGENT_H
#define DROVER_AGENT_H

#include <stdbool.h>
#include <uv.h>

#include "client.h"
#include "dtime.h"

struct event_broadcaster;

struct agent_config {
	uv_loop_t *loop;
	struct client *client;
	const char *node_name;
	dtime (*now)(void);
	unsigned heartbeat_ms; /* 0: 10 s */
	const char *pod_dir;   /* NULL: no process runtime */
	/* Every pod of this node is looked at again this often (starting
	 * what should run, writing its status), as after an event; 0:
	 * never. */
	int64_t resync_ms;
	int port_lo, port_hi; /* host port range; 0: the default */
	/* With default_user, pods that name no runAsUser run as
	 * default_uid:default_gid (--default-user). */
	bool default_user;
	long long default_uid, default_gid;
	/* This node's address (its InternalIP, where Services listen);
	 * NULL: 127.0.0.1. */
	const char *node_address;
	/* Where this node's agent serves its pods' logs to the API
	 * (status.daemonEndpoints.kubeletEndpoint.Port, logserve.h); 0:
	 * nowhere (inside drover serve the API reads them directly). */
	int kubelet_port;
	/* Without a runtime: report the pods bound here running and ready
	 * at once, as a hollow node of a fleet on one machine does
	 * (`drover agent --hollow-nodes`, bench/fleet); false: leave their
	 * status alone (drover serve --runtime none). */
	bool hollow;
	/* With a process runtime: the proxy process's control socket and
	 * output (services.h); NULL: Services are not served here. */
	const char *proxy_socket, *proxy_log;
	/* --allocatable: cpu, memory and pods reported as this node's
	 * status.allocatable (and capacity) instead of the host's; NULL or
	 * a name it lacks: the host's value. Owned by the caller, must
	 * outlive the agent. */
	const struct strmap *allocatable;
	/* Where the runtime records the kubelet's Events (recorder.h);
	 * NULL: none. Borrowed. */
	struct event_broadcaster *events;
};

struct agent;

/* Registers the Node and starts watching; NULL if the API refused. */
struct agent *agent_start(const struct agent_config *cfg);
void agent_stop(struct agent *a);
/* Starts the processes of the pods bound to this node that are not
 * running yet, at once, instead of at the next kick (after the loop's
 * poll): `drover serve` calls it after each batch of a controller's
 * syncs, so that a process starts on its own thread while the loop goes
 * on with the rest of the chain. Their statuses are written by the kick,
 * as before. a NULL: nothing. */
void agent_start_bound(struct agent *a);
/* The agent serves its pods' logs on port from now on: its Node says so
 * (written at once). */
void agent_set_kubelet_port(struct agent *a, int port);
/* The collector of the proxy's counters for GET /metrics (metrics.h):
 * arg is an agent, or NULL (nothing). */
struct strbuf;
void agent_metrics_collect(void *arg, struct strbuf *out);

#endif
