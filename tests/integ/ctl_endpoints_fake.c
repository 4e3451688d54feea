/* ctl_endpoints_fake.c - the endpoints controller's shell against the
 * recording fake client: the informers watch through the fake, the test
 * pushes a node, two pods and a Service as watch events, and checks the
 * writes the controller made: one EndpointSlice per port set (the pods'
 * host ports, Kubernetes' conditions, the service-name label and the
 * Service as controller owner) and the Endpoints object. Fed back its
 * own writes, the controller writes nothing more for an unchanged pod;
 * a pod that becomes Ready updates its slice and the Endpoints; a pod
 * of another app wakes nothing; the Service's deletion deletes its
 * Endpoints object (the slices are the garbage collector's). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <uv.h>

#include "client_fake.h"
#include "ctl.h"
#include "informer.h"

#define SLICES "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices"
#define EPS    "/api/v1/namespaces/default/endpoints"

static dtime
fixed_now(void)
{
	return DTIME_SEC(1800000000);
}

static void
emit(struct client *c, const char *path, const char *type, json_t *obj)
{
	json_t *ev = json_pack("{sssO}", "type", type, "object", obj);

	assert_int_equal(client_fake_emit(c, path, ev), 1);
	json_decref(ev);
}

/* A pod of app `app` on node-1 serving "http" (containerPort 8080) on
 * host port hport, Ready or not. */
static json_t *
pod(const char *name, const char *app, int hport, bool ready, int rv)
{
	char rvs[16];

	snprintf(rvs, sizeof(rvs), "%d", rv);
	return json_pack(
	    "{ssss"
	    "s{sssssssss{ss}}"
	    "s{sss[{sss[{sssiss}]}]}"
	    "s{sss[{ssss}]s[{sss[{sssisi}]}]}}",
	    "apiVersion", "v1", "kind", "Pod", "metadata", "name", name,
	    "namespace", "default", "uid", name, "resourceVersion", rvs,
	    "labels", "app", app, "spec", "nodeName", "node-1", "containers",
	    "name", "app", "ports", "name", "http", "containerPort", 8080,
	    "protocol", "TCP", "status", "phase", "Running", "conditions",
	    "type", "Ready", "status", ready ? "True" : "False",
	    "containerStatuses", "name", "app", "ports", "name", "http",
	    "containerPort", 8080, "hostPort", hport);
}

static json_t *
service(void)
{
	return json_pack("{sssss{sssssssss{ss}}s{s[{sssiss}]s{ss}ss}}",
			 "apiVersion", "v1", "kind", "Service", "metadata",
			 "name", "web", "namespace", "default", "uid",
			 "svc-uid", "resourceVersion", "9", "labels", "team",
			 "a", "spec", "ports", "name", "http", "port", 80,
			 "targetPort", "http", "selector", "app", "web", "type",
			 "ClusterIP");
}

static json_t *
node(void)
{
	return json_pack("{sssss{ssss}s{s[{ssss}]}}", "apiVersion", "v1",
			 "kind", "Node", "metadata", "name", "node-1",
			 "resourceVersion", "3", "status", "addresses", "type",
			 "InternalIP", "address", "127.0.0.1");
}

/* The writes of kind path since the last clear. */
static size_t
writes(struct client *c)
{
	size_t i, n = 0;

	for (i = 0; i < client_fake_count(c); i++) {
		const struct client_fake_request *r = client_fake_request(c, i);

		if (strcmp(r->method, "GET"))
			n++;
	}
	return n;
}

/* Feeds every slice and Endpoints write recorded back to the informers,
 * as the store's watch would, with the names the fake gave the creates
 * from generateName ("web-fake1", "web-fake2", ... over the fake's
 * life, in order). */
static void
feed_back(struct client *c)
{
	static unsigned long named;
	size_t i;

	for (i = 0; i < client_fake_count(c); i++) {
		const struct client_fake_request *r = client_fake_request(c, i);
		json_t *o;

		if (!strcmp(r->method, "GET") || !r->body)
			continue;
		o = json_deep_copy(r->body);
		if (!json_object_get(json_object_get(o, "metadata"), "name")) {
			char name[32];

			snprintf(name, sizeof(name), "web-fake%lu", ++named);
			json_object_set_new(json_object_get(o, "metadata"),
					    "name", json_string(name));
		}
		emit(c,
		     strstr(r->path, "endpointslices")
			 ? "/apis/discovery.k8s.io/v1/endpointslices"
			 : "/api/v1/endpoints",
		     strcmp(r->method, "POST") ? "MODIFIED" : "ADDED", o);
		json_decref(o);
	}
}

static json_t *
slice_with_port(struct client *c, const char *method, int port)
{
	size_t i;

	for (i = 0; i < client_fake_count(c); i++) {
		const struct client_fake_request *r = client_fake_request(c, i);
		json_t *p =
		    json_array_get(json_object_get(r->body, "ports"), 0);

		if (!strcmp(r->method, method) && strstr(r->path, SLICES) &&
		    json_integer_value(json_object_get(p, "port")) == port)
			return r->body;
	}
	return NULL;
}

