/* core_columns.h - the tables of the core/v1 kinds (printers.go:
 * printPod, printReplicationController, printService, printEndpoints,
 * printNode, printEvent), and the cell texts other tables and `drover
 * describe` share. As table.h. */
#ifndef DROVER_CORE_COLUMNS_H
#define DROVER_CORE_COLUMNS_H

#include "core.h"
#include "table.h"

extern const struct column columns_pod[], columns_rc[], columns_service[],
    columns_endpoints_tbl[], columns_node[], columns_event[];
extern const size_t columns_pod_n, columns_rc_n, columns_service_n,
    columns_endpoints_n, columns_node_n, columns_event_n;

/* A workload's template: its containers' names and images, comma
 * separated, in the template's order (layoutContainerCells). */
void columns_containers(const struct pod_spec *s, struct strbuf *out);
void columns_images(const struct pod_spec *s, struct strbuf *out);
/* The WIDE columns of a workload: Containers, Images, Selector, with
 * the workload's own three cell functions. */
#define WORKLOAD_WIDE_COLS(containers, images, selector)                       \
	{"Containers",                                                         \
	 "string",                                                             \
	 "",                                                                   \
	 1,                                                                    \
	 "Names of each container in the template.",                           \
	 containers},                                                          \
	    {"Images",                                                         \
	     "string",                                                         \
	     "",                                                               \
	     1,                                                                \
	     "Images referenced by each container in the template.",           \
	     images},                                                          \
	{                                                                      \
		"Selector", "string", "", 1,                                   \
		    "Label selector for pods. Existing ReplicaSets whose "     \
		    "pods are selected by this will be the ones affected by "  \
		    "this deployment.",                                        \
		    selector                                                   \
	}
/* The host ports the agent gave a pod's containers (drover's own wide
 * column): "http:31001,9090:31002"; "<none>". */
void columns_pod_ports(const struct pod *p, struct strbuf *sb);
/* kubectl's formatEndpoints: the ready "ip:port" pairs, at most three,
 * then " + N more..."; "<none>". port_name non-NULL: that port only. */
void columns_endpoints(const struct endpoints *e, const char *port_name,
		       struct strbuf *sb);

#endif
