/* test_ctstr.c - the constant-time comparison of the API token: equal,
 * different contents, prefixes either way, empty strings. */
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "ctstr.h"

static void
test_ct_streq_table(void **state)
{
	static const struct {
		const char *given, *secret;
		bool want;
	} cases[] = {
	    {"0123456789abcdef", "0123456789abcdef", true},
	    {"", "", true},
	    {"0123456789abcdeF", "0123456789abcdef", false},
	    {"x123456789abcdef", "0123456789abcdef", false},
	    {"0123456789abcde", "0123456789abcdef", false},
	    {"0123456789abcdef0", "0123456789abcdef", false},
	    {"", "0123456789abcdef", false},
	    {"0123456789abcdef", "", false},
	    /* A NUL byte past the end must not make a prefix match. */
	    {"abc", "abc\0def", true},
	    {"ab", "abc", false},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (ct_streq(cases[i].given, cases[i].secret) != cases[i].want)
			fail_msg("\"%s\" vs \"%s\": want %d", cases[i].given,
				 cases[i].secret, cases[i].want);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ct_streq_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
