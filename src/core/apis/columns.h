/* columns.h - the table columns of every kind: what `kubectl get` (through
 * the API's server-side Table, api/table.c) and `drover get` (cli/cmd_get.c)
 * print, defined once.
 *
 * Kubernetes keeps these in pkg/printers/internalversion/printers.go
 * (AddHandlers: one []metav1.TableColumnDefinition and one print function
 * per kind); here a kind's columns are one table entry (columns.c) of
 * struct column rows, each with its cell function. Example, the
 * Deployment:
 *
 *   NAME  READY  UP-TO-DATE  AVAILABLE  AGE | CONTAINERS  IMAGES   SELECTOR
 *   web   3/3    3           3          5m  | web         nginx:1  app=web
 *
 * the last three with priority 1 (`-o wide` only). Column names are
 * Kubernetes' ("Up-to-date"); kubectl and drover print them upper-cased.
 * A kind without an entry gets Kubernetes' default table (the
 * DefaultTableConvertor): Name and Created At.
 *
 * Pure: time is an argument (`now`, for AGE). Everything here is static
 * data or writes into a caller-owned strbuf. */
#ifndef DROVER_COLUMNS_H
#define DROVER_COLUMNS_H

#include "dtime.h"
#include "kinds.h"
#include "strbuf.h"

/* Appends the cell text of o (a decoded object of the column's kind). */
typedef void (*column_cell_fn)(const struct object *o, dtime now,
			       struct strbuf *out);

struct column {
	const char *name;        /* "Up-to-date" */
	const char *type;        /* OpenAPI type: "string", "integer", "date" */
	const char *format;      /* "name" for the Name column, else "" */
	int priority;            /* 0: always; 1: only with -o wide */
	const char *description; /* TableColumnDefinition.description */
	column_cell_fn cell;
};

/* The columns of kind id, in order; never NULL (*n >= 2). Static data. */
const struct column *columns_of(enum kind_id id, size_t *n);

/* Upper-cases name into buf ("Up-to-date" -> "UP-TO-DATE"), as kubectl's
 * printer does with column names. */
void columns_header(const char *name, char *buf, size_t len);

/* Kubernetes' duration.HumanDuration of now - since: "45s", "2m3s",
 * "10m", "5h", "3d", "2y"; "<unknown>" for since 0 and "<invalid>"
 * for a time more than a second in the future (printers.go
 * translateTimestampSince). */
void columns_age(dtime since, dtime now, char *buf, size_t len);

/* The text forms the cells and `drover describe` share. */
/* metav1.FormatLabelSelector: "app=web,tier in (a,b),!x"; "<none>". */
void columns_selector(const struct label_selector *s, struct strbuf *sb);
/* labels.FormatLabels: "a=1,b=2" (sorted, as the map is); "<none>". */
void columns_labels(const struct strmap *m, struct strbuf *sb);
/* kubectl's formatEndpoints: the ready "ip:port" pairs, at most three,
 * then " + N more..."; "<none>". port_name non-NULL: that port only. */
void columns_endpoints(const struct endpoints *e, const char *port_name,
		       struct strbuf *sb);
/* The host ports the agent gave a pod's containers (drover's own wide
 * column): "http:31001,9090:31002"; "<none>". */
void columns_pod_ports(const struct pod *p, struct strbuf *sb);

#endif
