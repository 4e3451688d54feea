/* columns_int.h - what columns.c and columns_net.c share: the Name and
 * Age cells and rows every table has, and the network kinds' tables. Not
 * for use outside src/core/columns*.c. */
#ifndef DROVER_COLUMNS_INT_H
#define DROVER_COLUMNS_INT_H

#include "columns.h"

#define COLUMNS_N(a) (sizeof(a) / sizeof((a)[0]))

void column_cell_name(const struct object *o, dtime now, struct strbuf *out);
void column_cell_age(const struct object *o, dtime now, struct strbuf *out);

/* The row every table starts and (but the default one) ends with. */
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

/* columns_event.c */
extern const struct column columns_event[];
extern const size_t columns_event_n;

/* columns_net.c */
extern const struct column columns_service[], columns_endpoints_tbl[],
    columns_endpoint_slice[], columns_node[];
extern const size_t columns_service_n, columns_endpoints_n,
    columns_endpoint_slice_n, columns_node_n;

#endif
