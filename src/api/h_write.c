/* h_write.c - create, update (main resource, status, scale), patch and
 * delete, with the API server's bookkeeping: uid, creationTimestamp,
 * generation (bumped on spec changes, and on annotation changes for
 * Deployments), status kept out of main-resource writes and spec out of
 * status writes, uid and resourceVersion preconditions, graceful pod deletion,
 * finalizers and the three propagation policies. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "json_text.h"
#include "inplace_apply.h"
#include "json.h"
#include "object.h"
#include "patch.h"
#include "plan_nodelife.h"
#include "strbuf.h"
#include "xalloc.h"

/* The largest object text a write stores: etcd's default request limit
 * (--max-request-bytes, 1.5 MiB), past which kube-apiserver's writes
 * fail. Bodies may be larger (API_MAX_BODY), and a patch may make an
 * object larger than its body. */
#define API_MAX_OBJECT (3 * 1024 * 1024 / 2)

/* Replaces dst's field `name` with a copy of src's; nothing for a kind
 * without that field (a Service or an EndpointSlice has no status). */
static void
copy_field(const struct schema *s, void *dst, const void *src, const char *name)
{
	const struct field *f = schema_field(s, name);
	const struct schema *sub;
	char *d;
	const char *sp;

	if (f == NULL)
		return;
	sub = f->sub;
	d = (char *)dst + f->off;
	sp = (const char *)src + f->off;
	schema_release(sub, d);
	schema_copy(sub, d, sp);
}

/* Whether a's and b's field `name` are equal. A kind without it (an
 * EndpointSlice, an Endpoints object: their content is at the top
 * level) compares every field but apiVersion, kind and metadata, as
 * the EndpointSlice strategy compares endpoints, ports and
 * addressType to decide on a new generation. */
static bool
field_equal(const struct schema *s, const void *a, const void *b,
	    const char *name)
{
	const struct field *f = schema_field(s, name);
	size_t i;

	if (f)
		return schema_equal(f->sub, (const char *)a + f->off,
				    (const char *)b + f->off);
	for (i = 0; i < s->nfields; i++) {
		const struct field *g = &s->fields[i];
		struct schema one = {s->name, s->size, g, 1};

		if (!strcmp(g->json, "apiVersion") ||
		    !strcmp(g->json, "kind") || !strcmp(g->json, "metadata"))
			continue;
		if (!schema_equal(&one, a, b))
			return false;
	}
	return true;
}

static void
new_uid(struct api *a, char *buf)
{
	unsigned char r[16];

	a->cfg.random(a->cfg.arg, r, sizeof(r));
	r[6] = (unsigned char)((r[6] & 0x0f) | 0x40);
	r[8] = (unsigned char)((r[8] & 0x3f) | 0x80);
	snprintf(buf, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x"
		 "%02x%02x",
		 r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9],
		 r[10], r[11], r[12], r[13], r[14], r[15]);
}

static void
gen_suffix(struct api *a, char *out)
{
	static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
	unsigned char r[5];
	int i;

	a->cfg.random(a->cfg.arg, r, sizeof(r));
	for (i = 0; i < 5; i++)
		out[i] = alphabet[r[i] % 27];
	out[5] = '\0';
}

static void
set_str(char **p, const char *v)
{
	free(*p);
	*p = xstrdup(v);
}

static void
bad_request(struct api_resp *resp, const char *msg)
{
	resp_status(resp, 400, "BadRequest", msg, NULL, NULL, NULL);
}

json_t *
api_parse_body(const struct api_req *req, struct api_resp *resp)
{
	json_error_t je;
	json_t *j;
	char msg[300];

	if (req->json)
		return json_incref(req->json);
	if (req->parsed)
		return json_incref(req->parsed);
	if (req->body == NULL || req->body_len == 0) {
		bad_request(resp, "the request body is empty");
		return NULL;
	}
	if (req->parse_error) {
		j = NULL;
		je = *req->parse_error;
	} else {
		j = json_loadb(req->body, req->body_len, 0, &je);
	}
	if (j == NULL) {
		snprintf(msg, sizeof(msg),
			 "the body of the request was in an unknown format: "
			 "%s (line %d, column %d)",
			 je.text, je.line, je.column);
		bad_request(resp, msg);
	}
	return j;
}

/* Checks and fills apiVersion/kind of a body for resource res. */
static int
check_kind(const struct kind_info *res, json_t *body, struct api_resp *resp)
{
	const char *av = json_string_value(json_object_get(body, "apiVersion"));
	const char *kind = json_string_value(json_object_get(body, "kind"));
	char gv[64], msg[300];

	if (*res->group)
		snprintf(gv, sizeof(gv), "%s/%s", res->group, res->version);
	else
		snprintf(gv, sizeof(gv), "%s", res->version);
	if (!json_is_object(body)) {
		bad_request(resp, "the request body must be a JSON object");
		return -1;
	}
	if (av && strcmp(av, gv)) {
		snprintf(msg, sizeof(msg),
			 "the API version in the data (%s) does not match the "
			 "expected API version (%s)",
			 av, gv);
		bad_request(resp, msg);
		return -1;
	}
	if (kind && strcmp(kind, res->kind)) {
		snprintf(
		    msg, sizeof(msg),
		    "the kind in the data (%s) does not match the expected "
		    "kind (%s)",
		    kind, res->kind);
		bad_request(resp, msg);
		return -1;
	}
	json_object_set_new(body, "apiVersion", json_string(gv));
	json_object_set_new(body, "kind", json_string(res->kind));
	return 0;
}

