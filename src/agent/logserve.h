/* logserve.h - a joined agent serves its pods' logs to the API server,
 * as the kubelet serves /containerLogs on port 10250: over HTTPS, with a
 * certificate the control plane's CA signed for the node's address
 * (POST /drover/v1/servingcert), to a client that presents the node's
 * own credential as its bearer token (only the control plane, which
 * derives it, and the agent know it).
 *
 *   GET /containerLogs/NAMESPACE/POD/CONTAINER?uid=U&previous=true&
 *       offset=N&limitBytes=N&tailLines=N
 *   -> 200 text/plain, X-Drover-Log-Offset: the offset a follower goes
 *      on from; or 404/400 with the reason as text (logs.h); 401 without
 *      the credential; 404 for any other path.
 *
 * The API has checked the pod and the container already; the agent reads
 * the files its runtime writes (logs_read). libmicrohttpd runs the server
 * on its own thread: a read touches only the log files.
 *
 * Ownership: logserve_start copies everything it is given;
 * logserve_stop stops the thread and frees it. */
#ifndef DROVER_AGENT_LOGSERVE_H
#define DROVER_AGENT_LOGSERVE_H

#include <stddef.h>

/* The kubelet's port, the default of drover agent --port. */
#define LOGSERVE_PORT 10250

struct logserve;

/* Listens on address:port (port 0: any free one, see logserve_port).
 * NULL with err on failure. */
struct logserve *logserve_start(const char *address, int port,
				const char *cert_pem, const char *key_pem,
				const char *credential, const char *pod_dir,
				char *err, size_t errlen);
int logserve_port(const struct logserve *s);
void logserve_stop(struct logserve *s);

#endif
