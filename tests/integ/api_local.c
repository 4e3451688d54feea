/* api_local.c - the API handlers through the in-process client (the one
 * the controllers and the agent use inside `drover serve`), on the memory
 * store: a create is 201 and stamps the server's fields; an invalid
 * object is 422 Invalid with one cause per field, as over HTTP (it came
 * back as a 500 when answers were printed and parsed back); an update
 * with a stale resourceVersion is 409; a strategic merge patch merges
 * lists by their merge keys; /scale answers a Scale of the object (it
 * read the answer's text, absent in-process); a watch delivers the events
 * of later writes, and with group commit their objects are the values the
 * writes were answered with, as a GET serves them; a delete is 200 and the
 * next get 404; a status patch with another pod's uid is 409; a write
 * made behind the API's back is where the next patch starts (the API's
 * object cache is keyed by the stored version). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "api_testlib.h"

#include "client_local.h"
#include "kube.h"
#include "patch.h"

#define DEPLOY "/apis/apps/v1/namespaces/default/deployments"

struct world {
	struct store *store;
	struct api *api;
	struct client *c;
};

static int
setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));
	struct api_config cfg = {.now = fixed_now, .random = counter_random};

	w->store = store_mem_open(100);
	cfg.store = w->store;
	w->api = api_new(&cfg);
	w->c = client_local_new(w->api);
	*state = w;
	return 0;
}

static int
teardown(void **state)
{
	struct world *w = *state;

	w->c->ops->free(w->c);
	api_free(w->api);
	store_free(w->store);
	free(w);
	return 0;
}

static json_t *
deployment(const char *name, json_int_t replicas)
{
	return json_pack("{sssss{ss}s{sIs{s{ss}}s{s{s{ss}}s{s[{ssss}]}}}}",
			 "apiVersion", "apps/v1", "kind", "Deployment",
			 "metadata", "name", name, "spec", "replicas", replicas,
			 "selector", "matchLabels", "app", name, "template",
			 "metadata", "labels", "app", name, "spec",
			 "containers", "name", "web", "image", "web:1");
}

static int
request(struct world *w, const char *method, const char *path, const char *ct,
	json_t *body, struct client_resp *r)
{
	int st;

	client_request(w->c, method, path, NULL, ct, body, r);
	st = r->status;
	json_decref(body);
	return st;
}

static void
test_create_get_delete(void **state)
{
	struct world *w = *state;
	struct client_resp r;
	json_t *md;

	assert_int_equal(
	    request(w, "POST", DEPLOY, NULL, deployment("web", 3), &r), 201);
	md = json_object_get(r.body, "metadata");
	assert_non_null(json_string_value(json_object_get(md, "uid")));
	assert_non_null(
	    json_string_value(json_object_get(md, "resourceVersion")));
	assert_int_equal(json_integer_value(json_object_get(md, "generation")),
			 1);
	client_resp_release(&r);
	assert_int_equal(request(w, "GET", DEPLOY "/web", NULL, NULL, &r), 200);
	client_resp_release(&r);
	assert_int_equal(request(w, "DELETE", DEPLOY "/web", NULL, NULL, &r),
			 200);
	client_resp_release(&r);
	assert_int_equal(request(w, "GET", DEPLOY "/web", NULL, NULL, &r), 404);
	assert_string_equal(
	    json_string_value(json_object_get(r.body, "reason")), "NotFound");
	client_resp_release(&r);
}

static void
test_invalid_is_422_with_causes(void **state)
{
	struct world *w = *state;
	struct client_resp r;
	json_t *causes, *c;

	assert_int_equal(
	    request(w, "POST", DEPLOY, NULL, deployment("web", -1), &r), 422);
	assert_string_equal(
	    json_string_value(json_object_get(r.body, "reason")), "Invalid");
	causes = json_object_get(json_object_get(r.body, "details"), "causes");
	assert_true(json_array_size(causes) >= 1);
	c = json_array_get(causes, 0);
	assert_string_equal(json_string_value(json_object_get(c, "field")),
			    "spec.replicas");
	client_resp_release(&r);
	/* nothing was stored */
	assert_int_equal(request(w, "GET", DEPLOY "/web", NULL, NULL, &r), 404);
	client_resp_release(&r);
}

