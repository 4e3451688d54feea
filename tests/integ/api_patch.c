/* api_patch.c - the strategic merge patch merges each list by the merge
 * key its schema declares (containers and env by name, ports by
 * containerPort, conditions by type), replaces lists without one
 * (tolerations), honours {"$patch": "delete"} and "replace", and leaves
 * a merge patch (RFC 7386) replacing every list; the two-way patch the
 * agent makes of a status gives the new status back. A JSON patch stays
 * within kube-apiserver's bounds (10,000 operations, 3 MiB copied):
 * copies of /metadata into itself stop at the first that passes the
 * limit, quickly, and leave the target as it was; malformed patches get
 * Go's decoding errors; copies and moves share nothing that a later
 * operation changes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "diff.h"
#include "kinds.h"
#include "patch.h"

static json_t *
parse(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);

	if (j == NULL)
		fail_msg("bad JSON in the test: %s", e.text);
	return j;
}

/* Strategic merge of patch into target under kind id's schema, compared
 * with want. */
static void
check(enum kind_id id, const char *target, const char *patch, const char *want)
{
	json_t *t = parse(target), *p = parse(patch), *w = parse(want), *got;
	char err[256] = "";

	got = patch_strategic(t, p, kind_by_id(id)->schema, err, sizeof(err));
	assert_non_null(got);
	if (!json_equal(got, w)) {
		char *g = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS);

		fail_msg("got %s, want %s", g, want);
	}
	json_decref(t);
	json_decref(p);
	json_decref(w);
	json_decref(got);
}

static void
test_containers_by_name_ports_by_container_port(void **state)
{
	(void)state;
	check(KIND_POD,
	      "{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"x\","
	      "\"ports\":[{\"containerPort\":80,\"name\":\"http\"},"
	      "{\"containerPort\":443}]},{\"name\":\"b\"}]}}",
	      "{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"y\","
	      "\"ports\":[{\"containerPort\":80,\"name\":\"web\"}]},"
	      "{\"name\":\"b\",\"$patch\":\"delete\"},{\"name\":\"c\"}]}}",
	      "{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"y\","
	      "\"ports\":[{\"containerPort\":80,\"name\":\"web\"},"
	      "{\"containerPort\":443}]},{\"name\":\"c\"}]}}");
}

static void
test_env_in_a_deployment_template(void **state)
{
	(void)state;
	check(KIND_DEPLOYMENT,
	      "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":"
	      "\"a\",\"env\":[{\"name\":\"X\",\"value\":\"1\"},{\"name\":"
	      "\"Y\",\"value\":\"2\"}]}]}}}}",
	      "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":"
	      "\"a\",\"env\":[{\"name\":\"Y\",\"value\":\"3\"}]}]}}}}",
	      "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":"
	      "\"a\",\"env\":[{\"name\":\"X\",\"value\":\"1\"},{\"name\":"
	      "\"Y\",\"value\":\"3\"}]}]}}}}");
}

static void
test_conditions_by_type(void **state)
{
	(void)state;
	check(KIND_DEPLOYMENT,
	      "{\"status\":{\"conditions\":[{\"type\":\"Available\","
	      "\"status\":\"True\"},{\"type\":\"Progressing\",\"status\":"
	      "\"True\"}]}}",
	      "{\"status\":{\"conditions\":[{\"type\":\"Progressing\","
	      "\"status\":\"False\"}]}}",
	      "{\"status\":{\"conditions\":[{\"type\":\"Available\","
	      "\"status\":\"True\"},{\"type\":\"Progressing\",\"status\":"
	      "\"False\"}]}}");
}

static void
test_lists_without_a_key_are_replaced(void **state)
{
	(void)state;
	check(KIND_POD,
	      "{\"spec\":{\"tolerations\":[{\"key\":\"a\"},{\"key\":\"b\"}]}}",
	      "{\"spec\":{\"tolerations\":[{\"key\":\"c\"}]}}",
	      "{\"spec\":{\"tolerations\":[{\"key\":\"c\"}]}}");
	/* a keyed list replaced on request */
	check(KIND_POD,
	      "{\"spec\":{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}]}}",
	      "{\"spec\":{\"containers\":[{\"name\":\"c\"},"
	      "{\"$patch\":\"replace\"}]}}",
	      "{\"spec\":{\"containers\":[{\"name\":\"c\"}]}}");
}

