/* api_patch.c - the strategic merge patch merges each list by the merge
 * key its schema declares (containers and env by name, ports by
 * containerPort, conditions by type), replaces lists without one
 * (tolerations), honours {"$patch": "delete"} and "replace", and leaves
 * a merge patch (RFC 7386) replacing every list; the two-way patch the
 * agent makes of a status gives the new status back. */
#include <stdlib.h>
#include <string.h>

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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
