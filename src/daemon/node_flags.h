/* node_flags.h - the flags of a node's agent that `drover serve` and
 * `drover agent` share, parsed into an agent_config: each prints its own
 * "error: --flag: ..." line on stderr and returns -1 when the value is
 * refused, 0 otherwise. */
#ifndef DROVER_DAEMON_NODE_FLAGS_H
#define DROVER_DAEMON_NODE_FLAGS_H

#include "agent.h"
#include "strmap.h"

/* --default-user USER: a user name, or a uid (its group from the password
 * database if it has an entry there, else the same number); running pods
 * as another user needs root. */
int node_flag_default_user(const char *arg, struct agent_config *agc);
/* --host-port-range A-B. */
int node_flag_port_range(const char *arg, struct agent_config *agc);
/* --allocatable cpu=N,memory=N,pods=N into map (which the agent's config
 * then points at: map must outlive the agent). */
int node_flag_allocatable(const char *arg, struct strmap *map,
			  struct agent_config *agc);

/* Where a node's process runtime keeps its files under the data
 * directory dir: the pods' logs (DIR/pods), the proxy process's control
 * socket and output (DIR/proxy.sock, DIR/proxy.log), pointed at by agc.
 * A socket path too long for a unix socket leaves Services unserved
 * (logged, with who: "drover serve"). paths must outlive the agent. */
struct node_paths {
	char pods[600], proxy_sock[600], proxy_log[600];
};
void node_runtime_paths(const char *who, const char *dir,
			struct node_paths *paths, struct agent_config *agc);

#endif
