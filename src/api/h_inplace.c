/* h_inplace.c - POST pods/NAME/inplaceupdate: one pod's in-place update
 * and its change of owner in ONE store transaction (the KEP's
 * Alternative 2; inplace_apply.h says what changes). The Deployment
 * controller sends it for each pod its InPlaceUpdate planner picks:
 *
 *   {"apiVersion": "drover.io/v1", "kind": "InPlaceUpdate",
 *    "podUID": "...", "from": {"name": "web-aaa", "uid": "..."},
 *    "to": {"name": "web-bbb", "uid": "..."}}
 *
 * The pod and both ReplicaSets are read, changed by inplace_apply and
 * written with store_txn, each on the version read: all three or none.
 * The answer is the pod as stored (200). A pod, RS or uid that does not
 * match, or a pod that is no longer the old RS's, is 409 Conflict (the
 * controller plans again from its cache); templates that cannot be
 * reached in place are 422 Invalid with the field path; a malformed
 * body is 400 or 422. dryRun=All answers without writing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "crashpoint.h"
#include "inplace_apply.h"
#include "object.h"
#include "store.h"

/* One object read for the transaction: the decoded object and the
 * stored item (its rv is the version the write expects). */
struct loaded {
	struct store_item it;
	struct object o;
	bool have_item;
};

static void
loaded_release(struct loaded *l)
{
	if (l->have_item)
		store_item_release(&l->it);
	object_release(&l->o);
}

/* Reads kind k's object ns/name; on failure answers (404 as a 409 when
 * `gone_is_conflict`: the caller's view is stale) and returns -1. */
static int
load(struct api *a, enum kind_id k, const char *ns, const char *name,
     struct loaded *out, struct api_resp *resp)
{
	const struct kind_info *ki = kind_by_id(k);
	struct store_key key = {ki->plural, ns, name};
	struct fielderr_list errs = {0};
	json_t *j;
	int r;

	memset(out, 0, sizeof(*out));
	r = store_get(a->cfg.store, &key, &out->it);
	if (r) {
		resp_store_error(resp, r, ki, name);
		return -1;
	}
	out->have_item = true;
	j = json_loads(out->it.value, 0, NULL);
	r = j ? object_decode(j, false, &out->o, &errs) : -1;
	json_decref(j);
	fielderr_list_release(&errs);
	if (r) {
		resp_internal(resp, "stored object cannot be decoded");
		return -1;
	}
	return 0;
}

/* The body's {"name", "uid"} at key; name required. */
static int
ref_of(json_t *body, const char *key, const char **name, const char **uid,
       struct fielderr_list *errs)
{
	json_t *r = json_object_get(body, key);
	char path[64];

	*name = json_string_value(json_object_get(r, "name"));
	*uid = json_string_value(json_object_get(r, "uid"));
	if (*name == NULL || !**name) {
		snprintf(path, sizeof(path), "%s.name", key);
		fielderr_add(errs, FE_REQUIRED, path, NULL, "");
		return -1;
	}
	return 0;
}

static void
conflict(struct api_resp *resp, const char *pod, const char *why)
{
	char msg[800];

	snprintf(msg, sizeof(msg),
		 "Operation cannot be fulfilled on pods/%s \"%s\": %s",
		 INPLACE_SUBRESOURCE, pod, why);
	resp_status(resp, 409, "Conflict", msg, kind_by_id(KIND_POD), pod,
		    NULL);
}

/* uid (if given) names the object read. */
static bool
uid_matches(const struct object *o, const char *uid)
{
	const char *have = object_meta((struct object *)o)->uid;

	return uid == NULL || !*uid || (have && !strcmp(have, uid));
}

/* The three writes, all or none. */
static void
write_all(struct api *a, struct route *rt, struct loaded *pod,
	  struct loaded *from, struct loaded *to, struct api_resp *resp)
{
	struct loaded *l[3] = {pod, from, to};
	struct store_op ops[3];
	json_t *j[3];
	char *text[3];
	size_t i, failed = 0;
	int r;

