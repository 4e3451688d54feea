/* codec_k8spb.c - Kubernetes' protobuf request bodies to JSON: the bodies
 * kubectl 1.33 sent for `kubectl create deployment pbweb --image=x
 * --port=8080 --replicas=3 -- sleep 100` and `kubectl create service
 * nodeport pbsvc --tcp=5678:8080 --tcp=99:98` (captured), an Eviction
 * and a DeleteOptions written field by field, a Pod and a Lease written
 * field by field (fields the hand-written tables of old did not have: a
 * probe, resources, volumes, tolerations, a MicroTime), a kind drover
 * reads only in JSON, and bodies that are not protobuf. Go writes every
 * non-pointer field, empty or not: the JSON leaves the empty ones out,
 * as Go's JSON with omitempty does, and keeps a pointer field's 0. The
 * JSON of each kind's body then decodes, defaults and validates as a
 * JSON body would (object_decode). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "k8spb.h"
#include "object.h"

#include "codec_k8spb_bodies.h"

static void
decodes_to(const unsigned char *body, size_t len, const char *want)
{
	json_t *v, *w = json_loads(want, 0, NULL);
	char err[300];

	assert_non_null(w);
	assert_int_equal(k8spb_decode(body, len, &v, err, sizeof(err)), 0);
	if (!json_equal(v, w)) {
		char *got = json_dumps(v, JSON_SORT_KEYS | JSON_COMPACT);

		fail_msg("got %s", got);
	}
	json_decref(v);
	json_decref(w);
}

static void
test_deployment(void **state)
{
	(void)state;
	decodes_to(
	    deployment_pb, sizeof(deployment_pb),
	    "{\"apiVersion\": \"apps/v1\", \"kind\": \"Deployment\","
	    " \"metadata\": {\"name\": \"pbweb\", \"labels\": {\"app\": "
	    "\"pbweb\"}},"
	    " \"spec\": {\"replicas\": 3, \"selector\": {\"matchLabels\": "
	    "{\"app\": \"pbweb\"}}, \"strategy\": {},"
	    "  \"template\": {\"metadata\": {\"labels\": {\"app\": "
	    "\"pbweb\"}},"
	    "   \"spec\": {\"containers\": [{\"name\": \"x\", \"image\": "
	    "\"x\", \"command\": [\"sleep\", \"100\"],"
	    "    \"ports\": [{\"containerPort\": 8080}], \"resources\": "
	    "{}}]}}}}");
}

static void
test_service(void **state)
{
	(void)state;
	decodes_to(
	    service_pb, sizeof(service_pb),
	    "{\"apiVersion\": \"v1\", \"kind\": \"Service\","
	    " \"metadata\": {\"name\": \"pbsvc\", \"labels\": {\"app\": "
	    "\"pbsvc\"}},"
	    " \"spec\": {\"type\": \"NodePort\", \"selector\": {\"app\": "
	    "\"pbsvc\"}, \"ports\": ["
	    "  {\"name\": \"5678-8080\", \"protocol\": \"TCP\", \"port\": "
	    "5678, \"targetPort\": 8080},"
	    "  {\"name\": \"99-98\", \"protocol\": \"TCP\", \"port\": 99, "
	    "\"targetPort\": 98}]}}");
}

static void
test_eviction_and_delete_options(void **state)
{
	(void)state;
	/* gracePeriodSeconds is a pointer: its 0 is kept */
	decodes_to(
	    eviction_pb, sizeof(eviction_pb),
	    "{\"apiVersion\": \"policy/v1\", \"kind\": \"Eviction\","
	    " \"metadata\": {\"name\": \"web-1\", \"namespace\": "
	    "\"default\"},"
	    " \"deleteOptions\": {\"gracePeriodSeconds\": 0, \"dryRun\": "
	    "[\"All\"]}}");
	decodes_to(deleteoptions_pb, sizeof(deleteoptions_pb),
		   "{\"apiVersion\": \"v1\", \"kind\": \"DeleteOptions\","
		   " \"preconditions\": {\"uid\": \"u-1\"}, "
		   "\"orphanDependents\": false, \"propagationPolicy\": "
		   "\"Foreground\"}");
}

/* Read through the field tables: a probe (ProbeHandler embedded inline,
 * its zero timings left out as Go's JSON leaves them), resources and an
 * emptyDir's sizeLimit (Quantity messages), volumes, a security context
 * (repeated int64), tolerations (a pointer's 30); the status is not
 * read. */
