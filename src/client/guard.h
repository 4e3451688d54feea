/* guard.h - the hot-write guard: a client that hands every request to
 * another client and counts the writes of each object, so that a
 * controller (or the agent) writing one object in a loop is seen.
 *
 * A write is a PUT, PATCH or DELETE, or a POST to an object's subresource
 * (pods/NAME/binding, .../inplaceupdate; a POST that creates is not one:
 * a ReplicaSet creating 500 pods writes 500 objects). What is counted is
 * a run of identical writes of one path (an object, or one of its
 * subresources): the same method and body, but for the members that
 * change at every write of the same thing (resourceVersion and the
 * lastUpdateTime, lastTransitionTime, lastHeartbeatTime, lastProbeTime
 * stamps). A write loop writes the same thing again and again: the agent
 * finishing the deletion of a pod its finalizer held rewrote it 13,000
 * times a second. A controller writing what changed is not one (a
 * Deployment's status during a 2,000-pod rollout: more than 100 writes
 * in some seconds, none the same as the one before).
 * Past GUARD_HOT_WRITES identical writes of one path within
 * GUARD_WINDOW_MS, each further one is a hot write. The first of a
 * window logs a warning naming the component and the object (at most
 * one warning every GUARD_WARN_EVERY_MS per guard, saying how many were
 * held back), and each is counted in
 * drover_controller_hot_writes_total{controller=NAME}
 * (client_guard_metrics_collect). The guard only tells: every request
 * goes through. (A loop that alternates two contents is not seen.)
 *
 * The counts live in a table of GUARD_SLOTS slots hashed by path (32 KiB
 * a guard, however many objects are written): another path landing on a
 * slot wears its count down by one and takes the slot at 0, so paths
 * written a few times each come and go while a path in a loop keeps its
 * slot (a write of it undercounted for each other path landing there). A
 * path is never counted for another's writes.
 *
 * Ownership: the guard borrows inner, which must outlive it; its
 * ops->free frees the guard alone. Answers, watches and callbacks are
 * inner's, handed through unchanged. The counters of a component name
 * outlive its guards (a guard made again after a store rollback counts
 * on). One thread: the loop's. */
#ifndef DROVER_CLIENT_GUARD_H
#define DROVER_CLIENT_GUARD_H

#include <stdint.h>

#include "client.h"
#include "dtime.h"
#include "strbuf.h"

#define GUARD_HOT_WRITES    100
#define GUARD_WINDOW_MS     1000
#define GUARD_WARN_EVERY_MS 10000
#define GUARD_SLOTS         1024

/* A guard over inner for component (copied; the label of its counter),
 * on the clock now (milliseconds; NULL: nothing is counted). */
struct client *client_guard_new(struct client *inner, const char *component,
				dtime (*now)(void));
/* The hot writes counted for component so far (0 if it never had a
 * guard). */
uint64_t client_guard_hot_writes(const char *component);
/* metrics.h collector: drover_controller_hot_writes_total for every
 * component that has had a guard, 0 included. arg unused. */
void client_guard_metrics_collect(void *arg, struct strbuf *out);

#endif