static void
test_merge_patch_replaces_lists(void **state)
{
	json_t *t = parse("{\"spec\":{\"containers\":[{\"name\":\"a\"},"
			  "{\"name\":\"b\"}]}}"),
	       *p = parse("{\"spec\":{\"containers\":[{\"name\":\"b\"}]}}"),
	       *got;

	(void)state;
	got = patch_merge(t, p);
	assert_true(json_equal(got, p));
	json_decref(t);
	json_decref(p);
	json_decref(got);
}

/* The agent's status patches (codec_two_way_patch) applied by the
 * server's strategic merge give back the new status: for each pair,
 * patch_strategic(orig, diff(orig, mod)) == mod. */
static void
test_two_way_patch_round_trips(void **state)
{
	static const char *const pairs[][2] = {
	    {"{\"phase\":\"Pending\",\"conditions\":[{\"type\":"
	     "\"Initialized\",\"status\":\"True\"},{\"type\":\"Ready\","
	     "\"status\":\"False\",\"reason\":\"ContainersNotReady\"}]}",
	     "{\"phase\":\"Running\",\"conditions\":[{\"type\":"
	     "\"Initialized\",\"status\":\"True\"},{\"type\":\"Ready\","
	     "\"status\":\"True\"},{\"type\":\"ContainersReady\","
	     "\"status\":\"True\"}],\"containerStatuses\":[{\"name\":"
	     "\"web\",\"ready\":true,\"restartCount\":0}]}"},
	    {"{\"conditions\":[{\"type\":\"A\"},{\"type\":\"B\"},"
	     "{\"type\":\"C\"}],\"message\":\"m\"}",
	     "{\"conditions\":[{\"type\":\"C\"},{\"type\":\"A\"}]}"},
	    {"{\"conditions\":[{\"type\":\"A\",\"status\":\"True\"},"
	     "{\"type\":\"B\"}]}",
	     "{\"conditions\":[{\"type\":\"B\"},{\"type\":\"D\"}]}"},
	    {"{}", "{\"podIPs\":[{\"ip\":\"127.0.0.1\"}]}"},
	};
	const struct schema *s = kind_by_id(KIND_POD)->schema;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		json_t *o = json_pack("{so}", "status", parse(pairs[i][0]));
		json_t *m = json_pack("{so}", "status", parse(pairs[i][1]));
		json_t *d = codec_two_way_patch(o, m, s), *got;
		char err[256] = "";

		got = patch_strategic(o, d, s, err, sizeof(err));
		assert_non_null(got);
		if (!json_equal(got, m)) {
			char *g = json_dumps(got, JSON_COMPACT);
			char *p = json_dumps(d, JSON_COMPACT);

			fail_msg("pair %zu: patch %s gives %s", i, p, g);
		}
		json_decref(o);
		json_decref(m);
		json_decref(d);
		json_decref(got);
	}
}

/* A Deployment's object as a patch sees it: apiVersion, kind, metadata
 * with annotations, spec. */
static json_t *
deployment_doc(void)
{
	return parse("{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
		     "\"metadata\":{\"name\":\"web\",\"namespace\":"
		     "\"default\",\"uid\":\"8a1c5e0e-3c1f-4a5e-9a43-"
		     "1d2f0a9b7c11\",\"resourceVersion\":\"7\","
		     "\"generation\":1,\"creationTimestamp\":"
		     "\"2027-01-15T08:00:00Z\",\"annotations\":{\"n\":"
		     "\"0\"}},\"spec\":{\"replicas\":0,\"template\":"
		     "{\"spec\":{\"containers\":[{\"name\":\"c\","
		     "\"image\":\"i\"}]}}}}");
}

/* [{"op": "copy", "from": "/metadata", "path":
 * "/metadata/annotations/c<i>"} for i < n] */
static json_t *
copies(int n)
{
	json_t *ops = json_array();
	char path[64];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/metadata/annotations/c%d", i);
		json_array_append_new(ops, json_pack("{ssssss}", "op", "copy",
						     "from", "/metadata",
						     "path", path));
	}
	return ops;
}

static double
seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The patch: 18 copies of /metadata into its own annotations
 * (each doubles it; 185 MB in all). Refused at the copy that takes the
 * bytes copied past 3 MiB, with evanphx/json-patch's text and the sum
 * of the sizes copied, each as json.Marshal prints it; in well under a
 * millisecond a copy, as nothing is copied byte by byte; the target as
 * it was. */