static void
test_pod(void **state)
{
	(void)state;
	decodes_to(
	    pod_pb, sizeof(pod_pb),
	    "{\"apiVersion\": \"v1\", \"kind\": \"Pod\","
	    " \"metadata\": {\"name\": \"probed\", \"namespace\": "
	    "\"default\", \"labels\": {\"app\": \"probed\"}},"
	    " \"spec\": {"
	    "  \"volumes\": [{\"name\": \"scratch\", \"emptyDir\": "
	    "{\"sizeLimit\": \"1Gi\"}}],"
	    "  \"containers\": [{\"name\": \"web\", \"image\": \"web:1\","
	    "   \"ports\": [{\"containerPort\": 8080}],"
	    "   \"resources\": {\"limits\": {\"cpu\": \"500m\"},"
	    " \"requests\": {\"memory\": \"64Mi\"}},"
	    "   \"volumeMounts\": [{\"name\": \"scratch\", \"mountPath\": "
	    "\"/scratch\"}],"
	    "   \"readinessProbe\": {\"httpGet\": {\"path\": \"/healthz\", "
	    "\"port\": 8080}, \"periodSeconds\": 5},"
	    "   \"securityContext\": {\"runAsUser\": 1000}}],"
	    "  \"terminationGracePeriodSeconds\": 5,"
	    "  \"securityContext\": {\"supplementalGroups\": [5, 6]},"
	    "  \"tolerations\": [{\"key\": "
	    "\"node.kubernetes.io/unreachable\", \"operator\": \"Exists\","
	    " \"effect\": \"NoExecute\", \"tolerationSeconds\": 30}]}}");
}

/* A MicroTime keeps its microseconds. */
static void
test_lease(void **state)
{
	(void)state;
	decodes_to(lease_pb, sizeof(lease_pb),
		   "{\"apiVersion\": \"coordination.k8s.io/v1\", \"kind\": "
		   "\"Lease\","
		   " \"metadata\": {\"name\": \"ctl\", \"namespace\": "
		   "\"default\"},"
		   " \"spec\": {\"holderIdentity\": \"node-a\", "
		   "\"leaseDurationSeconds\": 15,"
		   "  \"renewTime\": \"2023-11-14T22:13:20.123456Z\", "
		   "\"leaseTransitions\": 2}}");
}

/* The JSON of a kind's body is what the JSON decoder reads: no unknown
 * field, no type error, and it defaults and validates. */
static void
json_decodes(const unsigned char *body, size_t len)
{
	struct fielderr_list errs = {0};
	struct object o = {0};
	struct strbuf sb = STRBUF_INIT;
	json_t *v;
	char err[300];
	size_t i;

	assert_int_equal(k8spb_decode(body, len, &v, err, sizeof(err)), 0);
	if (object_decode(v, true, &o, &errs) != 0) {
		for (i = 0; i < errs.n; i++) {
			fielderr_format(&errs.v[i], &sb);
			strbuf_addch(&sb, '\n');
		}
		fail_msg("%s", sb.buf);
	}
	object_release(&o);
	json_decref(v);
}

static void
test_json_decodes(void **state)
{
	(void)state;
	json_decodes(deployment_pb, sizeof(deployment_pb));
	json_decodes(service_pb, sizeof(service_pb));
	json_decodes(pod_pb, sizeof(pod_pb));
	json_decodes(lease_pb, sizeof(lease_pb));
}

static void
test_refusals(void **state)
{
	static const unsigned char not_k8s[] = {'{', '}'};
	static const unsigned char bad_unknown[] = {'k', '8', 's', 0, 0xff};
	json_t *v;
	char err[300];

	(void)state;
	assert_int_equal(k8spb_decode(configmap_pb, sizeof(configmap_pb), &v,
				      err, sizeof(err)),
			 1);
	assert_null(v);
	assert_non_null(strstr(err, "ConfigMap in protobuf"));
	assert_int_equal(
	    k8spb_decode(not_k8s, sizeof(not_k8s), &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "k8s"));
	assert_int_equal(k8spb_decode(bad_unknown, sizeof(bad_unknown), &v, err,
				      sizeof(err)),
			 -1);
	/* a truncated Deployment */
	assert_true(k8spb_decode(deployment_pb, sizeof(deployment_pb) - 9, &v,
				 err, sizeof(err)) != 0);
	assert_null(v);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_deployment),
	    cmocka_unit_test(test_service),
	    cmocka_unit_test(test_pod),
	    cmocka_unit_test(test_lease),
	    cmocka_unit_test(test_json_decodes),
	    cmocka_unit_test(test_eviction_and_delete_options),
	    cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