/* Strict decode of a body; 422 with every field error. */
static int
decode(const struct kind_info *res, json_t *body, struct object *o,
       struct api_resp *resp)
{
	struct fielderr_list errs = {0};
	const char *name = json_string_value(
	    json_object_get(json_object_get(body, "metadata"), "name"));

	if (object_decode(body, false, o, &errs)) {
		resp_invalid(resp, res, name, &errs);
		fielderr_list_release(&errs);
		return -1;
	}
	return 0;
}

/* Defaulting, validation, and, for a CREATE (old NULL) or an UPDATE of
 * the main resource (old: the stored object), the kind's admission
 * checks (kinds.h: admit). */
static int
default_and_validate_admit(const struct kind_info *res, struct object *o,
			   const struct object *old, struct api_resp *resp,
			   bool admit)
{
	struct fielderr_list errs = {0};

	o->k->defaults(o->obj);
	o->k->validate(o->obj, &errs);
	if (errs.n == 0 && admit && o->k->admit)
		o->k->admit(old ? old->obj : NULL, o->obj, &errs);
	if (errs.n) {
		resp_invalid(resp, res, object_meta(o)->name, &errs);
		fielderr_list_release(&errs);
		return -1;
	}
	return 0;
}

static int
default_and_validate(const struct kind_info *res, struct object *o,
		     struct api_resp *resp)
{
	return default_and_validate_admit(res, o, NULL, resp, false);
}

char *
api_encode_text(const struct object *o, json_t **j)
{
	json_t *md;

	*j = object_encode(o);
	md = json_object_get(*j, "metadata");
	json_object_del(md, "resourceVersion"); /* the store's rv is truth */
	return json_dumps(*j, JSON_COMPACT);
}

/* Answers j, the value of a write that got rv (takes j); a create's or
 * an update's is held for its event too (hold: not a deletion, whose
 * event carries the last stored state). */
static void
respond_written(struct api *a, struct api_resp *resp, int code, json_t *j,
		int64_t rv, bool hold)
{
	char s[32];

	snprintf(s, sizeof(s), "%lld", (long long)rv);
	json_object_set_new(json_object_get(j, "metadata"), "resourceVersion",
			    json_string(s));
	if (hold)
		api_hold_written(a, rv, j);
	resp_json(resp, code, j);
}

/* The answer to a dry run: j, the object as it would have been stored
 * (taken), with the resourceVersion it has now (none for a create, rv
 * 0); nothing is written, so no version is used up and no event is
 * sent. */
static void
respond_dry(struct api_resp *resp, int code, json_t *j, int64_t rv)
{
	char s[32];

	snprintf(s, sizeof(s), "%lld", (long long)rv);
	if (rv)
		json_object_set_new(json_object_get(j, "metadata"),
				    "resourceVersion", json_string(s));
	resp_json(resp, code, j);
}

static void
clear_status(struct object *o)
{
	const struct field *f = kind_status_field(o->k);

	if (f == NULL || (o->k->rules & KIND_CREATE_WITH_STATUS))
		return;
	schema_release(f->sub, (char *)o->obj + f->off);
	if (o->k->initial_status)
		o->k->initial_status(o->obj);
}

/* o's value as stored: without its resourceVersion (a new reference). */
static json_t *
stored_value(const struct object *o)
{
	json_t *j = object_encode(o);

	json_object_del(json_object_get(j, "metadata"), "resourceVersion");
	return j;
}

/* The text to store for o (printed from the typed object, json_text.h)
 * and in *j its value, or NULL with the answer kube-apiserver gives when
 * etcd refuses a write over its request limit (a plain error: 500, no
 * reason) if the text is over API_MAX_OBJECT. A dry run is not refused:
 * it does not reach etcd. */
static char *
encode_to_store(const struct object *o, json_t **j, bool dry_run,
		struct api_resp *resp)
{
	struct strbuf sb = STRBUF_INIT;

	object_encode_text(o, true, &sb);
	if (dry_run || sb.len <= API_MAX_OBJECT) {
		*j = stored_value(o);
		return strbuf_detach(&sb);
	}
	strbuf_release(&sb);
	*j = NULL;
	resp_json(resp, 500,
		  json_pack("{sssss{}sssssi}", "kind", "Status", "apiVersion",
			    "v1", "metadata", "status", "Failure", "message",
			    "etcdserver: request is too large", "code", 500));
	return NULL;
}

/* o decoded from j, the parsed text of the stored it; on failure 500,
 * it released, -1. */
static int
decode_stored(struct route *rt, json_t *j, struct store_item *it,
	      struct object *o, struct api_resp *resp)
{
	struct fielderr_list errs = {0};

	if (object_decode(j, false, o, &errs)) {
		resp_status(resp, 500, "InternalError",
			    "stored object cannot be decoded", rt->res,
			    rt->name, NULL);
		fielderr_list_release(&errs);
		store_item_release(it);
		return -1;
	}
	return 0;
}

/* The stored object of the route as a typed object in *o, from the
 * cache if it holds the stored version (objcache.h), else decoded from
 * the stored text, and then cached; with parsed, a miss hands over the
 * parsed text too (*parsed NULL on a hit). -1 with the answer in resp
 * (it released). */
static int
load_typed(struct api *a, struct route *rt, struct store_item *it,
	   struct object *o, json_t **parsed, struct api_resp *resp)
{
	struct store_key k = {rt->res->plural, rt->ns, rt->name};
	struct object copy;
	json_t *j;
	int r;

