/* test_event_corr.c - the event correlator's decisions (event_corr.h):
 * which events share a key, aggregation of repeats within 10 minutes,
 * combining of similar events after 10 distinct messages, the spam
 * filter's token bucket (burst 25, one per 5 minutes), the Event's name;
 * and the v1 Event kind's registry entry, field selectors and
 * validation. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "event_corr.h"
#include "kinds.h"
#include "validate.h"

#define T0  ((dtime)1767225600000) /* 2026-01-01T00:00:00Z */
#define SEC ((dtime)1000)
#define MIN (60 * SEC)

static const struct event_ident unhealthy = {
    .component = "kubelet",
    .host = "node-1",
    .kind = "Pod",
    .namespace = "default",
    .name = "web-abc",
    .uid = "u1",
    .api_version = "v1",
    .field_path = "spec.containers{web}",
    .type = "Warning",
    .reason = "Unhealthy",
    .message = "Readiness probe failed: HTTP probe failed with statuscode: "
	       "500",
};

static char *
key_of(void (*fn)(const struct event_ident *, struct strbuf *),
       const struct event_ident *e)
{
	struct strbuf sb = STRBUF_INIT;

	fn(e, &sb);
	return strbuf_detach(&sb);
}

static void
test_keys(void **state)
{
	struct event_ident other = unhealthy;
	char *a, *b;

	(void)state;
	a = key_of(event_corr_key, &unhealthy);
	b = key_of(event_corr_key, &unhealthy);
	assert_string_equal(a, b);
	{
		struct event_digest d1, d2;

		event_corr_digest(a, strlen(a), &d1);
		event_corr_digest(b, strlen(b), &d2);
		assert_memory_equal(&d1, &d2, sizeof(d1));
		b[strlen(b) - 2] ^= 1; /* one bit of the message */
		event_corr_digest(b, strlen(b), &d2);
		assert_true(d1.a != d2.a && d1.b != d2.b);
	}
	free(b);
	/* another message: another event, the same similar and spam keys */
	other.message = "Readiness probe failed: connection refused";
	b = key_of(event_corr_key, &other);
	assert_string_not_equal(a, b);
	free(a);
	free(b);
	a = key_of(event_corr_similar_key, &unhealthy);
	b = key_of(event_corr_similar_key, &other);
	assert_string_equal(a, b);
	free(a);
	free(b);
	a = key_of(event_corr_spam_key, &unhealthy);
	b = key_of(event_corr_spam_key, &other);
	assert_string_equal(a, b);
	free(b);
	/* another object (a pod re-created under the same name): other key */
	other = unhealthy;
	other.uid = "u2";
	b = key_of(event_corr_spam_key, &other);
	assert_string_not_equal(a, b);
	free(a);
	free(b);
	/* fields do not run into each other: "ab"+"c" is not "a"+"bc" */
	other = unhealthy;
	other.reason = "Unhealthyx";
	other.message = "";
	{
		struct event_ident o2 = unhealthy;

		o2.message = "x";
		o2.reason = "Unhealthy";
		a = key_of(event_corr_key, &other);
		b = key_of(event_corr_key, &o2);
		assert_string_not_equal(a, b);
		free(a);
		free(b);
	}
}

/* The worked example of event_corr.h: three probe failures in ten
 * seconds are one Event with count 3; half an hour later a new one. */
static void
test_observe_aggregates_within_ten_minutes(void **state)
{
	struct event_seen s = {0};

	(void)state;
	assert_int_equal(event_corr_observe(&s, false, T0), EVENT_CORR_NEW);
	assert_int_equal(s.count, 1);
	assert_int_equal(event_corr_observe(&s, true, T0 + 5 * SEC),
			 EVENT_CORR_AGGREGATE);
	assert_int_equal(event_corr_observe(&s, true, T0 + 10 * SEC),
			 EVENT_CORR_AGGREGATE);
	assert_int_equal(s.count, 3);
	assert_int_equal(s.first, T0);
	assert_int_equal(s.last, T0 + 10 * SEC);
	/* exactly 10 minutes after the last: still the same Event */
	assert_int_equal(event_corr_observe(&s, true, T0 + 10 * SEC + 10 * MIN),
			 EVENT_CORR_AGGREGATE);
	assert_int_equal(s.count, 4);
	/* more than 10 minutes: a new Event */
	assert_int_equal(
	    event_corr_observe(&s, true, T0 + 10 * SEC + 20 * MIN + 1),
	    EVENT_CORR_NEW);
	assert_int_equal(s.count, 1);
	assert_int_equal(s.first, T0 + 10 * SEC + 20 * MIN + 1);
}