	for (i = 0; i < 3; i++) {
		const struct kind_info *ki = l[i]->o.k;
		struct object_meta *m = object_meta(&l[i]->o);

		text[i] = api_encode_text(&l[i]->o, &j[i]);
		memset(&ops[i], 0, sizeof(ops[i]));
		ops[i].kind = STORE_OP_UPDATE;
		ops[i].key.resource = ki->plural;
		ops[i].key.ns = m->namespace;
		ops[i].key.name = m->name;
		ops[i].value = text[i];
		ops[i].labels = &m->labels;
		ops[i].expect_rv = l[i]->it.rv;
	}
	if (rt->dry_run) {
		struct store_item it = {.rv = pod->it.rv, .value = text[0]};

		resp_json(resp, 200, served_object(&it));
		goto out;
	}
	crashpoint("inplace-before-txn");
	r = store_txn(a->cfg.store, ops, 3, &failed);
	if (r) {
		resp_store_error(resp, r, l[failed]->o.k,
				 object_meta(&l[failed]->o)->name);
	} else {
		struct store_item it = {.resource = (char *)rt->res->plural,
					.ns = (char *)rt->ns,
					.name = (char *)rt->name,
					.rv = ops[0].rv,
					.value = text[0]};

		resp_json(resp, 200, served_object(&it));
	}
out:
	for (i = 0; i < 3; i++) {
		free(text[i]);
		json_decref(j[i]);
		store_item_release(&ops[i].prev);
	}
}

void
h_inplace(struct api *a, struct route *rt, const struct api_req *req,
	  struct api_resp *resp)
{
	json_t *body = api_parse_body(req, resp);
	struct fielderr_list errs = {0};
	struct loaded pod = {0}, from = {0}, to = {0};
	const char *av, *kind, *from_name, *from_uid, *to_name, *to_uid;
	const char *pod_uid;
	char err[600];

	if (body == NULL)
		return;
	av = json_string_value(json_object_get(body, "apiVersion"));
	kind = json_string_value(json_object_get(body, "kind"));
	pod_uid = json_string_value(json_object_get(body, "podUID"));
	if (av && strcmp(av, INPLACE_API_VERSION))
		fielderr_addf_str(&errs, FE_NOT_SUPPORTED, "apiVersion", av,
				  "supported values: \"" INPLACE_API_VERSION
				  "\"");
	if (kind && strcmp(kind, INPLACE_KIND))
		fielderr_addf_str(&errs, FE_NOT_SUPPORTED, "kind", kind,
				  "supported values: \"" INPLACE_KIND "\"");
	ref_of(body, "from", &from_name, &from_uid, &errs);
	ref_of(body, "to", &to_name, &to_uid, &errs);
	if (errs.n) {
		resp_invalid(resp, rt->res, rt->name, &errs);
		goto out;
	}
	if (load(a, KIND_POD, rt->ns, rt->name, &pod, resp))
		goto out;
	if (!uid_matches(&pod.o, pod_uid)) {
		conflict(resp, rt->name,
			 "the pod was re-created (uid differs)");
		goto out;
	}
	if (load(a, KIND_REPLICASET, rt->ns, from_name, &from, resp) ||
	    load(a, KIND_REPLICASET, rt->ns, to_name, &to, resp))
		goto out;
	if (!uid_matches(&from.o, from_uid) || !uid_matches(&to.o, to_uid)) {
		conflict(resp, rt->name,
			 "a replica set was re-created (uid differs)");
		goto out;
	}
	switch (
	    inplace_apply(pod.o.obj, from.o.obj, to.o.obj, err, sizeof(err))) {
	case INPLACE_OK:
		write_all(a, rt, &pod, &from, &to, resp);
		break;
	case INPLACE_CONFLICT:
		conflict(resp, rt->name, err);
		break;
	case INPLACE_INVALID:
		resp_status(resp, 422, "Invalid", err, rt->res, rt->name, NULL);
		break;
	}
out:
	fielderr_list_release(&errs);
	loaded_release(&pod);
	loaded_release(&from);
	loaded_release(&to);
	json_decref(body);
}
