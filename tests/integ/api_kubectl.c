/* api_kubectl.c - what the real kubectl reads besides the objects, on the
 * memory store: the OpenAPI documents (openapi.c) name every model type
 * as Kubernetes does, every reference resolves, kinds carry their
 * group-version-kind, merge keys become patch extensions, each PATCH
 * declares fieldValidation (and no request body); /openapi/v3's index
 * points at documents that answer; /openapi/v2 is gnostic's protobuf
 * Document to kubectl (read back here field by field) and Swagger 2.0 to
 * JSON clients; and the server-side Table
 * (table.c) of a list, a get and a watch event, with includeObject. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "api_testlib.h"

#include "api.h"
#include "openapi.h"

#define DEPLOY "/apis/apps/v1/namespaces/default/deployments"
#define TABLE_ACCEPT                                                           \
	"application/json;as=Table;v=v1;g=meta.k8s.io,application/json;"       \
	"as=Table;v=v1beta1;g=meta.k8s.io,application/json"

struct world {
	struct store *store;
	struct api *api;
};

static int
setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));
	struct api_config cfg = {.now = fixed_now, .random = counter_random};

	w->store = store_mem_open(100);
	cfg.store = w->store;
	w->api = api_new(&cfg);
	*state = w;
	return 0;
}

static int
teardown(void **state)
{
	struct world *w = *state;

	api_free(w->api);
	store_free(w->store);
	free(w);
	return 0;
}

/* One request; the answer's body parsed (NULL if not JSON) into *out,
 * its content type into *ct. Returns the status. */
static int
call(struct world *w, const char *method, const char *path, const char *query,
     const char *accept, const char *body, json_t **out, const char **ct)
{
	struct api_req req = {.method = method,
			      .path = path,
			      .query = query,
			      .accept = accept,
			      .content_type = body ? "application/json" : NULL,
			      .body = body,
			      .body_len = body ? strlen(body) : 0};
	struct api_resp resp;
	struct strbuf sb = STRBUF_INIT;
	int status;

	api_handle(w->api, &req, &resp);
	status = resp.status;
	if (resp.stream) { /* a plain list, in pieces */
		while (resp.stream->next(resp.stream, &sb))
			;
	} else if (resp.body) {
		strbuf_addstr(&sb, resp.body);
	}
	if (out)
		*out = sb.len ? json_loads(sb.buf, 0, NULL) : NULL;
	if (ct)
		*ct = resp.content_type;
	strbuf_release(&sb);
	api_resp_release(&resp);
	return status;
}

static const char web[] =
    "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
    "\"metadata\":{\"name\":\"web\",\"labels\":{\"app\":\"web\"}},"
    "\"spec\":{\"replicas\":3,\"selector\":{\"matchLabels\":{\"app\":"
    "\"web\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"web\"}},"
    "\"spec\":{\"containers\":[{\"name\":\"web\",\"image\":\"web:1\"},"
    "{\"name\":\"side\",\"image\":\"side:2\"}]}}}}";

/* ---- OpenAPI ---- */

/* Every "$ref" under j names a definition of defs (prefix stripped). */
static void
refs_resolve(json_t *j, json_t *defs, const char *prefix, size_t *n)
{
	const char *k;
	json_t *v;
	size_t i;

	if (json_is_object(j)) {
		json_object_foreach(j, k, v)
		{
			if (!strcmp(k, "$ref")) {
				const char *r = json_string_value(v);

				assert_non_null(r);
				assert_memory_equal(r, prefix, strlen(prefix));
				if (!json_object_get(defs, r + strlen(prefix)))
					fail_msg("unresolved %s", r);
				(*n)++;
			} else {
				refs_resolve(v, defs, prefix, n);
			}
		}
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v) refs_resolve(v, defs, prefix, n);
	}
}

static json_t *
prop(json_t *defs, const char *def, const char *name)
{
	json_t *p = json_object_get(
	    json_object_get(json_object_get(defs, def), "properties"), name);

	if (p == NULL)
		fail_msg("%s has no property %s", def, name);
	return p;
}

