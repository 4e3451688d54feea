/* ctl_sched_fake.c - the scheduler's shell against the recording fake
 * client: NodeResourcesFit with pods it has bound but whose binding the
 * watch has not shown yet (assumed on the node, as in kube-scheduler's
 * cache), the Unschedulable condition written once, and the retry when
 * a pod lets go of the node's resources. */
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

#define PODS "/api/v1/namespaces/default/pods/"

static dtime
fixed_now(void)
{
	return DTIME_SEC(1800000000);
}

/* Sends one watch event (printf-style JSON) that must reach one watch. */
#define emit(c, path, ...)                                                     \
	assert_int_equal(client_fake_emitf((c), (path), __VA_ARGS__), 1)

/* A pending pod requesting 1 cpu; status is "" or a conditions list. */
static void
pod(struct client *c, const char *type, const char *name, const char *rv,
    const char *status)
{
	emit(c, "/api/v1/pods",
	     "{\"type\": \"%s\", \"object\": {\"apiVersion\": \"v1\","
	     "\"kind\": \"Pod\", \"metadata\": {\"name\": \"%s\","
	     "\"namespace\": \"default\", \"uid\": \"%s-uid\","
	     "\"resourceVersion\": \"%s\"}, \"spec\": {\"containers\":"
	     "[{\"name\": \"c\", \"image\": \"x\", \"resources\":"
	     "{\"requests\": {\"cpu\": \"1\"}}}]}, \"status\": {%s}}}",
	     type, name, name, rv, status);
}

static void
node(struct client *c, const char *type, const char *rv)
{
	emit(c, "/api/v1/nodes",
	     "{\"type\": \"%s\", \"object\": {\"apiVersion\": \"v1\","
	     "\"kind\": \"Node\", \"metadata\": {\"name\": \"host\","
	     "\"resourceVersion\": \"%s\"}, \"status\": {\"allocatable\":"
	     "{\"cpu\": \"2\", \"memory\": \"1Gi\", \"pods\": \"110\"},"
	     "\"conditions\": [{\"type\": \"Ready\", \"status\": \"True\"}]}}}",
	     type, rv);
}

static void
test_fit_counts_assumed_pods_and_retries_when_room_frees(void **state)
{
	uv_loop_t loop;
	struct client *c;
	struct ctl_config cfg = {0};
	struct ctl_sched *s;
	const struct client_fake_request *rq;
	const json_t *cond;

	(void)state;
	uv_loop_init(&loop);
	c = client_fake_new(&loop);
	client_fake_echo_writes(c, true);
	cfg.loop = &loop;
	cfg.client = c;
	cfg.now = fixed_now;
	client_fake_answer_empty_list(c, KIND_POD);
	client_fake_answer_empty_list(c, KIND_NODE);
	cfg.pods = informer_new(c, &loop, KIND_POD);
	cfg.nodes = informer_new(c, &loop, KIND_NODE);
	s = ctl_sched_start(&cfg);
	assert_non_null(s);
	node(c, "ADDED", "6");

	/* two pods of 1 cpu on a node of 2: both bound */
	pod(c, "ADDED", "a", "7", "");
	pod(c, "ADDED", "b", "8", "");
	uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(client_fake_count_of(c, "POST", PODS "a/binding"), 1);
	assert_int_equal(client_fake_count_of(c, "POST", PODS "b/binding"), 1);

	/* the watch has not shown either binding: a third pod must still
	 * find the node full */
	client_fake_clear(c);
	pod(c, "ADDED", "p", "9", "");
	uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(client_fake_count_of(c, "POST", PODS "p/binding"), 0);
	rq = client_fake_last(c, "PUT", PODS "p/status");
	assert_non_null(rq);
	cond = json_array_get(
	    json_object_get(json_object_get(rq->body, "status"), "conditions"),
	    0);
	assert_string_equal(json_string_value(json_object_get(cond, "type")),
			    "PodScheduled");
	assert_string_equal(json_string_value(json_object_get(cond, "status")),
			    "False");
	assert_string_equal(json_string_value(json_object_get(cond, "reason")),
			    "Unschedulable");
	assert_string_equal(json_string_value(json_object_get(cond, "message")),
			    "0/1 nodes are available: 1 Insufficient cpu.");

	/* an event of b written before its binding (no nodeName yet)
	 * arrives late: b stays assumed, neither bound again nor losing
	 * its cpu to p */
	client_fake_clear(c);
	pod(c, "MODIFIED", "b", "9", "\"phase\": \"Pending\"");
	uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(client_fake_count_of(c, "POST", PODS "b/binding"), 0);
	assert_int_equal(client_fake_count_of(c, "POST", PODS "p/binding"), 0);

	/* the watch shows the condition; a node change retries p, which
	 * still does not fit, and the same status is not written again */
	pod(c, "MODIFIED", "p", "10",
	    "\"conditions\": [{\"type\": \"PodScheduled\", \"status\":"
	    "\"False\", \"reason\": \"Unschedulable\", \"message\": \"0/1 "
	    "nodes are available: 1 Insufficient cpu.\"}]");
	client_fake_clear(c);
	node(c, "MODIFIED", "11");
	uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(client_fake_count(c), 0);

	/* a goes away (deleted before its binding showed): 1 cpu is free
	 * and p is bound without any node changing */
	pod(c, "DELETED", "a", "12", "");
	uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(client_fake_count_of(c, "POST", PODS "p/binding"), 1);

	ctl_sched_stop(s);
	informer_free(cfg.pods);
	informer_free(cfg.nodes);
	c->ops->free(c);
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&loop), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
		test_fit_counts_assumed_pods_and_retries_when_room_frees),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
