/* test_expand.c - $(VAR) expansion, with cases from Kubernetes'
 * expansion_test.go. */
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

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

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_expand_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