static void
test_openapi_v3_apps(void **state)
{
	json_t *doc = openapi_v3_document("apps/v1"), *defs, *gvk, *p, *op,
	       *params, *par;
	size_t nrefs = 0, i;
	bool field_validation = false;

	(void)state;
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "openapi")),
			    "3.0.0");
	defs = json_object_get(json_object_get(doc, "components"), "schemas");
	refs_resolve(doc, defs, "#/components/schemas/", &nrefs);
	assert_true(nrefs > 20);

	gvk = json_array_get(
	    json_object_get(
		json_object_get(defs, "io.k8s.api.apps.v1.Deployment"),
		"x-kubernetes-group-version-kind"),
	    0);
	assert_string_equal(json_string_value(json_object_get(gvk, "group")),
			    "apps");
	assert_string_equal(json_string_value(json_object_get(gvk, "kind")),
			    "Deployment");
	assert_non_null(json_object_get(defs, "io.k8s.api.apps.v1.ReplicaSet"));

	p = prop(defs, "io.k8s.api.apps.v1.DeploymentSpec", "replicas");
	assert_string_equal(json_string_value(json_object_get(p, "type")),
			    "integer");
	assert_string_equal(json_string_value(json_object_get(p, "format")),
			    "int32");
	assert_non_null(strstr(
	    json_string_value(json_object_get(p, "description")), "Defaults "
								  "to 1"));
	p = prop(defs, "io.k8s.api.apps.v1.RollingUpdateDeployment",
		 "maxSurge");
	assert_true(
	    json_is_true(json_object_get(p, "x-kubernetes-int-or-string")));
	p = prop(defs, "io.k8s.api.core.v1.PodSpec", "containers");
	assert_string_equal(json_string_value(json_object_get(p, "type")),
			    "array");
	assert_string_equal(json_string_value(json_object_get(
				p, "x-kubernetes-patch-merge-key")),
			    "name");
	assert_string_equal(json_string_value(json_object_get(
				p, "x-kubernetes-patch-strategy")),
			    "merge");
	p = prop(defs, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
		 "labels");
	assert_string_equal(
	    json_string_value(json_object_get(
		json_object_get(p, "additionalProperties"), "type")),
	    "string");
	/* the one condition table, named per status */
	assert_non_null(
	    json_object_get(defs, "io.k8s.api.apps.v1.DeploymentCondition"));
	assert_non_null(
	    json_object_get(defs, "io.k8s.api.apps.v1.ReplicaSetCondition"));
	assert_null(json_object_get(defs, "io.k8s.api.core.v1.Pod"));

	op = json_object_get(
	    json_object_get(json_object_get(doc, "paths"),
			    "/apis/apps/v1/namespaces/{namespace}/deployments/"
			    "{name}"),
	    "patch");
	assert_non_null(op);
	assert_null(json_object_get(op, "requestBody"));
	assert_string_equal(
	    json_string_value(json_object_get(
		json_object_get(op, "x-kubernetes-group-version-kind"),
		"kind")),
	    "Deployment");
	params = json_object_get(op, "parameters");
	json_array_foreach(
	    params, i,
	    par) if (!strcmp(json_string_value(json_object_get(par, "name")),
			     "fieldValidation")) field_validation =
	    !strcmp(json_string_value(json_object_get(par, "in")), "query");
	assert_true(field_validation);
	op = json_object_get(json_object_get(json_object_get(doc, "paths"),
					     "/apis/apps/v1/deployments"),
			     "get");
	assert_string_equal(
	    json_string_value(json_object_get(op, "operationId")),
	    "listAppsV1DeploymentForAllNamespaces");
	json_decref(doc);
	assert_null(openapi_v3_document("batch/v1"));
}

static void
test_openapi_names_follow_the_group(void **state)
{
	json_t *core = openapi_v3_document("v1");
	json_t *disc = openapi_v3_document("discovery.k8s.io/v1");
	json_t *v2 = openapi_v2_document(), *cd, *dd, *d2;
	size_t n = 0;

	(void)state;
	cd = json_object_get(json_object_get(core, "components"), "schemas");
	dd = json_object_get(json_object_get(disc, "components"), "schemas");
	d2 = json_object_get(v2, "definitions");
	assert_non_null(json_object_get(cd, "io.k8s.api.core.v1.EndpointPort"));
	assert_non_null(
	    json_object_get(dd, "io.k8s.api.discovery.v1.EndpointPort"));
	assert_non_null(json_object_get(cd, "io.k8s.api.core.v1.PodCondition"));
	assert_non_null(
	    json_object_get(cd, "io.k8s.api.core.v1.NodeCondition"));
	assert_non_null(json_object_get(cd, "io.k8s.api.core.v1.Service"));
	assert_string_equal(json_string_value(json_object_get(v2, "swagger")),
			    "2.0");
	refs_resolve(v2, d2, "#/definitions/", &n);
	assert_true(n > 40);
	/* every kind of every group is in the one v2 document */
	assert_non_null(json_object_get(d2, "io.k8s.api.apps.v1.Deployment"));
	assert_non_null(
	    json_object_get(d2, "io.k8s.api.discovery.v1.EndpointSlice"));
	json_decref(core);
	json_decref(disc);
	json_decref(v2);
}

