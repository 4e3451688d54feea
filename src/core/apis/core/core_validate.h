/* core_validate.h - Kubernetes' validation of the core/v1 kinds drover
 * serves (pkg/apis/core/validation): the pod spec and its containers,
 * probes, security contexts and resources; Pod, ReplicationController,
 * Node, Service, Endpoints, Event.
 *
 * Each function appends every problem it finds to errs (field path, value,
 * reason, with Kubernetes' messages) and never stops at the first one. Run
 * it after defaulting: it assumes defaulted objects, as the API server
 * does. */
#ifndef DROVER_CORE_VALIDATE_H
#define DROVER_CORE_VALIDATE_H

#include "core.h"
#include "fielderr.h"

/* A capability name as securityContext.capabilities writes it
 * ("NET_BIND_SERVICE", or "CAP_NET_BIND_SERVICE" as the runtimes accept):
 * its Linux number, CAPABILITY_ALL for "ALL", or -1 if unknown. */
#define CAPABILITY_ALL       1000
#define CAPABILITY_SYS_ADMIN 21
int validate_capability(const char *name);
void validate_pod_spec(const struct pod_spec *s, const char *path,
		       struct fielderr_list *errs);
void validate_rc(const struct replication_controller *rc,
		 struct fielderr_list *errs);
void validate_pod(const struct pod *p, struct fielderr_list *errs);
void validate_node(const struct node *n, struct fielderr_list *errs);
void validate_service(const struct service *s, struct fielderr_list *errs);
void validate_endpoints(const struct endpoints *e, struct fielderr_list *errs);
/* ValidateEvent (core/v1, pkg/apis/core/validation/events.go, the
 * legacy API's rules): the metadata; an event about a namespaced object
 * lives in that object's namespace (involvedObject.namespace: "does not
 * match event.namespace"), one about a cluster-scoped object (a Node) in
 * "default"; type, when set, is Normal or Warning; reason and
 * involvedObject.kind are required (drover's recorder always sets them). */
void validate_event(const struct event_v1 *e, struct fielderr_list *errs);

#endif