static void
test_slices_and_endpoints(void **state)
{
	uv_loop_t loop;
	struct client *c;
	struct ctl_config cfg = {0};
	struct ctl_endpoints *e;
	json_t *o, *s, *ep, *ref, *cond, *sub;

	(void)state;
	uv_loop_init(&loop);
	c = client_fake_new(&loop);
	client_fake_echo_writes(c, true);
	cfg.loop = &loop;
	cfg.client = c;
	cfg.now = fixed_now;
	client_fake_answer_empty_list(c, KIND_POD);
	client_fake_answer_empty_list(c, KIND_NODE);
	client_fake_answer_empty_list(c, KIND_SERVICE);
	client_fake_answer_empty_list(c, KIND_ENDPOINT_SLICE);
	client_fake_answer_empty_list(c, KIND_ENDPOINTS);
	cfg.pods = informer_new(c, &loop, KIND_POD);
	cfg.nodes = informer_new(c, &loop, KIND_NODE);
	cfg.services = informer_new(c, &loop, KIND_SERVICE);
	cfg.slices = informer_new(c, &loop, KIND_ENDPOINT_SLICE);
	cfg.endpoints = informer_new(c, &loop, KIND_ENDPOINTS);
	assert_non_null(cfg.endpoints);
	e = ctl_endpoints_start(&cfg);
	assert_non_null(e);

	o = node();
	emit(c, "/api/v1/nodes", "ADDED", o);
	json_decref(o);
	o = pod("web-a", "web", 31001, true, 10);
	emit(c, "/api/v1/pods", "ADDED", o);
	json_decref(o);
	o = pod("web-b", "web", 31002, false, 11);
	emit(c, "/api/v1/pods", "ADDED", o);
	json_decref(o);
	client_fake_clear(c);
	o = service();
	emit(c, "/api/v1/services", "ADDED", o);
	json_decref(o);
	uv_run(&loop, UV_RUN_NOWAIT);

	/* two port sets: two slices, and the Endpoints object */
	assert_int_equal(client_fake_count_of(c, "POST", SLICES), 2);
	assert_int_equal(client_fake_count_of(c, "POST", EPS), 1);
	s = slice_with_port(c, "POST", 31001);
	assert_non_null(s);
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(s, "metadata"),
					      "generateName")),
	    "web-");
	assert_string_equal(
	    json_string_value(json_object_get(
		json_object_get(json_object_get(s, "metadata"), "labels"),
		"kubernetes.io/service-name")),
	    "web");
	ref = json_array_get(
	    json_object_get(json_object_get(s, "metadata"), "ownerReferences"),
	    0);
	assert_string_equal(json_string_value(json_object_get(ref, "uid")),
			    "svc-uid");
	assert_true(json_is_true(json_object_get(ref, "controller")));
	ep = json_array_get(json_object_get(s, "endpoints"), 0);
	assert_string_equal(json_string_value(json_array_get(
				json_object_get(ep, "addresses"), 0)),
			    "127.0.0.1");
	cond = json_object_get(ep, "conditions");
	assert_true(json_is_true(json_object_get(cond, "ready")));
	assert_true(json_is_true(json_object_get(cond, "serving")));
	assert_true(json_is_false(json_object_get(cond, "terminating")));
	s = slice_with_port(c, "POST", 31002);
	assert_non_null(s);
	cond = json_object_get(
	    json_array_get(json_object_get(s, "endpoints"), 0), "conditions");
	assert_true(json_is_false(json_object_get(cond, "ready")));
	sub =
	    json_object_get(client_fake_last(c, "POST", EPS)->body, "subsets");
	assert_int_equal(json_array_size(sub), 2);

	/* its own writes come back: nothing more to write for a pod
	 * event that changes nothing */
	feed_back(c);
	client_fake_clear(c);
	uv_run(&loop, UV_RUN_NOWAIT);
	o = pod("web-a", "web", 31001, true, 12);
	emit(c, "/api/v1/pods", "MODIFIED", o);
	json_decref(o);
	uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(writes(c), 0);

	/* a pod of another app wakes nothing */
	o = pod("api-a", "api", 31003, true, 13);
	emit(c, "/api/v1/pods", "ADDED", o);
	json_decref(o);
	uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(writes(c), 0);

	/* web-b becomes Ready: its slice and the Endpoints are updated */
	o = pod("web-b", "web", 31002, true, 14);
	emit(c, "/api/v1/pods", "MODIFIED", o);
	json_decref(o);
	uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(client_fake_count_of(c, "POST", SLICES), 0);
	s = slice_with_port(c, "PUT", 31002);
	assert_non_null(s);
	cond = json_object_get(
	    json_array_get(json_object_get(s, "endpoints"), 0), "conditions");
	assert_true(json_is_true(json_object_get(cond, "ready")));
	assert_int_equal(client_fake_count_of(c, "PUT", EPS "/web"), 1);
	assert_int_equal(writes(c), 2);

	/* the Service goes: so does its Endpoints object */
	feed_back(c);
	client_fake_clear(c);
	uv_run(&loop, UV_RUN_NOWAIT);
	client_fake_answer(c, "DELETE", EPS "/web", 200, NULL);
	o = service();
	emit(c, "/api/v1/services", "DELETED", o);
	json_decref(o);
	uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(client_fake_count_of(c, "DELETE", EPS "/web"), 1);
	assert_int_equal(writes(c), 1);

	ctl_endpoints_stop(e);
	informer_free(cfg.pods);
	informer_free(cfg.nodes);
	informer_free(cfg.services);
	informer_free(cfg.slices);
	informer_free(cfg.endpoints);
	c->ops->free(c);
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&loop), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_slices_and_endpoints),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
