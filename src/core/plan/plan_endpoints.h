/* plan_endpoints.h - the endpoints planner: what the EndpointSlices and
 * the Endpoints object of one Service should say, and the writes that
 * get them there (Kubernetes' EndpointSlice reconciler,
 * pkg/controller/endpointslice/reconciler.go, and the Endpoints
 * controller's syncService, pkg/controller/endpoint).
 *
 * Input: the Service, the pods of its namespace (the planner picks those
 * its selector matches), the nodes (for their InternalIP), the
 * EndpointSlices that carry the Service's kubernetes.io/service-name
 * label and the Endpoints object of the same name (NULL if none).
 * Output: the slice writes (create, update, delete), and the Endpoints
 * write, if any; nothing at all when everything already says what it
 * should, so the controller writes only on change.
 *
 * In drover every pod has its own host port (the agent allocates one per
 * container port: status.containerStatuses[].ports[].hostPort), so an
 * endpoint is "node address + that pod's host port", and two pods of one
 * Service generally have different ports. Endpoints are grouped into one
 * slice per distinct port set, as Kubernetes groups them by port
 * mapping; the Endpoints object has one subset per port set likewise.
 *
 * Ownership: the caller owns `in`; the output owns copies of everything
 * and is freed by plan_endpoints_out_release(). */
#ifndef DROVER_PLAN_ENDPOINTS_H
#define DROVER_PLAN_ENDPOINTS_H

#include "model.h"

/* Kubernetes' maxEndpointsPerSlice default. */
#define EP_MAX_PER_SLICE 100

enum ep_op {
	EP_NONE = 0,
	EP_CREATE, /* POST the object (a slice: generateName "<svc>-") */
	EP_UPDATE, /* PUT the object: it has the stored resourceVersion */
	EP_DELETE, /* DELETE metadata.namespace/name */
};

struct ep_slice_action {
	enum ep_op op;
	struct endpoint_slice slice;
};
LIST_OF(ep_slice_action);

struct plan_endpoints_in {
	const struct service *svc;
	const struct pod *const *pods; /* pods of the Service's namespace */
	size_t npods;
	const struct node *const *nodes;
	size_t nnodes;
	/* the slices labelled kubernetes.io/service-name=<svc> */
	const struct endpoint_slice *const *slices;
	size_t nslices;
	const struct endpoints *endpoints; /* the stored one, or NULL */
};

struct plan_endpoints_out {
	struct ep_slice_action_list slices; /* in the order to apply */
	enum ep_op endpoints_op;            /* EP_NONE, _CREATE, _UPDATE */
	struct endpoints endpoints;         /* what to write */
	size_t nready, nnotready; /* endpoints counted, for logs and tests */
};

void plan_endpoints(const struct plan_endpoints_in *in,
		    struct plan_endpoints_out *out);
void plan_endpoints_out_release(struct plan_endpoints_out *out);

/* The host port a pod serves a Service port on: targetPort resolved
 * against the pod's containers (a name: the container port of that
 * name; a number: the declared containerPort of that number), then the
 * hostPort the pod's status reports for that container port. 0 if the
 * pod does not declare the port or has no host port for it yet. */
int64_t ep_pod_host_port(const struct pod *p, const struct service_port *sp);

#endif
