/* ctl_rs_events_fake.c - the ReplicaSet controller records Kubernetes'
 * Events: a ReplicaSet of 2 replicas with no pods makes the controller
 * create 2 pods and record "SuccessfulCreate" "Created pod: NAME" about
 * the ReplicaSet (its kind, name, uid, apiVersion), from
 * "replicaset-controller", written after the loop turn; scaled to 0 it
 * deletes them and records "SuccessfulDelete" "Deleted pod: NAME". The
 * fake client answers every write with its body. */
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

#define EV_PATH  "/api/v1/namespaces/default/events"
#define POD_PATH "/api/v1/namespaces/default/pods"

static dtime
fixed_now(void)
{
	return DTIME_SEC(1800000000);
}

static void
emit_rs(struct client *c, const char *type, int replicas, const char *rv)
{
	char text[2048];
	json_t *ev;

	snprintf(text, sizeof(text),
		 "{\"type\": \"%s\", \"object\": {"
		 "\"apiVersion\": \"apps/v1\", \"kind\": \"ReplicaSet\","
		 "\"metadata\": {\"name\": \"web-6d4cf\", \"namespace\": "
		 "\"default\", \"uid\": \"rs-uid-1\", \"resourceVersion\": "
		 "\"%s\", \"generation\": 1},"
		 "\"spec\": {\"replicas\": %d,"
		 "  \"selector\": {\"matchLabels\": {\"app\": \"web\"}},"
		 "  \"template\": {\"metadata\": {\"labels\": {\"app\": "
		 "\"web\"}},"
		 "    \"spec\": {\"containers\": [{\"name\": \"web\","
		 "                             \"image\": \"web:1\"}]}}}}}",
		 type, rv, replicas);
	ev = json_loads(text, 0, NULL);
	assert_non_null(ev);
	assert_int_equal(client_fake_emit(c, "/apis/apps/v1/replicasets", ev),
			 1);
	json_decref(ev);
}

/* Hands every pod the controller created back as an ADDED event, as the
 * API's watch would. */
static void
emit_created_pods(struct client *c)
{
	size_t i, n = 0;

	for (i = 0; i < client_fake_count(c); i++) {
		const struct client_fake_request *rq =
		    client_fake_request(c, i);
		json_t *ev, *obj;

		if (strcmp(rq->method, "POST") || strcmp(rq->path, POD_PATH))
			continue;
		obj = json_deep_copy(rq->body);
		json_object_set_new(json_object_get(obj, "metadata"), "name",
				    json_sprintf("web-6d4cf-p%zu", n));
		json_object_set_new(json_object_get(obj, "metadata"), "uid",
				    json_sprintf("pod-uid-%zu", n));
		n++;
		json_object_set_new(json_object_get(obj, "metadata"),
				    "resourceVersion", json_string("20"));
		ev = json_pack("{s:s,s:o}", "type", "ADDED", "object", obj);
		client_fake_emit(c, "/api/v1/pods", ev);
		json_decref(ev);
	}
}

static size_t
events_with(struct client *c, const char *reason, const char *prefix)
{
	size_t i, n = 0;

	for (i = 0; i < client_fake_count(c); i++) {
		const struct client_fake_request *rq =
		    client_fake_request(c, i);
		json_t *b = rq->body, *io;
		const char *msg;

		if (strcmp(rq->method, "POST") || strcmp(rq->path, EV_PATH))
			continue;
		if (strcmp(json_string_value(json_object_get(b, "reason")),
			   reason))
			continue;
		io = json_object_get(b, "involvedObject");
		assert_string_equal(
		    json_string_value(json_object_get(io, "kind")),
		    "ReplicaSet");
		assert_string_equal(
		    json_string_value(json_object_get(io, "name")),
		    "web-6d4cf");
		assert_string_equal(
		    json_string_value(json_object_get(io, "uid")), "rs-uid-1");
		assert_string_equal(
		    json_string_value(json_object_get(io, "apiVersion")),
		    "apps/v1");
		assert_string_equal(
		    json_string_value(json_object_get(
			json_object_get(b, "source"), "component")),
		    "replicaset-controller");
		assert_string_equal(
		    json_string_value(json_object_get(b, "type")), "Normal");
		msg = json_string_value(json_object_get(b, "message"));
		assert_non_null(msg);
		assert_memory_equal(msg, prefix, strlen(prefix));
		n++;
	}
	return n;
}

static void
run_until(uv_loop_t *loop, struct event_broadcaster *b)
{
	int i;

	for (i = 0; i < 50; i++)
		uv_run(loop, UV_RUN_NOWAIT);
	assert_int_equal(event_broadcaster_pending(b), 0);
}

static void
test_rs_records_successful_create_and_delete(void **state)
{
	uv_loop_t loop;
	struct client *c;
	struct ctl_config cfg = {0};
	struct ctl_rs *r;
	size_t nposts;

	(void)state;
	uv_loop_init(&loop);
	c = client_fake_new(&loop);
	client_fake_echo_writes(c, true);
	cfg.loop = &loop;
	cfg.client = c;
	cfg.now = fixed_now;
	cfg.events = event_broadcaster_new(&(struct event_broadcaster_config){
	    .loop = &loop, .client = c, .now = fixed_now});
	client_fake_answer_empty_list(c, KIND_REPLICASET);
	client_fake_answer_empty_list(c, KIND_POD);
	cfg.rss = informer_new(c, &loop, KIND_REPLICASET);
	cfg.pods = informer_new(c, &loop, KIND_POD);
	assert_non_null(cfg.rss);
	assert_non_null(cfg.pods);
	r = ctl_rs_start(&cfg);
	assert_non_null(r);

	emit_rs(c, "ADDED", 2, "7");
	run_until(&loop, cfg.events);
	nposts = client_fake_count_of(c, "POST", POD_PATH);
	assert_int_equal(nposts, 2);
	assert_int_equal(events_with(c, "SuccessfulCreate", "Created pod: "),
			 2);

	/* the pods show up; the ReplicaSet is scaled to 0 (the fake
	 * answers a DELETE only when told) */
	emit_created_pods(c);
	client_fake_answer(c, "DELETE", POD_PATH "/web-6d4cf-p0", 200, NULL);
	client_fake_answer(c, "DELETE", POD_PATH "/web-6d4cf-p1", 200, NULL);
	emit_rs(c, "MODIFIED", 0, "30");
	run_until(&loop, cfg.events);
	assert_int_equal(
	    events_with(c, "SuccessfulDelete", "Deleted pod: web-6d4cf-p"), 2);

	ctl_rs_stop(r);
	event_broadcaster_free(cfg.events);
	informer_free(cfg.rss);
	informer_free(cfg.pods);
	c->ops->free(c);
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&loop), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rs_records_successful_create_and_delete),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