	if (parsed)
		*parsed = NULL;
	if ((r = store_get(a->cfg.store, &k, it)) != 0) {
		resp_store_error(resp, r, rt->res, rt->name);
		return -1;
	}
	if (objcache_get(a->cache, rt->res->plural, rt->ns, rt->name, it->rv,
			 o))
		return 0;
	if ((j = json_loads(it->value, 0, NULL)) == NULL) {
		resp_status(resp, 500, "InternalError",
			    "stored object cannot be decoded", rt->res,
			    rt->name, NULL);
		store_item_release(it);
		return -1;
	}
	r = decode_stored(rt, j, it, o, resp);
	if (r == 0) {
		copy.k = o->k;
		copy.obj = xcalloc(1, o->k->schema->size);
		schema_copy(o->k->schema, copy.obj, o->obj);
		objcache_put(a->cache, rt->res->plural, rt->ns, rt->name,
			     it->rv, &copy, strlen(it->value));
	}
	if (r == 0 && parsed)
		*parsed = j;
	else
		json_decref(j);
	return r;
}

int
api_load(struct api *a, struct route *rt, struct store_item *it,
	 struct object *o, struct api_resp *resp)
{
	return load_typed(a, rt, it, o, NULL, resp);
}

/* What the next reader of the object written at rv as j (the value as
 * stored, text of length len) would decode: cached for it. */
static void
cache_written(struct api *a, const char *resource, const char *ns,
	      const char *name, int64_t rv, json_t *j, size_t len)
{
	struct fielderr_list errs = {0};
	struct object o;

	if (object_decode(j, false, &o, &errs) == 0)
		objcache_put(a->cache, resource, ns, name, rv, &o, len);
	else
		object_release(&o);
	fielderr_list_release(&errs);
}

/* A dry-run create: 0 if the name is free (nothing is stored),
 * STORE_EEXIST if taken, as store_create would answer. */
static int
would_create(struct api *a, const struct kind_info *res,
	     const struct object_meta *m)
{
	struct store_item cur;
	int r = store_get(
	    a->cfg.store,
	    &(struct store_key){res->plural, m->namespace, m->name}, &cur);

	if (r == 0) {
		store_item_release(&cur);
		return STORE_EEXIST;
	}
	return r == STORE_ENOENT ? 0 : r;
}

void
h_create(struct api *a, struct route *rt, const struct api_req *req,
	 struct api_resp *resp)
{
	const struct kind_info *res = rt->res;
	struct object o = {0};
	struct object_meta *m;
	json_t *body, *j;
	char uid[40], *text;
	int64_t rv;
	int r, tries;

	if (rt->sub) {
		resp_status(resp, 405, "MethodNotAllowed",
			    "the server does not allow this method on the "
			    "requested resource",
			    res, NULL, NULL);
		return;
	}
	if ((body = api_parse_body(req, resp)) == NULL)
		return;
	if (check_kind(res, body, resp) || decode(res, body, &o, resp)) {
		json_decref(body);
		return;
	}
	json_decref(body);
	m = object_meta(&o);
	if (m->namespace && *m->namespace && strcmp(m->namespace, rt->ns)) {
		bad_request(resp,
			    "the namespace of the provided object does "
			    "not match the namespace sent on the request");
		object_release(&o);
		return;
	}
	set_str(&m->namespace, rt->ns);
	new_uid(a, uid);
	set_str(&m->uid, uid);
	free(m->resource_version);
	m->resource_version = NULL;
	m->creation_timestamp = a->cfg.now(a->cfg.arg);
	m->deletion_timestamp = 0;
	m->deletion_grace_period_seconds.set = false;
	m->generation = 1;
	clear_status(&o);
	for (tries = 0; tries < 8; tries++) {
		if ((m->name == NULL || !*m->name || tries > 0) &&
		    m->generate_name && *m->generate_name) {
			char name[300], suf[8];

			gen_suffix(a, suf);
			snprintf(name, sizeof(name), "%s%s", m->generate_name,
				 suf);
			set_str(&m->name, name);
		}
		/* DefaultTolerationSeconds, a mutating admission plugin:
		 * pods proper, not their templates (a template hash must
		 * not change) nor subresources */
		if (tries == 0 && res->id == KIND_POD &&
		    a->cfg.default_tolerations)
			pod_default_tolerations(
			    &((struct pod *)o.obj)->spec,
			    a->cfg.not_ready_toleration_s,
			    a->cfg.unreachable_toleration_s);
		if (tries == 0 &&
		    (default_and_validate_admit(res, &o, NULL, resp, true) ||
		     (res->id == KIND_SERVICE &&
		      (service_ports_free(a, &o, resp) ||
		       service_target_ports_known(a, &o, resp) ||
		       service_cluster_ip(a, &o, NULL, resp))))) {
			object_release(&o);
			return;
		}
		if ((text = encode_to_store(&o, &j, rt->dry_run, resp)) ==
		    NULL) {
			object_release(&o);
			return;
		}
		r = rt->dry_run
			? would_create(a, res, m)
			: store_create(a->cfg.store,
				       &(struct store_key){
					   res->plural, m->namespace, m->name},
				       text, &m->labels, &rv);
		if (r == 0) {
			if (rt->dry_run) {
				respond_dry(resp, 201, j, 0);
			} else {
				cache_written(a, res->plural, m->namespace,
					      m->name, rv, j, strlen(text));
				respond_written(a, resp, 201, j, rv, true);
			}
			free(text);
			object_release(&o);
			return;
		}
		json_decref(j);
		free(text);
		if (r != STORE_EEXIST || !m->generate_name ||
		    !*m->generate_name)
			break;
	}
	resp_store_error(resp, r, res, m->name);
	object_release(&o);
}

