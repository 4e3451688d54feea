/* probe.h - one check of a container: tcpSocket (connect), httpGet (a
 * GET whose status is 200-399; the response is parsed with http_parser)
 * or exec (a command in the container's environment that exits 0), each
 * bounded by timeoutSeconds. Asynchronous on the loop: probe_check()
 * calls cb exactly once, later, with the result.
 *
 * Ownership: the check owns its handles and frees itself after cb. */
#ifndef DROVER_AGENT_PROBE_H
#define DROVER_AGENT_PROBE_H

#include <stdbool.h>
#include <uv.h>

struct proc_sec;

typedef void (*probe_cb)(void *arg, bool ok, const char *why);

struct probe_target {
	const char *host;  /* default 127.0.0.1 */
	int port;          /* tcpSocket, httpGet: the host port */
	const char *path;  /* httpGet */
	char *const *argv; /* exec: NULL-terminated; argv[0] the program */
	char *const *env;  /* exec */
	const char *cwd;   /* exec */
	/* exec: the rights it runs with (the container's), or NULL */
	const struct proc_sec *sec;
};

enum probe_type { PROBE_TCP, PROBE_HTTP, PROBE_EXEC };

void probe_check(uv_loop_t *loop, enum probe_type type,
		 const struct probe_target *t, unsigned timeout_ms, probe_cb cb,
		 void *arg);

#endif
