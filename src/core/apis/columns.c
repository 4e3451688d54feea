/* columns.c - the column registry (columns.h): which table each kind
 * has, the cells every kind has (NAME, AGE, from the object's metadata,
 * which the kind registry locates), and the default table. The tables
 * themselves are in their API group's room: core_columns*.c,
 * apps_columns.c, discovery_columns.c.
 *
 * Adding a kind's columns: a `const struct column columns_X[]` of rows in
 * its group's columns file (the rules are table.h's) and one line in
 * `registry` below. A kind without an entry prints Kubernetes' default
 * (NAME, CREATED AT), as kubectl does for a custom resource without
 * additionalPrinterColumns. */
#include <stdio.h>
#include <string.h>

#include "columns.h"

/* ---- cells every kind has ---- */

/* NAME and AGE (table.h): the object's metadata is where its kind says. */
void
column_cell_name(const struct object *o, dtime now, struct strbuf *out)
{
	const struct object_meta *m = object_meta(o);

	(void)now;
	strbuf_addstr(out, m->name ? m->name : "");
}

void
column_cell_age(const struct object *o, dtime now, struct strbuf *out)
{
	char buf[32];

	columns_age(object_meta(o)->creation_timestamp, now, buf, sizeof(buf));
	strbuf_addstr(out, buf);
}

/* The default table's "Created At": the RFC 3339 creation time. */
static void
cell_created_at(const struct object *o, dtime now, struct strbuf *out)
{
	char buf[64];

	(void)now;
	dtime_format(object_meta(o)->creation_timestamp, buf);
	strbuf_addstr(out, buf);
}

/* ---- the default (DefaultTableConvertor) ----
 *
 * What the API server prints for a resource without a printer:
 *
 *   NAME   CREATED AT
 *   web    2026-01-01T00:00:00Z
 */

static const struct column default_cols[] = {
    NAME_COL,
    {"Created At", "date", "", 0,
     "CreationTimestamp is a timestamp representing the server time when "
     "this object was created.",
     cell_created_at},
};

/* The registry: kind -> its columns. A kind not listed gets
 * default_cols. */
static const struct {
	enum kind_id kind;
	const struct column *cols;
	const size_t *n;
} registry[] = {
    {KIND_DEPLOYMENT, columns_deployment, &columns_deployment_n},
    {KIND_REPLICASET, columns_replicaset, &columns_replicaset_n},
    {KIND_REPLICATION_CONTROLLER, columns_rc, &columns_rc_n},
    {KIND_POD, columns_pod, &columns_pod_n},
    {KIND_SERVICE, columns_service, &columns_service_n},
    {KIND_ENDPOINTS, columns_endpoints_tbl, &columns_endpoints_n},
    {KIND_ENDPOINT_SLICE, columns_endpoint_slice, &columns_endpoint_slice_n},
    {KIND_NODE, columns_node, &columns_node_n},
    {KIND_EVENT, columns_event, &columns_event_n},
    {KIND_POD_DISRUPTION_BUDGET, columns_pdb, &columns_pdb_n},
    {KIND_LEASE, columns_lease, &columns_lease_n},
};

const struct column *
columns_of(enum kind_id id, size_t *n)
{
	size_t i;

	for (i = 0; i < sizeof(registry) / sizeof(registry[0]); i++)
		if (registry[i].kind == id) {
			*n = *registry[i].n;
			return registry[i].cols;
		}
	*n = sizeof(default_cols) / sizeof(default_cols[0]);
	return default_cols;
}