/* Writes `o` over the stored `old` (CAS on its rv), or deletes it when it
 * is being deleted and has no finalizers left. */
static void
commit(struct api *a, struct route *rt, struct object *o,
       const struct store_item *old, struct api_resp *resp)
{
	struct object_meta *m = object_meta(o);
	struct store_key k = {rt->res->plural, rt->ns, rt->name};
	json_t *j;
	char *text;
	int64_t rv;
	int r;
	bool deleted =
	    m->deletion_timestamp && m->finalizers.n == 0 &&
	    !(o->k->grace_period && m->deletion_grace_period_seconds.set &&
	      m->deletion_grace_period_seconds.v > 0);

	if ((text = encode_to_store(o, &j, rt->dry_run || deleted, resp)) ==
	    NULL)
		return;
	if (rt->dry_run) {
		respond_dry(resp, 200, j, old->rv);
		free(text);
		return;
	}
	if (!deleted && !strcmp(text, old->value)) {
		/* GuaranteedUpdate's no-op: the stored text again is not
		 * written; the answer is the object at its version, and no
		 * watch sees anything. */
		respond_written(a, resp, 200, json_incref(j), old->rv, false);
		goto out;
	}
	if (deleted)
		r = store_delete(a->cfg.store, &k, old->rv, &rv);
	else
		r = store_update(a->cfg.store, &k, text, &m->labels, old->rv,
				 &rv);
	if (r == 0 && deleted)
		objcache_drop(a->cache, k.resource, k.ns, k.name);
	else if (r == 0)
		cache_written(a, k.resource, k.ns, k.name, rv, j, strlen(text));
	/* A deletion's answer, too, is j: the object as deleted, not the
	 * event's last stored state. */
	if (r)
		resp_store_error(resp, r, rt->res, rt->name);
	else
		respond_written(a, resp, 200, json_incref(j), rv, !deleted);
out:
	json_decref(j);
	free(text);
}

/* apps/v1 forbids changing the selector of a kind that has one
 * (kind_info.selector: Deployment, ReplicaSet). */
static bool
selector_changed(const struct object *a, const struct object *b)
{
	const struct label_selector *x, *y;

	if (a->k->selector == NULL)
		return false;
	x = a->k->selector(a->obj);
	y = a->k->selector(b->obj);
	if (!x || !y)
		return x != y;
	return !schema_equal(&schema_label_selector, x, y);
}

/* The update path shared by PUT and PATCH: body is the whole new object
 * (or a Scale for the scale subresource). stored: the stored object as
 * the caller read it (stored_it) and decoded it (PATCH: read once per
 * request), both of which do_update takes; NULL to read it here. */
static void
do_update(struct api *a, struct route *rt, json_t *body,
	  struct store_item *stored_it, struct object *stored,
	  struct api_resp *resp)
{
	const struct kind_info *res = rt->res;
	const struct schema *s;
	struct store_item old_it;
	struct object old = {0}, nw = {0};
	struct object_meta *om, *nm;
	const char *body_rv, *body_uid;
	char msg[300];
	bool is_status = rt->sub && !strcmp(rt->sub, "status");
	bool is_scale = rt->sub && !strcmp(rt->sub, "scale");

