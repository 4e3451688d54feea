/* ctl_rc_fake.c - the ReplicationController controller (the ReplicaSet
 * shell started for the kind, rs.c) against the recording fake client:
 * pods created from the template with a v1 ReplicationController
 * controller reference, the status written to the RC's /status, an
 * orphan carrying the selector's labels adopted, a pod of its own whose
 * labels left the selector released, and a pod that a ReplicaSet
 * controls left alone. */
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

#define PODS "/api/v1/namespaces/default/pods"
#define RCS  "/api/v1/namespaces/default/replicationcontrollers"

static dtime
fixed_now(void)
{
	return DTIME_SEC(1800000000);
}

/* Sends one watch event (printf-style JSON) that must reach one watch. */
#define emit(c, path, ...)                                                     \
	assert_int_equal(client_fake_emitf((c), (path), __VA_ARGS__), 1)

static void
rc(struct client *c, const char *type, int replicas, const char *rv)
{
	emit(c, "/api/v1/replicationcontrollers",
	     "{\"type\": \"%s\", \"object\": {\"apiVersion\": \"v1\","
	     "\"kind\": \"ReplicationController\", \"metadata\": {\"name\":"
	     "\"web\", \"namespace\": \"default\", \"uid\": \"rc-uid\","
	     "\"generation\": 1, \"resourceVersion\": \"%s\"}, \"spec\":"
	     "{\"replicas\": %d, \"selector\": {\"app\": \"web\"},"
	     "\"template\": {\"metadata\": {\"labels\": {\"app\": \"web\"}},"
	     "\"spec\": {\"containers\": [{\"name\": \"c\", \"image\":"
	     "\"x\"}]}}}}}",
	     type, rv, replicas);
}

/* A pod with app=web; owner: "" (an orphan) or an ownerReferences
 * entry. */
static void
pod(struct client *c, const char *name, const char *rv, const char *owner)
{
	emit(c, "/api/v1/pods",
	     "{\"type\": \"ADDED\", \"object\": {\"apiVersion\": \"v1\","
	     "\"kind\": \"Pod\", \"metadata\": {\"name\": \"%s\","
	     "\"namespace\": \"default\", \"uid\": \"%s-uid\","
	     "\"resourceVersion\": \"%s\", \"labels\": {\"app\": \"web\"}%s},"
	     "\"spec\": {\"containers\": [{\"name\": \"c\", \"image\":"
	     "\"x\"}]}, \"status\": {\"phase\": \"Running\"}}}",
	     name, name, rv, owner);
}

static void
test_rc_pods_status_and_adoption(void **state)
{
	uv_loop_t loop;
	struct client *c;
	struct ctl_config cfg = {0};
	struct ctl_rs *r;
	const struct client_fake_request *rq;
	const json_t *ref, *st;

	(void)state;
	uv_loop_init(&loop);
	c = client_fake_new(&loop);
	client_fake_echo_writes(c, true);
	cfg.loop = &loop;
	cfg.client = c;
	cfg.now = fixed_now;
	client_fake_answer_empty_list(c, KIND_POD);
	client_fake_answer_empty_list(c, KIND_REPLICATION_CONTROLLER);
	cfg.pods = informer_new(c, &loop, KIND_POD);
	cfg.rcs = informer_new(c, &loop, KIND_REPLICATION_CONTROLLER);
	r = ctl_rc_start(&cfg);
	assert_non_null(r);

	/* a pod another controller (a ReplicaSet) owns, with the labels:
	 * not the RC's, not adopted */
	pod(c, "rs-pod", "5",
	    ", \"ownerReferences\": [{\"apiVersion\": \"apps/v1\", \"kind\":"
	    "\"ReplicaSet\", \"name\": \"web-rs\", \"uid\": \"rs-uid\","
	    "\"controller\": true}]");
	/* an orphan with the labels: adopted, and counted */
	pod(c, "orphan", "6", "");
	/* a pod the RC controls, relabeled app=debug: released (its
	 * reference to the RC removed), not counted */
	emit(c, "/api/v1/pods",
	     "{\"type\": \"ADDED\", \"object\": {\"apiVersion\": \"v1\","
	     "\"kind\": \"Pod\", \"metadata\": {\"name\": \"debug\","
	     "\"namespace\": \"default\", \"uid\": \"debug-uid\","
	     "\"resourceVersion\": \"4\", \"labels\": {\"app\": \"debug\"},"
	     "\"ownerReferences\": [{\"apiVersion\": \"v1\", \"kind\":"
	     "\"ReplicationController\", \"name\": \"web\", \"uid\":"
	     "\"rc-uid\", \"controller\": true}]}, \"spec\": {\"containers\":"
	     "[{\"name\": \"c\", \"image\": \"x\"}]}, \"status\": {\"phase\":"
	     "\"Running\"}}}");
	rc(c, "ADDED", 3, "7");
	uv_run(&loop, UV_RUN_NOWAIT);

	rq = client_fake_last(c, "PUT", PODS "/orphan");
	assert_non_null(rq);
	ref = json_array_get(
	    json_object_get(json_object_get(rq->body, "metadata"),
			    "ownerReferences"),
	    0);
	assert_string_equal(json_string_value(json_object_get(ref, "kind")),
			    "ReplicationController");
	assert_string_equal(
	    json_string_value(json_object_get(ref, "apiVersion")), "v1");
	assert_int_equal(client_fake_count_of(c, "PUT", PODS "/rs-pod"), 0);
	rq = client_fake_last(c, "PUT", PODS "/debug");
	assert_non_null(rq);
	assert_int_equal(
	    json_array_size(json_object_get(
		json_object_get(rq->body, "metadata"), "ownerReferences")),
	    0);
	assert_string_equal(
	    json_string_value(json_object_get(
		json_object_get(json_object_get(rq->body, "metadata"),
				"labels"),
		"app")),
	    "debug");

	/* 3 wanted, the orphan counts: 2 created from the template, named
	 * after the RC, controlled by it */
	assert_int_equal(client_fake_count_of(c, "POST", PODS), 2);
	rq = client_fake_last(c, "POST", PODS);
	assert_string_equal(
	    json_string_value(json_object_get(
		json_object_get(rq->body, "metadata"), "generateName")),
	    "web-");
	ref = json_array_get(
	    json_object_get(json_object_get(rq->body, "metadata"),
			    "ownerReferences"),
	    0);
	assert_string_equal(json_string_value(json_object_get(ref, "kind")),
			    "ReplicationController");
	assert_string_equal(json_string_value(json_object_get(ref, "uid")),
			    "rc-uid");
	assert_true(json_is_true(json_object_get(ref, "controller")));

	/* the status goes to the RC's /status */
	rq = client_fake_last(c, "PUT", RCS "/web/status");
	assert_non_null(rq);
	st = json_object_get(rq->body, "status");
	assert_int_equal(
	    json_integer_value(json_object_get(st, "observedGeneration")), 1);
	assert_int_equal(client_fake_count_of(c, "PUT",
					      "/apis/apps/v1/namespaces/"
					      "default/replicasets/web/status"),
			 0);

	ctl_rs_stop(r);
	informer_free(cfg.pods);
	informer_free(cfg.rcs);
	c->ops->free(c);
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&loop), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rc_pods_status_and_adoption),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
