/* test_expand.c - $(VAR) expansion, with cases from Kubernetes'
 * expansion_test.go, and the downward-API values of env fieldRefs. */
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "downward.h"
#include "expand.h"
#include "fixture.h"

static void
test_expand_table(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
	    {"$(VAR_A)", "A"},
	    {"___$(VAR_B)___", "___B___"},
	    {"$(VAR_A)-$(VAR_A)", "A-A"},
	    {"$(VAR_A)$(VAR_B)", "AB"},
	    {"f000-$$VAR_A", "f000-$VAR_A"},
	    {"foo\\\\$(VAR_C)bar", "foo\\\\Cbar"},
	    {"$$(VAR_B)_$(VAR_A)", "$(VAR_B)_A"},
	    {"$(VAR_DNE)", "$(VAR_DNE)"},
	    {"$(VAR_A", "$(VAR_A"},
	    {"$VAR_A", "$VAR_A"},
	    {"$()", "$()"},
	    {"$", "$"},
	    {"$$$$$$(BIG_MONEY)", "$$$(BIG_MONEY)"},
	    {"--port=$(PORT)", "--port=8080"},
	    {"$(EMPTY)x", "x"},
	    {"", ""},
	};
	struct strmap vars = {0};
	size_t i;

	(void)state;
	strmap_set(&vars, "VAR_A", "A");
	strmap_set(&vars, "VAR_B", "B");
	strmap_set(&vars, "VAR_C", "C");
	strmap_set(&vars, "PORT", "8080");
	strmap_set(&vars, "EMPTY", "");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf sb = STRBUF_INIT;

		expand_vars(cases[i].in, &vars, &sb);
		if (strcmp(sb.buf, cases[i].want))
			fail_msg("%s: got %s want %s", cases[i].in, sb.buf,
				 cases[i].want);
		strbuf_release(&sb);
	}
	strmap_release(&vars);
}

/* The kubelet's podFieldSelectorRuntimeValue / ExtractFieldPathAsString. */
static void
test_downward_values(void **state)
{
	static const struct {
		const char *path, *want;
	} cases[] = {
	    {"metadata.name", "web-1"},
	    {"metadata.namespace", "shop"},
	    {"metadata.uid", "u-1"},
	    {"metadata.labels['app']", "web"},
	    {"metadata.labels['tier']", ""},
	    {"metadata.annotations['example.com/team']", "core"},
	    {"metadata.annotations['Example.com/team']", ""},
	    {"spec.nodeName", "node-a"},
	    {"spec.host", "node-a"},
	    {"spec.serviceAccountName", "default"},
	    {"status.podIP", "127.0.0.1"},
	    {"status.podIPs", "127.0.0.1"},
	    {"status.hostIP", "127.0.0.1"},
	    {"status.hostIPs", "127.0.0.1"},
	};
	struct pod p = {0};
	char base[64], key[64];
	size_t i;

	(void)state;
	p.metadata.name = "web-1";
	p.metadata.namespace = "shop";
	p.metadata.uid = "u-1";
	strmap_set(&p.metadata.labels, "app", "web");
	strmap_set(&p.metadata.annotations, "example.com/team", "core");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = downward_env_value(&p, cases[i].path,
						     "node-a", "127.0.0.1");

		if (strcmp(got, cases[i].want))
			fail_msg("%s: got \"%s\" want \"%s\"", cases[i].path,
				 got, cases[i].want);
	}
	assert_true(downward_split("metadata.labels['a.b/c']", base,
				   sizeof(base), key, sizeof(key)));
	assert_string_equal(base, "metadata.labels");
	assert_string_equal(key, "a.b/c");
	assert_false(downward_split("metadata.labels", base, sizeof(base), key,
				    sizeof(key)));
	assert_false(
	    downward_split("['x']", base, sizeof(base), key, sizeof(key)));
	strmap_release(&p.metadata.labels);
	strmap_release(&p.metadata.annotations);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_expand_table),
	    cmocka_unit_test(test_downward_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