	if (stored) {
		old_it = *stored_it;
		old = *stored;
	} else if (api_load(a, rt, &old_it, &old, resp)) {
		return;
	}
	s = old.k->schema;
	om = object_meta(&old);
	/* A uid in the body is a precondition (the store's
	 * Preconditions.Check, before the resourceVersion's): a status
	 * patch of a pod re-created under the same name is refused. */
	body_uid = json_string_value(
	    json_object_get(json_object_get(body, "metadata"), "uid"));
	if (body_uid && *body_uid && strcmp(body_uid, om->uid ? om->uid : "")) {
		snprintf(msg, sizeof(msg),
			 "Precondition failed: UID in precondition: %s, UID in "
			 "object meta: %s",
			 body_uid, om->uid ? om->uid : "");
		resp_status(resp, 409, "Conflict", msg, res, rt->name, NULL);
		goto out;
	}
	body_rv = json_string_value(json_object_get(
	    json_object_get(body, "metadata"), "resourceVersion"));
	if (body_rv && *body_rv && strtoll(body_rv, NULL, 10) != old_it.rv) {
		resp_store_error(resp, STORE_ECONFLICT, res, rt->name);
		goto out;
	}
	if (is_scale) {
		json_t *rep =
		    json_object_get(json_object_get(body, "spec"), "replicas");
		struct opt_int *ri = res->replicas(old.obj);

		if (!json_is_integer(rep) ||
		    json_integer_value(rep) > INT32_MAX ||
		    json_integer_value(rep) < INT32_MIN) {
			struct fielderr_list e = {0};

			if (json_is_integer(rep))
				fielderr_addf_int(
				    &e, FE_INVALID, "spec.replicas",
				    json_integer_value(rep),
				    "cannot unmarshal number into a field of "
				    "type int32");
			else
				fielderr_add(&e, FE_REQUIRED, "spec.replicas",
					     NULL, "");
			resp_invalid(resp, res, rt->name, &e);
			fielderr_list_release(&e);
			goto out;
		}
		/* Only a change of the spec is a new generation. */
		if (!ri->set || ri->v != json_integer_value(rep))
			om->generation++;
		ri->set = true;
		ri->v = json_integer_value(rep);
		if (default_and_validate(res, &old, resp))
			goto out;
		commit(a, rt, &old, &old_it, resp);
		if (resp->status == 200) {
			/* the answer as a value (in-process) or as text */
			json_t *o = resp->json
					? json_incref(resp->json)
					: json_loads(resp->body, 0, NULL);

			api_resp_release(resp);
			resp_json(
			    resp, 200,
			    json_pack(
				"{sssss{sO?sO?sO?sO?}s{sI}}", "kind", "Scale",
				"apiVersion", "autoscaling/v1", "metadata",
				"name",
				json_object_get(json_object_get(o, "metadata"),
						"name"),
				"namespace",
				json_object_get(json_object_get(o, "metadata"),
						"namespace"),
				"uid",
				json_object_get(json_object_get(o, "metadata"),
						"uid"),
				"resourceVersion",
				json_object_get(json_object_get(o, "metadata"),
						"resourceVersion"),
				"spec", "replicas", (json_int_t)ri->v));
			json_decref(o);
		}
		goto out;
	}
	if (check_kind(res, body, resp) || decode(res, body, &nw, resp))
		goto out;
	nm = object_meta(&nw);
	if (nm->name && strcmp(nm->name, rt->name)) {
		snprintf(msg, sizeof(msg),
			 "the name of the object (%s) does not match the name "
			 "on the URL (%s)",
			 nm->name, rt->name);
		bad_request(resp, msg);
		goto out;
	}
	if (nm->namespace && *nm->namespace && strcmp(nm->namespace, rt->ns)) {
		bad_request(resp,
			    "the namespace of the provided object does "
			    "not match the namespace sent on the request");
		goto out;
	}
	if (is_status) {
		/* Only status (and, for Deployments, annotations) change. */
		copy_field(s, old.obj, nw.obj, "status");
		if (res->rules & KIND_STATUS_ANNOTATIONS) {
			strmap_release(&om->annotations);
			strmap_copy(&om->annotations, &nm->annotations);
		}
		if (res->validate_status) {
			struct fielderr_list e = {0};

			res->validate_status(old.obj, &e);
			if (e.n) {
				resp_invalid(resp, res, rt->name, &e);
				fielderr_list_release(&e);
				goto out;
			}
		}
		/* The status write that ends a pod's in-place update drops
		 * its intent, drover.io/in-place-update-to. */
		if (res->id == KIND_POD)
			inplace_finish(old.obj);
		commit(a, rt, &old, &old_it, resp);
		goto out;
	}
	/* Main resource: status is not writable here; server fields stay. */
	copy_field(s, nw.obj, old.obj, "status");
	set_str(&nm->name, om->name);
	set_str(&nm->namespace, om->namespace);
	set_str(&nm->uid, om->uid);
	nm->creation_timestamp = om->creation_timestamp;
	nm->deletion_timestamp = om->deletion_timestamp;
	nm->deletion_grace_period_seconds = om->deletion_grace_period_seconds;
	if (default_and_validate_admit(res, &nw, &old, resp, true))
		goto out;
	if (res->id == KIND_SERVICE &&
	    (service_ports_free(a, &nw, resp) ||
	     service_target_ports_known(a, &nw, resp) ||
	     service_cluster_ip(a, &nw, &old, resp)))
		goto out;
	if (selector_changed(&old, &nw)) {
		struct fielderr_list e = {0};
		json_t *sel =
		    json_object_get(json_object_get(body, "spec"), "selector");
		char *v = json_dumps(sel, JSON_COMPACT | JSON_ENCODE_ANY);

		fielderr_add(&e, FE_INVALID, "spec.selector", v ? v : "null",
			     "field is immutable");
		free(v);
		resp_invalid(resp, res, rt->name, &e);
		fielderr_list_release(&e);
		goto out;
	}
	nm->generation = om->generation;
	if (!field_equal(s, nw.obj, old.obj, "spec") ||
	    ((res->rules & KIND_GEN_ANNOTATIONS) &&
	     !strmap_equal(&nm->annotations, &om->annotations)))
		nm->generation++;
	commit(a, rt, &nw, &old_it, resp);
out:
	object_release(&nw);
	object_release(&old);
	store_item_release(&old_it);
}

void
h_update(struct api *a, struct route *rt, const struct api_req *req,
	 struct api_resp *resp)
{
	json_t *body = api_parse_body(req, resp);

	if (body == NULL)
		return;
	do_update(a, rt, body, NULL, NULL, resp);
	json_decref(body);
}

/* A patch's media type (the patch handler's patchTypes). */
enum patch_type { PT_NONE, PT_JSON, PT_MERGE, PT_STRATEGIC };

static enum patch_type
patch_type_of(const char *ct)
{
	return media_type_is(ct, "application/json-patch+json")    ? PT_JSON
	       : media_type_is(ct, "application/merge-patch+json") ? PT_MERGE
	       : media_type_is(ct, "application/strategic-merge-patch+json")
		   ? PT_STRATEGIC
		   : PT_NONE;
}