static void
test_stale_update_is_409(void **state)
{
	struct world *w = *state;
	struct client_resp r;
	json_t *obj;

	assert_int_equal(
	    request(w, "POST", DEPLOY, NULL, deployment("web", 3), &r), 201);
	obj = json_deep_copy(r.body);
	client_resp_release(&r);
	json_object_set_new(json_object_get(obj, "spec"), "replicas",
			    json_integer(4));
	assert_int_equal(
	    request(w, "PUT", DEPLOY "/web", NULL, json_deep_copy(obj), &r),
	    200);
	client_resp_release(&r);
	/* the same resourceVersion again: stale now */
	assert_int_equal(request(w, "PUT", DEPLOY "/web", NULL, obj, &r), 409);
	assert_string_equal(
	    json_string_value(json_object_get(r.body, "reason")), "Conflict");
	client_resp_release(&r);
}

static void
test_strategic_patch_merges_by_key(void **state)
{
	struct world *w = *state;
	struct client_resp r;
	json_t *cs;

	assert_int_equal(
	    request(w, "POST", DEPLOY, NULL, deployment("web", 1), &r), 201);
	client_resp_release(&r);
	assert_int_equal(request(w, "PATCH", DEPLOY "/web",
				 "application/strategic-merge-patch+json",
				 json_pack("{s{s{s{s[{ssss}]}}}}", "spec",
					   "template", "spec", "containers",
					   "name", "side", "image", "side:1"),
				 &r),
			 200);
	cs = json_object_get(
	    json_object_get(
		json_object_get(json_object_get(r.body, "spec"), "template"),
		"spec"),
	    "containers");
	assert_int_equal(json_array_size(cs), 2); /* web kept, side added */
	client_resp_release(&r);
}

static void
test_scale_subresource(void **state)
{
	struct world *w = *state;
	struct client_resp r;

	assert_int_equal(
	    request(w, "POST", DEPLOY, NULL, deployment("web", 1), &r), 201);
	client_resp_release(&r);
	assert_int_equal(
	    request(w, "PUT", DEPLOY "/web/scale", NULL,
		    json_pack("{sss{ss}s{si}}", "kind", "Scale", "metadata",
			      "name", "web", "spec", "replicas", 5),
		    &r),
	    200);
	assert_string_equal(json_string_value(json_object_get(r.body, "kind")),
			    "Scale");
	assert_string_equal(json_string_value(json_object_get(
				json_object_get(r.body, "metadata"), "name")),
			    "web");
	assert_int_equal(json_integer_value(json_object_get(
			     json_object_get(r.body, "spec"), "replicas")),
			 5);
	client_resp_release(&r);
}

struct seen {
	int added, modified;
};

static void
on_event(void *arg, json_t *ev)
{
	struct seen *s = arg;
	const char *type = json_string_value(json_object_get(ev, "type"));

	if (type && !strcmp(type, "ADDED"))
		s->added++;
	if (type && !strcmp(type, "MODIFIED"))
		s->modified++;
}

static void
test_watch_sees_later_writes(void **state)
{
	struct world *w = *state;
	struct client_resp r;
	struct client_watch *cw;
	struct seen s = {0};

	cw = w->c->ops->watch(w->c, DEPLOY, "watch=true", on_event, &s, &r);
	assert_non_null(cw);
	client_resp_release(&r);
	assert_int_equal(
	    request(w, "POST", DEPLOY, NULL, deployment("web", 1), &r), 201);
	client_resp_release(&r);
	assert_int_equal(
	    request(w, "PATCH", DEPLOY "/web", "application/merge-patch+json",
		    json_pack("{s{si}}", "spec", "replicas", 2), &r),
	    200);
	client_resp_release(&r);
	assert_int_equal(s.added, 1);
	assert_int_equal(s.modified, 1);
	w->c->ops->unwatch(w->c, cw);
}

struct objs {
	json_t *v[4];
	int n;
};

static void
keep_object(void *arg, json_t *ev)
{
	struct objs *o = arg;

	if (ev && o->n < 4)
		o->v[o->n++] = json_incref(json_object_get(ev, "object"));
}

/* With group commit (`drover serve`), a write's event comes after the
 * turn's flush; its object is the value the write was answered with, not
 * the stored text parsed again (api_hold_written): equal to what a GET
 * serves, resourceVersion included, and the same value as the answer. */
