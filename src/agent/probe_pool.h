/* probe_pool.h - the schedules of tcpSocket and httpGet probes, run on a
 * thread of their own with its own loop: a control plane busy with a
 * rollout must not delay the probes that decide readiness (as the
 * kubelet's probe workers are goroutines of their own). Exec probes stay
 * on the agent's loop (runtime.c), which owns the processes.
 *
 * The agent's loop starts and stops probes by id; results come back to
 * it through the callback given to probe_pool_new, on that loop.
 *
 * Ownership: the prober owns its thread, copies of the targets and the
 * queues between the loops; probe_pool_free() stops the thread (checks in
 * flight are abandoned, their results dropped). */
#ifndef DROVER_AGENT_PROBE_POOL_H
#define DROVER_AGENT_PROBE_POOL_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "probe.h"

struct probe_pool;

/* On the agent's loop: the result of one check of probe `id`. */
typedef void (*probe_pool_cb)(void *arg, uint64_t id, bool ok, const char *why);

struct probe_pool_spec {
	enum probe_type type; /* PROBE_TCP or PROBE_HTTP */
	const char *host;     /* NULL: 127.0.0.1 */
	int port;
	const char *path;  /* httpGet */
	uint64_t first_ns; /* uv_hrtime() of the first check */
	unsigned period_ms;
	unsigned timeout_ms;
};

/* NULL if the thread cannot be started. */
struct probe_pool *probe_pool_new(uv_loop_t *loop, probe_pool_cb cb, void *arg);
void probe_pool_free(struct probe_pool *pp);
/* id: unique for the life of the pool, never reused. */
void probe_pool_start(struct probe_pool *pp, uint64_t id,
		      const struct probe_pool_spec *spec);
/* Stops the schedule of id. A result already on its way may still come:
 * ids are never reused, so the caller drops results of ids it no longer
 * knows. */
void probe_pool_stop(struct probe_pool *pp, uint64_t id);

#endif