static void
test_similar_events_are_combined_after_ten_messages(void **state)
{
	struct event_similar r = {0};
	char msg[64];
	int i;

	(void)state;
	for (i = 1; i <= 9; i++) {
		snprintf(msg, sizeof(msg), "Created pod: web-%d", i);
		assert_false(
		    event_corr_similar(&r, event_corr_hash(msg), T0 + i * SEC));
	}
	/* a message already in the set is not a new one */
	assert_false(event_corr_similar(
	    &r, event_corr_hash("Created pod: web-5"), T0 + 10 * SEC));
	assert_true(event_corr_similar(
	    &r, event_corr_hash("Created pod: web-10"), T0 + 11 * SEC));
	assert_true(event_corr_similar(
	    &r, event_corr_hash("Created pod: web-11"), T0 + 12 * SEC));
	assert_true(r.n < EVENT_AGGREGATE_MAX_EVENTS);
	/* quiet for more than 10 minutes: the record starts again */
	assert_false(event_corr_similar(&r,
					event_corr_hash("Created pod: web-12"),
					T0 + 12 * SEC + 10 * MIN + 1));
	assert_int_equal(r.n, 1);
}

static void
test_spam_bucket(void **state)
{
	struct event_bucket b = {0};
	int i;

	(void)state;
	for (i = 0; i < EVENT_SPAM_BURST; i++)
		assert_true(event_corr_bucket_take(&b, T0));
	assert_false(event_corr_bucket_take(&b, T0));
	assert_false(event_corr_bucket_take(&b, T0 + 4 * MIN));
	assert_true(event_corr_bucket_take(&b, T0 + 5 * MIN));
	assert_false(event_corr_bucket_take(&b, T0 + 5 * MIN));
	/* a clock that goes back refills nothing */
	assert_false(event_corr_bucket_take(&b, T0));
	/* a long pause refills up to the burst, not beyond */
	for (i = 0; i < EVENT_SPAM_BURST; i++)
		assert_true(event_corr_bucket_take(&b, T0 + 24 * 60 * MIN));
	assert_false(event_corr_bucket_take(&b, T0 + 24 * 60 * MIN));
}

static void
test_name(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	/* 2026-01-01T00:00:00Z in ns = 1767225600000000000 = 0x18867251edfa0000 */
	event_corr_name(&sb, "web-6d4cf56db6", 1767225600000000000ll);
	assert_string_equal(sb.buf, "web-6d4cf56db6.18867251edfa0000");
	strbuf_release(&sb);
}

static void
test_event_kind(void **state)
{
	const struct kind_info *k = kind_by_resource("", "v1", "events");
	struct event_v1 e = {0};
	struct fielderr_list errs = {0};

	(void)state;
	assert_non_null(k);
	assert_int_equal(k->id, KIND_EVENT);
	assert_string_equal(k->short_names[0], "ev");
	assert_true(k->namespaced);
	assert_true(kind_field_label(k, "involvedObject.uid"));
	assert_true(kind_field_label(k, "involvedObject.kind"));
	assert_true(kind_field_label(k, "reason"));
	assert_true(kind_field_label(k, "type"));
	assert_false(kind_field_label(k, "spec.nodeName"));
	assert_string_equal(kind_field_path(k, "source"), "source.component");
	assert_string_equal(kind_field_path(k, "reason"), "reason");
	assert_string_equal(kind_field_path(kind_by_id(KIND_POD), "source"),
			    "source");

	e.metadata.name = "web.1";
	e.metadata.namespace = "prod";
	e.involved_object.kind = "Deployment";
	e.involved_object.namespace = "prod";
	e.reason = "ScalingReplicaSet";
	e.type = "Normal";
	validate_event(&e, &errs);
	assert_int_equal(errs.n, 0);
	e.involved_object.namespace = "other";
	e.type = "Error";
	validate_event(&e, &errs);
	assert_int_equal(errs.n, 2);
	assert_string_equal(errs.v[0].field, "involvedObject.namespace");
	assert_string_equal(errs.v[1].field, "type");
	fielderr_list_release(&errs);
	/* a Node's events live in "default" */
	e.involved_object.kind = "Node";
	e.involved_object.namespace = NULL;
	e.type = "Normal";
	validate_event(&e, &errs);
	assert_int_equal(errs.n, 1);
	fielderr_list_release(&errs);
	e.metadata.namespace = "default";
	validate_event(&e, &errs);
	assert_int_equal(errs.n, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_keys),
	    cmocka_unit_test(test_observe_aggregates_within_ten_minutes),
	    cmocka_unit_test(
		test_similar_events_are_combined_after_ten_messages),
	    cmocka_unit_test(test_spam_bucket),
	    cmocka_unit_test(test_name),
	    cmocka_unit_test(test_event_kind),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
