/* defaults.h - Kubernetes' API defaulting (apps/v1, core/v1) for the kinds
 * drover supports. Defaulting is idempotent and runs on every write before
 * validation, so that equal manifests give equal stored objects (and equal
 * pod-template hashes). */
#ifndef DROVER_DEFAULTS_H
#define DROVER_DEFAULTS_H

#include "model.h"

void defaults_deployment(struct deployment *d);
void defaults_replicaset(struct replicaset *rs);
void defaults_rc(struct replication_controller *rc);
void defaults_pod(struct pod *p);
void defaults_pod_spec(struct pod_spec *s);
void defaults_service(struct service *s);
void defaults_endpoint_slice(struct endpoint_slice *s);
void defaults_endpoints(struct endpoints *e);

#endif
