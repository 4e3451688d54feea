/* logs.h - the agent's side of pods/log: a container's log read from the
 * files its runtime writes (podlog.h), as the kubelet serves
 * /containerLogs. The API reaches it through the pod's node (api.h,
 * api_serve_node_logs), never the files. */
#ifndef DROVER_AGENT_LOGS_H
#define DROVER_AGENT_LOGS_H

#include "podlog.h"

/* At most this much of a log in one answer: its end. */
#define LOGS_MAX_ANSWER (8 * 1024 * 1024)

/* podlog_read_fn over the directory dir (a const char *). */
int logs_read(void *dir, const struct podlog_req *rq, struct strbuf *out,
	      int64_t *end, char *msg, size_t msglen);

#endif