/* A JSON patch refused as kube-apiserver refuses it (patch_refusal). */
static void
resp_json_patch_refused(struct api_resp *resp, int refusal, const char *err)
{
	char msg[600];

	if (refusal == PATCH_MALFORMED) {
		bad_request(resp, err);
	} else if (refusal == PATCH_TOO_MANY) {
		snprintf(msg, sizeof(msg), "Request entity too large: %s", err);
		resp_status(resp, 413, "RequestEntityTooLarge", msg, NULL, NULL,
			    NULL);
	} else {
		/* NewGenericServerResponse(422, ...) without the error: an
		 * empty details, and nothing says which operation failed. */
		resp_json(resp, 422,
			  json_pack("{sssss{}sssssss{}si}", "kind", "Status",
				    "apiVersion", "v1", "metadata", "status",
				    "Failure", "message",
				    "the server rejected our request due to "
				    "an error in our request",
				    "reason", "Invalid", "details", "code",
				    422));
	}
}

/* target with the patch of type t applied (a new reference), or NULL
 * with the refusal in resp. */
static json_t *
apply_patch(struct route *rt, enum patch_type t, json_t *target, json_t *patch,
	    struct api_resp *resp)
{
	bool scale = rt->sub && !strcmp(rt->sub, "scale");
	char err[512] = "";
	json_t *result;
	int refusal;

	if (t == PT_MERGE)
		return patch_merge(target, patch);
	if (t == PT_JSON) {
		result = patch_json(target, patch, &refusal, err, sizeof(err));
		if (result == NULL)
			resp_json_patch_refused(resp, refusal, err);
		return result;
	}
	result = patch_strategic(target, patch, scale ? NULL : rt->res->schema,
				 err, sizeof(err));
	if (result == NULL) /* a bad $patch directive: the patch is wrong */
		bad_request(resp, err);
	return result;
}

/* The target of a patch of the scale subresource: the Scale as served. */
static json_t *
scale_target(struct api *a, struct route *rt)
{
	struct api_resp tmp = {0};
	json_t *j;

	h_get(a, rt, NULL, &tmp);
	j = tmp.json ? json_incref(tmp.json) : json_loads(tmp.body, 0, NULL);
	api_resp_release(&tmp);
	return j;
}

/* A patch that does not mention resourceVersion carries the target's:
 * it is not a precondition. */
static void
drop_carried_rv(json_t *result, json_t *target)
{
	json_t *rmd = json_object_get(result, "metadata");
	const char *prv = json_string_value(json_object_get(
	    json_object_get(target, "metadata"), "resourceVersion"));
	const char *nrv =
	    json_string_value(json_object_get(rmd, "resourceVersion"));

	if (json_is_object(rmd) && (!nrv || (prv && !strcmp(prv, nrv))))
		json_object_del(rmd, "resourceVersion");
}

void
h_patch(struct api *a, struct route *rt, const struct api_req *req,
	struct api_resp *resp)
{
	enum patch_type t = patch_type_of(req->content_type);
	struct store_item it;
	struct object old;
	json_t *patch, *stored, *target, *result, *md;
	char rv[32];

	/* The patch handler's NewUnsupportedMediaTypeError(patchTypes). */
	if (t == PT_NONE) {
		resp_status(
		    resp, 415, "UnsupportedMediaType",
		    "the body of the request was in an unknown format - "
		    "accepted media types include: "
		    "application/json-patch+json, "
		    "application/merge-patch+json, "
		    "application/strategic-merge-patch+json",
		    NULL, NULL, NULL);
		return;
	}
	if ((patch = api_parse_body(req, resp)) == NULL)
		return;
	/* Read once: the old object of the update, and the patch's target
	 * (as served, with its resourceVersion): the stored text parsed,
	 * or, if the cache had the object, it encoded as it was stored. */
	if (load_typed(a, rt, &it, &old, &stored, resp)) {
		json_decref(patch);
		return;
	}
	if (stored == NULL)
		stored = stored_value(&old);
	md = json_object_get(stored, "metadata");
	if (!json_is_object(md)) {
		md = json_object();
		json_object_set_new(stored, "metadata", md);
	}
	snprintf(rv, sizeof(rv), "%lld", (long long)it.rv);
	json_object_set_new(md, "resourceVersion", json_string(rv));
	target = rt->sub && !strcmp(rt->sub, "scale") ? scale_target(a, rt)
						      : json_incref(stored);
	result = apply_patch(rt, t, target, patch, resp);
	json_decref(patch);
	if (result)
		drop_carried_rv(result, target);
	json_decref(target);
	json_object_del(md, "resourceVersion"); /* as stored */
	if (result) {
		do_update(a, rt, result, &it, &old, resp);
	} else {
		store_item_release(&it);
		object_release(&old);
	}
	json_decref(stored);
	json_decref(result);
}

/* DeleteOptions from the body (JSON) and the query string. */
struct delete_opts {
	const char *policy; /* Background, Foreground, Orphan */
	int64_t grace;      /* -1: unset */
	const char *pre_uid;
	const char *pre_rv;
};

static bool
has_finalizer(const struct object_meta *m, const char *f)
{
	size_t i;

	for (i = 0; i < m->finalizers.n; i++)
		if (!strcmp(m->finalizers.v[i], f))
			return true;
	return false;
}

/* Decodes a DeleteOptions body as Go's JSON decoder would: unknown
 * members are ignored, a known one of the wrong type refuses the whole
 * request (400), and so does text that is not JSON. */
static const struct {
	const char *name, *go_type;
	int jtype; /* json_type, or -1 for an array of strings */
} delete_fields[] = {
    {"kind", "string", JSON_STRING},
    {"apiVersion", "string", JSON_STRING},
    {"gracePeriodSeconds", "int64", JSON_INTEGER},
    {"preconditions", "v1.Preconditions", JSON_OBJECT},
    {"orphanDependents", "bool", JSON_TRUE},
    {"propagationPolicy", "v1.DeletionPropagation", JSON_STRING},
    {"dryRun", "[]string", -1},
};