static void
test_json_patch_copy_limit(void **state)
{
	json_t *t = deployment_doc(), *before = json_deep_copy(t), *ops, *doc,
	       *got;
	size_t want = 0;
	char err[512] = "", msg[512];
	int refusal = 0, i;
	double t0;

	(void)state;
	/* the bytes each copy adds, one copy at a time */
	doc = json_incref(t);
	for (i = 0; want <= PATCH_MAX_COPY_BYTES; i++) {
		json_t *all = copies(i + 1), *next;
		json_t *one = json_pack("[O]", json_array_get(all, (size_t)i));

		want += patch_json_size(json_object_get(doc, "metadata"));
		next = patch_json(doc, one, &refusal, err, sizeof(err));
		assert_non_null(next);
		json_decref(one);
		json_decref(all);
		json_decref(doc);
		doc = next;
	}
	json_decref(doc);
	assert_true(i < 18);
	ops = copies(18);
	t0 = seconds();
	got = patch_json(t, ops, &refusal, err, sizeof(err));
	assert_true(seconds() - t0 < 0.05);
	assert_null(got);
	assert_int_equal(refusal, PATCH_NOT_APPLIED);
	snprintf(msg, sizeof(msg),
		 "Unable to complete the copy, the accumulated size increase "
		 "of copy is %zu, exceeding the limit 3145728",
		 want);
	assert_string_equal(err, msg);
	assert_true(json_equal(t, before));
	/* one copy fewer than the refused one: applied, and what it made
	 * prints as json.Marshal's text of that length */
	json_decref(ops);
	ops = copies(i - 1);
	got = patch_json(t, ops, &refusal, err, sizeof(err));
	assert_non_null(got);
	{
		char *text = json_dumps(got, JSON_COMPACT);

		assert_int_equal(strlen(text), patch_json_size(got));
		free(text);
	}
	assert_true(json_equal(t, before));
	json_decref(got);
	json_decref(ops);
	json_decref(t);
	json_decref(before);
}

static void
check_refused(const char *ops_text, int want, const char *want_err)
{
	json_t *t = deployment_doc(), *ops = parse(ops_text);
	char err[512] = "";
	int refusal = 0;

	assert_null(patch_json(t, ops, &refusal, err, sizeof(err)));
	assert_int_equal(refusal, want);
	if (want_err)
		assert_string_equal(err, want_err);
	json_decref(t);
	json_decref(ops);
}

/* Kubernetes' other bounds and decoding errors: more than 10,000
 * operations is 413 (10,000 is fine); a patch that is not a list of
 * objects is 400 with json.Unmarshal's text; an operation that does not
 * apply is 422. */
static void
test_json_patch_refusals(void **state)
{
	json_t *t = deployment_doc(), *ops = json_array(), *got;
	char err[512] = "";
	int refusal = 0, i;

	(void)state;
	for (i = 0; i < PATCH_MAX_OPS; i++)
		json_array_append_new(ops, json_pack("{ssssss}", "op", "test",
						     "path", "/kind", "value",
						     "Deployment"));
	got = patch_json(t, ops, &refusal, err, sizeof(err));
	assert_non_null(got);
	json_decref(got);
	json_array_append_new(ops, json_pack("{ssssss}", "op", "test", "path",
					     "/kind", "value", "Deployment"));
	assert_null(patch_json(t, ops, &refusal, err, sizeof(err)));
	assert_int_equal(refusal, PATCH_TOO_MANY);
	assert_string_equal(err, "The allowed maximum operations in a JSON "
				 "patch is 10000, got 10001");
	json_decref(ops);
	json_decref(t);
	check_refused("{\"op\":\"add\"}", PATCH_MALFORMED,
		      "json: cannot unmarshal object into Go value of type "
		      "jsonpatch.Patch");
	check_refused("[{\"op\":\"remove\",\"path\":\"/spec\"},1]",
		      PATCH_MALFORMED,
		      "json: cannot unmarshal number into Go value of type "
		      "jsonpatch.Operation");
	check_refused(
	    "[{\"op\":\"test\",\"path\":\"/kind\",\"value\":\"Pod\"}]",
	    PATCH_NOT_APPLIED, NULL);
	check_refused("[{\"op\":\"move\",\"from\":\"/metadata\",\"path\":"
		      "\"/metadata/annotations/m\"}]",
		      PATCH_NOT_APPLIED, NULL);
	check_refused("[{\"op\":\"copy\",\"from\":\"/nothere\",\"path\":"
		      "\"/spec/x\"}]",
		      PATCH_NOT_APPLIED, NULL);
}

/* Copies and moves share their values until one is changed: a change
 * through one path never shows through another, nor in the target or
 * the patch. */
