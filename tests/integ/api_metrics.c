/* api_metrics.c - GET /metrics through api_handle on the memory store:
 * 404 when the API has no registry, 405 for another method; the text
 * format's Content-Type; requests counted by Kubernetes' verb (CREATE,
 * GET, LIST, WATCH, PATCH, DELETE), resource, subresource and code, with
 * a latency histogram per verb and resource; the store's writes by
 * operation. */
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
#include "metrics.h"

#define DEPLOY "/apis/apps/v1/namespaces/default/deployments"

static const char deployment[] =
    "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
    "\"metadata\":{\"name\":\"web\"},\"spec\":{\"replicas\":1,"
    "\"selector\":{\"matchLabels\":{\"app\":\"web\"}},\"template\":{"
    "\"metadata\":{\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":"
    "[{\"name\":\"web\",\"image\":\"web:1\"}]}}}}";

static int
call(struct api *a, const char *method, const char *path, const char *query,
     const char *ct, const char *body, char **text)
{
	struct api_req req = {.method = method,
			      .path = path,
			      .query = query,
			      .content_type = ct,
			      .body = body,
			      .body_len = body ? strlen(body) : 0};
	struct api_resp resp;
	int status;

	api_handle(a, &req, &resp);
	status = resp.status;
	if (text) {
		assert_non_null(resp.body);
		assert_string_equal(resp.content_type, METRICS_CONTENT_TYPE);
		*text = resp.body;
		resp.body = NULL;
	}
	api_resp_release(&resp);
	return status;
}

static int
on_line(void *arg, const char *line, size_t len)
{
	(void)arg;
	(void)line;
	(void)len;
	return 0;
}

static void
test_no_registry_is_404(void **state)
{
	struct store *s = store_mem_open(100);
	struct api_config cfg = {
	    .store = s, .now = fixed_now, .random = counter_random};
	struct api *a = api_new(&cfg);

	(void)state;
	assert_int_equal(call(a, "GET", "/metrics", NULL, NULL, NULL, NULL),
			 404);
	api_free(a);
	store_free(s);
}

static void
test_requests_counted(void **state)
{
	struct store *s = store_mem_open(100);
	struct metrics *m = metrics_new();
	struct api_config cfg = {.store = s,
				 .now = fixed_now,
				 .random = counter_random,
				 .metrics = m};
	struct api *a = api_new(&cfg);
	struct api_req wreq = {
	    .method = "GET", .path = DEPLOY, .query = "watch=true"};
	struct api_resp wresp;
	struct api_watch *w;
	char *text;

	(void)state;
	metrics_register(m, "apiserver", api_metrics_collect, a);
	metrics_register(m, "store", api_store_metrics_collect, a);
	assert_int_equal(
	    call(a, "POST", DEPLOY, NULL, "application/json", deployment, NULL),
	    201);
	assert_int_equal(
	    call(a, "POST", DEPLOY, NULL, "application/json", deployment, NULL),
	    409);
	assert_int_equal(call(a, "GET", DEPLOY "/web", NULL, NULL, NULL, NULL),
			 200);
	assert_int_equal(call(a, "GET", DEPLOY "/nope", NULL, NULL, NULL, NULL),
			 404);
	assert_int_equal(call(a, "GET", DEPLOY, NULL, NULL, NULL, NULL), 200);
	assert_int_equal(call(a, "PATCH", DEPLOY "/web/scale", NULL,
			      "application/merge-patch+json",
			      "{\"spec\":{\"replicas\":2}}", NULL),
			 200);
	w = api_watch_open(a, &wreq, on_line, NULL, &wresp);
	assert_non_null(w);
	api_resp_release(&wresp);
	api_watch_close(w);
	assert_int_equal(
	    call(a, "DELETE", DEPLOY "/web", NULL, NULL, NULL, NULL), 200);
	assert_int_equal(call(a, "PUT", "/metrics", NULL, NULL, NULL, NULL),
			 405);

	assert_int_equal(call(a, "GET", "/metrics", NULL, NULL, NULL, &text),
			 200);
#define HAS(s)                                                                 \
	do {                                                                   \
		if (strstr(text, s) == NULL)                                   \
			fail_msg("missing %s in:\n%s", s, text);               \
	} while (0)
	HAS("# HELP drover_apiserver_request_total ");
	HAS("# TYPE drover_apiserver_request_total counter\n");
	HAS("# TYPE drover_apiserver_request_duration_seconds histogram\n");
	HAS("\ndrover_apiserver_request_total{verb=\"CREATE\",resource="
	    "\"deployments\",subresource=\"\",code=\"201\"} 1\n");
	HAS("\ndrover_apiserver_request_total{verb=\"CREATE\",resource="
	    "\"deployments\",subresource=\"\",code=\"409\"} 1\n");
	HAS("\ndrover_apiserver_request_total{verb=\"GET\",resource="
	    "\"deployments\",subresource=\"\",code=\"200\"} 1\n");
	HAS("\ndrover_apiserver_request_total{verb=\"GET\",resource="
	    "\"deployments\",subresource=\"\",code=\"404\"} 1\n");
	HAS("\ndrover_apiserver_request_total{verb=\"LIST\",resource="
	    "\"deployments\",subresource=\"\",code=\"200\"} 1\n");
	HAS("\ndrover_apiserver_request_total{verb=\"PATCH\",resource="
	    "\"deployments\",subresource=\"scale\",code=\"200\"} 1\n");
	HAS("\ndrover_apiserver_request_total{verb=\"WATCH\",resource="
	    "\"deployments\",subresource=\"\",code=\"200\"} 1\n");
	HAS("\ndrover_apiserver_request_total{verb=\"DELETE\",resource="
	    "\"deployments\",subresource=\"\",code=\"200\"} 1\n");
	/* the refused PUT /metrics names no resource */
	HAS("\ndrover_apiserver_request_total{verb=\"PUT\",resource=\"\","
	    "subresource=\"\",code=\"405\"} 1\n");
	/* CREATE has two answers and one latency series */
	HAS("\ndrover_apiserver_request_duration_seconds_count{verb=\"CREATE\","
	    "resource=\"deployments\",subresource=\"\"} 2\n");
	HAS("\ndrover_apiserver_request_duration_seconds_bucket{verb="
	    "\"CREATE\",resource=\"deployments\",subresource=\"\",le=\"+Inf\"}"
	    " 2\n");
	HAS("\ndrover_store_writes_total{operation=\"create\"} 1\n");
	HAS("\ndrover_store_writes_total{operation=\"update\"} 1\n");
	HAS("\ndrover_store_writes_total{operation=\"delete\"} 1\n");
	HAS("# TYPE drover_store_fsync_duration_seconds histogram\n");
#undef HAS
	free(text);
	api_free(a);
	metrics_free(m);
	store_free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_no_registry_is_404),
	    cmocka_unit_test(test_requests_counted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
