/* h_service.c - the API's check that a Service's ports are free: drover
 * serves every Service on each node's address at the Service's `port`
 * (as Kubernetes serves a nodePort on every node), so two Services may
 * not hold the same port, in any namespace.
 *
 * Kubernetes allocates node ports inside the write (the REST storage's
 * port allocator): a create or update that asks for a port another
 * Service holds is refused with
 *   spec.ports[0].nodePort: Invalid value: 30080: provided port is
 *   already allocated
 * and nothing is stored. drover does the same for `port`, with the same
 * message. The check and the write run in one handler on the loop, so
 * no other write can come between them. */
#include <stdio.h>
#include <string.h>

#include "api_int.h"
#include "store.h"

/* The ports held by stored Services other than ns/name; a port taken
 * twice by o itself is validate_service's (Duplicate value). Returns 0
 * if every port is free, else -1 with a 422 in resp (or 500 if the
 * store could not list). */
int
service_ports_free(struct api *a, const struct object *o, struct api_resp *resp)
{
	const struct service *s = o->obj;
	const struct object_meta *m = &s->metadata;
	struct fielderr_list errs = {0};
	struct store_items items = {0};
	int64_t rv;
	size_t i, j, k;
	char path[64];

	if (store_list(a->cfg.store, "services", NULL, NULL, &items, &rv)) {
		resp_internal(resp, "the store cannot list services");
		return -1;
	}
	for (i = 0; i < s->spec.ports.n; i++) {
		bool taken = false;

		for (j = 0; j < items.n && !taken; j++) {
			const struct store_item *it = &items.v[j];
			json_t *v, *ports, *p;

			if (!strcmp(it->ns, m->namespace ? m->namespace : "") &&
			    !strcmp(it->name, m->name ? m->name : ""))
				continue; /* its own stored version */
			v = json_loads(it->value, 0, NULL);
			ports = json_object_get(json_object_get(v, "spec"),
						"ports");
			json_array_foreach(ports, k, p)
			{
				if (json_integer_value(json_object_get(
					p, "port")) == s->spec.ports.v[i].port)
					taken = true;
			}
			json_decref(v);
		}
		if (taken) {
			snprintf(path, sizeof(path), "spec.ports[%zu].port", i);
			fielderr_addf_int(&errs, FE_INVALID, path,
					  s->spec.ports.v[i].port,
					  "provided port is already allocated");
		}
	}
	store_items_release(&items);
	if (errs.n == 0)
		return 0;
	resp_invalid(resp, o->k, m->name, &errs);
	fielderr_list_release(&errs);
	return -1;
}
