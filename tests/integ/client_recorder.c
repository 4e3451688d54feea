/* client_recorder.c - the event recorder (recorder.h) against the
 * recording fake client on a loop: events are written after the loop
 * turn, not inside the call; identical events recorded in one turn are
 * one POST with their count; a repeat is a PATCH of count,
 * lastTimestamp and message of the same Event; a PATCH of an Event that
 * is gone becomes a POST; similar events are combined after ten
 * messages and the spam filter holds a source/object/reason to 25; a
 * full queue drops events and counts them; a NULL recorder does
 * nothing; a write that gets no answer is tried again, 12 times in all,
 * and one refused is not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <uv.h>

#include "client_fake.h"
#include "recorder.h"
#include "strbuf.h"

#define EV_PATH "/api/v1/namespaces/default/events"

static dtime clock_ms = DTIME_SEC(1800000000);

static dtime
fake_now(void)
{
	return clock_ms;
}

static const struct event_ref pod_ref = {
    .kind = "Pod",
    .namespace = "default",
    .name = "web-abc",
    .uid = "0f0e0d0c-0b0a-4908-8706-050403020100",
    .api_version = "v1",
    .field_path = "spec.containers{web}",
};

struct fx {
	uv_loop_t loop;
	struct client *c;
	struct event_broadcaster *b;
	struct recorder *r;
};

static void
fx_init_retry(struct fx *f, size_t queue_max, unsigned retry_ms)
{
	uv_loop_init(&f->loop);
	f->c = client_fake_new(&f->loop);
	client_fake_echo_writes(f->c, true);
	f->b = event_broadcaster_new(
	    &(struct event_broadcaster_config){.loop = &f->loop,
					       .client = f->c,
					       .now = fake_now,
					       .queue_max = queue_max,
					       .retry_ms = retry_ms});
	f->r = event_broadcaster_recorder(f->b, "kubelet", "node-1");
	assert_non_null(f->r);
	assert_ptr_equal(event_broadcaster_recorder(f->b, "kubelet", "node-1"),
			 f->r);
}

static void
fx_init(struct fx *f, size_t queue_max)
{
	fx_init_retry(f, queue_max, 0);
}

/* Runs the loop until nothing is queued or on its way (bounded). */
static void
drain(struct fx *f)
{
	int i;

	for (i = 0; i < 100 && event_broadcaster_pending(f->b); i++)
		uv_run(&f->loop, UV_RUN_ONCE);
	assert_int_equal(event_broadcaster_pending(f->b), 0);
}

static void
fx_release(struct fx *f)
{
	event_broadcaster_free(f->b);
	f->c->ops->free(f->c);
	uv_run(&f->loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&f->loop), 0);
}

static const char *
str(json_t *o, const char *a, const char *b)
{
	json_t *v = json_object_get(o, a);

	if (b)
		v = json_object_get(v, b);
	return json_string_value(v);
}

