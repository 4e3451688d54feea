/* ctl_deploy_fake.c - the Deployment controller's shell tested in C
 * against the recording fake client, as Kubernetes tests its controllers
 * against a fake clientset: the informers watch through the fake, the
 * test pushes a Deployment as a watch event, and the controller's sync on
 * the loop writes what plan_deploy decided: the new ReplicaSet (owned by
 * the Deployment, with its template's pod-template-hash) and the
 * Deployment's status. Nothing is stored: the writes are only recorded.
 * A pod's deletion wakes only the Recreate Deployment that owns it
 * through its ReplicaSet, never the other Deployments of the namespace.
 * A rolling sync that scales the old ReplicaSet down scales the new one
 * up in the same sync, without waiting for the event of its own write. */
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

#define RS_PATH     "/apis/apps/v1/namespaces/default/replicasets"
#define RS_PATH_ALL "/apis/apps/v1/replicasets"

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
	client_fake_answer_empty_list(c, KIND_DEPLOYMENT);
	client_fake_answer_empty_list(c, KIND_REPLICASET);
	client_fake_answer_empty_list(c, KIND_POD);
	client_fake_answer_empty_list(c, KIND_NODE);
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

/* A watch event of a JSON text with "%s" filled in (one string each). */
static json_t *
event(const char *fmt, ...)
{
	char text[2048];
	va_list ap;
	json_t *ev;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	ev = json_loads(text, 0, NULL);
	assert_non_null(ev);
	return ev;
}

static void
emit(struct client *c, const char *path, json_t *ev)
{
	assert_int_equal(client_fake_emit(c, path, ev), 1);
	json_decref(ev);
}

/* Deployment `name` (uid, strategy, image) whose status is stale
 * (observedGeneration 0 of generation 2): any sync of it writes. */
static json_t *
deploy_ev(const char *name, const char *uid, const char *strategy,
	  const char *image)
{
	return event(
	    "{\"type\": \"ADDED\", \"object\": {\"apiVersion\": \"apps/v1\","
	    "\"kind\": \"Deployment\", \"metadata\": {\"name\": \"%s\","
	    "\"namespace\": \"default\", \"uid\": \"%s\","
	    "\"resourceVersion\": \"9\", \"generation\": 2,"
	    "\"creationTimestamp\": \"2027-01-15T08:00:00Z\"},"
	    "\"spec\": {\"replicas\": 1, \"selector\": {\"matchLabels\":"
	    "{\"app\": \"%s\"}}, \"template\": {\"metadata\": {\"labels\":"
	    "{\"app\": \"%s\"}}, \"spec\": {\"containers\": [{\"name\": \"c\","
	    "\"image\": \"%s\"}]}}, \"strategy\": {\"type\": \"%s\"},"
	    "\"revisionHistoryLimit\": 10, \"progressDeadlineSeconds\": 600}}}",
	    name, uid, name, name, image, strategy);
}

/* ReplicaSet rs (uid) of Deployment d (d_uid) at `image`, scaled to
 * `replicas`. */
static json_t *
rs_ev(const char *rs, const char *uid, const char *d, const char *d_uid,
      const char *image, const char *replicas)
{
	return event(
	    "{\"type\": \"ADDED\", \"object\": {\"apiVersion\": \"apps/v1\","
	    "\"kind\": \"ReplicaSet\", \"metadata\": {\"name\": \"%s\","
	    "\"namespace\": \"default\", \"uid\": \"%s\","
	    "\"resourceVersion\": \"8\", \"labels\": {\"app\": \"%s\"},"
	    "\"annotations\": {\"deployment.kubernetes.io/revision\": \"1\"},"
	    "\"creationTimestamp\": \"2027-01-15T08:00:01Z\","
	    "\"ownerReferences\": [{\"apiVersion\": \"apps/v1\","
	    "\"kind\": \"Deployment\", \"name\": \"%s\", \"uid\": \"%s\","
	    "\"controller\": true, \"blockOwnerDeletion\": true}]},"
	    "\"spec\": {\"replicas\": %s, \"selector\": {\"matchLabels\":"
	    "{\"app\": \"%s\"}}, \"template\": {\"metadata\": {\"labels\":"
	    "{\"app\": \"%s\"}}, \"spec\": {\"containers\": [{\"name\": \"c\","
	    "\"image\": \"%s\"}]}}}, \"status\": {\"replicas\": %s}}}",
	    rs, uid, d, d, d_uid, replicas, d, d, image, replicas);
}

