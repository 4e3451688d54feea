/* coordination_columns.c - the table of Leases (printers.go printLease):
 *
 *   NAME    HOLDER   AGE
 *   node-1  node-1   3d */
#include "coordination_columns.h"

static void
cell_holder(const struct object *o, dtime now, struct strbuf *out)
{
	const struct lease *l = o->obj;

	(void)now;
	strbuf_addstr(out,
		      l->spec.holder_identity ? l->spec.holder_identity : "");
}

const struct column columns_lease[] = {
    NAME_COL,
    {"Holder", "string", "", 0, "The holder of the lease.", cell_holder},
    AGE_COL,
};
const size_t columns_lease_n = COLUMNS_N(columns_lease);