/* ---- a reader of the protobuf wire format, for the v2 document ---- */

struct pb {
	const unsigned char *p, *end;
};

static uint64_t
pb_varint(struct pb *b)
{
	uint64_t v = 0;
	int shift = 0;

	while (b->p < b->end) {
		unsigned char c = *b->p++;

		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
		shift += 7;
	}
	fail_msg("truncated varint");
	return 0;
}

/* The next field of b: its number, and its bytes (length-delimited) in
 * *sub; false at the end. Every field of the document is
 * length-delimited but AdditionalPropertiesItem.boolean. */
static bool
pb_next(struct pb *b, unsigned *field, struct pb *sub)
{
	uint64_t tag, n;

	if (b->p >= b->end)
		return false;
	tag = pb_varint(b);
	*field = (unsigned)(tag >> 3);
	if ((tag & 7) == 0) {
		sub->p = sub->end = b->p;
		pb_varint(b);
		return true;
	}
	assert_int_equal(tag & 7, 2);
	n = pb_varint(b);
	assert_true(n <= (uint64_t)(b->end - b->p));
	sub->p = b->p;
	sub->end = b->p + n;
	b->p += n;
	return true;
}

static bool
pb_is(const struct pb *b, const char *s)
{
	return (size_t)(b->end - b->p) == strlen(s) &&
	       !memcmp(b->p, s, strlen(s));
}

/* The value (field 2) of the NamedX in repeated field `field` of m whose
 * name (field 1) is name. */
static bool
pb_named(struct pb m, unsigned field, const char *name, struct pb *value)
{
	struct pb f, e, ef;
	unsigned n, en;
	bool found;

	while (pb_next(&m, &n, &f)) {
		if (n != field)
			continue;
		e = f;
		found = false;
		while (pb_next(&e, &en, &ef)) {
			if (en == 1)
				found = pb_is(&ef, name);
			else if (en == 2 && found) {
				*value = ef;
				return true;
			}
		}
	}
	return false;
}

/* The (first) field `field` of m. */
static bool
pb_field(struct pb m, unsigned field, struct pb *value)
{
	unsigned n;

	while (pb_next(&m, &n, value))
		if (n == field)
			return true;
	return false;
}

static void
test_openapi_v2_protobuf(void **state)
{
	json_t *doc = openapi_v2_document(), *gvk;
	struct strbuf sb = STRBUF_INIT;
	struct pb d, defs, dep, props, spec, x, any;
	char *yaml;

	(void)state;
	openapi_v2_protobuf(doc, &sb);
	json_decref(doc);
	assert_true(sb.len > 10000);
	/* served as a C string: no NUL inside */
	assert_int_equal(strlen(sb.buf), sb.len);
	d.p = (const unsigned char *)sb.buf;
	d.end = d.p + sb.len;
	assert_true(pb_field(d, 1, &x)); /* swagger */
	assert_true(pb_is(&x, "2.0"));
	assert_true(pb_field(d, 9, &defs)); /* definitions */
	assert_true(pb_named(defs, 1, "io.k8s.api.apps.v1.Deployment", &dep));
	assert_true(pb_field(dep, 25, &props)); /* properties */
	assert_true(pb_named(props, 1, "spec", &spec));
	assert_true(pb_field(spec, 1, &x)); /* _ref */
	assert_true(
	    pb_is(&x, "#/definitions/io.k8s.api.apps.v1.DeploymentSpec"));
	/* the vendor extension kubectl finds kinds by: its yaml (Any.yaml) */
	assert_true(pb_named(dep, 31, "x-kubernetes-group-version-kind", &x));
	assert_true(pb_field(x, 2, &any));
	yaml = strndup((const char *)any.p, (size_t)(any.end - any.p));
	gvk = json_loads(yaml, 0, NULL);
	assert_non_null(gvk);
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(gvk, 0), "kind")),
	    "Deployment");
	json_decref(gvk);
	free(yaml);
	/* a merge key, and the type of a map */
	assert_true(pb_named(defs, 1, "io.k8s.api.core.v1.PodSpec", &dep));
	assert_true(pb_field(dep, 25, &props));
	assert_true(pb_named(props, 1, "containers", &spec));
	assert_true(pb_named(spec, 31, "x-kubernetes-patch-merge-key", &x));
	assert_true(pb_field(x, 2, &any));
	assert_true(pb_is(&any, "\"name\""));
	assert_true(pb_field(spec, 22, &x)); /* type */
	assert_true(pb_field(x, 1, &any));
	assert_true(pb_is(&any, "array"));
	strbuf_release(&sb);
}