static void
test_watch_event_is_the_written_value(void **state)
{
	struct world *w = *state;
	struct client_resp r, created, patched;
	struct client_watch *cw;
	struct objs seen = {0};
	int i;

	assert_int_equal(store_set_deferred(w->store, true), 0);
	cw = w->c->ops->watch(w->c, DEPLOY, "watch=true", keep_object, &seen,
			      &r);
	assert_non_null(cw);
	client_resp_release(&r);
	assert_int_equal(
	    request(w, "POST", DEPLOY, NULL, deployment("held", 1), &created),
	    201);
	assert_int_equal(
	    request(w, "PATCH", DEPLOY "/held", "application/merge-patch+json",
		    json_pack("{s{si}}", "spec", "replicas", 2), &patched),
	    200);
	assert_int_equal(seen.n, 0); /* nothing before the flush */
	assert_int_equal(store_flush(w->store), 0);
	store_deliver(w->store);
	api_events_delivered(w->api);
	assert_int_equal(seen.n, 2);
	assert_ptr_equal(seen.v[0], created.body);
	assert_ptr_equal(seen.v[1], patched.body);
	assert_int_equal(request(w, "GET", DEPLOY "/held", NULL, NULL, &r),
			 200);
	assert_true(json_equal(seen.v[1], r.body));
	assert_int_equal(json_integer_value(json_object_get(
			     json_object_get(seen.v[1], "spec"), "replicas")),
			 2);
	client_resp_release(&r);
	client_resp_release(&created);
	client_resp_release(&patched);
	for (i = 0; i < seen.n; i++)
		json_decref(seen.v[i]);
	w->c->ops->unwatch(w->c, cw);
	assert_int_equal(store_set_deferred(w->store, false), 0);
}

#define POD "/api/v1/namespaces/default/pods"
#define SMP "application/strategic-merge-patch+json"

/* The agent's status write (kube_patch_status): PATCH pods/NAME/status
 * with a strategic merge patch and the pod's uid as a precondition.
 * Conditions merge by type; another uid (a pod re-created under the same
 * name) is 409 Conflict and changes nothing, with PATCH and with PUT. */
static void
test_status_patch_with_uid_precondition(void **state)
{
	struct world *w = *state;
	struct client_resp r;
	json_t *st, *conds, *body;
	char uid[64];

	assert_int_equal(
	    request(w, "POST", POD, NULL,
		    json_pack("{sssss{ss}s{s[{ssss}]}}", "apiVersion", "v1",
			      "kind", "Pod", "metadata", "name", "p", "spec",
			      "containers", "name", "c", "image", "x"),
		    &r),
	    201);
	snprintf(uid, sizeof(uid), "%s",
		 json_string_value(json_object_get(
		     json_object_get(r.body, "metadata"), "uid")));
	client_resp_release(&r);
	assert_int_equal(
	    request(w, "PATCH", POD "/p/status", SMP,
		    json_pack("{s{ss}s{sss[{ssss}{ssss}]}}", "metadata", "uid",
			      uid, "status", "phase", "Running", "conditions",
			      "type", "Ready", "status", "False", "type",
			      "Initialized", "status", "True"),
		    &r),
	    200);
	client_resp_release(&r);
	/* one condition changes; the other stays */
	assert_int_equal(request(w, "PATCH", POD "/p/status", SMP,
				 json_pack("{s{ss}s{s[{ssss}]}}", "metadata",
					   "uid", uid, "status", "conditions",
					   "type", "Ready", "status", "True"),
				 &r),
			 200);
	st = json_object_get(r.body, "status");
	assert_string_equal(json_string_value(json_object_get(st, "phase")),
			    "Running");
	conds = json_object_get(st, "conditions");
	assert_int_equal(json_array_size(conds), 2);
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(conds, 0), "status")),
			    "True");
	client_resp_release(&r);
	/* another pod's uid */
	assert_int_equal(
	    request(w, "PATCH", POD "/p/status", SMP,
		    json_pack("{s{ss}s{ss}}", "metadata", "uid",
			      "00000000-0000-0000-0000-000000000000", "status",
			      "phase", "Failed"),
		    &r),
	    409);
	assert_string_equal(
	    json_string_value(json_object_get(r.body, "reason")), "Conflict");
	client_resp_release(&r);
	assert_int_equal(request(w, "GET", POD "/p", NULL, NULL, &r), 200);
	assert_string_equal(json_string_value(json_object_get(
				json_object_get(r.body, "status"), "phase")),
			    "Running");
	/* the same precondition on a PUT of the status */
	body = json_deep_copy(r.body);
	client_resp_release(&r);
	json_object_set_new(
	    json_object_get(body, "metadata"), "uid",
	    json_string("00000000-0000-0000-0000-000000000001"));
	assert_int_equal(request(w, "PUT", POD "/p/status", NULL, body, &r),
			 409);
	client_resp_release(&r);
}

