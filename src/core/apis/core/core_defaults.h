/* core_defaults.h - Kubernetes' API defaulting of the core/v1 kinds
 * (core_defaults.c). Idempotent; runs on every write before validation,
 * so that equal manifests give equal stored objects (and equal
 * pod-template hashes). */
#ifndef DROVER_CORE_DEFAULTS_H
#define DROVER_CORE_DEFAULTS_H

#include "core.h"

void defaults_pod_spec(struct pod_spec *s);
void defaults_rc(struct replication_controller *rc);
void defaults_pod(struct pod *p);
void defaults_service(struct service *s);
void defaults_endpoints(struct endpoints *e);
/* SetDefaults_EndpointPort of both endpoint kinds: protocol TCP. */
void defaults_endpoint_ports(struct endpoint_port_list *l);

#endif