static void
test_repeats_are_one_event_with_a_count(void **state)
{
	struct fx f;
	const struct client_fake_request *rq;
	struct event_stats st;
	char path[600];
	int i;

	(void)state;
	fx_init(&f, 0);
	for (i = 0; i < 3; i++)
		event_record(f.r, &pod_ref, "Warning", "Unhealthy",
			     "Readiness probe failed: HTTP probe failed with "
			     "statuscode: %d",
			     500);
	/* nothing is written inside the calls */
	assert_int_equal(client_fake_count(f.c), 0);
	assert_int_equal(event_broadcaster_pending(f.b), 1);
	drain(&f);
	assert_int_equal(client_fake_count_of(f.c, "POST", EV_PATH), 1);
	rq = client_fake_last(f.c, "POST", EV_PATH);
	assert_string_equal(str(rq->body, "kind", NULL), "Event");
	assert_string_equal(str(rq->body, "reason", NULL), "Unhealthy");
	assert_string_equal(str(rq->body, "type", NULL), "Warning");
	assert_string_equal(str(rq->body, "message", NULL),
			    "Readiness probe failed: HTTP probe failed with "
			    "statuscode: 500");
	assert_int_equal(json_integer_value(json_object_get(rq->body, "count")),
			 3);
	assert_string_equal(str(rq->body, "involvedObject", "uid"),
			    pod_ref.uid);
	assert_string_equal(str(rq->body, "involvedObject", "fieldPath"),
			    "spec.containers{web}");
	assert_string_equal(str(rq->body, "source", "component"), "kubelet");
	assert_string_equal(str(rq->body, "source", "host"), "node-1");
	assert_string_equal(str(rq->body, "reportingComponent", NULL),
			    "kubelet");
	assert_string_equal(str(rq->body, "firstTimestamp", NULL),
			    "2027-01-15T08:00:00Z");
	assert_true(json_is_null(json_object_get(rq->body, "eventTime")));
	/* client-go's name: the object's name, "." and the time in ns */
	assert_string_equal(str(rq->body, "metadata", "name"),
			    "web-abc.18fae27693b40000");

	/* a minute later, once more: a PATCH of the same Event */
	clock_ms += 60 * 1000;
	event_record(f.r, &pod_ref, "Warning", "Unhealthy",
		     "Readiness probe failed: HTTP probe failed with "
		     "statuscode: 500");
	drain(&f);
	snprintf(path, sizeof(path), "%s/web-abc.18fae27693b40000", EV_PATH);
	rq = client_fake_last(f.c, "PATCH", path);
	assert_non_null(rq);
	assert_int_equal(json_integer_value(json_object_get(rq->body, "count")),
			 4);
	assert_string_equal(str(rq->body, "lastTimestamp", NULL),
			    "2027-01-15T08:01:00Z");
	assert_int_equal(client_fake_count_of(f.c, "POST", EV_PATH), 1);

	/* the Event was deleted (its TTL): the PATCH's 404 makes a POST */
	client_fake_answer(f.c, "PATCH", path, 404, NULL);
	clock_ms += 1000;
	event_record(f.r, &pod_ref, "Warning", "Unhealthy",
		     "Readiness probe failed: HTTP probe failed with "
		     "statuscode: 500");
	drain(&f);
	assert_int_equal(client_fake_count_of(f.c, "PATCH", path), 2);
	assert_int_equal(client_fake_count_of(f.c, "POST", EV_PATH), 2);
	rq = client_fake_last(f.c, "POST", EV_PATH);
	assert_int_equal(json_integer_value(json_object_get(rq->body, "count")),
			 5);

	/* more than 10 minutes later: a new Event */
	clock_ms += 11 * 60 * 1000;
	event_record(f.r, &pod_ref, "Warning", "Unhealthy",
		     "Readiness probe failed: HTTP probe failed with "
		     "statuscode: 500");
	drain(&f);
	assert_int_equal(client_fake_count_of(f.c, "POST", EV_PATH), 3);
	rq = client_fake_last(f.c, "POST", EV_PATH);
	assert_int_equal(json_integer_value(json_object_get(rq->body, "count")),
			 1);
	assert_string_not_equal(str(rq->body, "metadata", "name"),
				"web-abc.18fae27693b40000");

	event_broadcaster_stats(f.b, &st);
	assert_int_equal(st.recorded, 6);
	assert_int_equal(st.aggregated, 4);
	assert_int_equal(st.written, 4);
	assert_int_equal(st.failed, 0);
	fx_release(&f);
}

static void
test_similar_events_are_combined_and_spam_is_held(void **state)
{
	struct fx f;
	const struct event_ref rs = {.kind = "ReplicaSet",
				     .namespace = "default",
				     .name = "web-6d4cf",
				     .uid = "u-rs",
				     .api_version = "apps/v1"};
	struct recorder *r;
	const struct client_fake_request *rq;
	struct event_stats st;
	size_t i, combined = 0, posts = 0;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	fx_init(&f, 0);
	r = event_broadcaster_recorder(f.b, "replicaset-controller", NULL);
	for (i = 1; i <= 30; i++)
		event_record(r, &rs, "Normal", "SuccessfulCreate",
			     "Created pod: web-6d4cf-%zu", i);
	drain(&f);
	for (i = 0; i < client_fake_count(f.c); i++) {
		rq = client_fake_request(f.c, i);
		if (strcmp(rq->method, "POST"))
			continue;
		posts++;
		if (!strncmp(str(rq->body, "message", NULL),
			     "(combined from similar events): ", 32))
			combined++;
	}
	/* 9 Events of their own, then one combined Event */
	assert_int_equal(posts, 10);
	assert_int_equal(combined, 1);
	event_broadcaster_stats(f.b, &st);
	assert_int_equal(st.recorded, 30);
	/* 25 tokens: the last 5 are held back */
	assert_int_equal(st.dropped_spam, 5);
	/* the metrics say so */
	event_broadcaster_metrics_collect(f.b, &sb);
	assert_non_null(strstr(sb.buf, "drover_events_dropped_total{reason="
				       "\"spam_filter\"} 5\n"));
	assert_non_null(strstr(sb.buf, "drover_events_recorded_total 30\n"));
	strbuf_release(&sb);
	fx_release(&f);
}