static void
test_openapi_handler(void **state)
{
	struct world *w = *state;
	json_t *index, *doc, *want;
	const char *ct, *key;
	json_t *v;
	size_t n = 0;

	assert_int_equal(call(w, "GET", "/openapi/v3", NULL, "application/json",
			      NULL, &index, &ct),
			 200);
	json_object_foreach(json_object_get(index, "paths"), key, v)
	{
		const char *url =
		    json_string_value(json_object_get(v, "serverRelativeURL"));
		char path[256];
		const char *q = strchr(url, '?');

		assert_non_null(q);
		assert_memory_equal(q, "?hash=", 6);
		snprintf(path, sizeof(path), "%.*s", (int)(q - url), url);
		assert_int_equal(call(w, "GET", path, q + 1, "application/json",
				      NULL, &doc, &ct),
				 200);
		assert_string_equal(ct, "application/json");
		want = openapi_v3_document(!strncmp(key, "apis/", 5) ? key + 5
								     : key + 4);
		assert_true(json_equal(doc, want));
		json_decref(doc);
		json_decref(want);
		n++;
	}
	/* v1, apps/v1, coordination.k8s.io/v1, discovery.k8s.io/v1,
	 * policy/v1 */
	assert_int_equal(n, 5);
	json_decref(index);

	/* kubectl's Accept: an empty protobuf document */
	assert_int_equal(
	    call(w, "GET", "/openapi/v2", NULL,
		 "application/com.github.proto-openapi.spec.v2@v1.0+protobuf",
		 NULL, &doc, &ct),
	    200);
	assert_string_equal(ct, "application/octet-stream");
	assert_null(doc); /* protobuf, not JSON */
	assert_int_equal(call(w, "GET", "/openapi/v2", NULL, "application/json",
			      NULL, &doc, &ct),
			 200);
	assert_string_equal(json_string_value(json_object_get(doc, "swagger")),
			    "2.0");
	json_decref(doc);
	assert_int_equal(call(w, "GET", "/openapi/v3/apis/batch/v1", NULL, NULL,
			      NULL, NULL, NULL),
			 404);
}

/* ---- Table ---- */

static json_t *
cells0(json_t *t)
{
	return json_object_get(json_array_get(json_object_get(t, "rows"), 0),
			       "cells");
}