static bool
is_type(json_t *v, int jtype)
{
	size_t i;
	json_t *e;

	if (json_is_null(v))
		return true;
	if (jtype == JSON_TRUE)
		return json_is_boolean(v);
	if (jtype != -1)
		return (int)json_typeof(v) == jtype;
	if (!json_is_array(v))
		return false;
	json_array_foreach(v, i, e) if (!json_is_string(e)) return false;
	return true;
}

static json_t *
delete_body(const struct api_req *req, struct api_resp *resp)
{
	json_t *body, *pre;
	char msg[300];
	size_t i;

	if (body_media_type(req, resp) ||
	    (body = api_parse_body(req, resp)) == NULL)
		return NULL;
	if (!json_is_object(body)) {
		bad_request(resp, "json: cannot unmarshal non-object into Go "
				  "value of type v1.DeleteOptions");
		json_decref(body);
		return NULL;
	}
	for (i = 0; i < sizeof(delete_fields) / sizeof(delete_fields[0]); i++) {
		json_t *v = json_object_get(body, delete_fields[i].name);

		if (v && !is_type(v, delete_fields[i].jtype)) {
			snprintf(msg, sizeof(msg),
				 "json: cannot unmarshal %s into Go struct "
				 "field DeleteOptions.%s of type %s",
				 json_is_object(v)   ? "object"
				 : json_is_array(v)  ? "array"
				 : json_is_string(v) ? "string"
				 : json_is_number(v) ? "number"
						     : "bool",
				 delete_fields[i].name,
				 delete_fields[i].go_type);
			bad_request(resp, msg);
			json_decref(body);
			return NULL;
		}
	}
	pre = json_object_get(body, "preconditions");
	for (i = 0; json_is_object(pre) && i < 2; i++) {
		const char *k = i ? "resourceVersion" : "uid";
		json_t *v = json_object_get(pre, k);

		if (v && !json_is_string(v) && !json_is_null(v)) {
			snprintf(msg, sizeof(msg),
				 "json: cannot unmarshal %s into Go struct "
				 "field Preconditions.preconditions.%s of type "
				 "string",
				 json_is_number(v) ? "number" : "value", k);
			bad_request(resp, msg);
			json_decref(body);
			return NULL;
		}
	}
	return body;
}

/* The deletion fields of an object as stored, before a DELETE. */
struct deletion_was {
	dtime ts;
	struct opt_int grace;
	size_t nfin;
};

/* Marks m, which finalizers hold, as being deleted without grace, as
 * Kubernetes does (markAsDeleting; BeforeDelete cutting a pending grace
 * period to 0): deletionGracePeriodSeconds 0, deletionTimestamp now, or
 * moved back to the start of a grace period cut short, or kept. True if
 * that changes nothing stored: the object then stays still (Kubernetes'
 * update of identical data writes nothing), so a client that deletes it
 * again at each of its events (the agent finishing a deletion) does not
 * write it in a loop. */
static bool
hold_for_finalizers(struct object_meta *m, dtime now,
		    const struct deletion_was *was)
{
	if (m->deletion_timestamp == 0)
		m->deletion_timestamp = now;
	else if (m->deletion_grace_period_seconds.set &&
		 m->deletion_grace_period_seconds.v > 0)
		m->deletion_timestamp -=
		    DTIME_SEC(m->deletion_grace_period_seconds.v);
	m->deletion_grace_period_seconds.set = true;
	m->deletion_grace_period_seconds.v = 0;
	return was->ts == m->deletion_timestamp && was->grace.set &&
	       was->grace.v == 0 && was->nfin == m->finalizers.n;
}