static const char *
rv_of(json_t *obj)
{
	return json_string_value(json_object_get(
	    json_object_get(obj, "metadata"), "resourceVersion"));
}

static json_int_t
generation_of(json_t *obj)
{
	return json_integer_value(
	    json_object_get(json_object_get(obj, "metadata"), "generation"));
}

#define MERGE     "application/merge-patch+json"
#define JSONPATCH "application/json-patch+json"

/* A write that changes nothing writes nothing, as GuaranteedUpdate
 * compares the new bytes with the stored ones: an identical PUT, a {}
 * merge patch, a JSON patch of tests only, the status and the scale
 * written back as they are answer 200 with the object at its version,
 * and no watch sees an event; the generation moves only with the spec.
 * A change still writes. */
static void
test_writes_that_change_nothing(void **state)
{
	struct world *w = *state;
	struct client_resp r;
	struct client_watch *cw;
	struct seen s = {0};
	json_t *obj;
	char rv[32];

	assert_int_equal(
	    request(w, "POST", DEPLOY, NULL, deployment("web", 1), &r), 201);
	obj = json_deep_copy(r.body);
	snprintf(rv, sizeof(rv), "%s", rv_of(r.body));
	client_resp_release(&r);
	cw = w->c->ops->watch(w->c, DEPLOY, "watch=true&resourceVersion=1",
			      on_event, &s, &r);
	assert_non_null(cw);
	client_resp_release(&r);
	s.added = s.modified = 0;
	assert_int_equal(
	    request(w, "PUT", DEPLOY "/web", NULL, json_deep_copy(obj), &r),
	    200);
	assert_string_equal(rv_of(r.body), rv);
	assert_true(json_equal(r.body, obj));
	client_resp_release(&r);
	assert_int_equal(
	    request(w, "PATCH", DEPLOY "/web", MERGE, json_object(), &r), 200);
	assert_string_equal(rv_of(r.body), rv);
	client_resp_release(&r);
	assert_int_equal(request(w, "PATCH", DEPLOY "/web", JSONPATCH,
				 json_pack("[{sssssi}]", "op", "test", "path",
					   "/spec/replicas", "value", 1),
				 &r),
			 200);
	assert_string_equal(rv_of(r.body), rv);
	client_resp_release(&r);
	assert_int_equal(request(w, "PUT", DEPLOY "/web/status", NULL,
				 json_deep_copy(obj), &r),
			 200);
	assert_string_equal(rv_of(r.body), rv);
	client_resp_release(&r);
	assert_int_equal(
	    request(w, "PUT", DEPLOY "/web/scale", NULL,
		    json_pack("{sss{ss}s{si}}", "kind", "Scale", "metadata",
			      "name", "web", "spec", "replicas", 1),
		    &r),
	    200);
	assert_string_equal(rv_of(r.body), rv);
	client_resp_release(&r);
	assert_int_equal(request(w, "PATCH", DEPLOY "/web/scale", MERGE,
				 json_pack("{s{si}}", "spec", "replicas", 1),
				 &r),
			 200);
	assert_string_equal(rv_of(r.body), rv);
	client_resp_release(&r);
	assert_int_equal(s.modified, 0);
	assert_int_equal(request(w, "GET", DEPLOY "/web", NULL, NULL, &r), 200);
	assert_true(json_equal(r.body, obj));
	client_resp_release(&r);
	/* a change writes, once: a new version, an event, a generation */
	assert_int_equal(request(w, "PATCH", DEPLOY "/web/scale", MERGE,
				 json_pack("{s{si}}", "spec", "replicas", 2),
				 &r),
			 200);
	assert_string_not_equal(rv_of(r.body), rv);
	client_resp_release(&r);
	assert_int_equal(s.modified, 1);
	assert_int_equal(request(w, "GET", DEPLOY "/web", NULL, NULL, &r), 200);
	assert_int_equal(generation_of(r.body), generation_of(obj) + 1);
	client_resp_release(&r);
	json_decref(obj);
	w->c->ops->unwatch(w->c, cw);
}

/* kube-apiserver's answer to a JSON patch that does not apply or copies
 * more than 3 MiB: 422 with a fixed message and empty details. */