static void
test_table_list_get_and_options(void **state)
{
	struct world *w = *state;
	json_t *t, *defs, *obj;
	const char *ct;

	assert_int_equal(call(w, "POST", DEPLOY, NULL, NULL, web, NULL, NULL),
			 201);
	assert_int_equal(
	    call(w, "GET", DEPLOY, "limit=500", TABLE_ACCEPT, NULL, &t, &ct),
	    200);
	assert_string_equal(json_string_value(json_object_get(t, "kind")),
			    "Table");
	assert_string_equal(json_string_value(json_object_get(t, "apiVersion")),
			    "meta.k8s.io/v1");
	assert_non_null(json_string_value(json_object_get(
	    json_object_get(t, "metadata"), "resourceVersion")));
	defs = json_object_get(t, "columnDefinitions");
	assert_int_equal(json_array_size(defs), 8);
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(defs, 2), "name")),
	    "Up-to-date");
	assert_int_equal(json_integer_value(json_object_get(
			     json_array_get(defs, 5), "priority")),
			 1);
	assert_string_equal(json_string_value(json_array_get(cells0(t), 0)),
			    "web");
	assert_string_equal(json_string_value(json_array_get(cells0(t), 1)),
			    "0/3");
	assert_true(json_is_integer(json_array_get(cells0(t), 2)));
	assert_string_equal(json_string_value(json_array_get(cells0(t), 5)),
			    "web,side");
	assert_string_equal(json_string_value(json_array_get(cells0(t), 6)),
			    "web:1,side:2");
	obj = json_object_get(json_array_get(json_object_get(t, "rows"), 0),
			      "object");
	assert_string_equal(json_string_value(json_object_get(obj, "kind")),
			    "PartialObjectMetadata");
	assert_string_equal(
	    json_string_value(json_object_get(
		json_object_get(json_object_get(obj, "metadata"), "labels"),
		"app")),
	    "web");
	assert_null(json_object_get(obj, "spec"));
	json_decref(t);

	/* includeObject */
	assert_int_equal(call(w, "GET", DEPLOY, "includeObject=None",
			      TABLE_ACCEPT, NULL, &t, NULL),
			 200);
	assert_null(json_object_get(
	    json_array_get(json_object_get(t, "rows"), 0), "object"));
	json_decref(t);
	assert_int_equal(call(w, "GET", DEPLOY, "includeObject=Object",
			      TABLE_ACCEPT, NULL, &t, NULL),
			 200);
	obj = json_object_get(json_array_get(json_object_get(t, "rows"), 0),
			      "object");
	assert_string_equal(json_string_value(json_object_get(obj, "kind")),
			    "Deployment");
	json_decref(t);

	/* a get: one row, the object's resourceVersion; v1beta1 alone */
	assert_int_equal(call(w, "GET", DEPLOY "/web", NULL,
			      "application/json;as=Table;v=v1beta1;g=meta.k8s."
			      "io",
			      NULL, &t, NULL),
			 200);
	assert_string_equal(json_string_value(json_object_get(t, "apiVersion")),
			    "meta.k8s.io/v1beta1");
	assert_int_equal(json_array_size(json_object_get(t, "rows")), 1);
	json_decref(t);

	/* without the Table Accept: the list itself */
	assert_int_equal(
	    call(w, "GET", DEPLOY, NULL, "application/json", NULL, &t, NULL),
	    200);
	assert_string_equal(json_string_value(json_object_get(t, "kind")),
			    "DeploymentList");
	json_decref(t);
	/* another group's Table is not ours to serve */
	assert_int_equal(call(w, "GET", DEPLOY, NULL,
			      "application/json;as=Table;v=v1;g=example.com",
			      NULL, &t, NULL),
			 200);
	assert_string_equal(json_string_value(json_object_get(t, "kind")),
			    "DeploymentList");
	json_decref(t);
}

struct lines {
	json_t *ev[8];
	size_t n;
};

static int
on_line(void *arg, const char *line, size_t len)
{
	struct lines *l = arg;

	(void)len;
	if (l->n < 8)
		l->ev[l->n++] = json_loads(line, 0, NULL);
	return 0;
}

static void
test_table_watch(void **state)
{
	struct world *w = *state;
	struct api_req wreq = {.method = "GET",
			       .path = DEPLOY,
			       .query = "watch=true&resourceVersion=0",
			       .accept = TABLE_ACCEPT};
	struct api_resp wresp;
	struct api_watch *wa;
	struct lines l = {0};
	json_t *t;
	size_t i;

	assert_int_equal(call(w, "POST", DEPLOY, NULL, NULL, web, NULL, NULL),
			 201);
	wa = api_watch_open(w->api, &wreq, on_line, &l, &wresp);
	assert_non_null(wa);
	api_resp_release(&wresp);
	{
		struct api_req p = {
		    .method = "PATCH",
		    .path = DEPLOY "/web",
		    .content_type = "application/merge-patch+json",
		    .body = "{\"spec\":{\"replicas\":5}}",
		    .body_len = strlen("{\"spec\":{\"replicas\":5}}")};
		struct api_resp r;

		api_handle(w->api, &p, &r);
		assert_int_equal(r.status, 200);
		api_resp_release(&r);
	}
	assert_int_equal(l.n, 2);
	assert_string_equal(json_string_value(json_object_get(l.ev[0], "type")),
			    "ADDED");
	assert_string_equal(json_string_value(json_object_get(l.ev[1], "type")),
			    "MODIFIED");
	t = json_object_get(l.ev[1], "object");
	assert_string_equal(json_string_value(json_object_get(t, "kind")),
			    "Table");
	assert_int_equal(json_array_size(json_object_get(t, "rows")), 1);
	assert_string_equal(json_string_value(json_array_get(cells0(t), 1)),
			    "0/5");
	api_watch_close(wa);
	for (i = 0; i < l.n; i++)
		json_decref(l.ev[i]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_openapi_v3_apps),
	    cmocka_unit_test(test_openapi_names_follow_the_group),
	    cmocka_unit_test(test_openapi_v2_protobuf),
	    cmocka_unit_test_setup_teardown(test_openapi_handler, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_table_list_get_and_options,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_table_watch, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