/* Pod `pod` of ReplicaSet rs (rs_uid), Running; type ADDED or DELETED. */
static json_t *
pod_ev(const char *type, const char *pod, const char *app, const char *rs,
       const char *rs_uid)
{
	return event(
	    "{\"type\": \"%s\", \"object\": {\"apiVersion\": \"v1\","
	    "\"kind\": \"Pod\", \"metadata\": {\"name\": \"%s\","
	    "\"namespace\": \"default\", \"uid\": \"%s-uid\","
	    "\"resourceVersion\": \"8\", \"labels\": {\"app\": \"%s\"},"
	    "\"ownerReferences\": [{\"apiVersion\": \"apps/v1\","
	    "\"kind\": \"ReplicaSet\", \"name\": \"%s\", \"uid\": \"%s\","
	    "\"controller\": true}]}, \"spec\": {\"containers\": [{\"name\":"
	    "\"c\", \"image\": \"x\"}]}, \"status\": {\"phase\": "
	    "\"Running\"}}}",
	    type, pod, pod, app, rs, rs_uid);
}

static void
test_pod_deletion_wakes_only_its_recreate_deployment(void **state)
{
	uv_loop_t loop;
	struct client *c;
	struct ctl_config cfg = {0};
	struct ctl_deploy *d;

	(void)state;
	uv_loop_init(&loop);
	c = client_fake_new(&loop);
	client_fake_echo_writes(c, true);
	cfg.loop = &loop;
	cfg.client = c;
	cfg.now = fixed_now;
	client_fake_answer_empty_list(c, KIND_DEPLOYMENT);
	client_fake_answer_empty_list(c, KIND_REPLICASET);
	client_fake_answer_empty_list(c, KIND_POD);
	cfg.deploys = informer_new(c, &loop, KIND_DEPLOYMENT);
	cfg.rss = informer_new(c, &loop, KIND_REPLICASET);
	cfg.pods = informer_new(c, &loop, KIND_POD);
	d = ctl_deploy_start(&cfg);
	assert_non_null(d);

	/* web (Recreate) moves from web:1 to web:2; its old ReplicaSet is
	 * at 0 but its pod still runs, so the new one must wait. api
	 * (RollingUpdate) is at its template already. */
	emit(c, RS_PATH_ALL,
	     rs_ev("web-1", "rs-web-1", "web", "d-web", "web:1", "0"));
	emit(c, RS_PATH_ALL,
	     rs_ev("api-1", "rs-api-1", "api", "d-api", "api:1", "1"));
	emit(c, "/api/v1/pods",
	     pod_ev("ADDED", "web-1-a", "web", "web-1", "rs-web-1"));
	emit(c, "/api/v1/pods",
	     pod_ev("ADDED", "api-1-a", "api", "api-1", "rs-api-1"));
	emit(c, "/apis/apps/v1/deployments",
	     deploy_ev("web", "d-web", "Recreate", "web:2"));
	emit(c, "/apis/apps/v1/deployments",
	     deploy_ev("api", "d-api", "RollingUpdate", "api:1"));
	uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(client_fake_count_of(c, "POST", RS_PATH), 0);

	/* api's pod goes: no Deployment syncs (each would write its stale
	 * status again), not even api, whose ReplicaSet replaces pods. */
	client_fake_clear(c);
	emit(c, "/api/v1/pods",
	     pod_ev("DELETED", "api-1-a", "api", "api-1", "rs-api-1"));
	uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(client_fake_count(c), 0);

	/* web's old pod goes: web syncs and starts its new ReplicaSet. */
	emit(c, "/api/v1/pods",
	     pod_ev("DELETED", "web-1-a", "web", "web-1", "rs-web-1"));
	uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(client_fake_count_of(c, "POST", RS_PATH), 1);
	assert_null(client_fake_last(
	    c, "PUT",
	    "/apis/apps/v1/namespaces/default/deployments/api/status"));

	ctl_deploy_stop(d);
	informer_free(cfg.deploys);
	informer_free(cfg.rss);
	informer_free(cfg.pods);
	c->ops->free(c);
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&loop), 0);
}

