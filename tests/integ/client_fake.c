/* client_fake.c - the recording fake client itself: answers from its
 * table or 404, echoed writes, the record of requests, events pushed to
 * the open watches (and not to closed or other ones), a watch that
 * closes itself in its callback, request_async from the loop, and an
 * empty loop at the end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <uv.h>

#include "client_fake.h"

#define DEPLOYS "/apis/apps/v1/namespaces/default/deployments"

static void
test_table_default_and_record(void **state)
{
	struct client *c = client_fake_new(NULL);
	struct client_resp r;
	json_t *body = json_pack("{s{ss}}", "metadata", "name", "web");

	(void)state;
	client_fake_answer(c, "GET", DEPLOYS "/web", 200, body);
	assert_int_equal(
	    client_request(c, "GET", DEPLOYS "/web", NULL, NULL, NULL, &r), 0);
	assert_int_equal(r.status, 200);
	assert_true(json_equal(r.body, body));
	client_resp_release(&r);
	json_decref(body);

	client_request(c, "GET", DEPLOYS "/other", "a=b", NULL, NULL, &r);
	assert_int_equal(r.status, 404);
	assert_string_equal(
	    json_string_value(json_object_get(r.body, "reason")), "NotFound");
	client_resp_release(&r);

	body = json_pack("{s{ss}si}", "metadata", "name", "new", "n", 1);
	client_request(c, "POST", DEPLOYS, NULL, NULL, body, &r);
	assert_int_equal(r.status, 404); /* no echo yet */
	client_resp_release(&r);
	client_fake_echo_writes(c, true);
	client_request(c, "POST", DEPLOYS, NULL, NULL, body, &r);
	assert_int_equal(r.status, 201);
	assert_string_equal(
	    json_string_value(json_object_get(
		json_object_get(r.body, "metadata"), "resourceVersion")),
	    "fake-1");
	client_resp_release(&r);
	json_decref(body);

	assert_int_equal(client_fake_count(c), 4);
	assert_string_equal(client_fake_request(c, 1)->path, DEPLOYS "/other");
	assert_string_equal(client_fake_request(c, 1)->query, "a=b");
	assert_null(client_fake_request(c, 1)->body);
	assert_int_equal(client_fake_count_of(c, "POST", DEPLOYS), 2);
	assert_int_equal(json_integer_value(json_object_get(
			     client_fake_last(c, "POST", DEPLOYS)->body, "n")),
			 1);
	client_fake_clear(c);
	assert_int_equal(client_fake_count(c), 0);
	assert_int_equal(
	    client_request_async(c, "GET", "/x", NULL, NULL, NULL, NULL, NULL),
	    -1); /* no loop */
	c->ops->free(c);
}

struct seen {
	struct client *c;
	struct client_watch *w;
	int n, ended;
	bool unwatch_self;
};

static void
on_ev(void *arg, json_t *ev)
{
	struct seen *s = arg;

	if (ev == NULL) {
		s->ended++;
		return;
	}
	s->n++;
	if (s->unwatch_self) {
		s->c->ops->unwatch(s->c, s->w);
		s->w = NULL;
	}
}

static void
test_watches(void **state)
{
	struct client *c = client_fake_new(NULL);
	struct seen a = {.c = c}, b = {.c = c, .unwatch_self = true},
		    other = {.c = c};
	struct client_resp r;
	json_t *ev = json_pack("{ss}", "type", "ADDED");

	(void)state;
	a.w = c->ops->watch(c, DEPLOYS, "watch=true", on_ev, &a, &r);
	assert_int_equal(r.status, 200);
	client_resp_release(&r);
	b.w = c->ops->watch(c, DEPLOYS, "watch=true", on_ev, &b, &r);
	other.w =
	    c->ops->watch(c, "/api/v1/pods", "watch=true", on_ev, &other, &r);
	assert_int_equal(client_fake_watches(c), 3);
	assert_string_equal(client_fake_request(c, 0)->query, "watch=true");
	assert_int_equal(client_fake_emit(c, DEPLOYS, ev), 2);
	assert_null(b.w); /* closed itself */
	assert_int_equal(client_fake_emit(c, DEPLOYS, ev), 1);
	assert_int_equal(client_fake_emit(c, DEPLOYS, NULL), 1);
	assert_int_equal(client_fake_emit(c, DEPLOYS, ev), 0);
	assert_int_equal(a.n, 2);
	assert_int_equal(a.ended, 1);
	assert_int_equal(b.n, 1);
	assert_int_equal(other.n, 0);
	json_decref(ev);
	c->ops->unwatch(c, a.w);
	c->ops->free(c); /* frees the pods watch */
}

static void
on_done(void *arg, struct client_resp *r)
{
	int *done = arg;

	assert_int_equal(r->status, 404);
	(*done)++;
}

static void
test_async_from_loop(void **state)
{
	uv_loop_t loop;
	struct client *c;
	int done = 0;

	(void)state;
	uv_loop_init(&loop);
	c = client_fake_new(&loop);
	assert_int_equal(client_request_async(c, "GET", "/x", NULL, NULL, NULL,
					      on_done, &done),
			 0);
	assert_int_equal(done, 0);
	assert_int_equal(client_fake_count(c), 1);
	uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(done, 1);
	client_request_async(c, "GET", "/x", NULL, NULL, NULL, on_done, &done);
	c->ops->free(c); /* dropped, not called */
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_int_equal(done, 1);
	assert_int_equal(uv_loop_close(&loop), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table_default_and_record),
	    cmocka_unit_test(test_watches),
	    cmocka_unit_test(test_async_from_loop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
