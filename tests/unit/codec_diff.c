/* codec_diff.c - the two-way strategic merge patch (diff.h) of pod
 * statuses: nothing for equal statuses, only what changed, conditions by
 * "type" (changed, added, deleted), containerStatuses (no merge key, as
 * in Kubernetes) whole, removed members as null, a changed or reordered
 * keyed list with "$setElementOrder" (Kubernetes' CreateTwoWayMergePatch,
 * src/codec/smp.c), a keyed list whose elements lack their key whole
 * with "$patch": "replace". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "diff.h"
#include "kinds.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

struct diff_case {
	const char *name;
	const char *orig, *mod, *want;
};

static const struct diff_case cases[] = {
    {"equal statuses: empty patch",
     "{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\","
     "\"status\":\"True\"}]}",
     "{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\","
     "\"status\":\"True\"}]}",
     "{}"},
    {"a scalar changed", "{\"phase\":\"Pending\",\"podIP\":\"127.0.0.1\"}",
     "{\"phase\":\"Running\",\"podIP\":\"127.0.0.1\"}",
     "{\"phase\":\"Running\"}"},
    {"a member removed: null", "{\"phase\":\"Running\",\"reason\":\"X\"}",
     "{\"phase\":\"Running\"}", "{\"reason\":null}"},
    {"a member added", "{}", "{\"startTime\":\"2026-01-01T00:00:00Z\"}",
     "{\"startTime\":\"2026-01-01T00:00:00Z\"}"},
    {"one condition changed: that one, with its key",
     "{\"conditions\":[{\"type\":\"Initialized\",\"status\":\"True\"},"
     "{\"type\":\"Ready\",\"status\":\"False\",\"reason\":\"R\"}]}",
     "{\"conditions\":[{\"type\":\"Initialized\",\"status\":\"True\"},"
     "{\"type\":\"Ready\",\"status\":\"True\"}]}",
     "{\"$setElementOrder/conditions\":[{\"type\":\"Initialized\"},"
     "{\"type\":\"Ready\"}],"
     "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\","
     "\"reason\":null}]}"},
    {"a condition added at the end, one deleted",
     "{\"conditions\":[{\"type\":\"A\",\"status\":\"True\"},"
     "{\"type\":\"B\",\"status\":\"True\"}]}",
     "{\"conditions\":[{\"type\":\"B\",\"status\":\"True\"},"
     "{\"type\":\"C\",\"status\":\"False\"}]}",
     "{\"$setElementOrder/conditions\":[{\"type\":\"B\"},"
     "{\"type\":\"C\"}],"
     "\"conditions\":[{\"type\":\"C\",\"status\":\"False\"},"
     "{\"type\":\"A\",\"$patch\":\"delete\"}]}"},
    {"conditions reordered: only the order",
     "{\"conditions\":[{\"type\":\"A\"},{\"type\":\"B\"}]}",
     "{\"conditions\":[{\"type\":\"B\"},{\"type\":\"A\"}]}",
     "{\"$setElementOrder/conditions\":[{\"type\":\"B\"},"
     "{\"type\":\"A\"}]}"},
    {"a condition without its key: replaced whole",
     "{\"conditions\":[{\"type\":\"A\"}]}",
     "{\"conditions\":[{\"type\":\"A\"},{\"status\":\"True\"}]}",
     "{\"conditions\":[{\"type\":\"A\"},{\"status\":\"True\"},"
     "{\"$patch\":\"replace\"}]}"},
    {"containerStatuses have no merge key: whole",
     "{\"containerStatuses\":[{\"name\":\"a\",\"ready\":false},"
     "{\"name\":\"b\",\"ready\":true}]}",
     "{\"containerStatuses\":[{\"name\":\"a\",\"ready\":true},"
     "{\"name\":\"b\",\"ready\":true}]}",
     "{\"containerStatuses\":[{\"name\":\"a\",\"ready\":true},"
     "{\"name\":\"b\",\"ready\":true}]}"},
    {"podIPs by ip: unchanged", "{\"podIPs\":[{\"ip\":\"127.0.0.1\"}]}",
     "{\"podIPs\":[{\"ip\":\"127.0.0.1\"}]}", "{}"},
};

static json_t *
parse(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);

	if (j == NULL)
		fail_msg("bad JSON in the test: %s", e.text);
	return j;
}

static void
test_pod_status_patches(void **state)
{
	const struct schema *s = kind_status_schema(kind_by_id(KIND_POD));
	size_t i;

	(void)state;
	for (i = 0; i < NELEM(cases); i++) {
		json_t *o = parse(cases[i].orig), *m = parse(cases[i].mod);
		json_t *w = parse(cases[i].want), *o0 = json_deep_copy(o);
		json_t *got = codec_two_way_patch(o, m, s);

		if (!json_equal(got, w)) {
			char *g = json_dumps(got, JSON_COMPACT);

			fail_msg("%s: got %s, want %s", cases[i].name, g,
				 cases[i].want);
		}
		/* orig and mod are left as they were */
		if (!json_equal(o, o0))
			fail_msg("%s: orig modified", cases[i].name);
		json_decref(o0);
		json_decref(o);
		json_decref(m);
		json_decref(w);
		json_decref(got);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pod_status_patches),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
