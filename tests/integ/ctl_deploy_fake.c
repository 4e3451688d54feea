/* ctl_deploy_fake.c - the Deployment controller's shell tested in C
 * against the recording fake client, as Kubernetes tests its controllers
 * against a fake clientset: the informers watch through the fake, the
 * test pushes a Deployment as a watch event, and the controller's sync on
 * the loop writes what plan_deploy decided: the new ReplicaSet (owned by
 * the Deployment, with its template's pod-template-hash) and the
 * Deployment's status. Nothing is stored: the writes are only recorded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <uv.h>

#include "client_fake.h"
#include "ctl.h"
#include "informer.h"

#define RS_PATH "/apis/apps/v1/namespaces/default/replicasets"

static dtime
fixed_now(void)
{
	return DTIME_SEC(1800000000);
}

static json_t *
deployment_event(void)
{
	static const char text[] =
	    "{\"type\": \"ADDED\", \"object\": {"
	    "\"apiVersion\": \"apps/v1\", \"kind\": \"Deployment\","
	    "\"metadata\": {\"name\": \"web\", \"namespace\": \"default\","
	    "  \"uid\": \"0f0e0d0c-0b0a-4908-8706-050403020100\","
	    "  \"resourceVersion\": \"7\", \"generation\": 1,"
	    "  \"creationTimestamp\": \"2027-01-15T08:00:00Z\"},"
	    "\"spec\": {\"replicas\": 2,"
	    "  \"selector\": {\"matchLabels\": {\"app\": \"web\"}},"
	    "  \"template\": {\"metadata\": {\"labels\": {\"app\": \"web\"}},"
	    "    \"spec\": {\"containers\": [{\"name\": \"web\","
	    "                             \"image\": \"web:1\"}]}},"
	    "  \"strategy\": {\"type\": \"RollingUpdate\", \"rollingUpdate\":"
	    "    {\"maxSurge\": \"25%\", \"maxUnavailable\": \"25%\"}},"
	    "  \"revisionHistoryLimit\": 10, \"progressDeadlineSeconds\": "
	    "600}}}";
	json_t *ev = json_loads(text, 0, NULL);

	assert_non_null(ev);
	return ev;
}

static void
empty_list(struct client *c, const char *path)
{
	json_t *list = json_pack("{s{ss}s[]}", "metadata", "resourceVersion",
				 "5", "items");

	client_fake_answer(c, "GET", path, 200, list);
	json_decref(list);
}

static void
test_new_deployment_gets_a_replicaset(void **state)
{
	uv_loop_t loop;
	struct client *c;
	struct ctl_config cfg = {0};
	struct ctl_deploy *d;
	const struct client_fake_request *rq;
	json_t *ev, *rs, *owner;
	char path[256];

	(void)state;
	uv_loop_init(&loop);
	c = client_fake_new(&loop);
	client_fake_echo_writes(c, true);
	cfg.loop = &loop;
	cfg.client = c;
	cfg.now = fixed_now;
	/* The informers list first (empty), then watch from the list. */
	empty_list(c, "/apis/apps/v1/deployments");
	empty_list(c, "/apis/apps/v1/replicasets");
	empty_list(c, "/api/v1/pods");
	empty_list(c, "/api/v1/nodes");
	cfg.deploys = informer_new(c, &loop, KIND_DEPLOYMENT);
	cfg.rss = informer_new(c, &loop, KIND_REPLICASET);
	cfg.pods = informer_new(c, &loop, KIND_POD);
	cfg.nodes = informer_new(c, &loop, KIND_NODE);
	assert_non_null(cfg.deploys);
	assert_int_equal(client_fake_watches(c), 4);
	assert_string_equal(
	    client_fake_request(c, 1)->query,
	    "watch=true&allowWatchBookmarks=true&resourceVersion=5");
	d = ctl_deploy_start(&cfg);
	assert_non_null(d);

	ev = deployment_event();
	assert_int_equal(client_fake_emit(c, "/apis/apps/v1/deployments", ev),
			 1);
	json_decref(ev);
	assert_int_equal(informer_count(cfg.deploys), 1);
	uv_run(&loop, UV_RUN_NOWAIT); /* the queue syncs web */

	/* The new ReplicaSet: owned by web, 2 replicas at once (a new
	 * Deployment has no old pods to keep available). */
	assert_int_equal(client_fake_count_of(c, "POST", RS_PATH), 1);
	rs = client_fake_last(c, "POST", RS_PATH)->body;
	owner = json_array_get(
	    json_object_get(json_object_get(rs, "metadata"), "ownerReferences"),
	    0);
	assert_string_equal(json_string_value(json_object_get(owner, "kind")),
			    "Deployment");
	assert_string_equal(json_string_value(json_object_get(owner, "name")),
			    "web");
	assert_true(json_is_true(json_object_get(owner, "controller")));
	assert_non_null(json_string_value(json_object_get(
	    json_object_get(json_object_get(rs, "metadata"), "labels"),
	    "pod-template-hash")));
	assert_int_equal(json_integer_value(json_object_get(
			     json_object_get(rs, "spec"), "replicas")),
			 2);
	/* And the Deployment's status, through its subresource. */
	snprintf(path, sizeof(path),
		 "/apis/apps/v1/namespaces/default/deployments/web/status");
	rq = client_fake_last(c, "PUT", path);
	assert_non_null(rq);
	assert_non_null(json_object_get(rq->body, "status"));

	ctl_deploy_stop(d);
	informer_free(cfg.deploys);
	informer_free(cfg.rss);
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
	    cmocka_unit_test(test_new_deployment_gets_a_replicaset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