/* web, 4 replicas, maxSurge 1 and maxUnavailable 1, all 4 available on
 * web:1, moves to web:2. The first sync creates the new ReplicaSet at 1
 * (4 + 1 surge - 4) and scales the old one to 3 (4 available - 3 to
 * keep). Kubernetes would take the new one to 2 at once (5 - 3 - 1 + 1,
 * spec counts only), while the old one's 4 pods still exist; here it
 * waits until the old one's status says 3 (rs_surge_sum), then grows to
 * 2. The fake sends no events for writes: the status comes by hand. */
static void
test_rolling_sync_scales_up_once_its_scale_down_is_seen(void **state)
{
	uv_loop_t loop;
	struct client *c;
	struct ctl_config cfg = {0};
	struct ctl_deploy *d;
	const struct client_fake_request *rq;
	const char *new_rs = NULL;
	size_t i;
	int step = 0;

	(void)state;
	uv_loop_init(&loop);
	c = client_fake_new(&loop);
	client_fake_echo_writes(c, true);
	cfg.loop = &loop;
	cfg.client = c;
	cfg.now = fixed_now;
	client_fake_answer_empty_list(c, KIND_DEPLOYMENT);
	client_fake_answer_empty_list(c, KIND_REPLICASET);
	client_fake_answer_empty_list(c, KIND_POD);
	cfg.deploys = informer_new(c, &loop, KIND_DEPLOYMENT);
	cfg.rss = informer_new(c, &loop, KIND_REPLICASET);
	cfg.pods = informer_new(c, &loop, KIND_POD);
	d = ctl_deploy_start(&cfg);
	assert_non_null(d);

	emit(
	    c, RS_PATH_ALL,
	    event(
		"{\"type\": \"ADDED\", \"object\": {\"apiVersion\":"
		"\"apps/v1\", \"kind\": \"ReplicaSet\", \"metadata\": {"
		"\"name\": \"web-1\", \"namespace\": \"default\","
		"\"uid\": \"rs-web-1\", \"resourceVersion\": \"8\","
		"\"generation\": 1, \"labels\": {\"app\": \"web\"},"
		"\"annotations\": {\"deployment.kubernetes.io/revision\":"
		"\"1\"}, \"creationTimestamp\": \"2027-01-15T08:00:01Z\","
		"\"ownerReferences\": [{\"apiVersion\": \"apps/v1\","
		"\"kind\": \"Deployment\", \"name\": \"web\", \"uid\":"
		"\"d-web\", \"controller\": true, \"blockOwnerDeletion\":"
		"true}]}, \"spec\": {\"replicas\": 4, \"selector\":"
		"{\"matchLabels\": {\"app\": \"web\"}}, \"template\":"
		"{\"metadata\": {\"labels\": {\"app\": \"web\"}}, \"spec\":"
		"{\"containers\": [{\"name\": \"c\", \"image\": \"web:1\"}]}}},"
		"\"status\": {\"replicas\": 4, \"fullyLabeledReplicas\": 4,"
		"\"readyReplicas\": 4, \"availableReplicas\": 4,"
		"\"observedGeneration\": 1}}}"));
	emit(
	    c, "/apis/apps/v1/deployments",
	    event(
		"{\"type\": \"ADDED\", \"object\": {\"apiVersion\":"
		"\"apps/v1\", \"kind\": \"Deployment\", \"metadata\": {"
		"\"name\": \"web\", \"namespace\": \"default\", \"uid\":"
		"\"d-web\", \"resourceVersion\": \"9\", \"generation\": 2,"
		"\"annotations\": {\"deployment.kubernetes.io/revision\":"
		"\"1\"}, \"creationTimestamp\": \"2027-01-15T08:00:00Z\"},"
		"\"spec\": {\"replicas\": 4, \"selector\": {\"matchLabels\":"
		"{\"app\": \"web\"}}, \"template\": {\"metadata\": {\"labels\":"
		"{\"app\": \"web\"}}, \"spec\": {\"containers\": [{\"name\":"
		"\"c\", \"image\": \"web:2\"}]}}, \"strategy\": {\"type\":"
		"\"RollingUpdate\", \"rollingUpdate\": {\"maxSurge\": 1,"
		"\"maxUnavailable\": 1}}, \"revisionHistoryLimit\": 10,"
		"\"progressDeadlineSeconds\": 600}, \"status\": {"
		"\"observedGeneration\": 1, \"replicas\": 4,"
		"\"updatedReplicas\": 4, \"readyReplicas\": 4,"
		"\"availableReplicas\": 4}}}"));
	uv_run(&loop, UV_RUN_NOWAIT);
	/* new at 1, old at 3, and nothing more while the old has 4 pods */
	for (i = 0, step = 0; i < client_fake_count(c); i++) {
		rq = client_fake_request(c, i);
		step += !strncmp(rq->path, RS_PATH, strlen(RS_PATH)) &&
			!strstr(rq->path, "/status");
	}
	assert_int_equal(step, 2);
	step = 0;
	/* the watch shows the new ReplicaSet as created, then the old one
	 * with its pods down to 3 */
	for (i = 0; i < client_fake_count(c); i++) {
		json_t *o;

		rq = client_fake_request(c, i);
		if (strcmp(rq->method, "POST") ||
		    strncmp(rq->path, RS_PATH, strlen(RS_PATH)))
			continue;
		o = json_deep_copy(rq->body);
		json_object_set_new(json_object_get(o, "metadata"),
				    "resourceVersion", json_string("fake-1"));
		emit(c, RS_PATH_ALL,
		     json_pack("{ss so}", "type", "ADDED", "object", o));
	}
	emit(
	    c, RS_PATH_ALL,
	    event(
		"{\"type\": \"MODIFIED\", \"object\": {\"apiVersion\":"
		"\"apps/v1\", \"kind\": \"ReplicaSet\", \"metadata\": {"
		"\"name\": \"web-1\", \"namespace\": \"default\","
		"\"uid\": \"rs-web-1\", \"resourceVersion\": \"12\","
		"\"generation\": 2, \"labels\": {\"app\": \"web\"},"
		"\"annotations\": {\"deployment.kubernetes.io/revision\":"
		"\"1\"}, \"creationTimestamp\": \"2027-01-15T08:00:01Z\","
		"\"ownerReferences\": [{\"apiVersion\": \"apps/v1\","
		"\"kind\": \"Deployment\", \"name\": \"web\", \"uid\":"
		"\"d-web\", \"controller\": true, \"blockOwnerDeletion\":"
		"true}]}, \"spec\": {\"replicas\": 3, \"selector\":"
		"{\"matchLabels\": {\"app\": \"web\"}}, \"template\":"
		"{\"metadata\": {\"labels\": {\"app\": \"web\"}}, \"spec\":"
		"{\"containers\": [{\"name\": \"c\", \"image\": \"web:1\"}]}}},"
		"\"status\": {\"replicas\": 3, \"fullyLabeledReplicas\": 3,"
		"\"readyReplicas\": 3, \"availableReplicas\": 3,"
		"\"observedGeneration\": 2}}}"));
	uv_run(&loop, UV_RUN_NOWAIT);

	/* The ReplicaSet writes in order: new at 1, old at 3, new at 2. */
	for (i = 0; i < client_fake_count(c); i++) {
		const char *path;
		json_t *spec;

		rq = client_fake_request(c, i);
		path = rq->path;
		spec = json_object_get(rq->body, "spec");
		if (strncmp(path, RS_PATH, strlen(RS_PATH)) ||
		    strstr(path, "/status"))
			continue;
		if (step == 0) {
			assert_string_equal(rq->method, "POST");
			assert_int_equal(json_integer_value(
					     json_object_get(spec, "replicas")),
					 1);
			new_rs = json_string_value(json_object_get(
			    json_object_get(rq->body, "metadata"), "name"));
			assert_non_null(new_rs);
		} else if (step == 1) {
			assert_string_equal(rq->method, "PUT");
			assert_string_equal(path, RS_PATH "/web-1");
			assert_int_equal(json_integer_value(
					     json_object_get(spec, "replicas")),
					 3);
		} else if (step == 2) {
			char want[256];

			snprintf(want, sizeof(want), RS_PATH "/%s", new_rs);
			assert_string_equal(rq->method, "PUT");
			assert_string_equal(path, want);
			assert_int_equal(json_integer_value(
					     json_object_get(spec, "replicas")),
					 2);
			/* from the version the create was answered with */
			assert_string_equal(
			    json_string_value(json_object_get(
				json_object_get(rq->body, "metadata"),
				"resourceVersion")),
			    "fake-1");
		}
		step++;
	}
	assert_int_equal(step, 3);

	ctl_deploy_stop(d);
	informer_free(cfg.deploys);
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
	    cmocka_unit_test(test_new_deployment_gets_a_replicaset),
	    cmocka_unit_test(
		test_pod_deletion_wakes_only_its_recreate_deployment),
	    cmocka_unit_test(
		test_rolling_sync_scales_up_once_its_scale_down_is_seen),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