static void
assert_patch_rejected(json_t *st)
{
	json_t *want = json_pack(
	    "{sssss{}sssssss{}si}", "kind", "Status", "apiVersion", "v1",
	    "metadata", "status", "Failure", "message",
	    "the server rejected our request due to an error in our request",
	    "reason", "Invalid", "details", "code", 422);

	if (!json_equal(st, want)) {
		char *g = json_dumps(st, JSON_COMPACT);

		fail_msg("got %.500s", g);
	}
	json_decref(want);
}

/* The 18 copies of /metadata into its annotations, as a patch
 * and as a dry run; 10,001 operations; a patch that is not a list; an
 * object over etcd's limit (refused, but not in a dry run): each refused
 * as kube-apiserver refuses it, and nothing is written. */
static void
test_patch_refusals(void **state)
{
	struct world *w = *state;
	struct client_resp r;
	json_t *ops = json_array(), *big;
	char rv[32], path[64];
	int i;

	assert_int_equal(
	    request(w, "POST", DEPLOY, NULL, deployment("web", 1), &r), 201);
	snprintf(rv, sizeof(rv), "%s", rv_of(r.body));
	client_resp_release(&r);
	for (i = 0; i < 18; i++) {
		snprintf(path, sizeof(path), "/metadata/annotations/c%d", i);
		json_array_append_new(ops, json_pack("{ssssss}", "op", "copy",
						     "from", "/metadata",
						     "path", path));
	}
	json_array_insert_new(ops, 0,
			      json_pack("{sssss{}}", "op", "add", "path",
					"/metadata/annotations", "value"));
	for (i = 0; i < 2; i++) {
		client_request(w->c, "PATCH", DEPLOY "/web",
			       i ? "dryRun=All" : NULL, JSONPATCH, ops, &r);
		assert_int_equal(r.status, 422);
		assert_patch_rejected(r.body);
		client_resp_release(&r);
	}
	json_decref(ops);
	ops = json_array();
	for (i = 0; i < PATCH_MAX_OPS + 1; i++)
		json_array_append_new(
		    ops, json_pack("{ssss}", "op", "remove", "path", "/spec"));
	assert_int_equal(request(w, "PATCH", DEPLOY "/web", JSONPATCH, ops, &r),
			 413);
	assert_string_equal(
	    json_string_value(json_object_get(r.body, "message")),
	    "Request entity too large: The allowed maximum operations in a "
	    "JSON patch is 10000, got 10001");
	client_resp_release(&r);
	assert_int_equal(request(w, "PATCH", DEPLOY "/web", JSONPATCH,
				 json_pack("{ss}", "op", "add"), &r),
			 400);
	assert_string_equal(
	    json_string_value(json_object_get(r.body, "message")),
	    "json: cannot unmarshal object into Go value of type "
	    "jsonpatch.Patch");
	client_resp_release(&r);
	assert_int_equal(
	    request(w, "PATCH", DEPLOY "/web", JSONPATCH,
		    json_pack("[{ssss}]", "op", "remove", "path", "/nothere"),
		    &r),
	    422);
	assert_patch_rejected(r.body);
	client_resp_release(&r);
	/* 1.6 MB in one argument: over 1.5 MiB */
	{
		char *x = malloc(1600001);

		memset(x, 'x', 1600000);
		x[1600000] = '\0';
		big = json_pack("{s{s{s{s[{sssss[s]}]}}}}", "spec", "template",
				"spec", "containers", "name", "web", "image",
				"web:1", "args", x);
		free(x);
	}
	client_request(w->c, "PATCH", DEPLOY "/web", "dryRun=All", SMP, big,
		       &r);
	assert_int_equal(r.status, 200);
	client_resp_release(&r);
	client_request(w->c, "PATCH", DEPLOY "/web", NULL, SMP, big, &r);
	assert_int_equal(r.status, 500);
	assert_string_equal(
	    json_string_value(json_object_get(r.body, "message")),
	    "etcdserver: request is too large");
	assert_null(json_object_get(r.body, "reason"));
	client_resp_release(&r);
	json_decref(big);
	assert_int_equal(request(w, "GET", DEPLOY "/web", NULL, NULL, &r), 200);
	assert_string_equal(rv_of(r.body), rv);
	client_resp_release(&r);
}

/* A read's query refused as kube-apiserver refuses it: 400 with
 * labels.Parse's, strconv.ParseInt's and DecodeContinue's texts, 500 for
 * a namespace ".." (its storage key), and the log options' bounds 422. */
