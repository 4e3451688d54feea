/* agent.h - the node agent: registers this host as a v1 Node, keeps its
 * Ready condition fresh with a heartbeat, and looks after the pods bound
 * to it. It is a client of the API only (in-process inside `drover
 * serve`, over HTTP for remote hosts later).
 *
 * This version has no process runtime yet: a pod bound here is accepted
 * but not started, and a pod being deleted is finished at once (there is
 * no process to stop). */
#ifndef DROVER_AGENT_H
#define DROVER_AGENT_H

#include <uv.h>

#include "client.h"
#include "dtime.h"

struct agent_config {
	uv_loop_t *loop;
	struct client *client;
	const char *node_name;
	dtime (*now)(void);
	unsigned heartbeat_ms; /* 0: 10 s */
};

struct agent;

/* Registers the Node and starts watching; NULL if the API refused. */
struct agent *agent_start(const struct agent_config *cfg);
void agent_stop(struct agent *a);

#endif