static void
test_full_queue_drops_and_null_recorder(void **state)
{
	struct fx f;
	struct event_ref ref = pod_ref;
	struct event_stats st;

	(void)state;
	fx_init(&f, 2);
	ref.name = "a";
	event_record(f.r, &ref, "Normal", "Started", "Started container web");
	ref.name = "b";
	event_record(f.r, &ref, "Normal", "Started", "Started container web");
	ref.name = "c";
	event_record(f.r, &ref, "Normal", "Started", "Started container web");
	event_broadcaster_stats(f.b, &st);
	assert_int_equal(st.dropped_queue_full, 1);
	drain(&f);
	assert_int_equal(client_fake_count_of(f.c, "POST", EV_PATH), 2);
	/* no recorder, no broadcaster: nothing, no crash */
	event_record(NULL, &ref, "Normal", "Started", "x");
	assert_null(event_broadcaster_recorder(NULL, "kubelet", NULL));
	assert_int_equal(event_broadcaster_pending(NULL), 0);
	fx_release(&f);
}

/* The loop runs until n POSTs were made (bounded: at 5 ms between
 * tries, 100 turns are more than enough). */
static void
run_until_posts(struct fx *f, size_t n)
{
	int i;

	for (i = 0; i < 100 && client_fake_count_of(f->c, "POST", EV_PATH) < n;
	     i++)
		uv_run(&f->loop, UV_RUN_ONCE);
	assert_int_equal(client_fake_count_of(f->c, "POST", EV_PATH), n);
}

static void
test_unanswered_writes_are_tried_again(void **state)
{
	struct fx f;
	struct event_stats st;
	json_t *created;

	(void)state;
	fx_init_retry(&f, 0, 5);
	/* no answer (status 0) twice, then the API is back */
	client_fake_answer(f.c, "POST", EV_PATH, 0, NULL);
	event_record(f.r, &pod_ref, "Normal", "Started", "Started container");
	run_until_posts(&f, 2);
	assert_int_equal(event_broadcaster_pending(f.b), 1); /* waiting */
	created = json_pack("{s{ss}}", "metadata", "name", "x");
	client_fake_answer(f.c, "POST", EV_PATH, 201, created);
	json_decref(created);
	drain(&f);
	assert_int_equal(client_fake_count_of(f.c, "POST", EV_PATH), 3);
	event_broadcaster_stats(f.b, &st);
	assert_int_equal(st.written, 1);
	assert_int_equal(st.failed, 0);
	fx_release(&f);

	/* never an answer: 12 tries, then counted as failed */
	fx_init_retry(&f, 0, 5);
	client_fake_answer(f.c, "POST", EV_PATH, 0, NULL);
	event_record(f.r, &pod_ref, "Normal", "Started", "Started container");
	run_until_posts(&f, 12);
	drain(&f);
	assert_int_equal(client_fake_count_of(f.c, "POST", EV_PATH), 12);
	event_broadcaster_stats(f.b, &st);
	assert_int_equal(st.written, 0);
	assert_int_equal(st.failed, 1);
	fx_release(&f);

	/* refused (500): not tried again */
	fx_init_retry(&f, 0, 5);
	client_fake_answer(f.c, "POST", EV_PATH, 500, NULL);
	event_record(f.r, &pod_ref, "Normal", "Started", "Started container");
	drain(&f);
	assert_int_equal(client_fake_count_of(f.c, "POST", EV_PATH), 1);
	event_broadcaster_stats(f.b, &st);
	assert_int_equal(st.failed, 1);
	fx_release(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_repeats_are_one_event_with_a_count),
	    cmocka_unit_test(test_similar_events_are_combined_and_spam_is_held),
	    cmocka_unit_test(test_full_queue_drops_and_null_recorder),
	    cmocka_unit_test(test_unanswered_writes_are_tried_again),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