static void
test_read_query_refusals(void **state)
{
	static const struct {
		const char *path, *query;
		int code;
		const char *message;
	} cases[] = {
	    {DEPLOY, "labelSelector=a%3D%24%24%24", 400,
	     "unable to parse requirement: values[0][a]: Invalid value: "
	     "\"$$$\": a valid label must be an empty string or consist of "
	     "alphanumeric characters, '-', '_' or '.', and must start and "
	     "end with an alphanumeric character (e.g. 'MyValue',  or "
	     "'my_value',  or '12345', regex used for validation is "
	     "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"},
	    {DEPLOY, "timeoutSeconds=abc", 400,
	     "strconv.ParseInt: parsing \"abc\": invalid syntax"},
	    {DEPLOY, "continue=garbage!", 400,
	     "invalid continue token: continue key is not valid: illegal "
	     "base64 data at input byte 7"},
	    {"/api/v1/namespaces/../pods", NULL, 500,
	     "invalid key: \"/pods/..\""},
	    {POD "/p/log", "tailLines=abc", 400,
	     "strconv.ParseInt: parsing \"abc\": invalid syntax"},
	    {POD "/p/log", "limitBytes=-1", 422,
	     "PodLogOptions \"p\" is invalid: limitBytes: Invalid value: -1: "
	     "must be greater than 0"},
	    {POD "/p/log", "sinceSeconds=x", 400,
	     "strconv.ParseInt: parsing \"x\": invalid syntax"},
	};
	struct world *w = *state;
	struct client_resp r;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		client_request(w->c, "GET", cases[i].path, cases[i].query, NULL,
			       NULL, &r);
		assert_int_equal(r.status, cases[i].code);
		assert_string_equal(
		    json_string_value(json_object_get(r.body, "message")),
		    cases[i].message);
		client_resp_release(&r);
	}
}

/* The API starts a write from its decoded copy of the object only at the
 * stored version (objcache.h): after another writer changed the stored
 * text behind it, a patch starts from what is stored, and the next one
 * from what the first wrote. */
static void
test_a_write_behind_the_api_is_not_served_stale(void **state)
{
	struct world *w = *state;
	struct store_key k = {"deployments", "default", "c"};
	struct store_item it;
	struct client_resp r;
	json_t *v;
	char *text;
	int64_t rv;

	assert_int_equal(
	    request(w, "POST", DEPLOY, NULL, deployment("c", 1), &r), 201);
	client_resp_release(&r);
	/* another writer: replicas 7, straight into the store */
	assert_int_equal(store_get(w->store, &k, &it), 0);
	v = json_loads(it.value, 0, NULL);
	json_object_set_new(json_object_get(v, "spec"), "replicas",
			    json_integer(7));
	text = json_dumps(v, JSON_COMPACT);
	assert_int_equal(
	    store_update(w->store, &k, text, &it.labels, it.rv, &rv), 0);
	free(text);
	json_decref(v);
	store_item_release(&it);
	assert_int_equal(
	    request(w, "PATCH", DEPLOY "/c", "application/merge-patch+json",
		    json_pack("{s{s{ss}}}", "metadata", "labels", "x", "y"),
		    &r),
	    200);
	assert_int_equal(json_integer_value(json_object_get(
			     json_object_get(r.body, "spec"), "replicas")),
			 7);
	client_resp_release(&r);
	assert_int_equal(
	    request(w, "PATCH", DEPLOY "/c", "application/merge-patch+json",
		    json_pack("{s{s{ss}}}", "metadata", "labels", "z", "w"),
		    &r),
	    200);
	v = json_object_get(json_object_get(r.body, "metadata"), "labels");
	assert_string_equal(json_string_value(json_object_get(v, "x")), "y");
	assert_string_equal(json_string_value(json_object_get(v, "z")), "w");
	assert_int_equal(json_integer_value(json_object_get(
			     json_object_get(r.body, "spec"), "replicas")),
			 7);
	client_resp_release(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_create_get_delete, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_invalid_is_422_with_causes,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stale_update_is_409, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_strategic_patch_merges_by_key,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_scale_subresource, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(
		test_watch_event_is_the_written_value, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_watch_sees_later_writes, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(
		test_status_patch_with_uid_precondition, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_writes_that_change_nothing,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_patch_refusals, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_read_query_refusals, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(
		test_a_write_behind_the_api_is_not_served_stale, setup,
		teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
