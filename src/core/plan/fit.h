/* fit.h - kube-scheduler's NodeResourcesFit filter: does a pod's request
 * fit what is left of a node's allocatable? And its NodePorts filter: are
 * the host ports the pod declares free on the node? Pure.
 *
 * A pod's request is the sum of its containers' resources.requests (cpu
 * in millicores, memory in bytes; Kubernetes takes the larger of that
 * and any one init container, and drover has no init containers). A
 * node's use is the sum of the requests of the pods bound to it that are
 * not terminal (phase Succeeded or Failed): pods being deleted still
 * count until they are gone, as in kube-scheduler's cache. */
#ifndef DROVER_CORE_FIT_H
#define DROVER_CORE_FIT_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"

/* Amounts of the resources the fit looks at. */
struct res_amount {
	int64_t milli_cpu; /* "500m" -> 500 */
	int64_t memory;    /* bytes */
	int64_t pods;
};

/* Why a node does not fit: bits, several at once. */
enum fit_reason {
	FIT_CPU = 1,    /* "Insufficient cpu" */
	FIT_MEMORY = 2, /* "Insufficient memory" */
	FIT_PODS = 4,   /* "Too many pods" */
};

/* The pod's request (pods: 1). A value that does not parse counts 0:
 * the API validated it (validate.h). */
void fit_pod_request(const struct pod_spec *spec, struct res_amount *out);
/* The node's status.allocatable; an absent or unparseable value is 0,
 * as a missing entry of Kubernetes' ResourceList is. */
void fit_node_allocatable(const struct node *n, struct res_amount *out);
/* The pod counts against spec.nodeName: bound and not terminal. */
bool fit_pod_counts(const struct pod *p);
/* Fitting req on a node with allocatable alloc where used is already
 * requested: 0, or the fit_reason bits. As fitsRequest does: the pod
 * count always, cpu and memory only when the pod asks for them (a pod
 * requesting nothing fits a node already overcommitted). */
unsigned fit_check(const struct res_amount *req, const struct res_amount *used,
		   const struct res_amount *alloc);
/* --allocatable of drover serve: "cpu=4,memory=8Gi,pods=110" (any of
 * the three, each at most once) into out, which the caller owns and
 * releases. Returns 0, or -1 with a sentence in err: an unknown name, a
 * value that is not a quantity or is negative, pods not a whole number
 * ("pods=1.5"). */
struct strbuf;
int fit_parse_allocatable(const char *s, struct strmap *out,
			  struct strbuf *err);
/* used += sign * req */
void fit_add(struct res_amount *used, const struct res_amount *req, int sign);

/* NodePorts. A host port a pod declares (containers[].ports[] with a
 * hostPort), as kube-scheduler's HostPortInfo keys it: protocol "TCP"
 * when unset, hostIP "0.0.0.0" (every address) when unset. */
struct host_port {
	int port;         /* 1..65535 */
	char protocol[8]; /* "TCP", "UDP", "SCTP" */
	char ip[48];      /* an IP literal, or "0.0.0.0" */
};

/* The host ports the pod declares, in an array the caller frees (*out;
 * NULL when there are none). Returns how many. */
size_t fit_pod_host_ports(const struct pod_spec *spec, struct host_port **out);
/* HostPortInfo.CheckConflict for each of want: true if one of them has
 * the protocol and port of one of used, at the same address or where
 * either address is 0.0.0.0. */
bool fit_ports_conflict(const struct host_port *want, size_t nwant,
			const struct host_port *used, size_t nused);

#endif
