/* kube.c - typed object I/O over the API client. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "dtime.h"
#include "json.h"
#include "kube.h"
#include "log.h"
#include "object.h"
#include "xalloc.h"

void
kube_path(char *buf, size_t len, enum kind_id k, const char *ns,
	  const char *name, const char *sub)
{
	const struct kind_info *ki = kind_by_id(k);
	const char *slash = strchr(ki->api_version, '/');
	char group[32] = "";

	if (slash)
		snprintf(group, sizeof(group), "%.*s",
			 (int)(slash - ki->api_version), ki->api_version);
	client_path(buf, len, group, slash ? slash + 1 : ki->api_version,
		    ki->plural, ns, name, sub);
}

static int
decode(json_t *j, struct object *out)
{
	struct fielderr_list errs = {0};
	int r = object_decode(j, false, out, &errs);

	if (r && errs.n) {
		struct strbuf sb = STRBUF_INIT;

		fielderr_format(&errs.v[0], &sb);
		log_warn("cannot decode an object from the API: %s", sb.buf);
		strbuf_release(&sb);
	}
	fielderr_list_release(&errs);
	return r;
}

int
kube_get(struct client *c, enum kind_id k, const char *ns, const char *name,
	 struct object *out)
{
	struct client_resp r;
	char path[512];
	int rc;

	memset(out, 0, sizeof(*out));
	kube_path(path, sizeof(path), k, ns, name, NULL);
	client_request(c, "GET", path, NULL, NULL, NULL, &r);
	if (r.status == 404) {
		client_resp_release(&r);
		return -1;
	}
	rc = r.status == 200 && decode(r.body, out) == 0 ? 0 : -2;
	client_resp_release(&r);
	return rc;
}

int
kube_list(struct client *c, enum kind_id k, const char *ns,
	  struct object_list *out)
{
	return kube_list_query(c, k, ns, NULL, out);
}

int
kube_list_query(struct client *c, enum kind_id k, const char *ns,
		const char *query, struct object_list *out)
{
	struct client_resp r;
	json_t *items, *it;
	char path[512];
	size_t i;

	memset(out, 0, sizeof(*out));
	kube_path(path, sizeof(path), k, ns, NULL, NULL);
	client_request(c, "GET", path, query, NULL, NULL, &r);
	if (r.status != 200) {
		client_resp_release(&r);
		return -2;
	}
	items = json_object_get(r.body, "items");
	json_array_foreach(items, i, it)
	{
		struct object o;

		json_object_set_new(it, "apiVersion",
				    json_string(kind_by_id(k)->api_version));
		json_object_set_new(it, "kind",
				    json_string(kind_by_id(k)->kind));
		if (decode(it, &o) == 0)
			object_list_push(out, o);
	}
	client_resp_release(&r);
	return 0;
}

/* What the server set in a written object's metadata: its
 * resourceVersion and generation, and, for a create, its name (from
 * generateName), uid and creationTimestamp. The object is then as the
 * server stored it, as far as a controller planning its next step from
 * it can tell (deploy.c). */
static void
take_rv(struct object *o, json_t *body)
{
	json_t *md = json_object_get(body, "metadata");
	const char *rv =
	    json_string_value(json_object_get(md, "resourceVersion"));
	const char *uid = json_string_value(json_object_get(md, "uid"));
	const char *name = json_string_value(json_object_get(md, "name"));
	const char *created =
	    json_string_value(json_object_get(md, "creationTimestamp"));
	json_t *gen = json_object_get(md, "generation");
	struct object_meta *m = object_meta(o);

	/* a create from generateName: the name the server chose */
	if (name && (m->name == NULL || !*m->name)) {
		free(m->name);
		m->name = xstrdup(name);
	}

	if (rv) {
		free(m->resource_version);
		m->resource_version = xstrdup(rv);
	}
	if (uid && (m->uid == NULL || !*m->uid)) {
		free(m->uid);
		m->uid = xstrdup(uid);
	}
	if (json_is_integer(gen))
		m->generation = json_integer_value(gen);
	if (created && m->creation_timestamp == DTIME_UNSET)
		(void)dtime_parse(created, &m->creation_timestamp);
}

static int
write(struct client *c, const char *method, const char *path, struct object *o)
{
	json_t *body = object_encode(o);
	struct client_resp r;
	int st;

	client_request(c, method, path, NULL, NULL, body, &r);
	json_decref(body);
	st = r.status;
	if (st == 200 || st == 201)
		take_rv(o, r.body);
	client_resp_release(&r);
	return st;
}

int
kube_create(struct client *c, struct object *o)
{
	struct object_meta *m = object_meta(o);
	char path[512];

	kube_path(path, sizeof(path), o->k->id, m->namespace, NULL, NULL);
	return write(c, "POST", path, o);
}

int
kube_update(struct client *c, struct object *o, const char *sub)
{
	struct object_meta *m = object_meta(o);
	char path[512];

	kube_path(path, sizeof(path), o->k->id, m->namespace, m->name, sub);
	return write(c, "PUT", path, o);
}

int
kube_delete(struct client *c, enum kind_id k, const char *ns, const char *name)
{
	struct client_resp r;
	char path[512];
	int st;

	kube_path(path, sizeof(path), k, ns, name, NULL);
	client_request(c, "DELETE", path, NULL, NULL, NULL, &r);
	st = r.status;
	client_resp_release(&r);
	return st;
}

int
kube_patch_status(struct client *c, const struct object *o, const void *st)
{
	const struct schema *s = kind_status_schema(o->k);
	const struct object_meta *m = object_meta(o);
	json_t *before, *after, *diff, *body;
	struct client_resp r;
	char path[512];
	int status;

	if (s == NULL)
		return -1;
	before = codec_encode(s, kind_status(o->k, o->obj));
	after = codec_encode(s, st);
	diff = codec_two_way_patch(before, after, s);
	json_decref(before);
	json_decref(after);
	if (json_object_size(diff) == 0) {
		json_decref(diff);
		return -1;
	}
	body = json_pack("{s{ss}so}", "metadata", "uid", m->uid ? m->uid : "",
			 "status", diff);
	kube_path(path, sizeof(path), o->k->id, m->namespace, m->name,
		  "status");
	client_request(c, "PATCH", path, NULL,
		       "application/strategic-merge-patch+json", body, &r);
	json_decref(body);
	status = r.status;
	client_resp_release(&r);
	return status;
}