static void
test_json_patch_copy_on_write(void **state)
{
	json_t *t = deployment_doc(), *before = json_deep_copy(t);
	json_t *ops = parse(
	    "[{\"op\":\"copy\",\"from\":\"/spec\",\"path\":\"/spec2\"},"
	    "{\"op\":\"add\",\"path\":\"/spec2/template/spec/containers/0/"
	    "image\",\"value\":\"j\"},"
	    "{\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":"
	    "{\"a\":\"1\"}},"
	    "{\"op\":\"copy\",\"from\":\"/metadata/labels\",\"path\":"
	    "\"/spec/selector\"},"
	    "{\"op\":\"replace\",\"path\":\"/spec/selector/a\",\"value\":"
	    "\"2\"},"
	    "{\"op\":\"move\",\"from\":\"/spec2/replicas\",\"path\":"
	    "\"/spec/template/replicas\"},"
	    "{\"op\":\"remove\",\"path\":\"/metadata/annotations/n\"}]");
	json_t *ops_before = json_deep_copy(ops), *got,
	       *want =
		   parse("{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
			 "\"metadata\":{\"name\":\"web\",\"namespace\":"
			 "\"default\",\"uid\":\"8a1c5e0e-3c1f-4a5e-9a43-"
			 "1d2f0a9b7c11\",\"resourceVersion\":\"7\","
			 "\"generation\":1,\"creationTimestamp\":"
			 "\"2027-01-15T08:00:00Z\",\"annotations\":{},"
			 "\"labels\":{\"a\":\"1\"}},\"spec\":{\"replicas\":0,"
			 "\"template\":{\"spec\":{\"containers\":[{\"name\":"
			 "\"c\",\"image\":\"i\"}]},\"replicas\":0},"
			 "\"selector\":{\"a\":\"2\"}},\"spec2\":{\"template\":"
			 "{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":"
			 "\"j\"}]}}}}");
	char err[512] = "";
	int refusal = 0;

	(void)state;
	got = patch_json(t, ops, &refusal, err, sizeof(err));
	assert_non_null(got);
	if (!json_equal(got, want)) {
		char *g = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS);

		fail_msg("got %s", g);
	}
	assert_true(json_equal(t, before));
	assert_true(json_equal(ops, ops_before));
	json_decref(got);
	/* a merge patch, too, leaves its target as it was */
	json_decref(ops);
	ops = parse("{\"metadata\":{\"annotations\":{\"n\":null,\"m\":\"1\"}},"
		    "\"spec\":{\"replicas\":2}}");
	got = patch_merge(t, ops);
	assert_string_equal(
	    json_string_value(json_object_get(
		json_object_get(json_object_get(got, "metadata"),
				"annotations"),
		"m")),
	    "1");
	assert_true(json_equal(t, before));
	json_decref(got);
	json_decref(ops);
	json_decref(ops_before);
	json_decref(want);
	json_decref(before);
	json_decref(t);
}

/* What the copy limit counts: json.Marshal's length, which escapes <, >
 * and & as \u003c and the like, and control characters but \n, \r and
 * \t as \u00XX. */
static void
test_json_size_is_go_marshal_length(void **state)
{
	json_t *v =
	    json_pack("{s:s,s:[i,b,n,f],s:s}", "a<b>", "x&y\n\x01\"", "l",
		      (json_int_t)-12, 1, 0.5, "u", "\xe2\x80\xa8\xc3\xa9");
	/* {"a\u003cb\u003e":"x\u0026y\n\u0001\"","l":[-12,true,null,0.5],
	 *  "u":"\u2028é"} */
	const char *go = "{\"a\\u003cb\\u003e\":\"x\\u0026y\\n\\u0001\\\"\","
			 "\"l\":[-12,true,null,0.5],\"u\":\"\\u2028\xc3\xa9\"}";

	(void)state;
	assert_int_equal(patch_json_size(v), strlen(go));
	json_decref(v);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_containers_by_name_ports_by_container_port),
	    cmocka_unit_test(test_env_in_a_deployment_template),
	    cmocka_unit_test(test_conditions_by_type),
	    cmocka_unit_test(test_lists_without_a_key_are_replaced),
	    cmocka_unit_test(test_merge_patch_replaces_lists),
	    cmocka_unit_test(test_two_way_patch_round_trips),
	    cmocka_unit_test(test_json_patch_copy_limit),
	    cmocka_unit_test(test_json_patch_refusals),
	    cmocka_unit_test(test_json_patch_copy_on_write),
	    cmocka_unit_test(test_json_size_is_go_marshal_length),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
