/* drain.h - the drain handshake's decision: may a pod that is being
 * deleted get its SIGTERM, or could a proxy still send it a connection
 * or a request?
 *
 * The handshake (agent/services.c does the I/O):
 *  1. The pod gets a deletionTimestamp. The endpoints controller marks
 *     its endpoints not ready (terminating) in the EndpointSlices.
 *  2. Every node's proxy takes the slices in the order of their
 *     resourceVersions and stops sending the pod anything new; HTTP
 *     keep-alive connections to it close after their current response,
 *     TCP connections are left to end.
 *  3. Every node publishes, in an annotation of its Node
 *     (DRAIN_ANNOTATION), the last slice resourceVersion its proxy has
 *     applied ("observed") and the pods its proxy still has connections
 *     to ("busy").
 *  4. The agent of the pod's node sends SIGTERM once its own slices show
 *     no ready endpoint of the pod (since resourceVersion R: the
 *     highest it had seen then) and every node's annotation says
 *     observed >= R and the pod is not busy; at the latest when the
 *     grace period would otherwise run out (then SIGKILL follows after
 *     DRAIN_MIN_KILL_S, as Kubernetes' minimum after a preStop hook).
 *
 * Because each proxy applies slices in resourceVersion order, observed >=
 * R means that it has seen at least what the pod's agent saw when it
 * found the pod out of rotation: it sends the pod nothing new. No fixed
 * delay is involved anywhere, and the rule holds for any number of
 * nodes. Example: pod web-1 leaves; its slice is updated at rv 812; the
 * agent sees it and records R = 812; node a's annotation says observed
 * 809: wait; then observed 812, busy ["default/web-1/u1"]: wait (a
 * request is in flight); then observed 815, busy []: SIGTERM. */
#ifndef DROVER_CORE_DRAIN_H
#define DROVER_CORE_DRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The Node annotation of step 3: {"observed":815,"busy":["ns/name/uid"]}. */
#define DRAIN_ANNOTATION "proxy.drover.io/drain"

/* Seconds the process gets between SIGTERM and SIGKILL at least, when
 * the drain took (nearly) the whole grace period. */
#define DRAIN_MIN_KILL_S 2

/* What one node's proxy says (step 3). */
struct drain_ack {
	int64_t observed;
	const char *const *busy; /* pod keys "namespace/name/uid" */
	size_t nbusy;
};

/* Step 4: every ack has observed >= since_rv and does not name key. No
 * acks (no proxy runs anywhere): true. */
bool drain_acked(const char *key, int64_t since_rv,
		 const struct drain_ack *acks, size_t n);

/* How long the process may run after its SIGTERM, in whole seconds:
 * what is left of the grace period at now_ms (the deletionTimestamp is
 * the end of it; both in ms), rounded up, DRAIN_MIN_KILL_S at least.
 * Example: deleted at 100 s with 30 s of grace (deletionTimestamp
 * 130 s), drained at 104.2 s: 26 s; drained at 129 s: 2 s. */
int64_t drain_kill_after(int64_t deletion_ts_ms, int64_t now_ms);

#endif