void
h_delete(struct api *a, struct route *rt, const struct query *q,
	 const struct api_req *req, struct api_resp *resp)
{
	struct deletion_was was;
	struct delete_opts d = {.policy = "Background", .grace = -1};
	struct store_item it;
	struct object o = {0};
	struct object_meta *m;
	json_t *body = NULL;
	const char *v;
	char msg[300];
	dtime now = a->cfg.now(a->cfg.arg);

	if ((req->body && req->body_len) || req->json) {
		json_t *pre, *dry;

		if ((body = delete_body(req, resp)) == NULL)
			return;
		pre = json_object_get(body, "preconditions");
		dry = json_object_get(body, "dryRun");
		if (json_array_size(dry)) {
			const char *vals[32];
			size_t i, n = 0;
			int r;

			for (i = 0; i < json_array_size(dry) && n < 32; i++)
				vals[n++] =
				    json_string_value(json_array_get(dry, i));
			if ((r = dry_run_check(vals, n, "DeleteOptions",
					       resp)) < 0) {
				json_decref(body);
				return;
			}
			rt->dry_run = rt->dry_run || r == 1;
		}
		if (json_is_true(json_object_get(body, "orphanDependents")))
			d.policy = "Orphan";

		if ((v = json_string_value(
			 json_object_get(body, "propagationPolicy"))))
			d.policy = v;
		if (json_is_integer(
			json_object_get(body, "gracePeriodSeconds")))
			d.grace = json_integer_value(
			    json_object_get(body, "gracePeriodSeconds"));
		d.pre_uid = json_string_value(json_object_get(pre, "uid"));
		d.pre_rv =
		    json_string_value(json_object_get(pre, "resourceVersion"));
	}
	if ((v = query_get(q, "propagationPolicy")))
		d.policy = v;
	if ((v = query_get(q, "gracePeriodSeconds"))) {
		char *end;

		d.grace = strtoll(v, &end, 10);
		if (!*v || *end) {
			snprintf(
			    msg, sizeof(msg),
			    "strconv.ParseInt: parsing \"%.200s\": invalid "
			    "syntax",
			    v);
			bad_request(resp, msg);
			json_decref(body);
			return;
		}
	}
	if (strcmp(d.policy, "Background") && strcmp(d.policy, "Foreground") &&
	    strcmp(d.policy, "Orphan")) {
		struct fielderr_list e = {0};

		/* ValidateDeleteOptions */
		fielderr_addf_str(&e, FE_NOT_SUPPORTED, "propagationPolicy",
				  d.policy,
				  "supported values: \"Foreground\", "
				  "\"Background\", \"Orphan\", \"nil\"");
		resp_options_invalid(resp, "DeleteOptions", &e);
		fielderr_list_release(&e);
		json_decref(body);
		return;
	}
	if (api_load(a, rt, &it, &o, resp)) {
		json_decref(body);
		return;
	}
	m = object_meta(&o);
	was.ts = m->deletion_timestamp;
	was.grace = m->deletion_grace_period_seconds;
	was.nfin = m->finalizers.n;
	if (d.pre_uid && strcmp(d.pre_uid, m->uid ? m->uid : "")) {
		snprintf(msg, sizeof(msg),
			 "Precondition failed: UID in precondition: %s, UID in "
			 "object meta: %s",
			 d.pre_uid, m->uid ? m->uid : "");
		resp_status(resp, 409, "Conflict", msg, rt->res, rt->name,
			    NULL);
		goto out;
	}
	if (d.pre_rv && strtoll(d.pre_rv, NULL, 10) != it.rv) {
		resp_store_error(resp, STORE_ECONFLICT, rt->res, rt->name);
		goto out;
	}
	/* A pod on a node stops gracefully: the agent finishes the delete
	 * (kind_info.grace_period). */
	if (o.k->grace_period && d.grace != 0) {
		int64_t g;

		if (o.k->grace_period(o.obj, d.grace, &g)) {
			if (m->deletion_timestamp == 0 ||
			    (m->deletion_grace_period_seconds.set &&
			     g < m->deletion_grace_period_seconds.v)) {
				m->deletion_timestamp = now + DTIME_SEC(g);
				m->deletion_grace_period_seconds.set = true;
				m->deletion_grace_period_seconds.v = g;
				if (g > 0) {
					commit(a, rt, &o, &it, resp);
					goto out;
				}
			} else {
				resp_json(resp, 200, served_object(&it));
				goto out;
			}
		}
	}
	if (!strcmp(d.policy, "Foreground") &&
	    !has_finalizer(m, "foregroundDeletion"))
		strlist_push(&m->finalizers, "foregroundDeletion");
	if (!strcmp(d.policy, "Orphan") && !has_finalizer(m, "orphan"))
		strlist_push(&m->finalizers, "orphan");
	if (m->finalizers.n == 0) {
		m->deletion_grace_period_seconds.set = false;
		if (m->deletion_timestamp == 0)
			m->deletion_timestamp = now;
	} else if (hold_for_finalizers(m, now, &was)) {
		resp_json(resp, 200, served_object(&it));
		goto out;
	}
	commit(a, rt, &o, &it, resp);
out:
	json_decref(body);
	object_release(&o);
	store_item_release(&it);
}

/* POST pods/NAME/binding {"target": {"kind": "Node", "name": N}}: what
 * the scheduler does; a pod is bound once. */
void
h_bind(struct api *a, struct route *rt, const struct api_req *req,
       struct api_resp *resp)
{
	struct store_item it;
	struct object o = {0};
	struct pod *p;
	json_t *body = api_parse_body(req, resp);
	const char *node;
	char msg[600];

	if (body == NULL)
		return;
	node = json_string_value(
	    json_object_get(json_object_get(body, "target"), "name"));
	if (node == NULL || !*node) {
		struct fielderr_list e = {0};

		fielderr_add(&e, FE_REQUIRED, "target.name", NULL, "");
		resp_invalid(resp, rt->res, rt->name, &e);
		fielderr_list_release(&e);
		json_decref(body);
		return;
	}
	if (api_load(a, rt, &it, &o, resp)) {
		json_decref(body);
		return;
	}
	p = o.obj;
	if (p->spec.node_name && *p->spec.node_name) {
		snprintf(
		    msg, sizeof(msg),
		    "Operation cannot be fulfilled on pods/binding \"%s\": "
		    "pod %s is already assigned to node \"%s\"",
		    rt->name, rt->name, p->spec.node_name);
		resp_status(resp, 409, "Conflict", msg, rt->res, rt->name,
			    NULL);
	} else if (p->metadata.deletion_timestamp) {
		snprintf(msg, sizeof(msg), "pod %s is being deleted", rt->name);
		resp_status(resp, 409, "Conflict", msg, rt->res, rt->name,
			    NULL);
	} else {
		set_str(&p->spec.node_name, node);
		commit(a, rt, &o, &it, resp);
		if (resp->status == 200) {
			api_resp_release(resp);
			resp_status(resp, 201, "", "", NULL, NULL, NULL);
		}
	}
	json_decref(body);
	object_release(&o);
	store_item_release(&it);
}
