/* table.h - the columns of a meta.k8s.io/v1 Table, as every API group
 * writes its kinds' tables (what `kubectl get` receives from the API,
 * api/table.c, and `drover get` prints, cli/cmd_get.c): a column is a
 * TableColumnDefinition (name, type, format, priority, description) and a
 * cell function that prints one object's cell. Kubernetes' printers.go
 * does the same with one []metav1.TableColumnDefinition and one print
 * function per kind; here each group's tables are in its room
 * (core_columns.h, apps_columns.h, discovery_columns.h) and the kind ->
 * table registry is columns.h's.
 *
 * Invariants (tests/unit/test_columns.c checks them for every kind of
 * the kind registry):
 *   1. The first column is Name, format "name" (kubectl finds the name
 *      cell by that format, e.g. for `-o name` of a Table); the Event
 *      table alone has it last and wide, as Kubernetes does.
 *   2. Wide columns (priority 1) come after all the others, so that
 *      `-o wide` only appends cells and -L/--show-labels columns go last
 *      (but for Events, whose order is Kubernetes').
 *   3. A cell never fails: a missing value prints as Kubernetes prints
 *      it ("<none>", "<unknown>", "" or 0), never as an error.
 *   4. Cells read only the decoded object and `now`: the same object and
 *      time give the same row, in the API and in `drover get`.
 *
 * Pure: time is an argument (`now`, for AGE). Everything here is static
 * data or appends to a caller's strbuf. */
#ifndef DROVER_TABLE_H
#define DROVER_TABLE_H

#include <stddef.h>

#include "dtime.h"
#include "meta.h"
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

#define COLUMNS_N(a) (sizeof(a) / sizeof((a)[0]))

/* NAME: metadata.name. AGE: HumanDuration since creationTimestamp, at
 * the `now` the caller gives (the server's clock for a Table, the
 * client's for `drover get`: a Table's AGE is the server's text and
 * kubectl prints it as is). Every kind has them; they read the object's
 * metadata through the kind registry, which defines them (columns.c). */
void column_cell_name(const struct object *o, dtime now, struct strbuf *out);
void column_cell_age(const struct object *o, dtime now, struct strbuf *out);

#define NAME_COL                                                               \
	{                                                                      \
		"Name", "string", "name", 0,                                   \
		    "Name must be unique within a namespace.",                 \
		    column_cell_name                                           \
	}
#define AGE_COL                                                                \
	{                                                                      \
		"Age", "string", "", 0,                                        \
		    "CreationTimestamp is a timestamp representing the "       \
		    "server time "                                             \
		    "when this object was created.",                           \
		    column_cell_age                                            \
	}

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

/* kubectl shows at most three endpoints or ports, then " + N more...",
 * which columns_more appends when total > shown. */
#define COLUMNS_MAX_SHOWN 3
void columns_more(size_t shown, size_t total, struct strbuf *sb);

#endif
