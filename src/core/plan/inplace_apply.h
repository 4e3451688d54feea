/* inplace_apply.h - one pod's in-place update as one store transaction
 * (the KEP's Alternative 2), and when such an update is over. Pure: the
 * API server's pods/NAME/inplaceupdate handler (src/api/h_inplace.c) and
 * the simulator (sim.c) both call inplace_apply, so what `drover plan
 * --simulate` shows is what the server writes.
 *
 * The transaction changes three objects together:
 *   - the pod: its containers get the image, command and args of the new
 *     ReplicaSet's template (the agent restarts them in place: same
 *     name, uid, node, host ports); its pod-template-hash label and its
 *     controller ownerReference move to the new RS; the annotation
 *     ANN_IN_PLACE_UPDATE names the new RS: the intent, written before
 *     any process is touched;
 *   - the old RS: spec.replicas - 1; the new RS: spec.replicas + 1 (each
 *     a spec change, so each generation + 1).
 * No controller can see the pod counted twice or nowhere: before the
 * write it is the old RS's and counted there, after it the new RS's.
 *
 * Worked example: web-aaa (replicas 3, image v1) and web-bbb (replicas
 * 0, image v2), pod web-aaa-x. After inplace_apply: web-aaa replicas 2,
 * web-bbb replicas 1, web-aaa-x labelled pod-template-hash=bbb, owned by
 * web-bbb, image v2, annotated drover.io/in-place-update-to=web-bbb. Its
 * status still reports the v1 run (imageID drover-spec://<hash of v1>)
 * until the agent has restarted it: inplace_pending() is true until the
 * pod runs the new spec and is Ready again.
 *
 * Ownership: the caller owns every object; inplace_apply changes the
 * three it is given in place (only on success). */
#ifndef DROVER_INPLACE_APPLY_H
#define DROVER_INPLACE_APPLY_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

/* The pods subresource that carries it out: POST
 * /api/v1/namespaces/NS/pods/NAME/inplaceupdate with
 *   {"apiVersion": "drover.io/v1", "kind": "InPlaceUpdate",
 *    "podUID": "...",                       (optional precondition)
 *    "from": {"name": "web-aaa", "uid": "..."},  (uid optional)
 *    "to":   {"name": "web-bbb", "uid": "..."}}  (uid optional) */
#define INPLACE_SUBRESOURCE "inplaceupdate"
#define INPLACE_API_VERSION "drover.io/v1"
#define INPLACE_KIND        "InPlaceUpdate"

enum inplace_result {
	INPLACE_OK,
	INPLACE_CONFLICT, /* the world moved: 409, plan again */
	INPLACE_INVALID,  /* this pair cannot be done in place: 422 */
};

/* Moves pod p from RS `from` to RS `to` as described above. Refused
 * (nothing changed, a message in err) when p is being deleted, is not
 * controlled by `from`, or `from` and `to` are not controlled by the
 * same owner (INPLACE_CONFLICT); when the templates differ in more than
 * the containers' image, command and args, or p's containers are not
 * the template's (INPLACE_INVALID; the field path is in err). */
enum inplace_result inplace_apply(struct pod *p, struct replicaset *from,
				  struct replicaset *to, char *err,
				  size_t errlen);

/* The update of p is over: p is Ready and none of its containers
 * reports a run of another spec than its own (the agent's imageID
 * "drover-spec://<ctr_spec_hash>", pod_status.h). */
bool inplace_pod_done(const struct pod *p);

/* p carries the intent of an update to RS rs (controls it) that is not
 * over: the planner counts it as unavailable even while its old process
 * still answers. An annotation naming another RS than p's controller is
 * an older update's and means nothing now. */
bool inplace_pending(const struct pod *p, const struct replicaset *rs);

/* Drops the intent from p once its update is over: p is controlled by
 * the RS ANN_IN_PLACE_UPDATE names and inplace_pod_done. The API calls
 * it on each status write of a pod, so the annotation goes in the write
 * that records the completion. True if it dropped it. */
bool inplace_finish(struct pod *p);

#endif
